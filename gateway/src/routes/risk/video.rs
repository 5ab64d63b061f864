//! Vehicle video (风控管理 › monitor and playback; permission
//! `as:risk:video`): the vehicles whose terminal reports cameras, live video
//! and recordings streamed to the browser, the recorder's resource list, the
//! playback controls, and the viewing audit.
//!
//! Every video route first asks the vehicle service for the vehicle
//! (`GetCameraVehicle`, as the user: another tenant's or an unreachable
//! vehicle is 4004, a vehicle without camera 4009 该车辆未配置摄像头) and
//! only then the device edge's MediaService (as the gateway: it takes
//! service tokens only), with the terminal's phone the vehicle service
//! answered. A stream that starts is recorded (`StartVideoView`) and its end
//! too (`EndVideoView`), when the edge ends it or the browser goes.
//!
//! ## The stream's framing
//!
//! `…/live` and `…/playback` answer `application/octet-stream`, chunked,
//! one frame per fMP4 segment of MediaService, in order, for Media Source
//! Extensions:
//!
//! ```text
//! u32 big-endian  length of what follows (flags .. end of data)
//! u8              flags: 1 init segment, 2 starts with a keyframe, 4 error
//! [init only]     u8 codec length, then the MSE codec string (ASCII, e.g. avc1.42C01E)
//! data            the segment (ftyp+moov for init, moof+mdat otherwise);
//!                 for an error frame, its message (UTF-8); the stream ends after it
//! ```
//!
//! An init segment comes first, and again when the terminal's stream
//! restarts (start a new source buffer with its codec). A viewer who cannot
//! keep up is not buffered here: the body is pulled at the browser's pace
//! and HTTP/2 flow control holds the gRPC stream, so the edge's hub skips
//! that viewer to the next keyframe. The browser closing the request drops
//! the gRPC stream, which lets the edge close the camera after its grace.

use std::convert::Infallible;

use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use bytes::{BufMut, Bytes, BytesMut};
use chrono::NaiveDate;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::telematics::v1 as tpb;
use fleetdesk_proto::vehicle::v1 as pb;
use futures::{Stream, StreamExt};
use prost_types::Timestamp;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::edge_enum;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, edge_time, end_time, number, start_time, time_range};
use crate::edge::time::{instant, rfc3339};
use crate::envelope::{ApiError, ApiResult, Empty, Envelope, Ok, Page};
use crate::extract::TrimmedJson;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(video_list_vehicles))
        .routes(routes!(video_live))
        .routes(routes!(video_resources))
        .routes(routes!(video_playback))
        .routes(routes!(video_control_playback))
        .routes(routes!(video_list_views))
}

/// What the edge's UNAVAILABLE (terminal offline, silent, or its stream not
/// arriving) tells the user.
pub const OFFLINE: &str = "车辆不在线或未响应视频请求";

/// Frame flags of the stream (see the module doc).
pub const FLAG_INIT: u8 = 1;
pub const FLAG_KEYFRAME: u8 = 2;
pub const FLAG_ERROR: u8 = 4;

/// One segment as a frame of the stream.
pub fn frame(segment: &tpb::MediaSegment) -> Bytes {
    let codec = if segment.init {
        let codec = segment.codec.as_bytes();
        &codec[..codec.len().min(usize::from(u8::MAX))]
    } else {
        &[][..]
    };
    let head = if segment.init { 2 + codec.len() } else { 1 };
    let mut out = BytesMut::with_capacity(4 + head + segment.data.len());
    out.put_u32(u32::try_from(head + segment.data.len()).unwrap_or(u32::MAX));
    let mut flags = 0;
    if segment.init {
        flags |= FLAG_INIT;
    }
    if segment.keyframe {
        flags |= FLAG_KEYFRAME;
    }
    out.put_u8(flags);
    if segment.init {
        out.put_u8(u8::try_from(codec.len()).unwrap_or(u8::MAX));
        out.put_slice(codec);
    }
    out.put_slice(&segment.data);
    out.freeze()
}

/// The last frame of a stream the edge ended with an error.
pub fn error_frame(message: &str) -> Bytes {
    let mut out = BytesMut::with_capacity(5 + message.len());
    out.put_u32(u32::try_from(1 + message.len()).unwrap_or(u32::MAX));
    out.put_u8(FLAG_ERROR);
    out.put_slice(message.as_bytes());
    out.freeze()
}

