//! Monitoring's reads: latest positions joined to their vehicles (plate,
//! organisation, driver, reach), counts by status, and a vehicle's history
//! (one index range of `(vehicle_id, fix_time)` per day partition).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{STATUS_SQL, TrackRange};
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct LatestRow {
    pub vehicle_id: Uuid,
    pub enterprise_id: Uuid,
    pub plate_number: String,
    pub org_id: Uuid,
    pub org_name: String,
    pub driver_name: Option<String>,
    pub fix_time: DateTime<Utc>,
    pub receive_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub altitude_m: i32,
    pub speed_dkmh: i32,
    pub heading: i16,
    pub alarm_bits: i64,
    pub status_bits: i64,
    pub mileage_m: Option<i64>,
    pub soc: Option<i16>,
    pub charging: bool,
    pub temperatures: serde_json::Value,
    pub status: i16,
}

fn select_latest() -> String {
    format!(
        "select l.vehicle_id, l.enterprise_id, v.plate_number, v.org_id, \
         coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name, \
         v.driver_name, l.fix_time, l.receive_time, l.lat, l.lng, l.altitude_m, l.speed_dkmh, \
         l.heading, l.alarm_bits, l.status_bits, l.mileage_m, l.soc, l.charging, \
         l.temperatures, {STATUS_SQL} as status \
         from latest_position l join vehicle v on v.id = l.vehicle_id"
    )
}

/// A checked latest-positions filter.
#[derive(Debug, Clone, Default)]
pub struct LatestQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Expanded to subtrees.
    pub org_ids: Vec<Uuid>,
    pub plate_search: String,
    pub online: Option<bool>,
    /// (south-west, north-east) as (lat, lng).
    pub bounds: Option<((f64, f64), (f64, f64))>,
    pub statuses: Vec<i16>,
}

struct ByPlate;

impl Sort for ByPlate {
    fn order_by(&self) -> &'static str {
        "v.plate_number asc, v.id asc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &LatestQuery, statuses: bool) -> Filters<'a> {
    let mut f = Filters::new(select, "l.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = l.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.org_id", query.org_ids.clone())
        .any_of("v.plate_number", query.plates.clone())
        .any_of("v.vin", query.vins.clone())
        .contains("v.plate_number", &query.plate_search);
    if let Some(online) = query.online {
        f.and()
            .push("l.fix_time ")
            .push(if online { ">=" } else { "<" })
            .push(" now() - interval '10 minutes'");
    }
    if let Some(((s, w), (n, e))) = query.bounds {
        f.and()
            .push("l.lat between ")
            .push_bind(s)
            .push(" and ")
            .push_bind(n)
            .push(" and l.lng between ")
            .push_bind(w)
            .push(" and ")
            .push_bind(e);
    }
    if statuses {
        f.any_of(STATUS_SQL, query.statuses.clone());
    }
    f
}

