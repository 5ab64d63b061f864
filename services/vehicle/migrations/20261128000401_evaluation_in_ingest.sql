-- Fence evaluation runs in ingest's transaction: the fixes it replays are
-- the position history's, and where a vehicle was before a batch is its
-- latest position (locked by the batch). The evaluator's own copy of every
-- fix and its per-vehicle cursor go.
drop table geofence_fix;
drop table geofence_cursor;

-- The last probe readings a vehicle sent, and when: a fix without probes
-- (an alarm photo's position) no longer blanks them.
alter table latest_position add column temperatures_at timestamptz;
update latest_position set temperatures_at = fix_time where temperatures <> '[]'::jsonb;

-- Where the vehicle was before its latest fix. The upsert that moves the
-- row sets it from the row it replaces, so it answers where the vehicle was
-- under the row lock it already holds (fence evaluation's previous fix).
alter table latest_position
    add column previous_fix_time timestamptz,
    add column previous_lat double precision,
    add column previous_lng double precision,
    add column previous_speed_dkmh int;