/// MediaService's failure as the user reads it.
fn media_error(status: &tonic::Status) -> ApiError {
    let err = ServiceError::from_status(status);
    match err.code {
        ErrorCode::Unavailable => ApiError(ServiceError::new(ErrorCode::Unavailable, OFFLINE)),
        _ => ApiError(err),
    }
}

// --- Camera vehicles ---

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CameraVehicleBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub org_id: String,
    pub org_name: String,
    /// Its latest fix is recent.
    pub online: bool,
    /// Logical channels (cameras), from 1.
    pub channels: Vec<u32>,
    /// RFC 3339; empty before the first fix.
    pub last_fix_time: String,
}

impl From<pb::CameraVehicle> for CameraVehicleBody {
    fn from(v: pb::CameraVehicle) -> Self {
        CameraVehicleBody {
            vehicle_id: v.vehicle_id,
            plate_number: v.plate_number,
            org_id: v.org_id,
            org_name: v.org_name,
            online: v.online,
            channels: v.channels,
            last_fix_time: rfc3339(v.last_fix_time.as_ref()),
        }
    }
}

/// Filters of the camera tree.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CameraVehicleListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Part of the plate number.
    #[serde(default)]
    pub plate_search: String,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "crate::edge::query::batch")]
    pub org_ids: Vec<String>,
}

#[utoipa::path(
    get, path = "/video/vehicles", tag = "risk",
    params(CameraVehicleListParams),
    responses((status = 200, description = "Vehicles in the caller's data scope whose terminal reports video channels, by plate, with their organisation, online state and channels", body = Envelope<Page<CameraVehicleBody>>)),
    security(("token" = ["as:risk:video"]))
)]
async fn video_list_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<CameraVehicleListParams>,
) -> ApiResult<Page<CameraVehicleBody>> {
    let request = pb::ListCameraVehiclesRequest {
        page: Some(paging(query.page, query.size)?),
        plate_search: query.plate_search,
        org_ids: query.org_ids,
    };
    let answer = state
        .telemetry()
        .list_camera_vehicles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.vehicles.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// The vehicle as the user may see it, with its terminal's phone; `channel`
/// must be one of its cameras.
async fn camera_of(
    state: &AppState,
    principal: &Principal,
    vehicle_id: String,
) -> Result<(pb::CameraVehicle, String), ApiError> {
    let answer = state
        .telemetry()
        .get_camera_vehicle(state.as_user(principal, pb::GetCameraVehicleRequest { vehicle_id }))
        .await?
        .into_inner();
    Result::Ok((answer.vehicle.unwrap_or_default(), answer.phone))
}

/// The channel a request names, one of the vehicle's cameras. Checked after
/// the vehicle: another tenant's id is 4004 whatever else the request says.
fn channel_of(vehicle: &pb::CameraVehicle, channel: Option<u32>) -> Result<u32, ApiError> {
    let channel = channel.ok_or_else(|| ApiError::invalid("channel", "请选择通道"))?;
    if !vehicle.channels.contains(&channel) {
        return Err(ApiError::invalid("channel", "通道号无效"));
    }
    Result::Ok(channel)
}

// --- Streams ---

/// Ends the viewing it records when dropped: the stream ended, failed, or
/// the browser went away.
struct ViewEnd {
    state: AppState,
    principal: Principal,
    view_id: String,
}

impl Drop for ViewEnd {
    fn drop(&mut self) {
        let (state, principal) = (self.state.clone(), self.principal.clone());
        let view_id = std::mem::take(&mut self.view_id);
        let Result::Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            let request = state.as_user(&principal, pb::EndVideoViewRequest { view_id });
            if let Err(status) = state.telemetry().end_video_view(request).await {
                tracing::warn!(error = %status, "Video viewing end not recorded.");
            }
        });
    }
}

/// Records the start of a viewing; its end is recorded when the returned
/// guard is dropped.
async fn start_view(
    state: &AppState,
    principal: &Principal,
    vehicle_id: String,
    channel: u32,
    kind: pb::VideoViewKind,
) -> Result<ViewEnd, ApiError> {
    let request = pb::StartVideoViewRequest {
        vehicle_id,
        channel,
        kind: kind as i32,
    };
    let view_id = state
        .telemetry()
        .start_video_view(state.as_user(principal, request))
        .await?
        .into_inner()
        .view_id;
    Result::Ok(ViewEnd {
        state: state.clone(),
        principal: principal.clone(),
        view_id,
    })
}

