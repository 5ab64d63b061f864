-- Customer enterprises: the tenants.
create table enterprise (
    id uuid primary key,
    name text not null,
    code text not null,
    -- 1 enabled, 2 disabled.
    status smallint not null default 1,
    credit_code text not null default '',
    contact_name text not null default '',
    contact_phone text not null default '',
    wecom_corp_id text,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint enterprise_code_key unique (code),
    constraint enterprise_wecom_corp_id_key unique (wecom_corp_id)
);

-- Enterprise id lists that switch product behaviour (console spec §6); operator data.
create table enterprise_list_entry (
    list_type smallint not null,
    enterprise_id uuid not null references enterprise (id),
    created_at timestamptz not null default now(),
    primary key (list_type, enterprise_id)
);

-- The permission catalogue, synchronised from the service's permissions.json.
create table permission (
    value text primary key,
    label_zh text not null,
    label_en text not null,
    label_ja text not null
);

-- Multi-level organisation tree of an enterprise.
create table org_unit (
    id uuid primary key,
    enterprise_id uuid not null references enterprise (id),
    parent_id uuid references org_unit (id),
    org_code text not null,
    name text not null,
    level int not null,
    sort int not null default 0,
    status smallint not null default 1,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint org_unit_code_key unique (enterprise_id, org_code)
);

create index org_unit_parent_idx on org_unit (enterprise_id, parent_id);

-- Roles: function permissions plus a data scope.
create table role (
    id uuid primary key,
    enterprise_id uuid not null references enterprise (id),
    name text not null,
    description text not null default '',
    -- DataScopeKind of the contract: 1 self, 2 org, 3 org subtree, 4 custom, 5 enterprise.
    data_scope_kind smallint not null default 5,
    data_scope_org_ids uuid[] not null default '{}',
    status smallint not null default 1,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint role_name_key unique (enterprise_id, name)
);

create table role_permission (
    enterprise_id uuid not null references enterprise (id),
    role_id uuid not null references role (id) on delete cascade,
    permission_value text not null references permission (value),
    primary key (role_id, permission_value)
);

-- Members of an enterprise: an auth account acting in this enterprise.
create table member (
    id uuid primary key,
    enterprise_id uuid not null references enterprise (id),
    account_id uuid not null,
    name text not null,
    user_name text not null,
    phone text not null default '',
    org_id uuid references org_unit (id),
    avatar_url text not null default '',
    wecom_user_id text,
    status smallint not null default 1,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint member_account_key unique (enterprise_id, account_id),
    constraint member_user_name_key unique (enterprise_id, user_name)
);

create index member_account_idx on member (account_id);

create table member_role (
    enterprise_id uuid not null references enterprise (id),
    member_id uuid not null references member (id) on delete cascade,
    role_id uuid not null references role (id) on delete cascade,
    primary key (member_id, role_id)
);
