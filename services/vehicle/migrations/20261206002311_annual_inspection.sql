-- Annual inspections (issue 23, fleetdesk-maintenance::inspections,
-- drivingLicense): one state row per vehicle (its schedule class and the
-- day its inspection falls due) and the history of recorded inspections.
-- The due state is not stored: overdue, due soon and valid are ranges of
-- due_date around today, so each is a range scan of the list's indexes.
-- A vehicle's row is opened from its registration (inspections::store::open)
-- the first time a list, detail or record needs it.

create table annual_inspection (
    id uuid primary key,
    enterprise_id uuid not null,
    -- The vehicle's organisation, for reach (kept in step when it moves).
    org_id uuid not null,
    vehicle_id uuid not null references vehicle (id) on delete cascade,
    -- InspectionClass: 1 goods, 2 operating passenger, 3 large passenger,
    -- 4 small passenger. Our vehicle table holds no use nature (营运/非营运):
    -- opened from the body category, changed by a record that names it.
    inspection_class smallint not null,
    -- The last day the inspection is valid (Beijing); null when neither the
    -- registration nor a licence stamp is known.
    due_date date,
    last_inspected_at timestamptz,
    -- InspectionResult: 1 passed, 2 failed.
    last_result smallint,
    last_station text not null default '',
    last_odometer_m bigint not null default 0,
    last_cost_fen bigint not null default 0,
    last_images jsonb not null default '[]',
    last_remark text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint annual_inspection_vehicle_key unique (enterprise_id, vehicle_id),
    constraint annual_inspection_class_check check (inspection_class between 1 and 4),
    constraint annual_inspection_result_check check (last_result in (1, 2))
);

select enable_tenant_rls('annual_inspection');
select manage_updated_at('annual_inspection');

-- The list's order (soonest due first) and its state and due-date filters,
-- for the tenant and for an organisation (reach, organisation filter).
create index annual_inspection_due_idx on annual_inspection (enterprise_id, due_date, id);
create index annual_inspection_org_due_idx
    on annual_inspection (enterprise_id, org_id, due_date, id);

create table annual_inspection_record (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    vehicle_id uuid not null references vehicle (id) on delete cascade,
    inspected_at timestamptz not null,
    result smallint not null,
    station_name text not null default '',
    odometer_m bigint not null default 0,
    cost_fen bigint not null default 0,
    images jsonb not null default '[]',
    remark text not null default '',
    -- The due date before and after the record (a failed one keeps it).
    previous_due_date date,
    due_date date,
    operator_id uuid,
    operator_name text not null default '',
    created_at timestamptz not null default now(),
    constraint annual_inspection_record_result_check check (result in (1, 2)),
    constraint annual_inspection_record_amount_check check (odometer_m >= 0 and cost_fen >= 0)
);

select enable_tenant_rls('annual_inspection_record');

-- A vehicle's history, newest first (the detail).
create index annual_inspection_record_vehicle_idx
    on annual_inspection_record (enterprise_id, vehicle_id, inspected_at desc, id desc);
