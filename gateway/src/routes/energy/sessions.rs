//! Charging sessions (consumeRecord) and plate scans (scanPlateRecord),
//! permission `as:charge:card`: lists with batch plate and card filters over
//! a start (scan) time range of at most 92 days, the sessions' totals row,
//! a session's detail and the exports. Energy in Wh, money in fen.

use axum::extract::{Path, State};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::files::LinkSigner;
use crate::routes::energy::convert::{ChargingSessionTotalsBody, month, month_text};
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

/// A page of sessions with the totals over every matching session.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingSessionPage {
    pub list: Vec<ChargingSessionBody>,
    pub total: i64,
    pub totals: ChargingSessionTotalsBody,
}

/// Filters of the session list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ChargingSessionListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    /// Card numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "cardNo")]
    pub card_nos: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[serde(default)]
    pub driver_id: String,
    #[serde(default)]
    pub station_id: String,
    /// The operator's order number.
    #[serde(default)]
    pub session_no: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<ChargingSessionStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "startMethod")]
    pub start_methods: Vec<StartMethod>,
    /// Required with startTimeEnd: sessions started in the range, at most 92 days
    /// (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub start_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub start_time_end: Option<Timestamp>,
    /// Sessions on this month's statement (yyyy-MM).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub statement_month: Option<common::YearMonth>,
}

impl ChargingSessionListParams {
    fn filter(self) -> Result<pb::ListChargingSessionsRequest, ApiError> {
        Result::Ok(pb::ListChargingSessionsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            card_nos: self.card_nos,
            org_ids: self.org_ids,
            driver_id: self.driver_id,
            station_id: self.station_id,
            session_no: self.session_no,
            statuses: codes(self.statuses),
            start_methods: codes(self.start_methods),
            start_time: time_range(self.start_time_start, self.start_time_end),
            statement_month: self.statement_month,
        })
    }
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
    EdgeQuery(query): EdgeQuery<ChargingSessionListParams>,
) -> ApiResult<ChargingSessionPage> {
    let answer = state
        .energy()
        .list_charging_sessions(state.as_user(&principal, query.filter()?))
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
    ExportQuery(query): ExportQuery<ChargingSessionListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportChargingSessionsRequest {
        filter: Some(pb::ListChargingSessionsRequest {
            page: None,
            ..query.filter()?
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
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PlateScanListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[serde(default)]
    pub station_id: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "result")]
    pub results: Vec<PlateScanResult>,
    /// Required with scanTimeEnd: at most 92 days.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub scan_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub scan_time_end: Option<Timestamp>,
}

impl PlateScanListParams {
    fn filter(self) -> Result<pb::ListPlateScanRecordsRequest, ApiError> {
        Result::Ok(pb::ListPlateScanRecordsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            station_id: self.station_id,
            results: codes(self.results),
            scan_time: time_range(self.scan_time_start, self.scan_time_end),
        })
    }
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
    EdgeQuery(query): EdgeQuery<PlateScanListParams>,
) -> ApiResult<Page<PlateScanRecordBody>> {
    let answer = state
        .energy()
        .list_plate_scan_records(state.as_user(&principal, query.filter()?))
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
    ExportQuery(query): ExportQuery<PlateScanListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportPlateScanRecordsRequest {
        filter: Some(pb::ListPlateScanRecordsRequest {
            page: None,
            ..query.filter()?
        }),
    };
    let answer = state
        .energy()
        .export_plate_scan_records(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
