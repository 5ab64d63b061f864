//! Ingest's writes, all in one service-scoped transaction per batch: the
//! day partitions a batch needs, history and temperatures by one
//! `unnest` insert each (every column one array: a batch is one round trip
//! per table), the latest positions by one upsert that never moves back.

use std::collections::{BTreeSet, HashMap};

use chrono::NaiveDate;
use fleetdesk_kit::ServiceError;
use sqlx::PgConnection;
use uuid::Uuid;

use super::domain::FixRow;

/// The tenant of each of `vehicles` this deployment knows (others are
/// dropped: another deployment's, or deleted).
pub async fn tenants(
    conn: &mut PgConnection,
    vehicles: &[Uuid],
) -> Result<HashMap<Uuid, Uuid>, ServiceError> {
    let rows: Vec<(Uuid, Uuid)> =
        sqlx::query_as("select id, enterprise_id from vehicle where id = any($1)")
            .bind(vehicles)
            .fetch_all(conn)
            .await?;
    Ok(rows.into_iter().collect())
}

/// Creates the partitions of `days` that do not exist yet.
pub async fn ensure_partitions(
    conn: &mut PgConnection,
    days: &BTreeSet<NaiveDate>,
) -> Result<(), ServiceError> {
    let days: Vec<NaiveDate> = days.iter().copied().collect();
    sqlx::query("select ensure_position_partition(d) from unnest($1::date[]) d")
        .bind(&days)
        .execute(conn)
        .await?;
    Ok(())
}

fn column<T>(fixes: &[FixRow], f: impl Fn(&FixRow) -> T) -> Vec<T> {
    fixes.iter().map(f).collect()
}

/// Stores history rows; a (vehicle, fix time) already stored is skipped.
/// Returns how many were new.
pub async fn insert_history(
    conn: &mut PgConnection,
    fixes: &[FixRow],
) -> Result<u64, ServiceError> {
    let written = sqlx::query(
        "insert into position (enterprise_id, vehicle_id, fix_time, receive_time, lat, lng, \
         altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, backfill) \
         select * from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[], \
           $5::float8[], $6::float8[], $7::int4[], $8::int4[], $9::int2[], $10::int8[], \
           $11::int8[], $12::int8[], $13::int2[], $14::bool[]) \
         on conflict (vehicle_id, fix_time) do nothing",
    )
    .bind(column(fixes, |f| f.enterprise_id))
    .bind(column(fixes, |f| f.vehicle_id))
    .bind(column(fixes, |f| f.fix_time))
    .bind(column(fixes, |f| f.receive_time))
    .bind(column(fixes, |f| f.lat))
    .bind(column(fixes, |f| f.lng))
    .bind(column(fixes, |f| f.altitude_m))
    .bind(column(fixes, |f| f.speed_dkmh))
    .bind(column(fixes, |f| f.heading))
    .bind(column(fixes, |f| f.alarm_bits))
    .bind(column(fixes, |f| f.status_bits))
    .bind(column(fixes, |f| f.mileage_m))
    .bind(column(fixes, |f| f.soc))
    .bind(column(fixes, |f| f.backfill))
    .execute(&mut *conn)
    .await?;
    let readings: Vec<(&FixRow, i16, i32)> = fixes
        .iter()
        .flat_map(|f| f.temperatures.iter().map(move |(p, t)| (f, *p, *t)))
        .collect();
    if !readings.is_empty() {
        sqlx::query(
            "insert into temperature_reading (enterprise_id, vehicle_id, fix_time, probe, \
             deci_celsius) \
             select * from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int2[], $5::int4[]) \
             on conflict (vehicle_id, fix_time, probe) do nothing",
        )
        .bind(readings.iter().map(|r| r.0.enterprise_id).collect::<Vec<_>>())
        .bind(readings.iter().map(|r| r.0.vehicle_id).collect::<Vec<_>>())
        .bind(readings.iter().map(|r| r.0.fix_time).collect::<Vec<_>>())
        .bind(readings.iter().map(|r| r.1).collect::<Vec<_>>())
        .bind(readings.iter().map(|r| r.2).collect::<Vec<_>>())
        .execute(&mut *conn)
        .await?;
    }
    Ok(written.rows_affected())
}

/// The probes of a fix as `latest_position.temperatures` keeps them.
fn probes_json(fix: &FixRow) -> String {
    let probes: Vec<serde_json::Value> = fix
        .temperatures
        .iter()
        .map(|(p, t)| serde_json::json!({ "probe": p, "deci": t }))
        .collect();
    serde_json::Value::Array(probes).to_string()
}

/// Moves each vehicle's latest position forward to `newest` (one fix per
/// vehicle); a fix older than the stored one changes nothing. Charging:
/// standing with the state of charge above the previous fix's, and it stays
/// so while the charge does not fall.
pub async fn upsert_latest(
    conn: &mut PgConnection,
    newest: &[&FixRow],
) -> Result<(), ServiceError> {
    if newest.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "insert into latest_position as l (vehicle_id, enterprise_id, fix_time, receive_time, \
         lat, lng, altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, \
         temperatures) \
         select t.vehicle_id, t.enterprise_id, t.fix_time, t.receive_time, t.lat, t.lng, \
           t.altitude_m, t.speed_dkmh, t.heading, t.alarm_bits, t.status_bits, t.mileage_m, \
           t.soc, t.temps::jsonb \
         from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[], \
           $5::float8[], $6::float8[], $7::int4[], $8::int4[], $9::int2[], $10::int8[], \
           $11::int8[], $12::int8[], $13::int2[], $14::text[]) \
           as t(vehicle_id, enterprise_id, fix_time, receive_time, lat, lng, altitude_m, \
           speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, temps) \
         on conflict (vehicle_id) do update set fix_time = excluded.fix_time, \
           receive_time = excluded.receive_time, lat = excluded.lat, lng = excluded.lng, \
           altitude_m = excluded.altitude_m, speed_dkmh = excluded.speed_dkmh, \
           heading = excluded.heading, alarm_bits = excluded.alarm_bits, \
           status_bits = excluded.status_bits, \
           mileage_m = coalesce(excluded.mileage_m, l.mileage_m), soc = excluded.soc, \
           temperatures = excluded.temperatures, \
           charging = excluded.speed_dkmh = 0 and excluded.soc is not null \
             and l.soc is not null \
             and (excluded.soc > l.soc or (excluded.soc = l.soc and l.charging)) \
         where l.fix_time < excluded.fix_time",
    )
    .bind(newest.iter().map(|f| f.vehicle_id).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.enterprise_id).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.fix_time).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.receive_time).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.lat).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.lng).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.altitude_m).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.speed_dkmh).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.heading).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.alarm_bits).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.status_bits).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.mileage_m).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| f.soc).collect::<Vec<_>>())
    .bind(newest.iter().map(|f| probes_json(f)).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Drops history partitions of days before `keep_from`; returns how many.
pub async fn drop_partitions_before(
    conn: &mut PgConnection,
    keep_from: NaiveDate,
) -> Result<i32, ServiceError> {
    Ok(sqlx::query_scalar("select drop_position_partitions($1)")
        .bind(keep_from)
        .fetch_one(conn)
        .await?)
}
