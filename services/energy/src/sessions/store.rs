//! The charging_authorization, charging_session, charging_meter_value and
//! charging_cdr tables: what the platform's pushes write, and the session
//! list (with its totals and export pages) under the caller's reach.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::costs::Costs;
use super::domain::{AuthorizationStatus, SessionStatus, StartMethod};
use crate::context::Actor;

// --- authorisations ---------------------------------------------------------

/// An authorisation to write.
#[derive(Debug, Clone)]
pub struct NewAuthorization<'a> {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub card_id: Uuid,
    pub card_ledger_account_id: Uuid,
    pub start_method: StartMethod,
    pub token_uid: &'a str,
    pub party_id: &'a str,
    pub location_id: &'a str,
    pub station_id: Option<Uuid>,
    pub held_fen: i64,
    pub plate_scan_id: Option<Uuid>,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert_authorization(
    conn: &mut PgConnection,
    a: &NewAuthorization<'_>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into charging_authorization (id, enterprise_id, card_id, card_ledger_account_id, \
         start_method, token_uid, party_id, location_id, station_id, held_fen, plate_scan_id, \
         expires_at) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(a.id)
    .bind(a.enterprise_id)
    .bind(a.card_id)
    .bind(a.card_ledger_account_id)
    .bind(i16::from(a.start_method))
    .bind(a.token_uid)
    .bind(a.party_id)
    .bind(a.location_id)
    .bind(a.station_id)
    .bind(a.held_fen)
    .bind(a.plate_scan_id)
    .bind(a.expires_at)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct AuthorizationRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub card_id: Uuid,
    pub card_ledger_account_id: Uuid,
    pub start_method: i16,
    pub held_fen: i64,
    pub status: i16,
    pub plate_scan_id: Option<Uuid>,
    pub expires_at: DateTime<Utc>,
}

/// The enterprise of an authorisation (a service-scoped read: the platform
/// names it without a tenant).
pub async fn authorization_enterprise(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<Uuid>, ServiceError> {
    Ok(
        sqlx::query_scalar("select enterprise_id from charging_authorization where id = $1")
            .bind(id)
            .fetch_optional(conn)
            .await?,
    )
}

/// An authorisation, locked until the transaction ends.
pub async fn lock_authorization(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<AuthorizationRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, enterprise_id, card_id, card_ledger_account_id, start_method, held_fen, \
         status, plate_scan_id, expires_at from charging_authorization where id = $1 for update",
    )
    .bind(id)
    .fetch_optional(conn)
    .await?)
}

pub async fn set_authorization_status(
    conn: &mut PgConnection,
    id: Uuid,
    status: AuthorizationStatus,
) -> Result<(), ServiceError> {
    sqlx::query("update charging_authorization set status = $2 where id = $1")
        .bind(id)
        .bind(i16::from(status))
        .execute(conn)
        .await?;
    Ok(())
}

/// Open authorisations past their expiry, oldest first (service-scoped):
/// (id, enterprise).
pub async fn expired_authorizations(
    conn: &mut PgConnection,
    now: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<(Uuid, Uuid)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, enterprise_id from charging_authorization \
         where status = 1 and expires_at < $1 order by expires_at limit $2",
    )
    .bind(now)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// What a card's budget has taken since `since`: its sessions' holds while
/// they charge, their captures once settled, and its open authorisations.
pub async fn budget_used(
    conn: &mut PgConnection,
    card_id: Uuid,
    since: DateTime<Utc>,
) -> Result<i64, ServiceError> {
    Ok(sqlx::query_scalar(
        "select coalesce((select sum(case when status = 1 then held_fen else total_fen - refunded_fen end) \
                          from charging_session where card_id = $1 and start_time >= $2), 0)::bigint \
              + coalesce((select sum(held_fen) from charging_authorization \
                          where card_id = $1 and status = 1), 0)::bigint",
    )
    .bind(card_id)
    .bind(since)
    .fetch_one(conn)
    .await?)
}

