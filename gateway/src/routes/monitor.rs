//! Vehicle monitoring (quicklyFindCar, track playback; permission
//! `as:mancar`): the latest position of every vehicle in reach with counts
//! by status, the live stream of positions (SSE), one vehicle's track with
//! stops and speeding, and the track's export. Coordinates are WGS-84.

use std::time::Duration;

use axum::extract::{Path, State};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith};
use crate::list::{ListQuery, instant};
use crate::routes::exports::{ExportRecordBody, answer_started};
use crate::routes::rfc3339;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_positions))
        .routes(routes!(stream_positions))
        .routes(routes!(get_track))
        .routes(routes!(export_track))
}

/// The SSE keep-alive comment interval.
pub const PING_EVERY: Duration = Duration::from_secs(15);
/// A week of fixes every 10 s is ~60,000 points (~5 MB of protobuf).
const TRACK_MESSAGE_LIMIT: usize = 64 * 1024 * 1024;

/// What the map colours a vehicle by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum PositionStatus {
    Driving,
    Parked,
    Charging,
    Offline,
    Alarm,
}

impl PositionStatus {
    fn from_pb(value: i32) -> PositionStatus {
        use pb::PositionStatus as P;
        match P::try_from(value).unwrap_or(P::Unspecified) {
            P::Driving => PositionStatus::Driving,
            P::Parked => PositionStatus::Parked,
            P::Charging => PositionStatus::Charging,
            P::Alarm => PositionStatus::Alarm,
            P::Offline | P::Unspecified => PositionStatus::Offline,
        }
    }

