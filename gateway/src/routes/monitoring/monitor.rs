//! Vehicle monitoring (quicklyFindCar, track playback; permission
//! `as:mancar`): the latest position of every vehicle in reach with counts
//! by status, the live stream of positions (SSE), one vehicle's track with
//! stops and speeding, and the track's export. Coordinates are WGS-84.

use std::time::Duration;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::response::Response;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Deserializer, Serialize};
use tokio::sync::broadcast;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::query::{EdgeQuery, batch, edge_time};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith};
use crate::live::{FeedKey, sse};
use crate::session::{self, Principal};
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
    #[serde(rename = "heading")]
    pub heading_deg: i32,
    pub altitude_m: f64,
    /// Battery state of charge, percent.
    #[serde(rename = "soc")]
    pub soc_percent: Option<i32>,
    pub temperatures: Vec<ProbeTemperatureBody>,
    pub mileage_km: Option<f64>,
    /// RFC 3339.
    #[serde(rename = "fixTime")]
    pub gps_time: String,
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
            heading_deg: p.heading_deg,
            altitude_m: p.altitude_m,
            soc_percent: p.soc_percent,
            temperatures: p
                .temperatures
                .into_iter()
                .map(|t| ProbeTemperatureBody {
                    probe: t.probe,
                    celsius: t.celsius,
                })
                .collect(),
            mileage_km: km(p.mileage_m),
            gps_time: rfc3339(p.gps_time.as_ref()),
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
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PositionListParams {
    /// Part of the plate number.
    #[serde(default)]
    #[serde(rename = "plateNumber")]
    pub plate_search: String,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<PositionStatus>,
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
    EdgeQuery(query): EdgeQuery<PositionListParams>,
) -> ApiResult<LatestPositionsBody> {
    let request = pb::ListLatestPositionsRequest {
        plate_search: query.plate_search,
        org_ids: query.org_ids,
        statuses: query.statuses.into_iter().map(PositionStatus::pb).collect(),
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
    let feed = state
        .live
        .join::<LatestPositionBody, _, _>(&principal, || async {
            let request = pb::WatchPositionsRequest::default();
            let upstream = state
                .telemetry()
                .watch_positions(state.as_user(&principal, request))
                .await?;
            Result::Ok(upstream.into_inner())
        })
        .await?;
    Result::Ok(respond(state, principal, feed, PING_EVERY))
}

/// The browser's side: the feed's batches, a `: ping` comment every
/// `ping_every`, and an end when the session behind it no longer stands as
/// it did (signed out or revoked, or its reach changed: the browser
/// reconnects into the right feed).
fn respond(
    state: AppState,
    principal: Principal,
    receiver: broadcast::Receiver<Bytes>,
    ping_every: Duration,
) -> Response {
    let key = FeedKey::of(&principal);
    let start = tokio::time::Instant::now() + ping_every;
    let pings = tokio::time::interval_at(start, ping_every);
    let stream = futures::stream::unfold(
        (receiver, pings, state, principal.token, key),
        |(mut receiver, mut pings, state, token, key)| async move {
            loop {
                tokio::select! {
                    batch = receiver.recv() => match batch {
                        Result::Ok(bytes) => return Some((bytes, (receiver, pings, state, token, key))),
                        Err(broadcast::error::RecvError::Lagged(_)) => continue,
                        Err(broadcast::error::RecvError::Closed) => return None,
                    },
                    _ = pings.tick() => {
                        let still = session::resolve(&state, &token)
                            .await
                            .is_ok_and(|p| FeedKey::of(&p) == key);
                        if !still {
                            return None;
                        }
                        let ping = Bytes::from_static(b": ping\n\n");
                        return Some((ping, (receiver, pings, state, token, key)));
                    }
                }
            }
        },
    );
    sse(stream)
}

/// A time range of a track: `from` and `to` in RFC 3339 (or yyyy-MM-dd HH:mm:ss, Asia/Shanghai).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct TrackParams {
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "track_time")]
    pub from: Option<prost_types::Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "track_time")]
    pub to: Option<prost_types::Timestamp>,
}

/// Either end of a track: a time to the second (a bare date is midnight).
fn track_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<prost_types::Timestamp>, D::Error> {
    edge_time(d, false, "时间格式应为 RFC 3339 或 yyyy-MM-dd HH:mm:ss")
}

impl TrackParams {
    fn range(self) -> common::TimeRange {
        common::TimeRange {
            start: self.from,
            end: self.to,
        }
    }
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
    EdgeQuery(query): EdgeQuery<TrackParams>,
) -> ApiResult<TrackBody> {
    let request = pb::ListPositionHistoryRequest {
        vehicle_id: vehicle_id.clone(),
        time_range: Some(query.range()),
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
    EdgeQuery(query): EdgeQuery<TrackParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportPositionHistoryRequest {
        vehicle_id,
        time_range: Some(query.range()),
    };
    let answer = state
        .telemetry()
        .export_position_history(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
