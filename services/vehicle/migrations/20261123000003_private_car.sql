-- Employees' own cars registered for business use (addPrivateCar). Approval
-- creates the vehicle row (ownership PRIVATE) and links it here.
create table private_car (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    vehicle_id uuid references vehicle (id),
    plate_number text not null,
    plate_color smallint not null,
    vin text not null,
    brand text not null,
    model text not null,
    energy_type smallint not null,
    owner_driver_id uuid,
    owner_name text not null,
    owner_phone text not null,
    allowance_fen_per_km bigint not null default 0,
    status smallint not null,
    reject_reason text not null default '',
    reviewed_by uuid,
    reviewed_at timestamptz,
    licence_images jsonb not null default '[]',
    insurance_images jsonb not null default '[]',
    remark text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('private_car');
select manage_updated_at('private_car');

-- A plate is registered once while pending or approved (1, 2).
create unique index private_car_plate_key on private_car (enterprise_id, plate_number)
    where status in (1, 2);
create index private_car_newest_idx on private_car (enterprise_id, created_at desc, id desc);
create index private_car_org_idx on private_car (enterprise_id, org_id, created_at desc);
create index private_car_owner_trgm_idx on private_car using gin (owner_name public.gin_trgm_ops);
