-- Alarm evidence (issues 21 §2, 22 §3): the photos and clips terminals
-- upload, as the device edge announces them (telematics MediaStored on
-- `telemetry.<enterprise>.<vehicle>.media`), and active-safety alarms keyed
-- by their terminal's alarm identifier.
--
-- A file is stored once: the object key is unique and the consumer inserts
-- with `on conflict do nothing` (telemetry::media).

create table vehicle_media (
    id uuid primary key default gen_random_uuid(),
    enterprise_id uuid not null,
    -- The vehicle's organisation when the file arrived (data scope).
    org_id uuid,
    vehicle_id uuid not null references vehicle (id) on delete cascade,
    -- 0 image, 1 audio, 2 video (JT/T 808 table 82).
    media_type smallint not null,
    -- 0x0800's event: 0 platform command, 1 timed, 2 robbery alarm,
    -- 3 collision or rollover, 4 door opened, ...
    event_code smallint not null,
    channel smallint not null,
    object_key text not null unique,
    content_type text not null,
    size_bytes bigint not null,
    -- The active-safety alarm it is evidence of (uploaded after 0x9208);
    -- null for 0x0800/0x0801 media.
    alarm_key text,
    -- The name the terminal gave it (0x1211); empty for 0x0800 media.
    file_name text not null default '',
    -- The position's fix time, else when it arrived.
    taken_at timestamptz not null,
    received_at timestamptz not null default now()
);

-- An active-safety alarm's files.
create index vehicle_media_alarm on vehicle_media (vehicle_id, alarm_key)
    where alarm_key is not null;
-- A terminal alarm's photos: the vehicle's of one 0x0800 event near a time.
create index vehicle_media_event on vehicle_media (vehicle_id, event_code, taken_at)
    where alarm_key is null;

select enable_tenant_rls('vehicle_media');

-- Active-safety alarms have no rule (alarm_rule.id nil) and one row per
-- alarm identifier, however often the terminal sends it.
alter table risk_alarm add column alarm_key text;

create unique index risk_alarm_safety_key on risk_alarm (vehicle_id, alarm_key)
    where alarm_key is not null;
