-- Rows ingest rewrites in every batch keep room on their page, as
-- latest_position does (20261128000301_hot_updates.sql): a vehicle's alarm
-- state (alarm_track), its ongoing alarms (risk_alarm, while a condition
-- lasts) and its day and month of the operation log (operation_day and
-- operation_month, locked, merged and written whole per batch). An update
-- that fits beside its old version is HOT: no new entry in any index
-- (risk_alarm has six), and the old version is pruned in place. None of
-- the columns these updates move is indexed. Pages written before this
-- fill as rows move.
alter table alarm_track set (fillfactor = 50);
alter table risk_alarm set (fillfactor = 90);
alter table operation_day set (fillfactor = 50);
alter table operation_month set (fillfactor = 50);
