-- Telemetry ingest (issue 10): position history partitioned by day on fix
-- time, temperature readings per probe likewise, and the latest position of
-- each vehicle. Retention drops whole partitions, never deletes rows.
--
-- A fix is stored once: (vehicle_id, fix_time) is unique, and ingest
-- inserts with `on conflict do nothing`, so a message JetStream delivers
-- again (or a terminal uploads again) changes nothing. The same key serves
-- a vehicle's track (one index range per day partition).
create table position (
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    fix_time timestamptz not null,
    receive_time timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    altitude_m int not null,
    -- Tenths of km/h, as terminals send it.
    speed_dkmh int not null,
    heading smallint not null,
    -- JT/T 808 alarm and status words (uint32) as sent.
    alarm_bits bigint not null,
    status_bits bigint not null,
    mileage_m bigint,
    soc smallint,
    backfill boolean not null default false
) partition by range (fix_time);

create unique index position_vehicle_time_key on position (vehicle_id, fix_time);

select enable_tenant_rls('position');

create table temperature_reading (
    enterprise_id uuid not null,
    vehicle_id uuid not null,
    fix_time timestamptz not null,
    probe smallint not null,
    deci_celsius int not null
) partition by range (fix_time);

create unique index temperature_reading_key on temperature_reading (vehicle_id, fix_time, probe);

select enable_tenant_rls('temperature_reading');

-- The newest fix of each vehicle by fix time (late fixes never move it back).
create table latest_position (
    vehicle_id uuid primary key,
    enterprise_id uuid not null,
    fix_time timestamptz not null,
    receive_time timestamptz not null,
    lat double precision not null,
    lng double precision not null,
    altitude_m int not null,
    speed_dkmh int not null,
    heading smallint not null,
    alarm_bits bigint not null,
    status_bits bigint not null,
    mileage_m bigint,
    soc smallint,
    -- Standing with the state of charge rising (kept while it does not fall).
    charging boolean not null default false,
    -- The probes of the newest fix: [{"probe": 1, "deci": -182}, ...].
    temperatures jsonb not null default '[]'
);

select enable_tenant_rls('latest_position');
create index latest_position_enterprise_idx on latest_position (enterprise_id, vehicle_id);

-- Creates the day partitions of both tables for `day` (UTC), each with the
-- tenant policy of its parent (a partition read directly is guarded too).
-- Security definer: the serving role may not create tables; ingest asks for
-- the days of each batch and a job creates the coming days ahead.
create function ensure_position_partition(day date) returns void
language plpgsql security definer set search_path from current as $$
declare
    suffix text := to_char(day, 'YYYYMMDD');
    lower_bound timestamptz := day::timestamp at time zone 'UTC';
    upper_bound timestamptz := (day + 1)::timestamp at time zone 'UTC';
    parent text;
    part text;
begin
    foreach parent in array array['position', 'temperature_reading'] loop
        part := parent || '_p' || suffix;
        continue when to_regclass(part) is not null;
        begin
            execute format('create table %I partition of %I for values from (%L) to (%L)',
                           part, parent, lower_bound, upper_bound);
            perform enable_tenant_rls(part::regclass);
        exception when duplicate_table or unique_violation then
            -- Another writer created it at the same moment.
            null;
        end;
    end loop;
end
$$;

-- Drops the day partitions that end at or before `keep_from` (retention);
-- returns how many partitions went.
create function drop_position_partitions(keep_from date) returns int
language plpgsql security definer set search_path from current as $$
declare
    part record;
    dropped int := 0;
begin
    for part in
        select c.relname
        from pg_inherits i
        join pg_class c on c.oid = i.inhrelid
        join pg_class p on p.oid = i.inhparent
        where p.relname in ('position', 'temperature_reading')
          and p.relnamespace = current_schema()::regnamespace
          and c.relname ~ '_p[0-9]{8}$'
          and to_date(right(c.relname, 8), 'YYYYMMDD') < keep_from
    loop
        execute format('drop table if exists %I', part.relname);
        dropped := dropped + 1;
    end loop;
    return dropped;
end
$$;

-- The last week and the next three days exist from the start.
select ensure_position_partition(d::date)
from generate_series(current_date - 7, current_date + 3, interval '1 day') d;

grant execute on function ensure_position_partition(date) to public;
grant execute on function drop_position_partitions(date) to public;