// --- sessions ---------------------------------------------------------------

/// The session the platform knows as (party, session no), with its
/// enterprise (a service-scoped read).
pub async fn session_key(
    conn: &mut PgConnection,
    party_id: &str,
    session_no: &str,
) -> Result<Option<(Uuid, Uuid)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, enterprise_id from charging_session where party_id = $1 and session_no = $2",
    )
    .bind(party_id)
    .bind(session_no)
    .fetch_optional(conn)
    .await?)
}

/// The number of the session a CDR without `session_id` accounts for
/// (service-scoped): the session of its authorisation, else the platform's
/// session at the same station that started at the same instant.
pub async fn session_no_matching(
    conn: &mut PgConnection,
    party_id: &str,
    authorization: Option<Uuid>,
    station_id: Uuid,
    start_time: DateTime<Utc>,
) -> Result<Option<String>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select session_no from charging_session where party_id = $1 \
         and (id = $2 or (station_id = $3 and start_time = $4)) \
         order by (id = $2) desc limit 1",
    )
    .bind(party_id)
    .bind(authorization)
    .bind(station_id)
    .bind(start_time)
    .fetch_optional(conn)
    .await?)
}

/// The enterprise of a session (a service-scoped read).
pub async fn session_enterprise(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<Uuid>, ServiceError> {
    Ok(
        sqlx::query_scalar("select enterprise_id from charging_session where id = $1")
            .bind(id)
            .fetch_optional(conn)
            .await?,
    )
}

/// A session to write when the platform reports it started.
#[derive(Debug, Clone)]
pub struct NewSession {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub account_id: Uuid,
    pub card_id: Uuid,
    pub card_no: String,
    pub card_ledger_account_id: Uuid,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub station_id: Option<Uuid>,
    pub station_name: String,
    pub city_name: String,
    pub pile_no: String,
    pub connector_no: String,
    pub connector_type: Option<i16>,
    pub start_method: StartMethod,
    pub party_id: String,
    pub session_no: String,
    pub start_time: DateTime<Utc>,
    pub held_fen: i64,
    pub hold_count: i32,
    pub start_soc: Option<i16>,
    pub last_updated: DateTime<Utc>,
}

pub async fn insert_session(conn: &mut PgConnection, s: &NewSession) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into charging_session (id, enterprise_id, org_id, account_id, card_id, card_no, \
         card_ledger_account_id, vehicle_id, plate_number, driver_id, driver_name, station_id, \
         station_name, city_name, pile_no, connector_no, connector_type, start_method, party_id, \
         session_no, start_time, held_fen, hold_count, start_soc, end_soc, last_updated) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
         $19, $20, $21, $22, $23, $24, $24, $25)",
    )
    .bind(s.id)
    .bind(s.enterprise_id)
    .bind(s.org_id)
    .bind(s.account_id)
    .bind(s.card_id)
    .bind(&s.card_no)
    .bind(s.card_ledger_account_id)
    .bind(s.vehicle_id)
    .bind(&s.plate_number)
    .bind(s.driver_id)
    .bind(&s.driver_name)
    .bind(s.station_id)
    .bind(&s.station_name)
    .bind(&s.city_name)
    .bind(&s.pile_no)
    .bind(&s.connector_no)
    .bind(s.connector_type)
    .bind(i16::from(s.start_method))
    .bind(&s.party_id)
    .bind(&s.session_no)
    .bind(s.start_time)
    .bind(s.held_fen)
    .bind(s.hold_count)
    .bind(s.start_soc)
    .bind(s.last_updated)
    .execute(conn)
    .await?;
    Ok(())
}

