-- The binding log (bindingLog): each period a vehicle had a terminal or a
-- driver, with who bound and unbound it and when. A vehicle has at most one
-- active binding of each kind, and a terminal is actively bound to at most
-- one vehicle.
create table vehicle_binding (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation when bound, for reach.
    org_id uuid not null,
    created_by uuid,
    vehicle_id uuid not null references vehicle (id),
    kind smallint not null,
    -- Terminal serial or driver id, by kind.
    target_id text not null,
    target_name text not null default '',
    terminal_sim text not null default '',
    bound_at timestamptz not null,
    bound_by_name text not null default '',
    unbound_at timestamptz,
    unbound_by uuid,
    unbound_by_name text not null default '',
    remark text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('vehicle_binding');
select manage_updated_at('vehicle_binding');

create unique index vehicle_binding_active_kind_key on vehicle_binding (vehicle_id, kind)
    where unbound_at is null;
create unique index vehicle_binding_active_terminal_key on vehicle_binding (target_id)
    where unbound_at is null and kind = 3;
create index vehicle_binding_newest_idx on vehicle_binding (enterprise_id, bound_at desc, id desc);
create index vehicle_binding_vehicle_idx on vehicle_binding (enterprise_id, vehicle_id, bound_at desc);
create index vehicle_binding_target_idx on vehicle_binding (enterprise_id, target_id, bound_at desc);
