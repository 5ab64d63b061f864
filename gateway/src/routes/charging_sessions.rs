//! Charging sessions (consumeRecord) and plate scans (scanPlateRecord),
//! permission `as:charge:card`: lists with batch plate and card filters over
//! a start (scan) time range of at most 92 days, the sessions' totals row,
//! a session's detail and the exports. Energy in Wh, money in fen.

use axum::extract::{Path, State};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::files::LinkSigner;
use crate::list::{ExportQuery, ListQuery};
use crate::routes::exports::{ExportRecordBody, answer_started};
use crate::routes::rfc3339;
use crate::routes::vehicles::edge_enum;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_charging_sessions))
        .routes(routes!(export_charging_sessions))
        .routes(routes!(get_charging_session))
        .routes(routes!(list_plate_scan_records))
        .routes(routes!(export_plate_scan_records))
}

edge_enum!(
    /// How a session was started.
    StartMethod => pb::StartMethod { CardSwipe, AppScan, PlateScan }
);
edge_enum!(
    /// DC fast or AC slow charging.
    ConnectorType => pb::ConnectorType { Dc, Ac }
);
edge_enum!(
    /// CHARGING (held), SETTLED (captured), ABNORMAL (under review), REFUNDED.
    ChargingSessionStatus => pb::ChargingSessionStatus { Charging, Settled, Abnormal, Refunded }
);
edge_enum!(
    /// What a plate recognition led to.
    PlateScanResult => pb::PlateScanResult {
        Started, NotRegistered, CardUnavailable, InsufficientBalance, BudgetExceeded, PileFailed
    }
);

/// A month as `yyyy-MM`; empty when absent.
pub fn month_text(month: Option<&common::YearMonth>) -> String {
    month
        .filter(|m| m.year > 0 && (1..=12).contains(&m.month))
        .map(|m| format!("{:04}-{:02}", m.year, m.month))
        .unwrap_or_default()
}

/// Reads a `yyyy-MM` query value.
pub fn month_param(query: &ListQuery, key: &str) -> Result<Option<common::YearMonth>, ApiError> {
    query
        .one(key)
        .map(|text| parse_month(key, text))
        .transpose()
}

/// Reads a `yyyy-MM` value (`key` names it in the refusal).
pub fn parse_month(key: &str, text: &str) -> Result<common::YearMonth, ApiError> {
    let bad = || ApiError::invalid(key, "月份格式应为 yyyy-MM");
    let (year, month) = text.split_once('-').ok_or_else(bad)?;
    let (year, month): (i32, i32) = (
        year.parse().map_err(|_| bad())?,
        month.parse().map_err(|_| bad())?,
    );
    if year.to_string().len() != 4 || !(1..=12).contains(&month) {
        return Err(bad());
    }
    Result::Ok(common::YearMonth { year, month })
}

/// One charging session paid by an enterprise card.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingSessionBody {
    pub id: String,
    /// The station operator's order number.
    pub session_no: String,
    pub org_id: String,
    pub org_name: String,
    pub account_id: String,
    pub card_id: String,
    pub card_no: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub driver_id: String,
    pub driver_name: String,
    pub station_id: String,
    pub station_name: String,
    pub city_name: String,
    pub pile_no: String,
    pub connector_no: String,
    pub connector_type: Option<ConnectorType>,
    pub start_method: Option<StartMethod>,
    pub start_time: String,
    /// Empty while charging.
    pub end_time: String,
    pub duration_seconds: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    /// Priced by the minute.
    pub time_fee_fen: i64,
    /// The start fee.
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    /// What the enterprise pays: the parts (electricity, service, time,
    /// parking, fixed and reservation fees) less uncollected; while
    /// charging, the cost so far.
    pub total_fen: i64,
    /// The platform's cost with VAT (the parts' sum); while charging, the cost so far.
    pub cost_fen: i64,
    /// The platform's cost without VAT; 0 until settled.
    pub cost_excl_vat_fen: i64,
    pub refunded_fen: i64,
    /// Percent; absent when not reported.
    pub start_soc_percent: Option<i32>,
    pub end_soc_percent: Option<i32>,
    pub status: Option<ChargingSessionStatus>,
    pub stop_reason: String,
    pub settle_time: String,
    /// yyyy-MM of the statement the session belongs to.
    pub statement_month: String,
    /// Cost the hold did not cover (the platform stopped late); never billed.
    pub uncollected_fen: i64,
    /// Moved from the card onto the session's hold.
    pub held_fen: i64,
}