/// What the money rules read of a session, locked until the transaction ends.
#[derive(Debug, Clone, FromRow)]
pub struct SessionState {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub card_id: Uuid,
    pub card_ledger_account_id: Uuid,
    pub session_no: String,
    pub status: i16,
    pub energy_wh: i64,
    pub cost_fen: i64,
    pub service_fee_fen: i64,
    pub held_fen: i64,
    pub hold_count: i32,
    pub total_fen: i64,
    pub start_time: DateTime<Utc>,
    pub end_soc: Option<i16>,
    pub end_time: Option<DateTime<Utc>>,
    pub stop_reason: String,
    pub stop_requested_at: Option<DateTime<Utc>>,
    pub stop_sent_at: Option<DateTime<Utc>>,
    pub last_updated: DateTime<Utc>,
    /// The CDR that settled it.
    pub cdr_id: Option<String>,
}

pub async fn lock(conn: &mut PgConnection, id: Uuid) -> Result<SessionState, ServiceError> {
    sqlx::query_as(
        "select id, enterprise_id, card_id, card_ledger_account_id, session_no, status, energy_wh, \
         cost_fen, service_fee_fen, held_fen, hold_count, total_fen, start_time, end_soc, end_time, \
         stop_reason, stop_requested_at, stop_sent_at, last_updated, cdr_id \
         from charging_session where id = $1 for update",
    )
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(ServiceError::not_found)
}

/// Energy and cost so far, as an update leaves them.
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub cost_fen: i64,
    pub end_soc: Option<i16>,
    pub end_time: Option<DateTime<Utc>>,
    pub last_updated: DateTime<Utc>,
}

/// Writes an update's figures; the enterprise's figure is the cost up to
/// what is held.
pub async fn set_progress(
    conn: &mut PgConnection,
    id: Uuid,
    p: &Progress,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_session set energy_wh = $2, electricity_fen = $3, service_fee_fen = $4, \
         cost_fen = $5, total_fen = least($5, held_fen), end_soc = $6, end_time = $7, \
         last_updated = greatest(last_updated, $8) where id = $1",
    )
    .bind(id)
    .bind(p.energy_wh)
    .bind(p.electricity_fen)
    .bind(p.service_fee_fen)
    .bind(p.cost_fen)
    .bind(p.end_soc)
    .bind(p.end_time)
    .bind(p.last_updated)
    .execute(conn)
    .await?;
    Ok(())
}

/// Counts one more hold of `amount_fen`.
pub async fn add_hold(
    conn: &mut PgConnection,
    id: Uuid,
    amount_fen: i64,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_session set held_fen = held_fen + $2, hold_count = hold_count + 1 \
         where id = $1",
    )
    .bind(id)
    .bind(amount_fen)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records that the platform must stop the session, and why.
pub async fn request_stop(
    conn: &mut PgConnection,
    id: Uuid,
    reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_session set stop_requested_at = coalesce(stop_requested_at, now()), \
         stop_reason = $2 where id = $1",
    )
    .bind(id)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// Records whether the platform accepted the stop (`false` clears it, so
/// the stop is sent again).
pub async fn set_stop_sent(
    conn: &mut PgConnection,
    id: Uuid,
    accepted: bool,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update charging_session set stop_sent_at = case when $2 then coalesce(stop_sent_at, now()) end \
         where id = $1 and status = 1",
    )
    .bind(id)
    .bind(accepted)
    .execute(conn)
    .await?;
    Ok(())
}

/// Charging sessions whose stop is due and not accepted, requested before
/// `before` (service-scoped): (id, enterprise).
pub async fn due_stops(
    conn: &mut PgConnection,
    before: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<(Uuid, Uuid)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, enterprise_id from charging_session \
         where status = 1 and stop_requested_at is not null and stop_sent_at is null \
           and stop_requested_at < $1 order by stop_requested_at limit $2",
    )
    .bind(before)
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// The final figures of a session from its CDR.
#[derive(Debug, Clone)]
pub struct Settlement {
    pub end_time: DateTime<Utc>,
    pub energy_wh: i64,
    pub costs: Costs,
    pub cost_fen: i64,
    pub cost_excl_vat_fen: i64,
    pub captured_fen: i64,
    pub uncollected_fen: i64,
    pub end_soc: Option<i16>,
    pub stop_reason: String,
    pub cdr_id: String,
    pub statement_month: i32,
}