    fn pb(self) -> i32 {
        use pb::PositionStatus as P;
        (match self {
            PositionStatus::Driving => P::Driving,
            PositionStatus::Parked => P::Parked,
            PositionStatus::Charging => P::Charging,
            PositionStatus::Offline => P::Offline,
            PositionStatus::Alarm => P::Alarm,
        }) as i32
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeTemperatureBody {
    pub probe: i32,
    pub celsius: f64,
}

/// A speed with one decimal.
fn kmh(value: f64) -> f64 {
    (value * 10.0).round() / 10.0
}

fn km(metres: Option<i64>) -> Option<f64> {
    metres.map(|m| (m as f64 / 100.0).round() / 10.0)
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LatestPositionBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub org_name: String,
    pub driver_name: String,
    /// WGS-84 degrees.
    pub lat: f64,
    pub lng: f64,
    /// km/h, one decimal.
    pub speed_kmh: f64,
    /// Degrees clockwise from north.
    pub heading: i32,
    pub altitude_m: f64,
    /// Battery state of charge, percent.
    pub soc: Option<i32>,
    pub temperatures: Vec<ProbeTemperatureBody>,
    pub mileage_km: Option<f64>,
    /// RFC 3339.
    pub fix_time: String,
    pub status: PositionStatus,
    /// JT/T 808 alarm word (Table 24).
    pub alarm_bits: u32,
}

impl From<pb::VehiclePosition> for LatestPositionBody {
    fn from(p: pb::VehiclePosition) -> Self {
        let point = p.point.unwrap_or_default();
        LatestPositionBody {
            vehicle_id: p.vehicle_id,
            plate_number: p.plate_number,
            org_name: p.org_name,
            driver_name: p.driver_name,
            lat: point.latitude,
            lng: point.longitude,
            speed_kmh: kmh(p.speed_kmh),
            heading: p.heading_deg,
            altitude_m: p.altitude_m,
            soc: p.soc_percent,
            temperatures: p
                .temperatures
                .into_iter()
                .map(|t| ProbeTemperatureBody {
                    probe: t.probe,
                    celsius: t.celsius,
                })
                .collect(),
            mileage_km: km(p.mileage_m),
            fix_time: rfc3339(p.gps_time.as_ref()),
            status: PositionStatus::from_pb(p.status),
            alarm_bits: p.alarm_bits,
        }
    }
}

/// Vehicles by status (the map legend).
#[derive(Debug, Clone, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PositionCountsBody {
    pub total: i32,
    pub driving: i32,
    pub parked: i32,
    pub charging: i32,
    pub offline: i32,
    pub alarm: i32,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LatestPositionsBody {
    /// Over every vehicle the other filters match (statuses aside).
    pub counts: PositionCountsBody,
    pub list: Vec<LatestPositionBody>,
    /// More than 20,000 vehicles matched; the first 20,000 by plate are listed.
    pub truncated: bool,
}

/// Filters of the map (repeat a key for several values).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct PositionListParams {
    /// Part of the plate number.
    pub plate_number: Option<String>,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    pub org_ids: Option<Vec<String>>,
    #[param(style = Form, explode, inline)]
    pub statuses: Option<Vec<PositionStatus>>,
}

#[utoipa::path(
    get, path = "/monitor/positions", tag = "monitoring",
    params(PositionListParams),
    responses((status = 200, description = "The latest position of every vehicle in the caller's data scope that has one (at most 20,000, by plate), with counts by status", body = Envelope<LatestPositionsBody>)),
    security(("token" = ["as:mancar"]))
)]
async fn list_positions(
    State(state): State<AppState>,
    principal: Principal,
    query: ListQuery,
) -> ApiResult<LatestPositionsBody> {
    let request = pb::ListLatestPositionsRequest {
        plate_search: query.text("plateNumber"),
        org_ids: query.batch("orgIds")?,
        statuses: query
            .parsed::<PositionStatus>("statuses")?
            .into_iter()
            .map(PositionStatus::pb)
            .collect(),
        whole_map: true,
        ..Default::default()
    };
    let answer = state
        .telemetry()
        .max_decoding_message_size(TRACK_MESSAGE_LIMIT)
        .list_latest_positions(state.as_user(&principal, request))
        .await?
        .into_inner();
    let s = answer.summary.unwrap_or_default();
    Result::Ok(Ok(LatestPositionsBody {
        counts: PositionCountsBody {
            total: s.total,
            driving: s.driving_count,
            parked: s.parked_count,
            charging: s.charging_count,
            offline: s.offline_count,
            alarm: s.alarm_count,
        },
        list: answer
            .positions
            .into_iter()
            .map(LatestPositionBody::from)
            .collect(),
        truncated: answer.truncated,
    }))
}

#[utoipa::path(
    get, path = "/monitor/stream", tag = "monitoring",
    responses((status = 200, description = "Server-sent events: `event: position` with one LatestPositionBody as `data` for each new fix of a vehicle in the caller's enterprise and data scope; a `: ping` comment every 15 s. The stream ends when its session is signed out or revoked or its data scope changes (reconnect to follow the new scope).", content_type = "text/event-stream", body = LatestPositionBody)),
    security(("token" = ["as:mancar"]))
)]
async fn stream_positions(
    State(state): State<AppState>,
    principal: Principal,
) -> Result<axum::response::Response, ApiError> {
    let feed = state.live.join(&state, &principal).await?;
    Result::Ok(crate::live::respond(state, principal, feed, PING_EVERY))
}

/// A time range of a track: `from` and `to` in RFC 3339 (or yyyy-MM-dd HH:mm:ss, Asia/Shanghai).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[allow(dead_code)]
pub struct TrackParams {
    pub from: Option<String>,
    pub to: Option<String>,
}