impl From<pb::ChargingSession> for ChargingSessionBody {
    fn from(s: pb::ChargingSession) -> Self {
        let pb::ChargingSession {
            id,
            session_no,
            enterprise_id: _,
            org_id,
            org_name,
            account_id,
            card_id,
            card_no,
            vehicle_id,
            plate_number,
            driver_id,
            driver_name,
            station_id,
            station_name,
            city_name,
            pile_no,
            connector_no,
            connector_type,
            start_method,
            start_time,
            end_time,
            duration_seconds,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            cost_fen,
            cost_excl_vat_fen,
            total_fen,
            refunded_fen,
            start_soc_percent,
            end_soc_percent,
            status,
            stop_reason,
            settle_time,
            statement_month,
            uncollected_fen,
            held_fen,
        } = s;
        ChargingSessionBody {
            id,
            session_no,
            org_id,
            org_name,
            account_id,
            card_id,
            card_no,
            vehicle_id,
            plate_number,
            driver_id,
            driver_name,
            station_id,
            station_name,
            city_name,
            pile_no,
            connector_no,
            connector_type: ConnectorType::from_pb(connector_type),
            start_method: StartMethod::from_pb(start_method),
            start_time: rfc3339(start_time.as_ref()),
            end_time: rfc3339(end_time.as_ref()),
            duration_seconds,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            cost_fen,
            cost_excl_vat_fen,
            total_fen,
            refunded_fen,
            start_soc_percent,
            end_soc_percent,
            status: ChargingSessionStatus::from_pb(status),
            stop_reason,
            settle_time: rfc3339(settle_time.as_ref()),
            statement_month: month_text(statement_month.as_ref()),
            uncollected_fen,
            held_fen,
        }
    }
}

/// Totals over sessions (the table's summary row, the dashboard's period).
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingSessionTotalsBody {
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

impl From<pb::ChargingSessionTotals> for ChargingSessionTotalsBody {
    fn from(t: pb::ChargingSessionTotals) -> Self {
        let pb::ChargingSessionTotals {
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            total_fen,
        } = t;
        ChargingSessionTotalsBody {
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            total_fen,
        }
    }
}

/// A page of sessions with the totals over every matching session.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingSessionPage {
    pub list: Vec<ChargingSessionBody>,
    pub total: i64,
    pub totals: ChargingSessionTotalsBody,
}

/// Filters of the session list (repeat a key for several values).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ChargingSessionListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    pub plate: Option<Vec<String>>,
    /// Card numbers, at most 250.
    #[param(style = Form, explode)]
    pub card_no: Option<Vec<String>>,
    #[param(style = Form, explode)]
    pub org_id: Option<Vec<String>>,
    pub driver_id: Option<String>,
    pub station_id: Option<String>,
    /// The operator's order number.
    pub session_no: Option<String>,
    #[param(style = Form, explode, inline)]
    pub status: Option<Vec<ChargingSessionStatus>>,
    #[param(style = Form, explode, inline)]
    pub start_method: Option<Vec<StartMethod>>,
    /// Required with startTimeEnd: sessions started in the range, at most 92 days
    /// (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    pub start_time_start: Option<String>,
    /// A bare date includes the day.
    pub start_time_end: Option<String>,
    /// Sessions on this month's statement (yyyy-MM).
    pub statement_month: Option<String>,
}

fn session_filter(query: &ListQuery) -> Result<pb::ListChargingSessionsRequest, ApiError> {
    Result::Ok(pb::ListChargingSessionsRequest {
        page: Some(query.paging()?),
        plate_numbers: query.batch("plate")?,
        card_nos: query.batch("cardNo")?,
        org_ids: query.batch("orgId")?,
        driver_id: query.text("driverId"),
        station_id: query.text("stationId"),
        session_no: query.text("sessionNo"),
        statuses: query
            .parsed::<ChargingSessionStatus>("status")?
            .into_iter()
            .map(i32::from)
            .collect(),
        start_methods: query
            .parsed::<StartMethod>("startMethod")?
            .into_iter()
            .map(i32::from)
            .collect(),
        start_time: query.range("startTime")?,
        statement_month: month_param(query, "statementMonth")?,
    })
}