pub async fn settle(conn: &mut PgConnection, id: Uuid, s: &Settlement) -> Result<(), ServiceError> {
    let Costs {
        electricity_fen,
        service_fee_fen,
        time_fee_fen,
        parking_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
    } = s.costs;
    sqlx::query(
        "update charging_session set status = $2, end_time = $3, energy_wh = $4, \
         electricity_fen = $5, service_fee_fen = $6, parking_fee_fen = $7, cost_fen = $8, \
         total_fen = $9, uncollected_fen = $10, end_soc = coalesce($11, end_soc), \
         stop_reason = $12, cdr_id = $13, statement_month = $14, time_fee_fen = $15, \
         fixed_fee_fen = $16, reservation_fee_fen = $17, discount_fen = $18, \
         cost_excl_vat_fen = $19, settle_time = now() where id = $1",
    )
    .bind(id)
    .bind(i16::from(SessionStatus::Settled))
    .bind(s.end_time)
    .bind(s.energy_wh)
    .bind(electricity_fen)
    .bind(service_fee_fen)
    .bind(parking_fee_fen)
    .bind(s.cost_fen)
    .bind(s.captured_fen)
    .bind(s.uncollected_fen)
    .bind(s.end_soc)
    .bind(&s.stop_reason)
    .bind(&s.cdr_id)
    .bind(s.statement_month)
    .bind(time_fee_fen)
    .bind(fixed_fee_fen)
    .bind(reservation_fee_fen)
    .bind(discount_fen)
    .bind(s.cost_excl_vat_fen)
    .execute(conn)
    .await?;
    Ok(())
}

/// The session a CDR settled, by the CDR's (party, id) (service-scoped):
/// (session, enterprise).
pub async fn cdr_session(
    conn: &mut PgConnection,
    party_id: &str,
    cdr_id: &str,
) -> Result<Option<(Uuid, Uuid)>, ServiceError> {
    Ok(sqlx::query_as(
        "select session_id, enterprise_id from charging_cdr where party_id = $1 and cdr_id = $2",
    )
    .bind(party_id)
    .bind(cdr_id)
    .fetch_optional(conn)
    .await?)
}

/// A CDR as the platform sent it, by its (party, id) (service-scoped).
pub async fn cdr_body(
    conn: &mut PgConnection,
    party_id: &str,
    cdr_id: &str,
) -> Result<Option<serde_json::Value>, ServiceError> {
    Ok(
        sqlx::query_scalar("select body from charging_cdr where party_id = $1 and cdr_id = $2")
            .bind(party_id)
            .bind(cdr_id)
            .fetch_optional(conn)
            .await?,
    )
}

/// A credit CDR applied to a session.
#[derive(Debug, Clone)]
pub struct NewCorrection<'a> {
    pub party_id: &'a str,
    pub cdr_id: &'a str,
    pub enterprise_id: Uuid,
    pub session_id: Uuid,
    pub credited_cdr_id: &'a str,
    pub amount_fen: i64,
    pub transfer_id: Option<Uuid>,
}

/// Records a credit and marks its session refunded by `amount_fen`.
pub async fn credit(conn: &mut PgConnection, c: &NewCorrection<'_>) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into charging_correction (party_id, cdr_id, enterprise_id, session_id, \
         credited_cdr_id, amount_fen, transfer_id) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(c.party_id)
    .bind(c.cdr_id)
    .bind(c.enterprise_id)
    .bind(c.session_id)
    .bind(c.credited_cdr_id)
    .bind(c.amount_fen)
    .bind(c.transfer_id)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "update charging_session set status = $2, refunded_fen = refunded_fen + $3 where id = $1",
    )
    .bind(c.session_id)
    .bind(i16::from(SessionStatus::Refunded))
    .bind(c.amount_fen)
    .execute(conn)
    .await?;
    Ok(())
}

