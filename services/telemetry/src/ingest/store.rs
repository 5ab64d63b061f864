//! Ingest's writes, all in one service-scoped transaction per batch: the
//! day partitions a batch needs, history and temperatures by one
//! `unnest` insert each (every column one array: a batch is one round trip
//! per table), the latest positions by one upsert that never moves back.
//! They answer the database's own error, so the consumer can tell a
//! message's fault from a lost connection (see `consumer`).

use std::collections::{BTreeSet, HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::FixRow;
use crate::geofences::engine::Fix;

/// Creates the partitions of `days` that do not exist yet.
pub async fn ensure_partitions(
    conn: &mut PgConnection,
    days: &BTreeSet<NaiveDate>,
) -> sqlx::Result<()> {
    let days: Vec<NaiveDate> = days.iter().copied().collect();
    sqlx::query("select ensure_position_partition(d) from unnest($1::date[]) d")
        .bind(&days)
        .execute(conn)
        .await?;
    Ok(())
}

/// One field of every row: an array parameter of an `unnest` statement.
pub(crate) fn column<'a, R, T>(rows: &'a [R], f: impl Fn(&'a R) -> T) -> Vec<T> {
    rows.iter().map(f).collect()
}

/// Stores the history rows of vehicles this deployment knows under the
/// tenant the fix names (others are dropped: another deployment's, deleted,
/// or under the wrong subject); a (vehicle, fix time) already stored is
/// skipped. Answers the fixes stored — the batch's new ones, in its order —
/// after storing their probe readings.
pub async fn insert_history(
    conn: &mut PgConnection,
    mut fixes: Vec<FixRow>,
) -> sqlx::Result<Vec<FixRow>> {
    let stored: Vec<(Uuid, DateTime<Utc>)> = sqlx::query_as(
        "insert into position (enterprise_id, vehicle_id, fix_time, receive_time, lat, lng, \
         altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, backfill, \
         device_time) \
         select t.* from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::timestamptz[], \
           $5::float8[], $6::float8[], $7::int4[], $8::int4[], $9::int2[], $10::int8[], \
           $11::int8[], $12::int8[], $13::int2[], $14::bool[], $15::timestamptz[]) \
           as t(enterprise_id, vehicle_id, fix_time, receive_time, lat, lng, altitude_m, \
           speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, backfill, device_time) \
         join vehicle v on v.id = t.vehicle_id and v.enterprise_id = t.enterprise_id \
         on conflict (vehicle_id, fix_time) do nothing \
         returning vehicle_id, fix_time",
    )
    .bind(column(&fixes, |f| f.enterprise_id))
    .bind(column(&fixes, |f| f.vehicle_id))
    .bind(column(&fixes, |f| f.fix_time))
    .bind(column(&fixes, |f| f.receive_time))
    .bind(column(&fixes, |f| f.lat))
    .bind(column(&fixes, |f| f.lng))
    .bind(column(&fixes, |f| f.altitude_m))
    .bind(column(&fixes, |f| f.speed_dkmh))
    .bind(column(&fixes, |f| f.heading))
    .bind(column(&fixes, |f| f.alarm_bits))
    .bind(column(&fixes, |f| f.status_bits))
    .bind(column(&fixes, |f| f.mileage_m))
    .bind(column(&fixes, |f| f.soc))
    .bind(column(&fixes, |f| f.backfill))
    .bind(column(&fixes, |f| f.device_time))
    .fetch_all(&mut *conn)
    .await?;
    let stored: HashSet<(Uuid, DateTime<Utc>)> = stored.into_iter().collect();
    fixes.retain(|f| stored.contains(&(f.vehicle_id, f.fix_time)));
    insert_readings(conn, &fixes).await?;
    Ok(fixes)
}

async fn insert_readings(conn: &mut PgConnection, fixes: &[FixRow]) -> sqlx::Result<()> {
    let readings: Vec<(&FixRow, i16, i32)> = fixes
        .iter()
        .flat_map(|f| f.temperatures.iter().map(move |(p, t)| (f, *p, *t)))
        .collect();
    if readings.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "insert into temperature_reading (enterprise_id, vehicle_id, fix_time, probe, \
         deci_celsius) \
         select * from unnest($1::uuid[], $2::uuid[], $3::timestamptz[], $4::int2[], $5::int4[]) \
         on conflict (vehicle_id, fix_time, probe) do nothing",
    )
    .bind(
        readings
            .iter()
            .map(|r| r.0.enterprise_id)
            .collect::<Vec<_>>(),
    )
    .bind(readings.iter().map(|r| r.0.vehicle_id).collect::<Vec<_>>())
    .bind(readings.iter().map(|r| r.0.fix_time).collect::<Vec<_>>())
    .bind(readings.iter().map(|r| r.1).collect::<Vec<_>>())
    .bind(readings.iter().map(|r| r.2).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
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

/// What a batch's fixes follow, per vehicle: its latest position before
/// the batch (fence evaluation's previous fix; a fix not after it is late).
pub type Previous = HashMap<Uuid, Fix>;

#[derive(sqlx::FromRow)]
struct PreviousRow {
    vehicle_id: Uuid,
    fix_time: Option<DateTime<Utc>>,
    lat: Option<f64>,
    lng: Option<f64>,
    speed_dkmh: Option<i32>,
}

fn previous_of(rows: Vec<PreviousRow>) -> Previous {
    rows.into_iter()
        .filter_map(|r| {
            let fix = Fix {
                time: r.fix_time?,
                lat: r.lat?,
                lng: r.lng?,
                speed_dkmh: r.speed_dkmh?,
            };
            Some((r.vehicle_id, fix))
        })
        .collect()
}

/// Moves each vehicle's latest position forward to `newest` (one fix per
/// vehicle, in vehicle order: two batches lock rows in the same order) and
/// answers where each was before; a vehicle seen for the first time is left
/// out. The row keeps where it was in `previous_*`, so the upsert that moves
/// it answers that too, under the row lock it takes (a racing batch's
/// insert of the same vehicle waits, then moves the row this one inserted).
/// Mileage and probe readings stay the last known when the fix has none (a
/// photo's position carries no probes). Charging: standing with the state
/// of charge above the previous fix's, and it stays so while the charge
/// does not fall.
pub async fn upsert_latest(conn: &mut PgConnection, newest: &[&FixRow]) -> sqlx::Result<Previous> {
    if newest.is_empty() {
        return Ok(Previous::new());
    }
    let moved: Vec<PreviousRow> = sqlx::query_as(
        "insert into latest_position as l (vehicle_id, enterprise_id, fix_time, receive_time, \
         lat, lng, altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, \
         temperatures, temperatures_at) \
         select t.vehicle_id, t.enterprise_id, t.fix_time, t.receive_time, t.lat, t.lng, \
           t.altitude_m, t.speed_dkmh, t.heading, t.alarm_bits, t.status_bits, t.mileage_m, \
           t.soc, t.temps::jsonb, case when t.temps <> '[]' then t.fix_time end \
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
           temperatures = case when excluded.temperatures_at is null then l.temperatures \
             else excluded.temperatures end, \
           temperatures_at = coalesce(excluded.temperatures_at, l.temperatures_at), \
           charging = excluded.speed_dkmh = 0 and excluded.soc is not null \
             and l.soc is not null \
             and (excluded.soc > l.soc or (excluded.soc = l.soc and l.charging)), \
           previous_fix_time = l.fix_time, previous_lat = l.lat, previous_lng = l.lng, \
           previous_speed_dkmh = l.speed_dkmh \
         where l.fix_time < excluded.fix_time \
         returning l.vehicle_id, l.previous_fix_time as fix_time, l.previous_lat as lat, \
           l.previous_lng as lng, l.previous_speed_dkmh as speed_dkmh",
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
    .fetch_all(&mut *conn)
    .await?;
    let answered: HashSet<Uuid> = moved.iter().map(|r| r.vehicle_id).collect();
    let mut previous = previous_of(moved);
    // A row not moved holds a newer fix than the batch's (the batch is late):
    // that row is where the vehicle was. Locked, so it stays so until commit.
    let stayed: Vec<Uuid> = newest
        .iter()
        .map(|f| f.vehicle_id)
        .filter(|v| !answered.contains(v))
        .collect();
    if !stayed.is_empty() {
        let rows: Vec<PreviousRow> = sqlx::query_as(
            "select vehicle_id, fix_time, lat, lng, speed_dkmh from latest_position \
             where vehicle_id = any($1) order by vehicle_id for update",
        )
        .bind(&stayed)
        .fetch_all(&mut *conn)
        .await?;
        previous.extend(previous_of(rows));
    }
    Ok(previous)
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
