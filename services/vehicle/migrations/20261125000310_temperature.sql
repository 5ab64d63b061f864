-- Temperature monitoring (issue 10): per-vehicle bands, what evaluation
-- found (alarms) and consignee share links.
--
-- Evaluation (temperature::evaluate) keeps its own short buffer of readings
-- (`temperature_eval_reading`, unique per vehicle, probe and fix time) so a
-- late, duplicated or out-of-order fix recomputes the affected window of
-- that probe; an alarm's natural key is (vehicle, probe, started_at), so the
-- same readings in any order leave the same alarm rows.

create table temperature_threshold (
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    -- 0 = every probe of the vehicle; a probe's own row wins over it.
    probe smallint not null default 0,
    min_deci int not null,
    max_deci int not null,
    -- How long a probe must stay outside the band before an alarm.
    min_duration_s int not null default 0,
    updated_by uuid,
    updated_at timestamptz not null default now(),
    primary key (vehicle_id, probe),
    check (min_deci < max_deci),
    check (min_duration_s >= 0)
);

select enable_tenant_rls('temperature_threshold');

create table temperature_eval_reading (
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    probe smallint not null,
    fix_time timestamptz not null,
    deci_celsius int not null,
    primary key (vehicle_id, probe, fix_time)
);

create index temperature_eval_reading_age on temperature_eval_reading (fix_time);

select enable_tenant_rls('temperature_eval_reading');

create table temperature_alarm (
    id uuid primary key default gen_random_uuid(),
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    probe smallint not null,
    started_at timestamptz not null,
    -- The first in-range reading after the excursion; null while it lasts.
    ended_at timestamptz,
    min_seen_deci int not null,
    max_seen_deci int not null,
    threshold_min_deci int not null,
    threshold_max_deci int not null,
    min_duration_s int not null,
    created_at timestamptz not null default now(),
    unique (vehicle_id, probe, started_at)
);

create index temperature_alarm_list on temperature_alarm (enterprise_id, started_at desc, id);

select enable_tenant_rls('temperature_alarm');

create table temperature_share (
    id uuid primary key,
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    consignee_name text not null,
    consignee_phone text not null,
    -- SHA-256 of the link's token; the token itself is never stored.
    token_hash bytea not null unique,
    expires_at timestamptz not null,
    revoked_at timestamptz,
    created_by uuid,
    created_at timestamptz not null default now()
);

create index temperature_share_list on temperature_share (enterprise_id, created_at desc, id);

select enable_tenant_rls('temperature_share');