/// The credit CDR that credited `credited_cdr_id`, if one did.
pub async fn credit_of(
    conn: &mut PgConnection,
    party_id: &str,
    credited_cdr_id: &str,
) -> Result<Option<String>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select cdr_id from charging_correction where party_id = $1 and credited_cdr_id = $2",
    )
    .bind(party_id)
    .bind(credited_cdr_id)
    .fetch_optional(conn)
    .await?)
}

/// One charging period of a session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MeterValue {
    pub period_start: DateTime<Utc>,
    pub energy_wh: i64,
    pub power_w: Option<i64>,
    pub soc: Option<i16>,
    pub tariff_id: String,
}

/// Writes periods not written before (a repeated push adds nothing).
pub async fn insert_meter_values(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    session_id: Uuid,
    values: &[MeterValue],
) -> Result<(), ServiceError> {
    if values.is_empty() {
        return Ok(());
    }
    sqlx::query(
        "insert into charging_meter_value (session_id, enterprise_id, period_start, energy_wh, \
         power_w, soc, tariff_id) \
         select $1, $2, * from unnest($3::timestamptz[], $4::bigint[], $5::bigint[], \
         $6::smallint[], $7::text[]) on conflict do nothing",
    )
    .bind(session_id)
    .bind(enterprise_id)
    .bind(values.iter().map(|v| v.period_start).collect::<Vec<_>>())
    .bind(values.iter().map(|v| v.energy_wh).collect::<Vec<_>>())
    .bind(values.iter().map(|v| v.power_w).collect::<Vec<_>>())
    .bind(values.iter().map(|v| v.soc).collect::<Vec<_>>())
    .bind(
        values
            .iter()
            .map(|v| v.tariff_id.clone())
            .collect::<Vec<_>>(),
    )
    .execute(conn)
    .await?;
    Ok(())
}

/// Keeps a CDR as received; false when it was kept before.
pub async fn insert_cdr(
    conn: &mut PgConnection,
    party_id: &str,
    cdr_id: &str,
    enterprise_id: Uuid,
    session_id: Uuid,
    body: &serde_json::Value,
) -> Result<bool, ServiceError> {
    let inserted = sqlx::query(
        "insert into charging_cdr (party_id, cdr_id, enterprise_id, session_id, body) \
         values ($1, $2, $3, $4, $5) on conflict do nothing",
    )
    .bind(party_id)
    .bind(cdr_id)
    .bind(enterprise_id)
    .bind(session_id)
    .bind(body)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}

// --- the list ---------------------------------------------------------------

// The organisation name comes from the org_unit replica.
const SELECT: &str = "select s.id, s.session_no, s.org_id, \
     coalesce((select o.name from org_unit o where o.id = s.org_id), '') as org_name, \
     s.account_id, s.card_id, s.card_no, s.vehicle_id, s.plate_number, s.driver_id, s.driver_name, \
     s.station_id, s.station_name, s.city_name, s.pile_no, s.connector_no, s.connector_type, \
     s.start_method, s.start_time, s.end_time, s.energy_wh, s.electricity_fen, s.service_fee_fen, \
     s.parking_fee_fen, s.time_fee_fen, s.fixed_fee_fen, s.reservation_fee_fen, s.discount_fen, \
     s.cost_fen, s.cost_excl_vat_fen, s.total_fen, s.uncollected_fen, s.refunded_fen, s.held_fen, \
     s.start_soc, s.end_soc, s.status, s.stop_reason, s.settle_time, s.statement_month \
     from charging_session s";