/// The framed body of `segments`, holding `view` until it ends. Pulled at
/// the browser's pace: nothing is queued here.
fn stream_body<S>(segments: S, view: ViewEnd) -> Response
where
    S: Stream<Item = Result<tpb::MediaSegment, tonic::Status>> + Send + Unpin + 'static,
{
    let frames =
        futures::stream::unfold((segments, Some(view)), |(mut segments, view)| async move {
            let view = view?;
            match segments.next().await {
                Some(Result::Ok(segment)) => Some((frame(&segment), (segments, Some(view)))),
                Some(Err(status)) => {
                    let message = media_error(&status).0.message;
                    drop(view);
                    Some((error_frame(&message), (segments, None)))
                }
                None => None,
            }
        });
    (
        [
            (header::CONTENT_TYPE, "application/octet-stream"),
            (header::CACHE_CONTROL, "no-store"),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
        ],
        Body::from_stream(frames.map(Result::<Bytes, Infallible>::Ok)),
    )
        .into_response()
}

/// Main or sub stream of a camera.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum StreamQuality {
    #[default]
    Main,
    Sub,
}

/// One camera live.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LiveParams {
    /// The camera (logical channel), one of the vehicle's channels.
    #[param(value_type = Option<u32>)]
    #[serde(default, deserialize_with = "number")]
    pub channel: Option<u32>,
    /// `main` (default) or `sub`; viewers of a camera share the stream the first one asked for.
    // An `Option`: the query reader visits absent keys too, so a plain enum's default never applied.
    #[param(inline)]
    #[serde(default)]
    pub stream: Option<StreamQuality>,
}

#[utoipa::path(
    get, path = "/video/vehicles/{vehicleId}/live", tag = "risk",
    params(("vehicleId" = String, Path, description = "Vehicle id"), LiveParams),
    responses(
        (status = 200, description = "The camera's live video as framed fMP4 for Media Source Extensions (see the gateway's `routes::risk::video` doc: u32 length, u8 flags 1 init / 2 keyframe / 4 error, the codec string of an init segment, the segment), until the browser goes; each start is recorded in the viewing audit", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 503, description = "5003: 车辆不在线或未响应视频请求", body = crate::envelope::Envelope<Empty>)
    ),
    security(("token" = ["as:risk:video"]))
)]
async fn video_live(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    EdgeQuery(query): EdgeQuery<LiveParams>,
) -> Result<Response, ApiError> {
    let (vehicle, phone) = camera_of(&state, &principal, vehicle_id).await?;
    let channel = channel_of(&vehicle, query.channel)?;
    let request = tpb::WatchLiveRequest {
        phone,
        channel,
        stream_type: match query.stream.unwrap_or_default() {
            StreamQuality::Main => tpb::StreamType::Main,
            StreamQuality::Sub => tpb::StreamType::Sub,
        } as i32,
    };
    let segments = state
        .media()
        .watch_live(state.as_gateway(request))
        .await
        .map_err(|s| media_error(&s))?
        .into_inner()
        .map(|m| m.map(|m| m.segment.unwrap_or_default()));
    let view = start_view(
        &state,
        &principal,
        vehicle.vehicle_id,
        channel,
        pb::VideoViewKind::Live,
    )
    .await?;
    Result::Ok(stream_body(segments, view))
}

// --- Recordings ---

/// A recording the terminal holds.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VideoResourceBody {
    pub channel: u32,
    /// RFC 3339.
    pub start_time: String,
    pub end_time: String,
    /// Recorded during an alarm.
    pub alarm: bool,
    /// 0 audio and video, 1 audio, 2 video.
    pub kind: u32,
    /// `main` or `sub`.
    pub stream: String,
    /// 1 main store, 2 disaster-recovery store.
    pub storage: u32,
    pub size_bytes: u64,
}

impl From<tpb::Resource> for VideoResourceBody {
    fn from(r: tpb::Resource) -> Self {
        VideoResourceBody {
            channel: r.channel,
            start_time: rfc3339(r.start_time.as_ref()),
            end_time: rfc3339(r.end_time.as_ref()),
            alarm: r.alarms != 0,
            kind: r.kind,
            stream: match tpb::StreamType::try_from(r.stream_type) {
                Result::Ok(tpb::StreamType::Sub) => "sub",
                _ => "main",
            }
            .to_owned(),
            storage: r.storage,
            size_bytes: r.size_bytes,
        }
    }
}

