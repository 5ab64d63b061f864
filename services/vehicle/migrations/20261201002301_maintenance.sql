-- Maintenance reminders (issue 23, fleetdesk-maintenance, carMaintenance):
-- service plans, one open reminder per (vehicle, plan), and the services
-- done. Each row keeps the organisation it is about, for reach: a plan the
-- organisation whose subtree it covers, a reminder and a record the
-- vehicle's. The due state is not stored: it depends on today and on the
-- vehicle's odometer (latest_position) and daily mileage (operation_day).

create table maintenance_plan (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    name text not null,
    -- MaintenanceKind.
    kind smallint not null,
    -- Only vehicles of this model (vehicle.model); '' = every model.
    vehicle_model text not null default '',
    interval_m bigint not null default 0,
    interval_months int not null default 0,
    soon_m bigint not null default 0,
    soon_days int not null default 0,
    -- Service items, a JSON array of strings.
    items jsonb not null default '[]',
    remark text not null default '',
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint maintenance_plan_name_key unique (enterprise_id, name),
    constraint maintenance_plan_interval_check check (
        interval_m >= 0 and interval_months >= 0 and (interval_m > 0 or interval_months > 0)
        and soon_m >= 0 and soon_days >= 0)
);

select enable_tenant_rls('maintenance_plan');
select manage_updated_at('maintenance_plan');

-- The plan list: newest first, and its organisation filter.
create index maintenance_plan_newest_idx on maintenance_plan (enterprise_id, created_at desc, id desc);
create index maintenance_plan_org_idx on maintenance_plan (enterprise_id, org_id, created_at desc);

-- A reminder is its vehicle's, not its opener's: no created_by, so reach
-- is by the vehicle's organisation alone.
create table maintenance_reminder (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    vehicle_id uuid not null references vehicle (id),
    -- No foreign key: a deleted plan's open reminders go with it
    -- (maintenance::plans), its completed ones stay beside their records.
    plan_id uuid not null,
    -- The service that opened this cycle; null for a cycle the plan opened.
    last_service_time timestamptz,
    last_service_odometer_m bigint,
    -- Where the cycle counts from (a Beijing day and an odometer): the
    -- service (reset), the previous due (keep) or the plan's start.
    base_date date not null,
    base_odometer_m bigint not null,
    -- base + the plan's interval (kept when the plan changes); null when
    -- the plan has no interval of that kind.
    due_odometer_m bigint,
    due_date date,
    -- Set when a service closed it; record_id names the service.
    completed_at timestamptz,
    record_id uuid,
    created_by_name text not null default '',
    updated_by_name text not null default '',
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now(),
    constraint maintenance_reminder_odometer_check check (base_odometer_m >= 0)
);

select enable_tenant_rls('maintenance_reminder');
select manage_updated_at('maintenance_reminder');

-- One open reminder per vehicle and plan.
create unique index maintenance_reminder_open_key on maintenance_reminder (vehicle_id, plan_id)
    where completed_at is null;
-- The list's filters (it reads the open reminders of a tenant, then orders
-- them by urgency, which moves with today and the odometer).
create index maintenance_reminder_open_idx on maintenance_reminder (enterprise_id, due_date, id)
    where completed_at is null;
create index maintenance_reminder_org_idx on maintenance_reminder (enterprise_id, org_id)
    where completed_at is null;
create index maintenance_reminder_plan_idx on maintenance_reminder (enterprise_id, plan_id);
create index maintenance_reminder_vehicle_idx on maintenance_reminder (enterprise_id, vehicle_id, plan_id);
create index maintenance_reminder_done_idx on maintenance_reminder (enterprise_id, completed_at desc, id desc)
    where completed_at is not null;

create table maintenance_record (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    reminder_id uuid not null references maintenance_reminder (id),
    -- The plan may be deleted later; its name stays on the record.
    plan_id uuid not null,
    plan_name text not null,
    vehicle_id uuid not null references vehicle (id),
    service_time timestamptz not null,
    service_odometer_m bigint not null,
    supplier text not null default '',
    cost_fen bigint not null default 0,
    items jsonb not null default '[]',
    remark text not null default '',
    -- MaintenanceSchedule: how the next reminder was scheduled.
    schedule smallint not null,
    repair_order_id text not null default '',
    created_by_name text not null default '',
    created_at timestamptz not null default now(),
    constraint maintenance_record_amounts_check check (cost_fen >= 0 and service_odometer_m >= 0)
);

select enable_tenant_rls('maintenance_record');

-- A reminder's history: the services of its vehicle and plan, newest first.
create index maintenance_record_history_idx on maintenance_record
    (enterprise_id, vehicle_id, plan_id, service_time desc, id desc);
