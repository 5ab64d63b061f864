-- Rows rewritten on every fix (a vehicle's latest position) or every batch
-- (its fence cursor) keep half of each page free, so an update fits beside
-- its old version: a HOT update writes no index entry, and the old version
-- is pruned in place. On full pages each update was a new tuple on another
-- page plus an entry in every index, and the latest-position upsert cost
-- Postgres more than storing the history row itself (100,000 fixes of
-- 10,000 vehicles: 1.9 s of upserts beside 1.8 s of history; with room on
-- the page, next to nothing). Pages written before this fill as rows move.
alter table latest_position set (fillfactor = 50);
alter table geofence_cursor set (fillfactor = 50);
