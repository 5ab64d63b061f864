//! Temperature queries. Every list names the tenant and applies the
//! caller's reach through the vehicle (bands, alarms, readings and shares
//! belong to a vehicle and are seen exactly when it is).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Band, ShareDraft};
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct ThresholdRow {
    pub vehicle_id: Uuid,
    pub probe: i16,
    pub min_deci: i32,
    pub max_deci: i32,
    pub min_duration_s: i32,
}

pub async fn set_threshold(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle: Uuid,
    probe: i16,
    band: Band,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into temperature_threshold (enterprise_id, vehicle_id, probe, min_deci, max_deci, \
         min_duration_s, updated_by) values ($1, $2, $3, $4, $5, $6, $7) \
         on conflict (vehicle_id, probe) do update set min_deci = excluded.min_deci, \
           max_deci = excluded.max_deci, min_duration_s = excluded.min_duration_s, \
           updated_by = excluded.updated_by, updated_at = now()",
    )
    .bind(actor.enterprise_id)
    .bind(vehicle)
    .bind(probe)
    .bind(band.min_deci)
    .bind(band.max_deci)
    .bind(band.min_duration_s)
    .bind(actor.user_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// The bands of `vehicles` (already checked to be in reach), by probe.
pub async fn thresholds(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicles: &[Uuid],
) -> Result<Vec<ThresholdRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select vehicle_id, probe, min_deci, max_deci, min_duration_s from temperature_threshold \
         where enterprise_id = $1 and vehicle_id = any($2) order by vehicle_id, probe",
    )
    .bind(enterprise)
    .bind(vehicles)
    .fetch_all(conn)
    .await?)
}

// --- Vehicles with temperatures ---

#[derive(Debug, Clone, FromRow)]
pub struct VehicleRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub org_name: String,
    pub temperatures: Option<serde_json::Value>,
    pub fix_time: Option<DateTime<Utc>>,
    pub open_alarms: i64,
}

#[derive(Debug, Clone, Default)]
pub struct VehicleQuery {
    pub plate_search: String,
    pub org_ids: Vec<Uuid>,
    pub alarm_only: bool,
}

const VEHICLES_SELECT: &str = "select v.id as vehicle_id, v.plate_number, \
     coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name, \
     l.temperatures, coalesce(l.temperatures_at, l.fix_time) as fix_time, \
     (select count(*) from temperature_alarm a where a.vehicle_id = v.id and a.ended_at is null) \
       as open_alarms \
     from vehicle v left join latest_position l on l.vehicle_id = v.id";

struct ByPlate;

impl Sort for ByPlate {
    fn order_by(&self) -> &'static str {
        "v.plate_number asc, v.id asc"
    }
}

fn vehicles_filtered<'a>(select: &str, actor: &Actor, q: &VehicleQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "v.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    // Refrigerated: reports probes or holds a band.
    f.scope().push(
        "(jsonb_array_length(coalesce(l.temperatures, '[]'::jsonb)) > 0 \
         or exists (select 1 from temperature_threshold t where t.vehicle_id = v.id))",
    );
    f.any_of("v.org_id", q.org_ids.clone())
        .contains("v.plate_number", &q.plate_search);
    if q.alarm_only {
        f.and().push(
            "exists (select 1 from temperature_alarm a where a.vehicle_id = v.id and a.ended_at is null)",
        );
    }
    f
}

