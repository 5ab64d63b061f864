-- Terminal-offline alarm rules (issue 21): the periodic job
-- (alarms::offline) finds the vehicles of an enterprise whose last fix is
-- older than a rule's N hours through this table's index, not through
-- latest_position: an index on latest_position's fix_time would change on
-- every fix and end its HOT updates (20261128000301_hot_updates.sql).
--
-- `seen_hour` is the hour (truncated) of the vehicle's newest fix, written
-- by ingest only when the hour moves, and only for enterprises with an
-- enabled offline rule. It is a lower bound: the job confirms each
-- candidate against latest_position's exact fix time, so a stale row only
-- costs a look-up, never a missed or a false alarm.
create table alarm_offline_watch (
    vehicle_id uuid primary key,
    enterprise_id uuid not null,
    seen_hour timestamptz not null
);

alter table alarm_offline_watch set (fillfactor = 70);

-- The job's range: an enterprise's vehicles silent since before a cut-off.
create index alarm_offline_watch_seen on alarm_offline_watch (enterprise_id, seen_hour);

select enable_tenant_rls('alarm_offline_watch');

-- The job reads the enterprises with an offline rule (kind 8) across tenants.
create index alarm_rule_offline on alarm_rule (enterprise_id) where kind = 8 and enabled and not deleted;

-- A vehicle's ongoing alarms: ingest ends its offline alarm at its next fix.
create index risk_alarm_ongoing on risk_alarm (vehicle_id, rule_id) where ended_at is null;