#[derive(Debug, Clone, FromRow)]
pub struct SessionRow {
    pub id: Uuid,
    pub session_no: String,
    pub org_id: Uuid,
    pub org_name: String,
    pub account_id: Uuid,
    pub card_id: Uuid,
    pub card_no: String,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub station_id: Option<Uuid>,
    pub station_name: String,
    pub city_name: String,
    pub pile_no: String,
    pub connector_no: String,
    pub connector_type: Option<i16>,
    pub start_method: i16,
    pub start_time: DateTime<Utc>,
    pub end_time: Option<DateTime<Utc>>,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    /// The platform's cost with VAT, and without (settled sessions).
    pub cost_fen: i64,
    pub cost_excl_vat_fen: i64,
    pub total_fen: i64,
    pub uncollected_fen: i64,
    pub refunded_fen: i64,
    pub held_fen: i64,
    pub start_soc: Option<i16>,
    pub end_soc: Option<i16>,
    pub status: i16,
    pub stop_reason: String,
    pub settle_time: Option<DateTime<Utc>>,
    pub statement_month: Option<i32>,
}

/// A checked session filter (organisations already expanded).
#[derive(Debug, Clone, Default)]
pub struct SessionQuery {
    pub plates: Vec<String>,
    pub card_nos: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub driver_id: Option<Uuid>,
    pub station_id: Option<Uuid>,
    pub session_no: Option<String>,
    pub statuses: Vec<i16>,
    pub start_methods: Vec<i16>,
    pub start_time: TimeRange,
    pub statement_month: Option<i32>,
}

#[derive(Debug, Clone, Copy)]
struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "s.start_time desc, s.id desc"
    }
}

/// The list's filter under the caller's reach: what the list, its totals
/// and its export all run.
pub fn filtered<'a>(select: &str, actor: &Actor, query: &SessionQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "s.enterprise_id", actor.enterprise_id);
    // Sessions have no creator: the reach is the card's organisation.
    actor
        .reach
        .push_condition(f.scope(), "s.org_id", "null::uuid");
    f.within("s.start_time", query.start_time)
        .any_of("s.plate_number", query.plates.clone())
        .any_of("s.card_no", query.card_nos.clone())
        .any_of("s.org_id", query.org_ids.clone())
        .equals("s.driver_id", query.driver_id)
        .equals("s.station_id", query.station_id)
        .equals("s.session_no", query.session_no.clone())
        .any_of("s.status", query.statuses.clone())
        .any_of("s.start_method", query.start_methods.clone())
        .equals("s.statement_month", query.statement_month);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &SessionQuery,
    paging: Paging,
) -> Result<Vec<SessionRow>, ServiceError> {
    let mut rows = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    Ok(rows.build_query_as().fetch_all(conn).await?)
}

/// The totals row over every matching session (its count the list's total).
#[derive(Debug, Clone, Copy, Default, FromRow)]
pub struct Totals {
    pub session_count: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    pub total_fen: i64,
}

pub async fn totals(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &SessionQuery,
) -> Result<Totals, ServiceError> {
    let mut qb = filtered(
        "select count(*) as session_count, \
         coalesce(sum(s.energy_wh), 0)::bigint as energy_wh, \
         coalesce(sum(s.electricity_fen), 0)::bigint as electricity_fen, \
         coalesce(sum(s.service_fee_fen), 0)::bigint as service_fee_fen, \
         coalesce(sum(s.parking_fee_fen), 0)::bigint as parking_fee_fen, \
         coalesce(sum(s.time_fee_fen), 0)::bigint as time_fee_fen, \
         coalesce(sum(s.fixed_fee_fen), 0)::bigint as fixed_fee_fen, \
         coalesce(sum(s.reservation_fee_fen), 0)::bigint as reservation_fee_fen, \
         coalesce(sum(s.discount_fen), 0)::bigint as discount_fen, \
         coalesce(sum(s.total_fen), 0)::bigint as total_fen from charging_session s",
        actor,
        query,
    )
    .finish();
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// One export page under the list's filter and reach: newest first after
/// `cursor` (`start_time`, `id`), by keyset on `charging_session_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &SessionQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<SessionRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("s.start_time", "s.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// A session the caller reaches (NOT_FOUND otherwise).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<SessionRow, ServiceError> {
    let mut f = Filters::new(SELECT, "s.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "s.org_id", "null::uuid");
    f.equals("s.id", Some(id));
    f.finish()
        .build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}
