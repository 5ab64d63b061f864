-- Vehicle asset files (carFiles). Plate and VIN are unique per enterprise;
-- a terminal serial is fitted to at most one vehicle anywhere. Driver and
-- usage columns are copies kept by the drivers and usage modules so the list
-- filters and sorts on them with an index; the binding log and usage records
-- stay authoritative.
create extension if not exists pg_trgm schema public;

create table vehicle (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    updated_by uuid,
    plate_number text not null,
    plate_color smallint not null,
    vin text not null,
    engine_number text not null default '',
    brand text not null,
    model text not null,
    category smallint not null,
    energy_type smallint not null,
    body_color text not null default '',
    seat_count int not null default 0,
    rated_load_kg int not null default 0,
    curb_weight_kg int not null default 0,
    battery_capacity_wh bigint not null default 0,
    rated_range_km int not null default 0,
    ownership_type smallint not null,
    status smallint not null,
    register_time timestamptz,
    licence_owner text not null default '',
    licence_issue_time timestamptz,
    inspection_expire_time timestamptz,
    insurance_expire_time timestamptz,
    terminal_id text,
    terminal_sim text,
    terminal_bound_at timestamptz,
    driver_id uuid,
    driver_name text,
    usage_kind smallint,
    usage_status smallint,
    lease_start_time timestamptz,
    lease_end_time timestamptz,
    tags text[] not null default '{}',
    licence_images jsonb not null default '[]',
    remark text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint vehicle_plate_key unique (enterprise_id, plate_number),
    constraint vehicle_vin_key unique (enterprise_id, vin),
    constraint vehicle_terminal_key unique (terminal_id)
);

select enable_tenant_rls('vehicle');
select manage_updated_at('vehicle');

-- One index behind each filter and order of the list (kit::list).
create index vehicle_newest_idx on vehicle (enterprise_id, created_at desc, id desc);
create index vehicle_org_newest_idx on vehicle (enterprise_id, org_id, created_at desc, id desc);
create index vehicle_creator_idx on vehicle (enterprise_id, created_by);
create index vehicle_status_idx on vehicle (enterprise_id, status, created_at desc);
create index vehicle_usage_idx on vehicle (enterprise_id, usage_kind, created_at desc);
create index vehicle_register_idx on vehicle (enterprise_id, register_time desc nulls last, id desc);
create index vehicle_lease_end_idx on vehicle (enterprise_id, lease_end_time, id);
create index vehicle_plate_order_idx on vehicle (enterprise_id, plate_number, id);
create index vehicle_driver_idx on vehicle (enterprise_id, driver_id);
-- Contains-search (keyword over plate and VIN, brand, model).
create index vehicle_plate_trgm_idx on vehicle using gin (plate_number public.gin_trgm_ops);
create index vehicle_vin_trgm_idx on vehicle using gin (vin public.gin_trgm_ops);
create index vehicle_brand_trgm_idx on vehicle using gin (brand public.gin_trgm_ops);
create index vehicle_model_trgm_idx on vehicle using gin (model public.gin_trgm_ops);

-- Rows per (enterprise, organisation), kept by statement triggers, so the
-- unfiltered total under a reach is a sum over a few counter rows instead of
-- a count over 100,000 vehicles.
create table vehicle_org_count (
    enterprise_id uuid not null,
    org_id uuid not null,
    vehicles bigint not null,
    primary key (enterprise_id, org_id)
);

select enable_tenant_rls('vehicle_org_count');

create function vehicle_count_added() returns trigger
language plpgsql as $$
begin
    insert into vehicle_org_count (enterprise_id, org_id, vehicles)
    select enterprise_id, org_id, count(*) from added group by enterprise_id, org_id
    on conflict (enterprise_id, org_id)
    do update set vehicles = vehicle_org_count.vehicles + excluded.vehicles;
    return null;
end
$$;

create function vehicle_count_removed() returns trigger
language plpgsql as $$
begin
    update vehicle_org_count c set vehicles = c.vehicles - r.n
    from (select enterprise_id, org_id, count(*) as n from removed
          group by enterprise_id, org_id) r
    where c.enterprise_id = r.enterprise_id and c.org_id = r.org_id;
    return null;
end
$$;

create trigger vehicle_count_insert after insert on vehicle
referencing new table as added for each statement execute function vehicle_count_added();
create trigger vehicle_count_delete after delete on vehicle
referencing old table as removed for each statement execute function vehicle_count_removed();
-- A moved vehicle leaves one count and joins another.
create trigger vehicle_count_update_old after update on vehicle
referencing old table as removed for each statement execute function vehicle_count_removed();
create trigger vehicle_count_update_new after update on vehicle
referencing new table as added for each statement execute function vehicle_count_added();