/// A Beijing day (yyyy-MM-dd).
fn day<'de, D: Deserializer<'de>>(d: D) -> Result<Option<NaiveDate>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Result::Ok(None),
        Some(text) => NaiveDate::parse_from_str(text, "%Y-%m-%d")
            .map(Some)
            .map_err(|_| serde::de::Error::custom("日期格式应为 yyyy-MM-dd")),
    }
}

/// One camera's recordings of one day.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ResourceParams {
    #[param(value_type = Option<u32>)]
    #[serde(default, deserialize_with = "number")]
    pub channel: Option<u32>,
    /// The Beijing day, yyyy-MM-dd.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "day")]
    pub day: Option<NaiveDate>,
}

#[utoipa::path(
    get, path = "/video/vehicles/{vehicleId}/resources", tag = "risk",
    params(("vehicleId" = String, Path, description = "Vehicle id"), ResourceParams),
    responses(
        (status = 200, description = "The recordings the vehicle's terminal holds for the camera over the Beijing day (0x9205 → 0x1205), oldest first", body = Envelope<Vec<VideoResourceBody>>),
        (status = 503, description = "5003: 车辆不在线或未响应视频请求", body = crate::envelope::Envelope<Empty>)
    ),
    security(("token" = ["as:risk:video"]))
)]
async fn video_resources(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    EdgeQuery(query): EdgeQuery<ResourceParams>,
) -> ApiResult<Vec<VideoResourceBody>> {
    let (vehicle, phone) = camera_of(&state, &principal, vehicle_id).await?;
    let channel = channel_of(&vehicle, query.channel)?;
    let day = query
        .day
        .ok_or_else(|| ApiError::invalid("day", "请选择日期"))?
        .format("%Y-%m-%d")
        .to_string();
    let (start, end) = (instant(&day, false), instant(&day, true));
    let request = tpb::ListResourcesRequest {
        phone,
        channel,
        start_time: start.map(fleetdesk_kit::convert::timestamp),
        end_time: end.map(fleetdesk_kit::convert::timestamp),
    };
    let mut resources = state
        .media()
        .list_resources(state.as_gateway(request))
        .await
        .map_err(|s| media_error(&s))?
        .into_inner()
        .resources;
    resources.sort_by_key(|r| r.start_time.as_ref().map(|t| (t.seconds, t.nanos)));
    Result::Ok(Ok(resources.into_iter().map(Into::into).collect()))
}

/// Where a playback starts (and may end), and how fast.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PlaybackParams {
    #[param(value_type = Option<u32>)]
    #[serde(default, deserialize_with = "number")]
    pub channel: Option<u32>,
    /// RFC 3339 or yyyy-MM-dd HH:mm:ss (Asia/Shanghai); required.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "playback_time")]
    pub start: Option<Timestamp>,
    /// Unset: until the recordings end or the browser goes.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "playback_time")]
    pub end: Option<Timestamp>,
    /// 1 (default), 2 or 4.
    #[param(value_type = Option<u32>)]
    #[serde(default, deserialize_with = "number")]
    pub speed: Option<u32>,
}

fn playback_time<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Timestamp>, D::Error> {
    edge_time(d, false, "时间格式应为 RFC 3339 或 yyyy-MM-dd HH:mm:ss")
}

/// A playback speed the pages offer.
fn speed(speed: Option<u32>) -> Result<u32, ApiError> {
    match speed.unwrap_or(1) {
        s @ (1 | 2 | 4) => Result::Ok(s),
        _ => Err(ApiError::invalid("speed", "回放倍速只能是 1、2 或 4")),
    }
}

