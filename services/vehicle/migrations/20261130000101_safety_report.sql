-- The safety report (issue 21, assetsReport › carSafetyReport): the driver
-- of each operation day, and each enterprise's weight per alarm type.
--
-- A day's driver is the vehicle's bound driver (vehicle.driver_id) at the
-- first ingest batch of that day that finds one; once set it stays, so a
-- rebinding later in the day does not move the day's mileage or alarms
-- (telemetry::safety attributes an alarm to the driver of its vehicle's
-- day). The name is kept beside the id as the vehicle keeps it.
alter table operation_day
    add column driver_id uuid,
    add column driver_name text;

-- Weights per enterprise and alarm type (AlarmType); a type without a row
-- uses the service's default (telemetry::safety::domain::default_weight).
-- An enterprise-wide setting: no org_id, like alarm_track.
create table safety_weight (
    enterprise_id uuid not null,
    alarm_type smallint not null,
    weight double precision not null check (weight >= 0 and weight <= 100),
    updated_by text not null default '',
    updated_at timestamptz not null default now(),
    primary key (enterprise_id, alarm_type)
);

select enable_tenant_rls('safety_weight');

-- Weight changes (who, when, before and after), like alarm_rule_change.
create table safety_weight_change (
    id bigint generated always as identity primary key,
    enterprise_id uuid not null,
    alarm_type smallint not null,
    operator_name text not null,
    before double precision,
    after double precision not null,
    changed_at timestamptz not null default now()
);

create index safety_weight_change_enterprise on safety_weight_change (enterprise_id, changed_at desc);

select enable_tenant_rls('safety_weight_change');
