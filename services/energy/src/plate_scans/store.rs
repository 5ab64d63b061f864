//! The plate_scan table: recognitions as pushed, their matching to an
//! authorisation and a session, and the list under the caller's reach.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::ScanResult;
use crate::context::Actor;

/// The card that carries a plate, and its enterprise.
#[derive(Debug, Clone, FromRow)]
pub struct PlateOwner {
    pub enterprise_id: Uuid,
    pub card_id: Uuid,
    pub card_no: String,
    pub org_id: Uuid,
    pub vehicle_id: Option<Uuid>,
}

/// The usable (active or frozen) card bound to `plate`, an active one
/// first, across enterprises (service-scoped): energy's own copy of the
/// plates, from the cards.
pub async fn plate_owner(
    conn: &mut PgConnection,
    plate: &str,
) -> Result<Option<PlateOwner>, ServiceError> {
    Ok(sqlx::query_as(
        "select enterprise_id, id as card_id, card_no, org_id, vehicle_id from charging_card \
         where plate_number = $1 and status in (1, 2) \
         order by (status = 1) desc, updated_at desc limit 1",
    )
    .bind(plate)
    .fetch_optional(conn)
    .await?)
}

/// A recognition to write.
#[derive(Debug, Clone)]
pub struct NewScan {
    pub id: Uuid,
    pub owner: Option<PlateOwner>,
    pub party_id: String,
    pub scan_no: String,
    pub station_id: Option<Uuid>,
    pub station_name: String,
    pub location_id: String,
    pub evse_uid: String,
    pub pile_no: String,
    pub plate_number: String,
    pub scan_time: DateTime<Utc>,
    pub result: Option<ScanResult>,
}

/// Writes a recognition; a repeated push changes nothing.
pub async fn insert(conn: &mut PgConnection, s: &NewScan) -> Result<(), ServiceError> {
    let owner = s.owner.as_ref();
    sqlx::query(
        "insert into plate_scan (id, enterprise_id, party_id, scan_no, station_id, station_name, \
         location_id, evse_uid, pile_no, plate_number, vehicle_id, card_id, card_no, org_id, \
         scan_time, result) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, \
         $15, $16) on conflict do nothing",
    )
    .bind(s.id)
    .bind(owner.map(|o| o.enterprise_id))
    .bind(&s.party_id)
    .bind(&s.scan_no)
    .bind(s.station_id)
    .bind(&s.station_name)
    .bind(&s.location_id)
    .bind(&s.evse_uid)
    .bind(&s.pile_no)
    .bind(&s.plate_number)
    .bind(owner.and_then(|o| o.vehicle_id))
    .bind(owner.map(|o| o.card_id))
    .bind(owner.map(|o| o.card_no.clone()).unwrap_or_default())
    .bind(owner.map(|o| o.org_id))
    .bind(s.scan_time)
    .bind(s.result.map(i16::from))
    .execute(conn)
    .await?;
    Ok(())
}

/// The newest undecided recognition of `plate` at the location that no
/// authorisation took yet, scanned after `$3` (the start of the
/// authorisation window, which the sessions own).
const PENDING: &str = "select id from plate_scan where plate_number = $1 and location_id = $2 \
     and result is null and authorization_id is null and scan_time > $3 \
     order by scan_time desc limit 1 for update skip locked";

/// Decides the pending recognition an authorisation by plate followed
/// (scanned after `window_start`).
pub async fn decide_pending(
    conn: &mut PgConnection,
    plate: &str,
    location_id: &str,
    window_start: DateTime<Utc>,
    result: ScanResult,
    authorization: Option<Uuid>,
) -> Result<(), ServiceError> {
    sqlx::query(&format!(
        "update plate_scan set result = $4, authorization_id = $5 where id = ({PENDING})"
    ))
    .bind(plate)
    .bind(location_id)
    .bind(window_start)
    .bind(i16::from(result))
    .bind(authorization)
    .execute(conn)
    .await?;
    Ok(())
}