pub async fn vehicles(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &VehicleQuery,
    paging: Paging,
) -> Result<(Vec<VehicleRow>, i64), ServiceError> {
    let mut qb = vehicles_filtered(VEHICLES_SELECT, actor, q).page(&ByPlate, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = vehicles_filtered(
        "select count(*) from vehicle v left join latest_position l on l.vehicle_id = v.id",
        actor,
        q,
    )
    .finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

// --- Alarms ---

#[derive(Debug, Clone, FromRow)]
pub struct AlarmRow {
    pub id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub probe: i16,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub min_seen_deci: i32,
    pub max_seen_deci: i32,
    pub threshold_min_deci: i32,
    pub threshold_max_deci: i32,
    pub min_duration_s: i32,
}

#[derive(Debug, Clone, Default)]
pub struct AlarmQuery {
    pub plates: Vec<String>,
    pub vehicle_id: Option<Uuid>,
    pub probe: Option<i16>,
    pub started: TimeRange,
    pub open_only: bool,
}

const ALARMS_SELECT: &str = "select a.id, a.vehicle_id, v.plate_number, a.probe, a.started_at, \
     a.ended_at, a.min_seen_deci, a.max_seen_deci, a.threshold_min_deci, a.threshold_max_deci, \
     a.min_duration_s from temperature_alarm a join vehicle v on v.id = a.vehicle_id";

struct AlarmsNewest;

impl Sort for AlarmsNewest {
    fn order_by(&self) -> &'static str {
        "a.started_at desc, a.id desc"
    }
}

fn alarms_filtered<'a>(select: &str, actor: &Actor, q: &AlarmQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "a.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = a.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.plate_number", q.plates.clone())
        .equals("a.vehicle_id", q.vehicle_id)
        .equals("a.probe", q.probe)
        .within("a.started_at", q.started);
    if q.open_only {
        f.and().push("a.ended_at is null");
    }
    f
}