#[utoipa::path(
    get, path = "/video/vehicles/{vehicleId}/playback", tag = "risk",
    params(("vehicleId" = String, Path, description = "Vehicle id"), PlaybackParams),
    responses(
        (status = 200, description = "A recording played back from `start` (0x9201), framed like the live stream, until it ends or the browser goes (0x9202 stop); one playback per camera at a time (another is 4009); each start is recorded in the viewing audit", content_type = "application/octet-stream", body = Vec<u8>),
        (status = 503, description = "5003: 车辆不在线或未响应视频请求", body = crate::envelope::Envelope<Empty>)
    ),
    security(("token" = ["as:risk:video"]))
)]
async fn video_playback(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    EdgeQuery(query): EdgeQuery<PlaybackParams>,
) -> Result<Response, ApiError> {
    let (vehicle, phone) = camera_of(&state, &principal, vehicle_id).await?;
    let channel = channel_of(&vehicle, query.channel)?;
    let start = query
        .start
        .ok_or_else(|| ApiError::invalid("start", "请选择回放开始时间"))?;
    let speed = speed(query.speed)?;
    let (mode, speed) = if speed == 1 {
        (tpb::PlaybackMode::Normal, 0)
    } else {
        (tpb::PlaybackMode::FastForward, speed)
    };
    let request = tpb::WatchPlaybackRequest {
        phone,
        channel,
        start_time: Some(start),
        end_time: query.end,
        mode: mode as i32,
        speed,
    };
    let segments = state
        .media()
        .watch_playback(state.as_gateway(request))
        .await
        .map_err(|s| media_error(&s))?
        .into_inner()
        .map(|m| m.map(|m| m.segment.unwrap_or_default()));
    let view = start_view(
        &state,
        &principal,
        vehicle.vehicle_id,
        channel,
        pb::VideoViewKind::Playback,
    )
    .await?;
    Result::Ok(stream_body(segments, view))
}

/// What a playback control does.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, ToSchema)]
#[serde(rename_all = "lowercase")]
pub enum PlaybackControlAction {
    Pause,
    Resume,
    /// To `seekTime`.
    Seek,
    /// To `speed` (1, 2 or 4).
    Speed,
    Stop,
}

/// A control of the camera's running playback (0x9202).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PlaybackControlForm {
    pub channel: u32,
    pub action: PlaybackControlAction,
    /// For `speed`: 1, 2 or 4.
    #[serde(default)]
    pub speed: Option<u32>,
    /// For `seek`: RFC 3339 or yyyy-MM-dd HH:mm:ss (Asia/Shanghai).
    #[serde(default)]
    pub seek_time: Option<String>,
}

#[utoipa::path(
    post, path = "/video/vehicles/{vehicleId}/playback/control", tag = "risk",
    params(("vehicleId" = String, Path, description = "Vehicle id")),
    request_body = PlaybackControlForm,
    responses(
        (status = 200, description = "The terminal took the control (0x9202)", body = Envelope<Empty>),
        (status = 503, description = "5003: 车辆不在线或未响应视频请求", body = crate::envelope::Envelope<Empty>)
    ),
    security(("token" = ["as:risk:video"]))
)]
async fn video_control_playback(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    TrimmedJson(form): TrimmedJson<PlaybackControlForm>,
) -> ApiResult<Empty> {
    let PlaybackControlForm {
        channel,
        action,
        speed: multiplier,
        seek_time,
    } = form;
    let (vehicle, phone) = camera_of(&state, &principal, vehicle_id).await?;
    let channel = channel_of(&vehicle, Some(channel))?;
    let (action, speed, seek_time) = match action {
        PlaybackControlAction::Pause => (tpb::PlaybackAction::Pause, 0, None),
        PlaybackControlAction::Resume => (tpb::PlaybackAction::Play, 0, None),
        PlaybackControlAction::Stop => (tpb::PlaybackAction::Stop, 0, None),
        PlaybackControlAction::Speed => (
            tpb::PlaybackAction::FastForward,
            speed(Some(multiplier.unwrap_or(0)))?,
            None,
        ),
        PlaybackControlAction::Seek => {
            let at = seek_time
                .as_deref()
                .and_then(|t| instant(t, false))
                .ok_or_else(|| ApiError::invalid("seekTime", "请选择拖动位置"))?;
            (
                tpb::PlaybackAction::Seek,
                0,
                Some(fleetdesk_kit::convert::timestamp(at)),
            )
        }
    };
    let request = tpb::ControlPlaybackRequest {
        phone,
        channel,
        action: action as i32,
        speed,
        seek_time,
    };
    state
        .media()
        .control_playback(state.as_gateway(request))
        .await
        .map_err(|s| media_error(&s))?;
    Result::Ok(Ok(Empty {}))
}

// --- The viewing audit ---

edge_enum!(
    /// What a viewing watched.
    VideoViewKind => pb::VideoViewKind { Live, Playback }
);

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VideoViewBody {
    pub id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub channel: u32,
    pub kind: Option<VideoViewKind>,
    pub viewer_id: String,
    pub viewer_name: String,
    /// RFC 3339.
    pub started_at: String,
    /// Empty while the viewing lasts.
    pub ended_at: String,
    /// To its end, or to now while it lasts.
    pub duration_seconds: i64,
}

