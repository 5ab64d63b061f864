-- The operation log (issue 21, assetsReport: dailyLog, monthlyLog): one row
-- per vehicle and Beijing day and per vehicle and month, kept up to date by
-- ingest in the transaction of the fixes they count (operation::store), so
-- a list never scans the history. A day keeps its minute slots (online,
-- moving: 1,440 bits each) and odometer extremes, so a late fix merges into
-- it exactly; its month moves by the day's difference.

create table operation_day (
    vehicle_id uuid not null,
    -- The Beijing calendar day.
    day date not null,
    enterprise_id uuid not null,
    moving bytea not null,
    online bytea not null,
    min_odometer_m bigint,
    max_odometer_m bigint,
    max_speed_dkmh int not null default 0,
    mileage_m bigint not null default 0,
    driving_s bigint not null default 0,
    online_s bigint not null default 0,
    idle_s bigint not null default 0,
    trip_count int not null default 0,
    first_start_at timestamptz,
    last_stop_at timestamptz,
    primary key (vehicle_id, day)
);

create index operation_day_list on operation_day (enterprise_id, day desc, vehicle_id);

select enable_tenant_rls('operation_day');

create table operation_month (
    vehicle_id uuid not null,
    -- The month's first day.
    month date not null,
    enterprise_id uuid not null,
    mileage_m bigint not null default 0,
    driving_s bigint not null default 0,
    idle_s bigint not null default 0,
    -- Days with mileage.
    operating_days int not null default 0,
    primary key (vehicle_id, month)
);

create index operation_month_list on operation_month (enterprise_id, month desc, vehicle_id);

select enable_tenant_rls('operation_month');