#[utoipa::path(
    get, path = "/charging/sessions", tag = "charging",
    params(ChargingSessionListParams),
    responses((status = 200, description = "Sessions in the caller's data scope, newest first, with the totals over every matching session; 4000 without a start range or with one over 92 days", body = Envelope<ChargingSessionPage>)),
    security(("token" = ["as:charge:card"]))
)]
async fn list_charging_sessions(
    State(state): State<AppState>,
    principal: Principal,
    query: ListQuery,
) -> ApiResult<ChargingSessionPage> {
    let answer = state
        .energy()
        .list_charging_sessions(state.as_user(&principal, session_filter(&query)?))
        .await?
        .into_inner();
    Result::Ok(Ok(ChargingSessionPage {
        list: answer
            .sessions
            .into_iter()
            .map(ChargingSessionBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
        totals: answer.totals.unwrap_or_default().into(),
    }))
}

#[utoipa::path(
    post, path = "/charging/sessions/export", tag = "charging",
    params(ChargingSessionListParams),
    responses((status = 200, description = "The export record of the session list with the list's filters (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn export_charging_sessions(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportChargingSessionsRequest {
        filter: Some(pb::ListChargingSessionsRequest {
            page: None,
            ..session_filter(&query)?
        }),
    };
    let answer = state
        .energy()
        .export_charging_sessions(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/charging/sessions/{id}", tag = "charging",
    params(("id" = String, Path, description = "Session id")),
    responses((status = 200, description = "One session", body = Envelope<ChargingSessionBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn get_charging_session(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ChargingSessionBody> {
    let answer = state
        .energy()
        .get_charging_session(
            state.as_user(&principal, pb::GetChargingSessionRequest { session_id: id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(answer.session.unwrap_or_default().into()))
}

/// One plate recognition at a station gate or pile.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlateScanRecordBody {
    pub id: String,
    pub station_id: String,
    pub station_name: String,
    pub pile_no: String,
    /// As recognised.
    pub plate_number: String,
    /// Empty when NOT_REGISTERED.
    pub vehicle_id: String,
    pub card_id: String,
    pub card_no: String,
    pub org_name: String,
    pub scan_time: String,
    pub result: Option<PlateScanResult>,
    /// STARTED: the session.
    pub session_id: String,
    /// A signed link (10 minutes) of the camera's snapshot; empty when none.
    pub image_url: String,
}

impl PlateScanRecordBody {
    /// The record with its snapshot's link signed for the caller (energy
    /// answered it within the caller's enterprise, so the key is theirs).
    fn new(r: pb::PlateScanRecord, links: &LinkSigner, now: i64) -> Self {
        let pb::PlateScanRecord {
            id,
            enterprise_id: _,
            station_id,
            station_name,
            pile_no,
            plate_number,
            vehicle_id,
            card_id,
            card_no,
            org_name,
            scan_time,
            result,
            session_id,
            image,
        } = r;
        PlateScanRecordBody {
            id,
            station_id,
            station_name,
            pile_no,
            plate_number,
            vehicle_id,
            card_id,
            card_no,
            org_name,
            scan_time: rfc3339(scan_time.as_ref()),
            result: PlateScanResult::from_pb(result),
            session_id,
            image_url: image
                .filter(|f| !f.key.is_empty())
                .map(|f| links.link(&f.key, now))
                .unwrap_or_default(),
        }
    }
}

/// Filters of the plate-scan record (repeat a key for several values).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct PlateScanListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    pub plate: Option<Vec<String>>,
    #[param(style = Form, explode)]
    pub org_id: Option<Vec<String>>,
    pub station_id: Option<String>,
    #[param(style = Form, explode, inline)]
    pub result: Option<Vec<PlateScanResult>>,
    /// Required with scanTimeEnd: at most 92 days.
    pub scan_time_start: Option<String>,
    pub scan_time_end: Option<String>,
}

fn plate_scan_filter(query: &ListQuery) -> Result<pb::ListPlateScanRecordsRequest, ApiError> {
    Result::Ok(pb::ListPlateScanRecordsRequest {
        page: Some(query.paging()?),
        plate_numbers: query.batch("plate")?,
        org_ids: query.batch("orgId")?,
        station_id: query.text("stationId"),
        results: query
            .parsed::<PlateScanResult>("result")?
            .into_iter()
            .map(i32::from)
            .collect(),
        scan_time: query.range("scanTime")?,
    })
}

#[utoipa::path(
    get, path = "/charging/plate-scans", tag = "charging",
    params(PlateScanListParams),
    responses((status = 200, description = "Plate recognitions in the caller's data scope, newest first; 4000 without a scan range or with one over 92 days", body = Envelope<Page<PlateScanRecordBody>>)),
    security(("token" = ["as:charge:card"]))
)]
async fn list_plate_scan_records(
    State(state): State<AppState>,
    principal: Principal,
    query: ListQuery,
) -> ApiResult<Page<PlateScanRecordBody>> {
    let answer = state
        .energy()
        .list_plate_scan_records(state.as_user(&principal, plate_scan_filter(&query)?))
        .await?
        .into_inner();
    let now = chrono::Utc::now().timestamp();
    Result::Ok(Ok(Page {
        list: answer
            .records
            .into_iter()
            .map(|r| PlateScanRecordBody::new(r, &state.links, now))
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/charging/plate-scans/export", tag = "charging",
    params(PlateScanListParams),
    responses((status = 200, description = "The export record of the plate-scan record with the list's filters (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn export_plate_scan_records(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportPlateScanRecordsRequest {
        filter: Some(pb::ListPlateScanRecordsRequest {
            page: None,
            ..plate_scan_filter(&query)?
        }),
    };
    let answer = state
        .energy()
        .export_plate_scan_records(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_read_and_print_as_yyyy_mm() {
        let q = ListQuery::parse("m=2026-03&bad=2026-13&short=26-01&word=march").unwrap();
        let m = month_param(&q, "m").unwrap();
        assert_eq!(
            m,
            Some(common::YearMonth {
                year: 2026,
                month: 3
            })
        );
        assert_eq!(month_text(m.as_ref()), "2026-03");
        for key in ["bad", "short", "word"] {
            assert!(month_param(&q, key).is_err(), "{key}");
        }
        assert_eq!(month_param(&q, "absent").unwrap(), None);
        assert_eq!(month_text(None), "");
    }
}
