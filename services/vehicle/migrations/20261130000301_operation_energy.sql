-- Energy in the operation log (issue 21, dailyLog, monthlyLog).
--
-- Charged energy and charge count come from energy's settled sessions
-- (`ChargingSessionSettled`, consumed once per event id through
-- processed_event): a session counts on its vehicle's row of the Beijing
-- day (and month) its charging ended.
--
-- Energy used is the state of charge's drop times the vehicle's battery
-- capacity. A day keeps the lowest SOC seen in each minute slot (`soc`,
-- 1,440 bytes, 255 = no reading): the lowest of a minute is a minimum, so
-- a late fix merges into its day exactly like the other slots; the day's
-- drop is the sum of the falls between consecutive slots with a reading
-- (rises are charging and count nothing). `soc_drop_pct` is that sum, in
-- percentage points, null when no fix of the day carried a SOC; the lists
-- multiply it by vehicle.battery_capacity_wh (0 = unknown: shown as "-").
-- A month sums its days' drops (null while none of its days has one).

alter table operation_day
    add column soc bytea,
    add column soc_drop_pct int,
    add column energy_charged_wh bigint not null default 0,
    add column charge_count int not null default 0;

alter table operation_month
    add column soc_drop_pct int,
    add column energy_charged_wh bigint not null default 0,
    add column charge_count int not null default 0;
