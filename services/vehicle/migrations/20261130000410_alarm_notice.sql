-- Level-3 alarm notices (issue 21, "notifications without floods"): one row
-- per alarm telemetry asked org to notify of (alarms::notify), written in
-- the ingest transaction that opened the alarm. It keys the notice by the
-- alarm (never twice), outlives the alarm row (a replay that removes and
-- re-finds an alarm does not notify again) and answers the rule's quiet
-- period (alarm_rule.quiet_minutes: the rule's alarms of a vehicle starting
-- within it of a notified one are not notified).

create table alarm_notice (
    alarm_id uuid primary key,
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    rule_id uuid not null,
    condition smallint not null,
    started_at timestamptz not null,
    notified_at timestamptz not null default now()
);

-- The quiet-period and replacement checks: a vehicle's notices of a rule by start.
create index alarm_notice_vehicle_rule on alarm_notice (vehicle_id, rule_id, started_at);

select enable_tenant_rls('alarm_notice');
