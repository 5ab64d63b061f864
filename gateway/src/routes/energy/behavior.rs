//! Charging behaviour analysis (behaviorAnalyze under 车辆管理 › 资产报表,
//! permission `as:charge:behavior`, for enterprises on its white list): how
//! a filter's vehicles charge — by hour of day, SOC at plug-in, time-of-use
//! band, cost per kWh and per 100 km — overall and per organisation, the
//! same per vehicle page by page, and the vehicle list's export. The start
//! range is required (at most 92 days, energy checks it). Money in fen,
//! energy in Wh, distance in metres.

use axum::extract::State;
use fleetdesk_proto::energy::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_charging_behavior_analysis))
        .routes(routes!(list_vehicle_charging_behaviors))
        .routes(routes!(export_vehicle_charging_behaviors))
}

/// What a set of settled sessions says about how vehicles charge.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingBehaviorFiguresBody {
    pub session_count: i64,
    pub energy_wh: i64,
    /// What the sessions cost the enterprise.
    pub total_fen: i64,
    /// Energy by time-of-use band of the stations' tariffs.
    pub peak_energy_wh: i64,
    pub flat_energy_wh: i64,
    pub valley_energy_wh: i64,
    /// Energy of sessions whose band is unknown.
    pub unknown_band_energy_wh: i64,
    /// Valley energy / energy, 0..1.
    pub off_peak_share: f64,
    /// Cost per kWh as fen per MWh (0 without energy).
    pub avg_price_fen_per_mwh: i64,
    /// Averages over the sessions that reported a SOC.
    pub avg_start_soc_percent: Option<i32>,
    pub avg_end_soc_percent: Option<i32>,
    /// Distinct vehicles charged.
    pub vehicle_count: i32,
    /// Of them, those whose odometer covers the range, and the metres they drove.
    pub vehicles_with_distance: i32,
    pub distance_m: i64,
    /// Cost and energy per 100 km over the vehicles with distance; absent without any.
    pub fen_per_100km: Option<i64>,
    pub wh_per_100km: Option<i64>,
}

impl From<pb::ChargingBehaviorFigures> for ChargingBehaviorFiguresBody {
    fn from(f: pb::ChargingBehaviorFigures) -> Self {
        let pb::ChargingBehaviorFigures {
            session_count,
            energy_wh,
            total_fen,
            peak_energy_wh,
            flat_energy_wh,
            valley_energy_wh,
            unknown_band_energy_wh,
            off_peak_share,
            avg_price_fen_per_mwh,
            avg_start_soc_percent,
            avg_end_soc_percent,
            vehicle_count,
            vehicles_with_distance,
            distance_m,
            fen_per_100km,
            wh_per_100km,
        } = f;
        ChargingBehaviorFiguresBody {
            session_count,
            energy_wh,
            total_fen,
            peak_energy_wh,
            flat_energy_wh,
            valley_energy_wh,
            unknown_band_energy_wh,
            off_peak_share,
            avg_price_fen_per_mwh,
            avg_start_soc_percent,
            avg_end_soc_percent,
            vehicle_count,
            vehicles_with_distance,
            distance_m,
            fen_per_100km,
            wh_per_100km,
        }
    }
}

fn figures(f: Option<pb::ChargingBehaviorFigures>) -> ChargingBehaviorFiguresBody {
    f.unwrap_or_default().into()
}

/// Sessions starting in one hour of the day.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct HourOfDayFigureBody {
    /// 0..23, Asia/Shanghai.
    pub hour: i32,
    pub session_count: i64,
    pub energy_wh: i64,
}

/// Sessions whose SOC at plug-in is in [fromPercent, toPercent) (the last bucket includes 100).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SocBucketBody {
    pub from_percent: i32,
    pub to_percent: i32,
    pub session_count: i64,
}

/// One organisation's figures (the sessions of its cards).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgChargingBehaviorBody {
    pub org_id: String,
    pub org_name: String,
    pub figures: ChargingBehaviorFiguresBody,
}

/// The analysis of a filter's sessions.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingBehaviorAnalysisBody {
    pub overall: ChargingBehaviorFiguresBody,
    /// 24 entries, hour 0 to 23.
    pub by_hour: Vec<HourOfDayFigureBody>,
    /// SOC at plug-in in ten buckets of 10 points.
    pub start_soc: Vec<SocBucketBody>,
    /// Sessions that reported no SOC at plug-in.
    pub start_soc_unknown_count: i64,
    /// Per organisation, most energy first.
    pub orgs: Vec<OrgChargingBehaviorBody>,
}

