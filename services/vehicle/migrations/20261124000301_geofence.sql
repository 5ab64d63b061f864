-- Geofences (issue 10): the fences, what each vehicle's state is against
-- each fence, and what evaluation found (crossings, sign-ins, alarms).
-- Evaluation (geofences::evaluate) keeps a short buffer of each vehicle's
-- fixes so a late or backfilled fix replays that vehicle's affected window;
-- every found row has an id derived from its natural key, so a replay
-- writes the same row again (never a second one).

create table geofence (
    id uuid primary key,
    enterprise_id uuid not null,
    org_id uuid not null,
    created_by uuid,
    updated_by uuid,
    name text not null,
    -- GeofencePurpose (1 area, 2 sign-in point, ...).
    purpose smallint not null,
    -- GeofenceShape (1 circle, 2 polygon, 4 corridor).
    shape smallint not null,
    center_lat double precision,
    center_lng double precision,
    radius_m int,
    -- Polygon ring (not closed) or corridor polyline: [[lng, lat], ...].
    points jsonb not null default '[]',
    corridor_width_m int,
    speed_limit_kmh int,
    -- [{weekdays: [1..7], start: minute, end: minute}], Asia/Shanghai; [] = always.
    active_windows jsonb not null default '[]',
    dwell_seconds int not null default 0,
    alert_on_enter boolean not null default false,
    alert_on_exit boolean not null default false,
    max_dwell_minutes int not null default 0,
    address text not null default '',
    all_vehicles boolean not null default true,
    vehicle_ids uuid[] not null default '{}',
    enabled boolean not null default true,
    created_at timestamptz not null default now(),
    updated_at timestamptz not null default now()
);

select enable_tenant_rls('geofence');
select manage_updated_at('geofence');

create index geofence_newest_idx on geofence (enterprise_id, created_at desc, id desc);
create index geofence_org_newest_idx on geofence (enterprise_id, org_id, created_at desc, id desc);
create index geofence_creator_idx on geofence (enterprise_id, created_by);
create index geofence_name_trgm_idx on geofence using gin (name public.gin_trgm_ops);
create index geofence_vehicles_idx on geofence using gin (vehicle_ids);

-- Bumped with every change of an enterprise's fences, so each evaluating
-- process rebuilds its in-memory R-tree of that enterprise when it moved.
create table geofence_version (
    enterprise_id uuid primary key,
    version bigint not null
);

select enable_tenant_rls('geofence_version');

-- A vehicle against a fence: the side it is confirmed on since when, and a
-- transition waiting for the dwell delay (the first fix on the other side).
create table geofence_state (
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    geofence_id uuid not null,
    inside boolean not null,
    since timestamptz,
    pending_inside boolean,
    pending_since timestamptz,
    pending_lat double precision,
    pending_lng double precision,
    pending_speed_dkmh int,
    last_fix_at timestamptz not null,
    primary key (vehicle_id, geofence_id)
);

select enable_tenant_rls('geofence_state');

-- Inside now (a fence's list, counts): only the rows that are inside.
create index geofence_state_inside_idx on geofence_state (enterprise_id, geofence_id, since)
    where inside;

-- The last fix applied per vehicle: a fix older than it replays the window.
create table geofence_cursor (
    vehicle_id uuid primary key,
    enterprise_id uuid not null,
    last_fix_at timestamptz not null
);

select enable_tenant_rls('geofence_cursor');

-- Recent fixes per vehicle (the replay buffer), trimmed by age.
create table geofence_fix (
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    fix_time timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    speed_dkmh int not null,
    primary key (vehicle_id, fix_time)
);

select enable_tenant_rls('geofence_fix');

create index geofence_fix_age_idx on geofence_fix (fix_time);

-- A crossing, written once: its id derives from (fence, vehicle, direction,
-- time). `confirmed_at` is the fix that completed the dwell delay: a late fix
-- older than it may change it, a later one cannot.
create table geofence_crossing (
    id uuid primary key,
    enterprise_id uuid not null,
    geofence_id uuid not null,
    geofence_name text not null,
    vehicle_id uuid not null,
    plate_number text not null,
    -- The vehicle's organisation when it crossed (data scope).
    org_id uuid not null,
    -- CrossingDirection (1 enter, 2 exit).
    direction smallint not null,
    cross_time timestamptz not null,
    confirmed_at timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    speed_dkmh int not null,
    -- Exits: seconds since the matching enter.
    dwell_seconds bigint,
    alarmed boolean not null default false,
    constraint geofence_crossing_key unique (geofence_id, vehicle_id, direction, cross_time)
);

select enable_tenant_rls('geofence_crossing');

create index geofence_crossing_newest_idx on geofence_crossing (enterprise_id, cross_time desc, id desc);
create index geofence_crossing_fence_idx on geofence_crossing (enterprise_id, geofence_id, cross_time desc, id desc);
create index geofence_crossing_plate_idx on geofence_crossing (enterprise_id, plate_number, cross_time desc, id desc);
-- Replay: a vehicle's crossings of a fence by confirmation.
create index geofence_crossing_replay_idx on geofence_crossing (vehicle_id, geofence_id, confirmed_at);

create table sign_in (
    id uuid primary key,
    enterprise_id uuid not null,
    geofence_id uuid not null,
    point_name text not null,
    vehicle_id uuid not null,
    plate_number text not null,
    org_id uuid not null,
    sign_time timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    -- The enter crossing it came from.
    crossing_id uuid not null unique
);

select enable_tenant_rls('sign_in');

create index sign_in_newest_idx on sign_in (enterprise_id, sign_time desc, id desc);
create index sign_in_fence_idx on sign_in (enterprise_id, geofence_id, sign_time desc, id desc);
create index sign_in_plate_idx on sign_in (enterprise_id, plate_number, sign_time desc, id desc);

create table geofence_alarm (
    id uuid primary key,
    enterprise_id uuid not null,
    geofence_id uuid not null,
    geofence_name text not null,
    vehicle_id uuid not null,
    plate_number text not null,
    org_id uuid not null,
    -- GeofenceAlarmKind (1 enter, 2 exit, 3 speeding).
    kind smallint not null,
    alarm_time timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    speed_dkmh int not null,
    limit_kmh int,
    constraint geofence_alarm_key unique (geofence_id, vehicle_id, kind, alarm_time)
);

select enable_tenant_rls('geofence_alarm');

create index geofence_alarm_newest_idx on geofence_alarm (enterprise_id, alarm_time desc, id desc);
create index geofence_alarm_fence_idx on geofence_alarm (enterprise_id, geofence_id, alarm_time desc, id desc);
create index geofence_alarm_plate_idx on geofence_alarm (enterprise_id, plate_number, alarm_time desc, id desc);
create index geofence_alarm_replay_idx on geofence_alarm (vehicle_id, alarm_time);
