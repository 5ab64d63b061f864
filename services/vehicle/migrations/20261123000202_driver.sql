-- Drivers (driverManagement). Phone and ID number are unique per enterprise;
-- the personal data (phone, ID number, address, licence and ID images) is
-- masked by the service and revealed only through the audited reveal.
create table driver (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    updated_by uuid,
    name text not null,
    phone text not null,
    id_number text not null,
    employee_no text not null default '',
    licence_class smallint not null,
    licence_first_issue_time timestamptz,
    licence_expire_time timestamptz,
    address text not null default '',
    -- Images: FileRef JSON objects ({name, key, contentType, sizeBytes}) or null.
    licence_front jsonb,
    licence_back jsonb,
    id_card_front jsonb,
    id_card_back jsonb,
    status smallint not null,
    hire_time timestamptz,
    remark text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint driver_phone_key unique (enterprise_id, phone),
    constraint driver_id_number_key unique (enterprise_id, id_number)
);

select enable_tenant_rls('driver');
select manage_updated_at('driver');

-- One index behind each filter and order of the list.
create index driver_newest_idx on driver (enterprise_id, created_at desc, id desc);
create index driver_org_newest_idx on driver (enterprise_id, org_id, created_at desc, id desc);
create index driver_creator_idx on driver (enterprise_id, created_by);
create index driver_licence_expire_idx on driver (enterprise_id, licence_expire_time, id);
create index driver_name_trgm_idx on driver using gin (name public.gin_trgm_ops);
