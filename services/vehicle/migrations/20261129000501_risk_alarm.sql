-- Risk alarms (issue 21): the enterprise's alarm rules, what ingest's
-- evaluation found (one row per condition from its start to its end), each
-- vehicle's rule state between batches, and the alarm workflow's log.
--
-- An alarm's natural key is (vehicle, rule, condition, started_at): the same
-- fixes in any order or batching leave the same rows (alarms::evaluate).

create table alarm_rule (
    id uuid primary key,
    enterprise_id uuid not null,
    name text not null,
    -- AlarmRuleKind.
    kind smallint not null,
    -- RiskLevel 1-3.
    level smallint not null check (level between 1 and 3),
    -- The organisation subtree it applies to; null for every vehicle.
    org_id uuid,
    enabled boolean not null default true,
    -- The kind's parameters (alarms::domain::RuleKind as JSON).
    params jsonb not null,
    quiet_minutes int not null default 0,
    deleted boolean not null default false,
    created_by text not null default '',
    created_at timestamptz not null default now(),
    updated_by text not null default '',
    updated_at timestamptz not null default now()
);

create index alarm_rule_enterprise on alarm_rule (enterprise_id) where not deleted;

select enable_tenant_rls('alarm_rule');

-- Rule changes, field by field (who, when, before and after).
create table alarm_rule_change (
    id bigint generated always as identity primary key,
    enterprise_id uuid not null,
    rule_id uuid not null,
    operator_name text not null,
    before jsonb,
    after jsonb,
    changed_at timestamptz not null default now()
);

create index alarm_rule_change_rule on alarm_rule_change (rule_id, changed_at);

select enable_tenant_rls('alarm_rule_change');

create table risk_alarm (
    id uuid primary key default gen_random_uuid(),
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    -- The vehicle's organisation when the alarm was raised (data scope).
    org_id uuid,
    rule_id uuid not null,
    -- The 0x0200 bit for terminal alarms, otherwise -1.
    condition smallint not null,
    -- AlarmType.
    kind smallint not null,
    level smallint not null,
    started_at timestamptz not null,
    -- Null while the condition lasts.
    ended_at timestamptz,
    last_seen_at timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    peak_speed_dkmh int not null default 0,
    -- AlarmStatus.
    status smallint not null default 1,
    assignee_id uuid,
    assignee_name text not null default '',
    handle_method smallint,
    handle_remark text not null default '',
    handler_name text not null default '',
    handled_at timestamptz,
    created_at timestamptz not null default now(),
    unique (vehicle_id, rule_id, condition, started_at)
);

-- The list: newest first, and the untreated queue.
create index risk_alarm_list on risk_alarm (enterprise_id, started_at desc, id desc);
create index risk_alarm_open on risk_alarm (enterprise_id, status, started_at desc, id desc)
    where status in (1, 4);
-- A vehicle's alarms in a period (the operation log's counts, replays).
create index risk_alarm_vehicle on risk_alarm (vehicle_id, started_at);

select enable_tenant_rls('risk_alarm');

create table risk_alarm_activity (
    id bigint generated always as identity primary key,
    enterprise_id uuid not null,
    alarm_id uuid not null references risk_alarm (id) on delete cascade,
    -- AlarmActivityAction.
    action smallint not null,
    from_status smallint,
    to_status smallint,
    remark text not null default '',
    attachments jsonb not null default '[]',
    actor_id uuid,
    actor_name text not null,
    -- When the entry was written (moves of one alarm take turns on its row
    -- lock, so entries are in the order they were applied).
    at timestamptz not null default clock_timestamp()
);

create index risk_alarm_activity_alarm on risk_alarm_activity (alarm_id, at, id);

select enable_tenant_rls('risk_alarm_activity');

-- Each vehicle's rule state after its newest evaluated fix
-- (alarms::engine::Track as JSON).
create table alarm_track (
    vehicle_id uuid primary key,
    enterprise_id uuid not null,
    state jsonb not null
);

select enable_tenant_rls('alarm_track');