impl From<pb::VideoView> for VideoViewBody {
    fn from(v: pb::VideoView) -> Self {
        VideoViewBody {
            id: v.id,
            vehicle_id: v.vehicle_id,
            plate_number: v.plate_number,
            channel: v.channel,
            kind: VideoViewKind::from_pb(v.kind),
            viewer_id: v.viewer_id,
            viewer_name: v.viewer_name,
            started_at: rfc3339(v.started_at.as_ref()),
            ended_at: rfc3339(v.ended_at.as_ref()),
            duration_seconds: v.duration_seconds,
        }
    }
}

/// Filters of the viewing audit.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct VideoViewListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// One vehicle's viewings.
    #[serde(default)]
    pub vehicle_id: String,
    /// Part of the plate number.
    #[serde(default)]
    pub plate_search: String,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub started_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub started_end: Option<Timestamp>,
}

#[utoipa::path(
    get, path = "/video/views", tag = "risk",
    params(VideoViewListParams),
    responses((status = 200, description = "The viewing audit in the caller's data scope: who watched which camera, live or a recording, when and how long; newest first", body = Envelope<Page<VideoViewBody>>)),
    security(("token" = ["as:risk:video"]))
)]
async fn video_list_views(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<VideoViewListParams>,
) -> ApiResult<Page<VideoViewBody>> {
    let request = pb::ListVideoViewsRequest {
        page: Some(paging(query.page, query.size)?),
        vehicle_id: query.vehicle_id,
        plate_search: query.plate_search,
        started: time_range(query.started_start, query.started_end),
    };
    let answer = state
        .telemetry()
        .list_video_views(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.views.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(frame: &[u8]) -> (u8, String, Vec<u8>) {
        let len = u32::from_be_bytes(frame[..4].try_into().unwrap()) as usize;
        assert_eq!(len, frame.len() - 4, "the length covers the rest");
        let flags = frame[4];
        if flags & FLAG_INIT != 0 {
            let n = usize::from(frame[5]);
            let codec = String::from_utf8(frame[6..6 + n].to_vec()).unwrap();
            (flags, codec, frame[6 + n..].to_vec())
        } else {
            (flags, String::new(), frame[5..].to_vec())
        }
    }

    #[test]
    fn an_init_segment_carries_its_codec_and_a_fragment_its_keyframe_flag() {
        let init = frame(&tpb::MediaSegment {
            data: b"ftypmoov".to_vec(),
            init: true,
            codec: "avc1.42C01E".into(),
            keyframe: false,
        });
        assert_eq!(
            read(&init),
            (FLAG_INIT, "avc1.42C01E".into(), b"ftypmoov".to_vec())
        );
        let key = frame(&tpb::MediaSegment {
            data: vec![9; 70_000],
            init: false,
            codec: String::new(),
            keyframe: true,
        });
        assert_eq!(read(&key), (FLAG_KEYFRAME, String::new(), vec![9; 70_000]));
        let plain = frame(&tpb::MediaSegment {
            data: b"moofmdat".to_vec(),
            ..Default::default()
        });
        assert_eq!(read(&plain).0, 0);
    }

    #[test]
    fn a_live_query_without_stream_asks_for_the_main_stream() {
        let read = |q: &str| {
            crate::edge::query::from_query::<LiveParams>(
                &crate::edge::query::ListQuery::parse(q).unwrap(),
            )
        };
        let params = read("channel=1").expect("stream may be left out");
        assert_eq!(params.stream.unwrap_or_default(), StreamQuality::Main);
        let params = read("channel=2&stream=sub").unwrap();
        assert_eq!(
            (params.channel, params.stream),
            (Some(2), Some(StreamQuality::Sub))
        );
        assert!(read("channel=1&stream=hd").is_err());
    }

    #[test]
    fn an_error_frame_says_why_in_words() {
        let f = error_frame(OFFLINE);
        assert_eq!(
            read(&f),
            (FLAG_ERROR, String::new(), OFFLINE.as_bytes().to_vec())
        );
    }

    #[test]
    fn the_edge_being_unavailable_reads_as_the_vehicle_being_offline() {
        let err = media_error(&tonic::Status::unavailable("terminal offline"));
        assert_eq!(
            (err.0.code, err.0.message.as_str()),
            (ErrorCode::Unavailable, OFFLINE)
        );
    }
}
