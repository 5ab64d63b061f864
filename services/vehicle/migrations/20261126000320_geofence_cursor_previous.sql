-- The cursor a vehicle had before its last batch: evaluation moves the
-- cursor and reads the one it replaces in a single upsert keyed by the
-- primary key (`returning` shows only the new row on Postgres 15).
alter table geofence_cursor add column previous_fix_at timestamptz;