/// Links the pending recognition (scanned after `window_start`) to the
/// authorisation it led to; its id.
pub async fn claim_pending(
    conn: &mut PgConnection,
    plate: &str,
    location_id: &str,
    window_start: DateTime<Utc>,
    authorization: Uuid,
) -> Result<Option<Uuid>, ServiceError> {
    Ok(sqlx::query_scalar(&format!(
        "update plate_scan set authorization_id = $4 where id = ({PENDING}) returning id"
    ))
    .bind(plate)
    .bind(location_id)
    .bind(window_start)
    .bind(authorization)
    .fetch_optional(conn)
    .await?)
}

/// The recognition started session `session_id`.
pub async fn started(
    conn: &mut PgConnection,
    id: Uuid,
    session_id: Uuid,
) -> Result<(), ServiceError> {
    sqlx::query("update plate_scan set result = $2, session_id = $3 where id = $1")
        .bind(id)
        .bind(i16::from(ScanResult::Started))
        .bind(session_id)
        .execute(conn)
        .await?;
    Ok(())
}

pub async fn set_result(
    conn: &mut PgConnection,
    id: Uuid,
    result: ScanResult,
) -> Result<(), ServiceError> {
    sqlx::query("update plate_scan set result = $2 where id = $1 and result is null")
        .bind(id)
        .bind(i16::from(result))
        .execute(conn)
        .await?;
    Ok(())
}

/// Recognitions still undecided and not waiting on an open authorisation
/// since before `before`: the pile never started (service-scoped).
pub async fn fail_stale(
    conn: &mut PgConnection,
    before: DateTime<Utc>,
) -> Result<u64, ServiceError> {
    Ok(sqlx::query(
        "update plate_scan set result = $2 where result is null and scan_time < $1 \
         and authorization_id is null",
    )
    .bind(before)
    .bind(i16::from(ScanResult::PileFailed))
    .execute(conn)
    .await?
    .rows_affected())
}

// --- the list ---------------------------------------------------------------

// The organisation name comes from the org_unit replica.
const SELECT: &str = "select x.id, x.station_id, x.station_name, x.pile_no, x.plate_number, \
     x.vehicle_id, x.card_id, x.card_no, \
     coalesce((select o.name from org_unit o where o.id = x.org_id), '') as org_name, \
     x.scan_time, x.result, x.session_id from plate_scan x";

#[derive(Debug, Clone, FromRow)]
pub struct ScanRow {
    pub id: Uuid,
    pub station_id: Option<Uuid>,
    pub station_name: String,
    pub pile_no: String,
    pub plate_number: String,
    pub vehicle_id: Option<Uuid>,
    pub card_id: Option<Uuid>,
    pub card_no: String,
    pub org_name: String,
    pub scan_time: DateTime<Utc>,
    pub result: Option<i16>,
    pub session_id: Option<Uuid>,
}

/// A checked recognition filter (organisations already expanded).
#[derive(Debug, Clone, Default)]
pub struct ScanQuery {
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub station_id: Option<Uuid>,
    pub results: Vec<i16>,
    pub scan_time: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "x.scan_time desc, x.id desc"
    }
}

/// The list's filter under the caller's reach (the list, its count, its export).
pub fn filtered<'a>(select: &str, actor: &Actor, query: &ScanQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "x.enterprise_id", actor.enterprise_id);
    // Recognitions have no creator: the reach is the card's organisation.
    actor
        .reach
        .push_condition(f.scope(), "x.org_id", "null::uuid");
    f.within("x.scan_time", query.scan_time)
        .any_of("x.plate_number", query.plates.clone())
        .any_of("x.org_id", query.org_ids.clone())
        .equals("x.station_id", query.station_id)
        .any_of("x.result", query.results.clone());
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &ScanQuery,
    paging: Paging,
) -> Result<(Vec<ScanRow>, i64), ServiceError> {
    let mut rows = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

/// The exact number of recognitions the list matches (bounded by its
/// required time range).
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &ScanQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered("select count(*) from plate_scan x", actor, query).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// One export page: newest first after `cursor`, by keyset on `plate_scan_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &ScanQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<ScanRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("x.scan_time", "x.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}