/// One page (or, with `paging` None, the first `limit` rows) by plate.
pub async fn list_latest(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &LatestQuery,
    paging: Paging,
) -> Result<Vec<LatestRow>, ServiceError> {
    let mut qb = filtered(&select_latest(), actor, query, true).page(&ByPlate, paging);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Counts by status over the filter without its status part:
/// (total, driving, parked, charging, offline, alarm) and the count with it.
#[derive(Debug, Clone, Copy, Default, FromRow)]
pub struct Counts {
    pub total: i64,
    pub driving: i64,
    pub parked: i64,
    pub charging: i64,
    pub offline: i64,
    pub alarm: i64,
}

pub async fn counts(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &LatestQuery,
) -> Result<Counts, ServiceError> {
    let select = format!(
        "select count(*) as total, \
         count(*) filter (where {STATUS_SQL} = 1) as driving, \
         count(*) filter (where {STATUS_SQL} = 2) as parked, \
         count(*) filter (where {STATUS_SQL} = 3) as charging, \
         count(*) filter (where {STATUS_SQL} = 4) as offline, \
         count(*) filter (where {STATUS_SQL} = 5) as alarm \
         from latest_position l join vehicle v on v.id = l.vehicle_id"
    );
    let mut qb = filtered(&select, actor, query, false).finish();
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// How many the list matches (with its status filter).
pub async fn count_matching(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &LatestQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered(
        "select count(*) from latest_position l join vehicle v on v.id = l.vehicle_id",
        actor,
        query,
        true,
    )
    .finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// The latest positions of some vehicles of one tenant (the live feed's
/// first picture), without reach: the caller filters.
pub async fn latest_of(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    vehicles: &[Uuid],
) -> Result<Vec<LatestRow>, ServiceError> {
    let sql = format!(
        "{} where l.enterprise_id = $1 and v.enterprise_id = $1 and l.vehicle_id = any($2)",
        select_latest()
    );
    Ok(sqlx::query_as(&sql)
        .bind(enterprise_id)
        .bind(vehicles)
        .fetch_all(conn)
        .await?)
}

#[derive(Debug, Clone, FromRow)]
pub struct HistoryRow {
    pub fix_time: DateTime<Utc>,
    pub receive_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub altitude_m: i32,
    pub speed_dkmh: i32,
    pub heading: i16,
    pub alarm_bits: i64,
    pub status_bits: i64,
    pub mileage_m: Option<i64>,
    pub soc: Option<i16>,
}

const SELECT_HISTORY: &str = "select fix_time, receive_time, lat, lng, altitude_m, speed_dkmh, \
     heading, alarm_bits, status_bits, mileage_m, soc from position \
     where vehicle_id = $1 and enterprise_id = $2 and fix_time >= $3 and fix_time < $4";

/// A vehicle's fixes in `range`, oldest first (the caller checked the vehicle).
pub async fn history(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
    range: TrackRange,
) -> Result<Vec<HistoryRow>, ServiceError> {
    let sql = format!("{SELECT_HISTORY} order by fix_time");
    Ok(sqlx::query_as(&sql)
        .bind(vehicle_id)
        .bind(enterprise_id)
        .bind(range.start)
        .bind(range.end)
        .fetch_all(conn)
        .await?)
}

/// An export page: at most `limit` fixes after `after`, oldest first.
pub async fn history_page(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
    range: TrackRange,
    after: Option<DateTime<Utc>>,
    limit: i64,
) -> Result<Vec<HistoryRow>, ServiceError> {
    let sql = format!(
        "{SELECT_HISTORY} and ($5::timestamptz is null or fix_time > $5) \
         order by fix_time limit $6"
    );
    Ok(sqlx::query_as(&sql)
        .bind(vehicle_id)
        .bind(enterprise_id)
        .bind(range.start)
        .bind(range.end)
        .bind(after)
        .bind(limit)
        .fetch_all(conn)
        .await?)
}

pub async fn history_count(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
    range: TrackRange,
) -> Result<i64, ServiceError> {
    Ok(sqlx::query_scalar(
        "select count(*) from position where vehicle_id = $1 and enterprise_id = $2 \
         and fix_time >= $3 and fix_time < $4",
    )
    .bind(vehicle_id)
    .bind(enterprise_id)
    .bind(range.start)
    .bind(range.end)
    .fetch_one(conn)
    .await?)
}

/// Odometer readings of a vehicle at the first and the last fix of a range.
#[derive(Debug, Clone, FromRow)]
pub struct OdometerRow {
    pub vehicle_id: Uuid,
    pub start_m: Option<i64>,
    pub end_m: Option<i64>,
}

/// The odometer at the first and the last fix of `range` for each of
/// `vehicle_ids` the actor reaches: two probes of the `(vehicle_id,
/// fix_time)` index per vehicle and day partition, however many fixes the
/// range holds. Vehicles without fixes in the range come back with neither.
pub async fn odometers(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle_ids: Vec<Uuid>,
    range: TrackRange,
) -> Result<Vec<OdometerRow>, ServiceError> {
    let mut qb = sqlx::QueryBuilder::new("select v.id as vehicle_id");
    for (alias, order) in [("start_m", "asc"), ("end_m", "desc")] {
        qb.push(", (select p.mileage_m from position p where p.vehicle_id = v.id ")
            .push("and p.enterprise_id = v.enterprise_id and p.fix_time >= ")
            .push_bind(range.start)
            .push(" and p.fix_time < ")
            .push_bind(range.end)
            .push(" order by p.fix_time ")
            .push(order)
            .push(" limit 1) as ")
            .push(alias);
    }
    qb.push(" from vehicle v where v.enterprise_id = ")
        .push_bind(actor.enterprise_id)
        .push(" and v.id = any(")
        .push_bind(vehicle_ids)
        .push(") and ");
    actor
        .reach
        .push_condition(&mut qb, "v.org_id", "v.created_by");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}
