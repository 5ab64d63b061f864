//! The charging dashboard (charge/dashboard, permission `as:charge:index`):
//! balances, the period's totals, kWh and spend by day, the top stations and
//! organisations.

use axum::extract::State;
use fleetdesk_proto::energy::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::query::{EdgeQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok};
use crate::routes::energy::convert::ChargingSessionTotalsBody;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(get_charging_dashboard))
}

/// One day of the trend.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DailyChargingFigureBody {
    /// The day, 00:00 Asia/Shanghai.
    pub date: String,
    pub session_count: i64,
    pub energy_wh: i64,
    pub total_fen: i64,
}

/// One row of a ranking.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingRankItemBody {
    /// Station or organisation id.
    pub id: String,
    pub name: String,
    pub session_count: i64,
    pub energy_wh: i64,
    pub total_fen: i64,
}

impl From<pb::ChargingRankItem> for ChargingRankItemBody {
    fn from(r: pb::ChargingRankItem) -> Self {
        let pb::ChargingRankItem {
            id,
            name,
            session_count,
            energy_wh,
            total_fen,
        } = r;
        ChargingRankItemBody {
            id,
            name,
            session_count,
            energy_wh,
            total_fen,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingDashboardBody {
    /// The main account's available balance.
    pub main_available_fen: i64,
    /// Available over every account and card in the caller's scope.
    pub total_available_fen: i64,
    pub frozen_fen: i64,
    pub active_card_count: i32,
    /// Sessions in progress now.
    pub charging_now_count: i32,
    /// Over the requested range.
    pub totals: ChargingSessionTotalsBody,
    /// Distinct vehicles charged in the range.
    pub vehicle_count: i32,
    /// Saved against list prices in the range.
    pub saved_fen: i64,
    /// All-in average, fen per MWh.
    pub avg_price_fen_per_mwh: i64,
    /// One point per day of the range.
    pub trend: Vec<DailyChargingFigureBody>,
    /// Top 10 by energy.
    pub top_stations: Vec<ChargingRankItemBody>,
    pub top_orgs: Vec<ChargingRankItemBody>,
    pub top_vehicles: Vec<ChargingRankItemBody>,
}

impl From<pb::ChargingDashboard> for ChargingDashboardBody {
    fn from(d: pb::ChargingDashboard) -> Self {
        let pb::ChargingDashboard {
            main_available_fen,
            total_available_fen,
            frozen_fen,
            active_card_count,
            charging_now_count,
            totals,
            vehicle_count,
            saved_fen,
            avg_price_fen_per_mwh,
            trend,
            top_stations,
            top_orgs,
            top_vehicles,
        } = d;
        ChargingDashboardBody {
            main_available_fen,
            total_available_fen,
            frozen_fen,
            active_card_count,
            charging_now_count,
            totals: totals.unwrap_or_default().into(),
            vehicle_count,
            saved_fen,
            avg_price_fen_per_mwh,
            trend: trend
                .into_iter()
                .map(|f| DailyChargingFigureBody {
                    date: rfc3339(f.date.as_ref()),
                    session_count: f.session_count,
                    energy_wh: f.energy_wh,
                    total_fen: f.total_fen,
                })
                .collect(),
            top_stations: top_stations
                .into_iter()
                .map(ChargingRankItemBody::from)
                .collect(),
            top_orgs: top_orgs
                .into_iter()
                .map(ChargingRankItemBody::from)
                .collect(),
            top_vehicles: top_vehicles
                .into_iter()
                .map(ChargingRankItemBody::from)
                .collect(),
        }
    }
}

/// The dashboard's scope and period.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ChargingDashboardParams {
    /// Organisations, each with its sub-organisations; none = the caller's whole scope.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    /// Period from (yyyy-MM-dd …); without a period: this month so far. At most 92 days.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub time_range_start: Option<Timestamp>,
    /// Period to (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub time_range_end: Option<Timestamp>,
}

#[utoipa::path(
    get, path = "/charging/dashboard", tag = "charging",
    params(ChargingDashboardParams),
    responses((status = 200, description = "The dashboard's figures for the caller's data scope", body = Envelope<ChargingDashboardBody>)),
    security(("token" = ["as:charge:index"]))
)]
async fn get_charging_dashboard(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ChargingDashboardParams>,
) -> ApiResult<ChargingDashboardBody> {
    let request = pb::GetChargingDashboardRequest {
        org_ids: query.org_ids,
        time_range: time_range(query.time_range_start, query.time_range_end),
    };
    let answer = state
        .energy()
        .get_charging_dashboard(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.dashboard.unwrap_or_default().into()))
}