pub async fn alarms(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AlarmQuery,
    paging: Paging,
) -> Result<(Vec<AlarmRow>, i64), ServiceError> {
    let mut qb = alarms_filtered(ALARMS_SELECT, actor, q).page(&AlarmsNewest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count_alarms(conn, actor, q).await?;
    Ok((rows, total))
}

pub async fn count_alarms(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AlarmQuery,
) -> Result<i64, ServiceError> {
    let mut qb = alarms_filtered(
        "select count(*) from temperature_alarm a join vehicle v on v.id = a.vehicle_id",
        actor,
        q,
    )
    .finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// An export page: newest first after `cursor` (keyset on the list's index).
pub async fn alarms_page(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AlarmQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<AlarmRow>, ServiceError> {
    let mut qb =
        alarms_filtered(ALARMS_SELECT, actor, q).keyset("a.started_at", "a.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

// --- Readings ---

#[derive(Debug, Clone, FromRow)]
pub struct ReadingRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub probe: i16,
    pub fix_time: DateTime<Utc>,
    pub deci_celsius: i32,
    pub out_of_range: bool,
}

#[derive(Debug, Clone, Default)]
pub struct ReadingQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    pub org_ids: Vec<Uuid>,
    /// Both ends set (checked by the handler).
    pub time: TimeRange,
    pub probe: Option<i16>,
    pub out_of_range_only: bool,
}

/// The band of a reading: its probe's own, else the vehicle's.
const BAND_JOIN: &str = " left join lateral (select t.min_deci, t.max_deci from temperature_threshold t \
     where t.vehicle_id = r.vehicle_id and t.probe in (0, r.probe) order by t.probe desc limit 1) b on true";

const OUT_SQL: &str = "coalesce(r.deci_celsius not between b.min_deci and b.max_deci, false)";

struct ReadingsNewest;

impl Sort for ReadingsNewest {
    fn order_by(&self) -> &'static str {
        "r.fix_time desc, r.vehicle_id asc, r.probe asc"
    }
}

fn readings_filtered<'a>(select: &str, actor: &Actor, q: &ReadingQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = r.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("v.org_id", q.org_ids.clone())
        .equals("r.probe", q.probe)
        .within("r.fix_time", q.time);
    if q.out_of_range_only {
        f.and().push(OUT_SQL);
    }
    f
}

pub async fn readings(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ReadingQuery,
    paging: Paging,
) -> Result<(Vec<ReadingRow>, i64), ServiceError> {
    let from =
        format!("from temperature_reading r join vehicle v on v.id = r.vehicle_id{BAND_JOIN}");
    let select = format!(
        "select r.vehicle_id, v.plate_number, r.probe, r.fix_time, r.deci_celsius, \
         {OUT_SQL} as out_of_range {from}"
    );
    let mut qb = readings_filtered(&select, actor, q).page(&ReadingsNewest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = readings_filtered(&format!("select count(*) {from}"), actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// One vehicle's readings averaged into buckets of `bucket_s` seconds from
/// `start`, oldest first: (probe, bucket start, tenths).
pub async fn series(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    bucket_s: i64,
) -> Result<Vec<(i16, DateTime<Utc>, i32)>, ServiceError> {
    Ok(sqlx::query_as(
        "select probe, date_bin(make_interval(secs => $5), fix_time, $3) as at, \
           round(avg(deci_celsius))::int4 \
         from temperature_reading \
         where enterprise_id = $1 and vehicle_id = $2 and fix_time >= $3 and fix_time < $4 \
         group by probe, at order by at, probe",
    )
    .bind(enterprise)
    .bind(vehicle)
    .bind(start)
    .bind(end)
    .bind(bucket_s as f64)
    .fetch_all(conn)
    .await?)
}

/// The last probe readings of one vehicle, and when they were read.
pub async fn latest(
    conn: &mut PgConnection,
    vehicle: Uuid,
) -> Result<Option<(serde_json::Value, DateTime<Utc>)>, ServiceError> {
    Ok(sqlx::query_as(
        "select temperatures, coalesce(temperatures_at, fix_time) from latest_position \
             where vehicle_id = $1",
    )
    .bind(vehicle)
    .fetch_optional(conn)
    .await?)
}

// --- Shares ---

#[derive(Debug, Clone, FromRow)]
pub struct ShareRow {
    pub id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub consignee_name: String,
    pub consignee_phone: String,
    pub expires_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

const SHARES_SELECT: &str = "select s.id, s.vehicle_id, v.plate_number, s.consignee_name, \
     s.consignee_phone, s.expires_at, s.created_at, s.revoked_at \
     from temperature_share s join vehicle v on v.id = s.vehicle_id";

pub async fn insert_share(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    vehicle: Uuid,
    draft: &ShareDraft,
    token_hash: &[u8],
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into temperature_share (id, enterprise_id, vehicle_id, consignee_name, \
         consignee_phone, token_hash, expires_at, created_by) \
         values ($1, $2, $3, $4, $5, $6, $7, $8)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(vehicle)
    .bind(&draft.consignee_name)
    .bind(&draft.consignee_phone)
    .bind(token_hash)
    .bind(draft.expires_at)
    .bind(actor.user_id)
    .execute(conn)
    .await?;
    Ok(())
}

struct SharesNewest;

impl Sort for SharesNewest {
    fn order_by(&self) -> &'static str {
        "s.created_at desc, s.id desc"
    }
}

fn shares_filtered<'a>(select: &str, actor: &Actor, vehicle: Option<Uuid>) -> Filters<'a> {
    let mut f = Filters::new(select, "s.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = s.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.equals("s.vehicle_id", vehicle);
    f
}

pub async fn shares(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle: Option<Uuid>,
    paging: Paging,
) -> Result<(Vec<ShareRow>, i64), ServiceError> {
    let mut qb = shares_filtered(SHARES_SELECT, actor, vehicle).page(&SharesNewest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = shares_filtered(
        "select count(*) from temperature_share s join vehicle v on v.id = s.vehicle_id",
        actor,
        vehicle,
    )
    .finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// One share the caller may see.
pub async fn share(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<ShareRow, ServiceError> {
    let mut f = shares_filtered(SHARES_SELECT, actor, None);
    f.and().push("s.id = ").push_bind(id);
    let mut qb = f.finish();
    qb.build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}

/// Revokes once; revoking again changes nothing.
pub async fn revoke(conn: &mut PgConnection, actor: &Actor, id: Uuid) -> Result<(), ServiceError> {
    sqlx::query(
        "update temperature_share set revoked_at = now() \
         where id = $1 and enterprise_id = $2 and revoked_at is null",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct SharedRow {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

/// A share by its token's hash (service scope: the token names the tenant).
pub async fn shared(
    conn: &mut PgConnection,
    token_hash: &[u8],
) -> Result<Option<SharedRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select enterprise_id, vehicle_id, expires_at, revoked_at from temperature_share \
         where token_hash = $1",
    )
    .bind(token_hash)
    .fetch_optional(conn)
    .await?)
}

/// A vehicle's plate (tenant transaction).
pub async fn plate(conn: &mut PgConnection, vehicle: Uuid) -> Result<String, ServiceError> {
    Ok(
        sqlx::query_scalar("select plate_number from vehicle where id = $1")
            .bind(vehicle)
            .fetch_optional(conn)
            .await?
            .unwrap_or_default(),
    )
}
