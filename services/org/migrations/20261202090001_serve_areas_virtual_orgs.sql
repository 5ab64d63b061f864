-- The shared lookups of console spec §7 (serve organisations, serve areas,
-- companies, virtual organisations).

-- The cities an organisation serves (服务区域): GB/T 2260 prefecture-level
-- codes. An organisation with at least one row is a serve organisation.
create table org_unit_area (
    enterprise_id uuid not null references enterprise (id),
    org_id uuid not null references org_unit (id) on delete cascade,
    city_code text not null,
    sort int not null default 0,
    created_at timestamptz not null default now(),
    primary key (org_id, city_code)
);

create index org_unit_area_enterprise_idx on org_unit_area (enterprise_id, city_code);

select enable_tenant_rls('org_unit_area');

-- A unit that is a company of its own (a subsidiary, a legal entity). The
-- root is the enterprise itself and always a company.
alter table org_unit add column is_company boolean not null default false;

-- Virtual organisations (虚拟组织): a named grouping of units across the
-- tree, e.g. the branches one account manager looks after.
create table virtual_org (
    id uuid primary key,
    enterprise_id uuid not null references enterprise (id),
    code text not null,
    name text not null,
    sort int not null default 0,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint virtual_org_code_key unique (enterprise_id, code)
);

create index virtual_org_enterprise_idx on virtual_org (enterprise_id, sort, code);

create table virtual_org_unit (
    enterprise_id uuid not null references enterprise (id),
    virtual_org_id uuid not null references virtual_org (id) on delete cascade,
    org_id uuid not null references org_unit (id) on delete cascade,
    sort int not null default 0,
    primary key (virtual_org_id, org_id)
);

create index virtual_org_unit_enterprise_idx on virtual_org_unit (enterprise_id);

select enable_tenant_rls('virtual_org');
select enable_tenant_rls('virtual_org_unit');