impl From<pb::ChargingBehaviorAnalysis> for ChargingBehaviorAnalysisBody {
    fn from(a: pb::ChargingBehaviorAnalysis) -> Self {
        let pb::ChargingBehaviorAnalysis {
            overall,
            by_hour,
            start_soc,
            start_soc_unknown_count,
            orgs,
        } = a;
        ChargingBehaviorAnalysisBody {
            overall: figures(overall),
            by_hour: by_hour
                .into_iter()
                .map(|h| HourOfDayFigureBody {
                    hour: h.hour,
                    session_count: h.session_count,
                    energy_wh: h.energy_wh,
                })
                .collect(),
            start_soc: start_soc
                .into_iter()
                .map(|b| SocBucketBody {
                    from_percent: b.from_percent,
                    to_percent: b.to_percent,
                    session_count: b.session_count,
                })
                .collect(),
            start_soc_unknown_count,
            orgs: orgs
                .into_iter()
                .map(|o| OrgChargingBehaviorBody {
                    org_id: o.org_id,
                    org_name: o.org_name,
                    figures: figures(o.figures),
                })
                .collect(),
        }
    }
}

/// One vehicle's charging behaviour.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VehicleChargingBehaviorBody {
    pub vehicle_id: String,
    pub plate_number: String,
    /// Of the vehicle's latest session in the range.
    pub org_id: String,
    pub org_name: String,
    pub figures: ChargingBehaviorFiguresBody,
    /// The hour (0..23, Asia/Shanghai) it most often starts charging.
    pub usual_start_hour: i32,
}

impl From<pb::VehicleChargingBehavior> for VehicleChargingBehaviorBody {
    fn from(v: pb::VehicleChargingBehavior) -> Self {
        let pb::VehicleChargingBehavior {
            vehicle_id,
            plate_number,
            org_id,
            org_name,
            figures: f,
            usual_start_hour,
        } = v;
        VehicleChargingBehaviorBody {
            vehicle_id,
            plate_number,
            org_id,
            org_name,
            figures: figures(f),
            usual_start_hour,
        }
    }
}

/// The analysis' filter (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ChargingBehaviorParams {
    /// Organisations, each with its sub-organisations (the session's card organisation).
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    /// Plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    /// Required: sessions started in the range, at most 92 days
    /// (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub start_time_start: Option<Timestamp>,
    /// Required; a bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub start_time_end: Option<Timestamp>,
}

/// The vehicle list's filter and paging.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct VehicleChargingBehaviorListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "plate")]
    pub plate_numbers: Vec<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub start_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub start_time_end: Option<Timestamp>,
}

impl ChargingBehaviorParams {
    /// The filter of a query (energy requires the range and bounds its span).
    fn filter(self) -> pb::ChargingBehaviorFilter {
        pb::ChargingBehaviorFilter {
            org_ids: self.org_ids,
            plate_numbers: self.plate_numbers,
            start_time: time_range(self.start_time_start, self.start_time_end),
        }
    }
}

#[utoipa::path(
    get, path = "/charging/behavior", tag = "charging",
    params(ChargingBehaviorParams),
    responses((status = 200, description = "How the filter's vehicles charge in the caller's data scope: overall, by hour, SOC at plug-in and per organisation; 4000 without a start range or with one over 92 days", body = Envelope<ChargingBehaviorAnalysisBody>)),
    security(("token" = ["as:charge:behavior"]))
)]
async fn get_charging_behavior_analysis(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ChargingBehaviorParams>,
) -> ApiResult<ChargingBehaviorAnalysisBody> {
    let request = pb::GetChargingBehaviorAnalysisRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .energy()
        .get_charging_behavior_analysis(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.analysis.unwrap_or_default().into()))
}

#[utoipa::path(
    get, path = "/charging/behavior/vehicles", tag = "charging",
    params(VehicleChargingBehaviorListParams),
    responses((status = 200, description = "The same figures per vehicle, most energy first", body = Envelope<Page<VehicleChargingBehaviorBody>>)),
    security(("token" = ["as:charge:behavior"]))
)]
async fn list_vehicle_charging_behaviors(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<VehicleChargingBehaviorListParams>,
) -> ApiResult<Page<VehicleChargingBehaviorBody>> {
    let filter = ChargingBehaviorParams {
        org_ids: query.org_ids,
        plate_numbers: query.plate_numbers,
        start_time_start: query.start_time_start,
        start_time_end: query.start_time_end,
    };
    let request = pb::ListVehicleChargingBehaviorsRequest {
        page: Some(paging(query.page, query.size)?),
        filter: Some(filter.filter()),
    };
    let answer = state
        .energy()
        .list_vehicle_charging_behaviors(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .vehicles
            .into_iter()
            .map(VehicleChargingBehaviorBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/charging/behavior/vehicles/export", tag = "charging",
    params(ChargingBehaviorParams),
    responses((status = 200, description = "The export record of the vehicle list with the analysis' filter", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:behavior"]))
)]
async fn export_vehicle_charging_behaviors(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ChargingBehaviorParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportVehicleChargingBehaviorsRequest {
        filter: Some(query.filter()),
    };
    let answer = state
        .energy()
        .export_vehicle_charging_behaviors(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
