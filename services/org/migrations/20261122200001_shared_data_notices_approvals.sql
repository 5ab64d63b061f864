-- Shared data, notices, approvals, export records, help centre and the
-- sensitive-view audit (issue 5, items 6-8).

-- Dictionaries (getSimpleDictByType): operator data shared by every enterprise.
create table dict_entry (
    dict_type text not null,
    value text not null,
    label text not null,
    sort int not null default 0,
    -- 1 enabled, 2 disabled.
    status smallint not null default 1,
    primary key (dict_type, value)
);

-- Operating regions (type REGIONAL_LIST) and the operating cities below them
-- (type OPERATING_CITY, parent_code = the region): operator data. Cities carry
-- their GB/T 2260 code in area_code.
create table operating_area (
    type_code text not null,
    code text not null,
    parent_code text not null default '',
    name text not null,
    area_code text not null default '',
    sort int not null default 0,
    primary key (type_code, code)
);

-- Notices to the members of an enterprise; recipient_id null means everyone.
create table notice (
    id uuid primary key,
    enterprise_id uuid not null,
    recipient_id uuid,
    category text not null,
    title text not null,
    content text not null,
    published_at timestamptz not null default now()
);

create index notice_enterprise_idx on notice (enterprise_id, published_at desc);

-- Who has read which notice, and when.
create table notice_read (
    enterprise_id uuid not null,
    notice_id uuid not null references notice (id) on delete cascade,
    member_id uuid not null,
    read_at timestamptz not null default now(),
    primary key (notice_id, member_id)
);

-- Approvals: a small state machine (1 pending -> 2 approved | 3 rejected |
-- 4 withdrawn); every move is a row of approval_step.
create table approval (
    id uuid primary key,
    enterprise_id uuid not null,
    -- ApprovalKind of the contract: 1 vehicle allotment, 2 charge allocation, 3 refund, 4 invoice.
    kind smallint not null,
    title text not null,
    business_id text not null default '',
    applicant_id uuid,
    applicant_name text not null,
    applicant_phone text not null default '',
    plate_number text not null default '',
    status smallint not null default 1,
    detail jsonb not null default '{}',
    applied_at timestamptz not null default now(),
    decided_at timestamptz,
    updated_at timestamptz not null default now()
);

create index approval_enterprise_idx on approval (enterprise_id, status, applied_at desc);

create table approval_step (
    id uuid primary key,
    enterprise_id uuid not null,
    approval_id uuid not null references approval (id) on delete cascade,
    status smallint not null,
    operator_id uuid,
    operator_name text not null,
    comment text not null default '',
    created_at timestamptz not null default now()
);

create index approval_step_approval_idx on approval_step (approval_id, created_at);

-- Export records: request -> record -> file -> done. The job machinery fills
-- file_key, row_count and finished_at.
create table export_record (
    id uuid primary key,
    enterprise_id uuid not null,
    name text not null,
    module text not null,
    -- ExportStatus of the contract: 1 pending, 2 running, 3 succeeded, 4 failed, 5 expired.
    status smallint not null default 1,
    requested_by uuid,
    requested_by_name text not null default '',
    filters jsonb not null default '{}',
    row_count bigint not null default 0,
    file_key text not null default '',
    failure_reason text not null default '',
    created_at timestamptz not null default now(),
    finished_at timestamptz,
    expires_at timestamptz
);

create index export_record_enterprise_idx on export_record (enterprise_id, created_at desc);

-- Operation manual pages: operator data shared by every enterprise.
create table help_article (
    id uuid primary key,
    category text not null,
    title text not null,
    content_markdown text not null,
    sort int not null default 0,
    updated_at timestamptz not null default now()
);

create table feedback (
    id uuid primary key,
    enterprise_id uuid not null,
    member_id uuid,
    user_name text not null,
    content text not null,
    contact text not null default '',
    attachment_keys text[] not null default '{}',
    created_at timestamptz not null default now()
);

create index feedback_enterprise_idx on feedback (enterprise_id, created_at desc);

-- Personal data of members that is shown masked and revealed only through the
-- audited reveal call; images are object-store keys.
create table member_identity (
    member_id uuid primary key,
    enterprise_id uuid not null,
    id_number text not null default '',
    bank_card text not null default '',
    address text not null default '',
    id_front_key text not null default '',
    id_back_key text not null default '',
    licence_front_key text not null default '',
    licence_back_key text not null default '',
    id_photo_key text not null default '',
    licence_photo_key text not null default ''
);

-- The sensitive-view audit: one row per reveal, written in the same
-- transaction that reads the value.
create table sensitive_view_log (
    id uuid primary key,
    enterprise_id uuid not null,
    -- Spec §3: 1 phone, 2 ID number, 3 bank card, 4 ID front, 5 ID back,
    -- 6 licence front, 7 licence back, 8 address, 9 ID photo, 10 licence photo.
    sensitive_type smallint not null check (sensitive_type between 1 and 10),
    subject_kind smallint not null,
    subject_id uuid not null,
    log_content text not null,
    page_url text not null default '',
    source_module text not null default '',
    viewer_id uuid,
    viewer_name text not null default '',
    ip text not null default '',
    viewed_at timestamptz not null default now()
);

create index sensitive_view_log_enterprise_idx on sensitive_view_log (enterprise_id, viewed_at desc);

select enable_tenant_rls('notice');
select enable_tenant_rls('notice_read');
select enable_tenant_rls('approval');
select enable_tenant_rls('approval_step');
select enable_tenant_rls('export_record');
select enable_tenant_rls('feedback');
select enable_tenant_rls('member_identity');
select enable_tenant_rls('sensitive_view_log');
