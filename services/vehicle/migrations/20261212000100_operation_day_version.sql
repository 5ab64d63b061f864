-- Ingest writes a day only while its version is still the one it read
-- (optimistic, no lock per day). Charging's sums leave it alone: they touch
-- other columns and add, so they never race a day's slots.
alter table operation_day add column version bigint not null default 0;