fn track_range(query: &ListQuery) -> Result<common::TimeRange, ApiError> {
    let side = |key: &str| -> Result<Option<prost_types::Timestamp>, ApiError> {
        match query.one(key) {
            None => Result::Ok(None),
            Some(v) => instant(v, false)
                .map(|t| Some(fleetdesk_kit::convert::timestamp(t)))
                .ok_or_else(|| {
                    ApiError::invalid(key, "时间格式应为 RFC 3339 或 yyyy-MM-dd HH:mm:ss")
                }),
        }
    };
    Result::Ok(common::TimeRange {
        start: side("from")?,
        end: side("to")?,
    })
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackPointBody {
    /// Fix time, RFC 3339.
    pub t: String,
    pub lat: f64,
    pub lng: f64,
    pub speed_kmh: f64,
    pub heading: i32,
    pub soc: Option<i32>,
    pub mileage_km: Option<f64>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackStopBody {
    pub from: String,
    pub to: String,
    pub lat: f64,
    pub lng: f64,
    pub duration_s: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackSpeedingBody {
    pub from: String,
    pub to: String,
    pub max_speed_kmh: f64,
    pub limit_kmh: f64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TrackBody {
    pub vehicle_id: String,
    pub plate_number: String,
    /// Oldest first.
    pub points: Vec<TrackPointBody>,
    /// Standing still for at least 3 minutes.
    pub stops: Vec<TrackStopBody>,
    /// Over 100 km/h.
    pub speeding: Vec<TrackSpeedingBody>,
    pub distance_km: f64,
}

#[utoipa::path(
    get, path = "/monitor/vehicles/{vehicleId}/track", tag = "monitoring",
    params(("vehicleId" = String, Path, description = "Vehicle id"), TrackParams),
    responses((status = 200, description = "The vehicle's fixes in [from, to) (at most 7 days), oldest first, with stops, speeding and distance", body = Envelope<TrackBody>)),
    security(("token" = ["as:mancar"]))
)]
async fn get_track(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    query: ListQuery,
) -> ApiResult<TrackBody> {
    let request = pb::ListPositionHistoryRequest {
        vehicle_id: vehicle_id.clone(),
        time_range: Some(track_range(&query)?),
        max_points: 0,
    };
    let answer = state
        .telemetry()
        .max_decoding_message_size(TRACK_MESSAGE_LIMIT)
        .list_position_history(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(TrackBody {
        vehicle_id,
        plate_number: answer.plate_number,
        points: answer
            .positions
            .into_iter()
            .map(|p| {
                let point = p.point.unwrap_or_default();
                TrackPointBody {
                    t: rfc3339(p.gps_time.as_ref()),
                    lat: point.latitude,
                    lng: point.longitude,
                    speed_kmh: kmh(p.speed_kmh),
                    heading: p.heading_deg,
                    soc: p.soc_percent,
                    mileage_km: km(p.mileage_m),
                }
            })
            .collect(),
        stops: answer
            .stops
            .into_iter()
            .map(|s| {
                let point = s.point.unwrap_or_default();
                TrackStopBody {
                    from: rfc3339(s.start_time.as_ref()),
                    to: rfc3339(s.end_time.as_ref()),
                    lat: point.latitude,
                    lng: point.longitude,
                    duration_s: s.duration_s,
                }
            })
            .collect(),
        speeding: answer
            .speeding
            .into_iter()
            .map(|s| TrackSpeedingBody {
                from: rfc3339(s.start_time.as_ref()),
                to: rfc3339(s.end_time.as_ref()),
                max_speed_kmh: kmh(s.max_speed_kmh),
                limit_kmh: s.limit_kmh,
            })
            .collect(),
        distance_km: km(Some(answer.mileage_m)).unwrap_or(0.0),
    }))
}

#[utoipa::path(
    post, path = "/monitor/vehicles/{vehicleId}/track/export", tag = "monitoring",
    params(("vehicleId" = String, Path, description = "Vehicle id"), TrackParams),
    responses((status = 200, description = "The export record of the vehicle's track in [from, to) (at most 7 days, oldest first); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:mancar"]))
)]
async fn export_track(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    query: ListQuery,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportPositionHistoryRequest {
        vehicle_id,
        time_range: Some(track_range(&query)?),
    };
    let answer = state
        .telemetry()
        .export_position_history(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
