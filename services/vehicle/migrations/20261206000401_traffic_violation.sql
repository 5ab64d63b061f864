-- Traffic violations (issue 23, fleetdesk-maintenance::violations,
-- trafficViolations): what the traffic authority recorded against a vehicle,
-- fetched daily or imported. The authority's decision number is unique per
-- enterprise, so a violation fetched or imported twice stays one row. The
-- responsible driver is found once, from the usage record and driver binding
-- valid at the violation's time, and may be re-assigned by an operator.

create table traffic_violation (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation, for reach.
    org_id uuid not null,
    vehicle_id uuid not null references vehicle (id),
    plate_number text not null,
    decision_no text not null,
    violation_time timestamptz not null,
    address text not null default '',
    -- WGS-84, when the authority gives a point.
    lng double precision,
    lat double precision,
    city_code text not null default '',
    offence_code text not null,
    description text not null default '',
    fine_fen bigint not null,
    penalty_points int not null,
    authority text not null default '',
    -- ViolationSource: 1 fetched, 2 imported.
    source smallint not null,
    -- No foreign key: a driver's row may go, the violation stays with its name.
    driver_id uuid,
    driver_name text not null default '',
    -- Set by an operator's assignment (else found from the records).
    driver_assigned boolean not null default false,
    -- ViolationStatus: 1 unhandled, 3 handled, 4 paid.
    state smallint not null default 1,
    handled_by uuid,
    handled_by_name text not null default '',
    handled_at timestamptz,
    paid_by uuid,
    paid_by_name text not null default '',
    paid_at timestamptz,
    receipts jsonb not null default '[]',
    remark text not null default '',
    synced_at timestamptz not null default now(),
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint traffic_violation_decision_key unique (enterprise_id, decision_no),
    constraint traffic_violation_amount_check check (fine_fen >= 0 and penalty_points >= 0),
    constraint traffic_violation_state_check check (state in (1, 3, 4)
        and (state = 1 or handled_at is not null) and (state <> 4 or paid_at is not null))
);

select enable_tenant_rls('traffic_violation');
select manage_updated_at('traffic_violation');

-- The list's order (newest violation first) and each of its filters.
create index traffic_violation_newest_idx
    on traffic_violation (enterprise_id, violation_time desc, id desc);
create index traffic_violation_state_idx
    on traffic_violation (enterprise_id, state, violation_time desc, id desc);
create index traffic_violation_org_idx
    on traffic_violation (enterprise_id, org_id, violation_time desc, id desc);
create index traffic_violation_plate_idx
    on traffic_violation (enterprise_id, plate_number, violation_time desc);
create index traffic_violation_driver_idx
    on traffic_violation (enterprise_id, driver_id, violation_time desc);
create index traffic_violation_vehicle_idx
    on traffic_violation (enterprise_id, vehicle_id, violation_time desc);

-- The fetch job's own record of each enterprise's last round (once a day).
create table traffic_violation_sync (
    enterprise_id uuid primary key,
    synced_on date not null,
    fetched int not null default 0,
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('traffic_violation_sync');
select manage_updated_at('traffic_violation_sync');
