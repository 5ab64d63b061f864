//! Geofences (permission `as:fence`; fenceDashboard, addFence, managePage,
//! crossRailPage, singInSetPage, operateMonitor): fences (list, create with
//! `Idempotency-Key`, detail, edit, delete), who is inside now, crossings and
//! their export, the dashboard, sign-ins and alarms. Shapes, purposes,
//! directions and kinds travel as the monitoring contract names them
//! (`circle`, `signIn`, `enter` …); coordinates are WGS-84; times RFC 3339.

use axum::extract::{Path, State};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Empty, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_geofences, create_geofence))
        .routes(routes!(geofence_dashboard))
        .routes(routes!(get_geofence, update_geofence, delete_geofence))
        .routes(routes!(vehicles_inside))
        .routes(routes!(list_crossings))
        .routes(routes!(export_crossings))
        .routes(routes!(list_sign_ins))
        .routes(routes!(list_alarms))
}

/// A fence's shape.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum GeofenceShape {
    Circle,
    Polygon,
    Corridor,
}

impl GeofenceShape {
    fn to_pb(self) -> pb::GeofenceShape {
        match self {
            GeofenceShape::Circle => pb::GeofenceShape::Circle,
            GeofenceShape::Polygon => pb::GeofenceShape::Polygon,
            GeofenceShape::Corridor => pb::GeofenceShape::Corridor,
        }
    }

    fn from_pb(value: i32) -> Option<GeofenceShape> {
        match pb::GeofenceShape::try_from(value).ok()? {
            pb::GeofenceShape::Circle => Some(GeofenceShape::Circle),
            pb::GeofenceShape::Polygon => Some(GeofenceShape::Polygon),
            pb::GeofenceShape::Corridor => Some(GeofenceShape::Corridor),
            pb::GeofenceShape::Unspecified | pb::GeofenceShape::AdministrativeArea => None,
        }
    }
}

/// What a fence is for: an area watched for entries and exits, or a sign-in point.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum GeofencePurpose {
    Area,
    SignIn,
}

impl GeofencePurpose {
    fn to_pb(self) -> pb::GeofencePurpose {
        match self {
            GeofencePurpose::Area => pb::GeofencePurpose::General,
            GeofencePurpose::SignIn => pb::GeofencePurpose::SignIn,
        }
    }

    fn from_pb(value: i32) -> GeofencePurpose {
        match pb::GeofencePurpose::try_from(value) {
            Result::Ok(pb::GeofencePurpose::SignIn) => GeofencePurpose::SignIn,
            Result::Ok(
                pb::GeofencePurpose::Unspecified
                | pb::GeofencePurpose::General
                | pb::GeofencePurpose::ParkingLot
                | pb::GeofencePurpose::NoEntry
                | pb::GeofencePurpose::NoExit,
            )
            | Err(_) => GeofencePurpose::Area,
        }
    }
}

/// Which way a vehicle crossed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum CrossingDirection {
    Enter,
    Exit,
}

impl CrossingDirection {
    fn to_pb(self) -> pb::CrossingDirection {
        match self {
            CrossingDirection::Enter => pb::CrossingDirection::Enter,
            CrossingDirection::Exit => pb::CrossingDirection::Exit,
        }
    }

    fn from_pb(value: i32) -> Option<CrossingDirection> {
        match pb::CrossingDirection::try_from(value).ok()? {
            pb::CrossingDirection::Enter => Some(CrossingDirection::Enter),
            pb::CrossingDirection::Exit => Some(CrossingDirection::Exit),
            pb::CrossingDirection::Unspecified => None,
        }
    }
}

/// What raised a geofence alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub enum GeofenceAlarmKind {
    Enter,
    Exit,
    Speeding,
    /// Inside longer than the fence's max stay.
    Overstay,
}

impl GeofenceAlarmKind {
    fn to_pb(self) -> pb::GeofenceAlarmKind {
        match self {
            GeofenceAlarmKind::Enter => pb::GeofenceAlarmKind::Enter,
            GeofenceAlarmKind::Exit => pb::GeofenceAlarmKind::Exit,
            GeofenceAlarmKind::Speeding => pb::GeofenceAlarmKind::Speeding,
            GeofenceAlarmKind::Overstay => pb::GeofenceAlarmKind::Overstay,
        }
    }

    fn from_pb(value: i32) -> Option<GeofenceAlarmKind> {
        match pb::GeofenceAlarmKind::try_from(value).ok()? {
            pb::GeofenceAlarmKind::Enter => Some(GeofenceAlarmKind::Enter),
            pb::GeofenceAlarmKind::Exit => Some(GeofenceAlarmKind::Exit),
            pb::GeofenceAlarmKind::Speeding => Some(GeofenceAlarmKind::Speeding),
            pb::GeofenceAlarmKind::Overstay => Some(GeofenceAlarmKind::Overstay),
            pb::GeofenceAlarmKind::Unspecified => None,
        }
    }
}

/// A WGS-84 position, degrees.
#[derive(Debug, Clone, Copy, Default, Serialize, Deserialize, ToSchema)]
pub struct GeoPointBody {
    pub lat: f64,
    pub lng: f64,
}

impl From<&common::GeoPoint> for GeoPointBody {
    fn from(p: &common::GeoPoint) -> Self {
        GeoPointBody {
            lat: p.latitude,
            lng: p.longitude,
        }
    }
}

impl From<GeoPointBody> for common::GeoPoint {
    fn from(p: GeoPointBody) -> Self {
        common::GeoPoint {
            latitude: p.lat,
            longitude: p.lng,
        }
    }
}

/// A weekly window the fence is watched in (Asia/Shanghai).
#[derive(Debug, Clone, Default, Serialize, Deserialize, ToSchema)]
#[serde(default)]
pub struct ActiveWindowBody {
    /// 1 = Monday .. 7 = Sunday.
    pub weekdays: Vec<i32>,
    /// HH:MM.
    pub start: String,
    /// HH:MM, after `start` (24:00 for the end of the day).
    pub end: String,
}

fn hhmm(minute: i32) -> String {
    format!("{:02}:{:02}", minute / 60, minute % 60)
}

fn minute_of(value: &str) -> Option<i32> {
    let (h, m) = value.trim().split_once(':')?;
    let (h, m): (i32, i32) = (h.parse().ok()?, m.parse().ok()?);
    ((0..=24).contains(&h) && (0..60).contains(&m) && h * 60 + m <= 1440).then_some(h * 60 + m)
}

/// A geofence as read: its writable fields and what the service adds.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceBody {
    pub id: String,
    #[serde(flatten)]
    pub fields: GeofenceInputBody,
    pub org_name: String,
    /// Vehicles inside now.
    pub inside_count: i32,
    pub created_at: String,
    pub updated_at: String,
}

impl From<pb::Geofence> for GeofenceBody {
    fn from(mut g: pb::Geofence) -> Self {
        let audit = g.audit.take().unwrap_or_default();
        GeofenceBody {
            id: std::mem::take(&mut g.id),
            org_name: std::mem::take(&mut g.org_name),
            inside_count: g.vehicles_inside,
            created_at: rfc3339(audit.create_time.as_ref()),
            updated_at: rfc3339(audit.update_time.as_ref()),
            fields: GeofenceInputBody::from(g),
        }
    }
}

/// The writable fields of a geofence (an edit replaces every one); a read
/// shows the same fields.
#[derive(Debug, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct GeofenceInputBody {
    pub name: String,
    pub shape: Option<GeofenceShape>,
    pub purpose: Option<GeofencePurpose>,
    /// Circles: the centre.
    pub center: Option<GeoPointBody>,
    /// Circles: 50 m to 50 km (null for other shapes).
    pub radius_m: Option<i32>,
    /// Polygons: 3 to 1,000 points whose edges do not cross (the ring not
    /// closed); corridors: the polyline, 2 to 1,000 points.
    #[serde(rename = "points")]
    pub vertices: Vec<GeoPointBody>,
    /// Corridors: full width, 10 m to 5 km (null for other shapes).
    pub corridor_width_m: Option<i32>,
    pub speed_limit_kmh: Option<i32>,
    pub active_windows: Vec<ActiveWindowBody>,
    /// 0 to 3,600 s.
    pub dwell_seconds: i32,
    /// Longest stay inside, 1 to 10,080 minutes, before an overstay alarm; 0: no limit.
    #[serde(rename = "maxStayMinutes")]
    pub max_dwell_minutes: i32,
    #[serde(rename = "alarmOnEnter")]
    pub alert_on_enter: bool,
    #[serde(rename = "alarmOnExit")]
    pub alert_on_exit: bool,
    /// At most 1,000; empty watches every vehicle of the enterprise.
    pub vehicle_ids: Vec<String>,
    pub org_id: String,
    pub enabled: bool,
}

/// What an input leaves out: nothing set, enabled.
impl Default for GeofenceInputBody {
    fn default() -> Self {
        GeofenceInputBody {
            name: String::new(),
            shape: None,
            purpose: None,
            center: None,
            radius_m: None,
            vertices: Vec::new(),
            corridor_width_m: None,
            speed_limit_kmh: None,
            active_windows: Vec::new(),
            dwell_seconds: 0,
            max_dwell_minutes: 0,
            alert_on_enter: false,
            alert_on_exit: false,
            vehicle_ids: Vec::new(),
            org_id: String::new(),
            enabled: true,
        }
    }
}

/// What the service answers, in the fields an edit sends back.
impl From<pb::Geofence> for GeofenceInputBody {
    fn from(g: pb::Geofence) -> Self {
        let shape = GeofenceShape::from_pb(g.shape);
        GeofenceInputBody {
            name: g.name,
            shape,
            purpose: Some(GeofencePurpose::from_pb(g.purpose)),
            center: g.center.as_ref().map(GeoPointBody::from),
            radius_m: (shape == Some(GeofenceShape::Circle)).then_some(g.radius_m),
            vertices: g.vertices.iter().map(GeoPointBody::from).collect(),
            corridor_width_m: (shape == Some(GeofenceShape::Corridor))
                .then_some(g.corridor_width_m),
            speed_limit_kmh: g.speed_limit_kmh,
            active_windows: g
                .active_windows
                .into_iter()
                .map(|w| ActiveWindowBody {
                    weekdays: w.weekdays,
                    start: hhmm(w.start_minute),
                    end: hhmm(w.end_minute),
                })
                .collect(),
            dwell_seconds: g.dwell_seconds,
            max_dwell_minutes: g.max_dwell_minutes,
            alert_on_enter: g.alert_on_enter,
            alert_on_exit: g.alert_on_exit,
            vehicle_ids: if g.all_vehicles {
                Vec::new()
            } else {
                g.vehicle_ids
            },
            org_id: g.org_id,
            enabled: g.enabled,
        }
    }
}

impl GeofenceInputBody {
    fn into_input(self) -> Result<pb::GeofenceInput, ApiError> {
        let mut windows = Vec::with_capacity(self.active_windows.len());
        for w in self.active_windows {
            let bad = || ApiError::invalid("activeWindows", "时间格式应为 HH:MM");
            windows.push(pb::GeofenceActiveWindow {
                weekdays: w.weekdays,
                start_minute: minute_of(&w.start).ok_or_else(bad)?,
                end_minute: minute_of(&w.end).ok_or_else(bad)?,
            });
        }
        Result::Ok(pb::GeofenceInput {
            org_id: self.org_id,
            name: self.name,
            purpose: self.purpose.map_or(0, |p| p.to_pb() as i32),
            shape: self.shape.map_or(0, |s| s.to_pb() as i32),
            center: self.center.map(common::GeoPoint::from),
            radius_m: self.radius_m.unwrap_or(0),
            vertices: self
                .vertices
                .into_iter()
                .map(common::GeoPoint::from)
                .collect(),
            area: None,
            address: String::new(),
            alert_on_enter: self.alert_on_enter,
            alert_on_exit: self.alert_on_exit,
            max_dwell_minutes: self.max_dwell_minutes,
            active_start_minute: 0,
            active_end_minute: 0,
            all_vehicles: self.vehicle_ids.is_empty(),
            vehicle_ids: self.vehicle_ids,
            enabled: self.enabled,
            corridor_width_m: self.corridor_width_m.unwrap_or(0),
            speed_limit_kmh: self.speed_limit_kmh,
            active_windows: windows,
            dwell_seconds: self.dwell_seconds,
        })
    }
}

/// `from`/`to` of a list (RFC 3339, `yyyy-MM-dd HH:mm:ss` or `yyyy-MM-dd`,
/// Asia/Shanghai; a bare `to` date includes its day): `from` after `to` is
/// refused.
fn from_to(
    from: Option<Timestamp>,
    to: Option<Timestamp>,
) -> Result<Option<common::TimeRange>, ApiError> {
    if let (Some(f), Some(t)) = (&from, &to)
        && (f.seconds, f.nanos) > (t.seconds, t.nanos)
    {
        return Err(ApiError::invalid("from", "开始时间不允许大于结束时间"));
    }
    Result::Ok(time_range(from, to))
}

/// Filters of the fence list (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Part of the name.
    #[serde(default)]
    pub name: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub shapes: Vec<GeofenceShape>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub purposes: Vec<GeofencePurpose>,
    pub enabled: Option<bool>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// Fences watching this vehicle.
    #[serde(default)]
    pub vehicle_id: String,
}

#[utoipa::path(
    get, path = "/geofences", tag = "geofences",
    params(GeofenceListParams),
    responses((status = 200, description = "Fences, newest first", body = Envelope<Page<GeofenceBody>>)),
    security(("token" = ["as:fence"]))
)]
async fn list_geofences(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<GeofenceListParams>,
) -> ApiResult<Page<GeofenceBody>> {
    let request = pb::ListGeofencesRequest {
        page: Some(paging(query.page, query.size)?),
        org_ids: query.org_ids,
        name: query.name,
        purposes: query
            .purposes
            .into_iter()
            .map(|p| p.to_pb() as i32)
            .collect(),
        shapes: query.shapes.into_iter().map(|s| s.to_pb() as i32).collect(),
        enabled: query.enabled,
        vehicle_id: query.vehicle_id,
    };
    let answer = state
        .telemetry()
        .list_geofences(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .geofences
            .into_iter()
            .map(GeofenceBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/geofences", tag = "geofences",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first result and creates nothing; the same key with another body is 4009")),
    request_body = GeofenceInputBody,
    responses((status = 200, description = "The new fence; 4000 names each refused field", body = Envelope<GeofenceBody>)),
    security(("token" = ["as:fence"]))
)]
async fn create_geofence(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<GeofenceInputBody>,
) -> ApiResult<GeofenceBody> {
    let request = pb::CreateGeofenceRequest {
        geofence: Some(form.into_input()?),
    };
    let answer = state
        .telemetry()
        .create_geofence(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(GeofenceBody::from(answer.geofence.unwrap_or_default())))
}

#[utoipa::path(
    get, path = "/geofences/{id}", tag = "geofences",
    params(("id" = String, Path, description = "Fence id")),
    responses((status = 200, description = "One fence", body = Envelope<GeofenceBody>)),
    security(("token" = ["as:fence"]))
)]
async fn get_geofence(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<GeofenceBody> {
    let answer = state
        .telemetry()
        .get_geofence(state.as_user(&principal, pb::GetGeofenceRequest { geofence_id: id }))
        .await?
        .into_inner();
    Result::Ok(Ok(GeofenceBody::from(answer.geofence.unwrap_or_default())))
}

#[utoipa::path(
    put, path = "/geofences/{id}", tag = "geofences",
    params(("id" = String, Path, description = "Fence id")),
    request_body = GeofenceInputBody,
    responses((status = 200, description = "The changed fence; vehicles' inside-states carry over (a disabled fence forgets them)", body = Envelope<GeofenceBody>)),
    security(("token" = ["as:fence"]))
)]
async fn update_geofence(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<GeofenceInputBody>,
) -> ApiResult<GeofenceBody> {
    let request = pb::UpdateGeofenceRequest {
        geofence_id: id,
        geofence: Some(form.into_input()?),
    };
    let answer = state
        .telemetry()
        .update_geofence(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(GeofenceBody::from(answer.geofence.unwrap_or_default())))
}

#[utoipa::path(
    delete, path = "/geofences/{id}", tag = "geofences",
    params(("id" = String, Path, description = "Fence id")),
    responses((status = 200, description = "Deleted; its crossings stay in history", body = Envelope<Empty>)),
    security(("token" = ["as:fence"]))
)]
async fn delete_geofence(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<Empty> {
    state
        .telemetry()
        .delete_geofence(state.as_user(&principal, pb::DeleteGeofenceRequest { geofence_id: id }))
        .await?;
    Result::Ok(Ok(Empty {}))
}

/// A vehicle inside a fence now.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceInsideVehicleBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub entered_at: String,
}

/// The vehicles inside a fence now, longest inside first.
#[derive(Debug, Serialize, ToSchema)]
pub struct GeofenceInsideBody {
    pub list: Vec<GeofenceInsideVehicleBody>,
}

#[utoipa::path(
    get, path = "/geofences/{id}/inside", tag = "geofences",
    params(("id" = String, Path, description = "Fence id")),
    responses((status = 200, description = "Vehicles inside now", body = Envelope<GeofenceInsideBody>)),
    security(("token" = ["as:fence"]))
)]
async fn vehicles_inside(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<GeofenceInsideBody> {
    let request = pb::ListVehiclesInGeofenceRequest { geofence_id: id };
    let answer = state
        .telemetry()
        .list_vehicles_in_geofence(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(GeofenceInsideBody {
        list: answer
            .vehicles
            .into_iter()
            .map(|v| GeofenceInsideVehicleBody {
                vehicle_id: v.vehicle_id,
                plate_number: v.plate_number,
                entered_at: rfc3339(v.entered_at.as_ref()),
            })
            .collect(),
    }))
}

/// A vehicle entering or leaving a fence.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceCrossingBody {
    pub id: String,
    pub geofence_id: String,
    pub geofence_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub direction: Option<CrossingDirection>,
    #[serde(rename = "time")]
    pub cross_time: String,
    pub lat: f64,
    pub lng: f64,
    /// Exits: seconds inside.
    pub dwell_seconds: Option<i64>,
}

impl From<pb::GeofenceCrossing> for GeofenceCrossingBody {
    fn from(c: pb::GeofenceCrossing) -> Self {
        let direction = CrossingDirection::from_pb(c.direction);
        let point = c.point.unwrap_or_default();
        GeofenceCrossingBody {
            id: c.id,
            geofence_id: c.geofence_id,
            geofence_name: c.geofence_name,
            vehicle_id: c.vehicle_id,
            plate_number: c.plate_number,
            direction,
            cross_time: rfc3339(c.cross_time.as_ref()),
            lat: point.latitude,
            lng: point.longitude,
            dwell_seconds: (direction == Some(CrossingDirection::Exit)).then_some(c.dwell_seconds),
        }
    }
}

/// Filters of the crossings list and its export.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CrossingListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub geofence_ids: Vec<String>,
    /// Exact plates, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub directions: Vec<CrossingDirection>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
}

impl CrossingListParams {
    fn filter(self) -> Result<pb::ListGeofenceCrossingsRequest, ApiError> {
        Result::Ok(pb::ListGeofenceCrossingsRequest {
            page: Some(paging(self.page, self.size)?),
            geofence_ids: self.geofence_ids,
            plate_numbers: self.plate_numbers,
            vins: Vec::new(),
            org_ids: Vec::new(),
            direction: 0,
            cross_time: from_to(self.from, self.to)?,
            alarmed_only: false,
            directions: self
                .directions
                .into_iter()
                .map(|d| d.to_pb() as i32)
                .collect(),
        })
    }
}

#[utoipa::path(
    get, path = "/geofence-crossings", tag = "geofences",
    params(CrossingListParams),
    responses((status = 200, description = "Crossings, newest first", body = Envelope<Page<GeofenceCrossingBody>>)),
    security(("token" = ["as:fence"]))
)]
async fn list_crossings(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<CrossingListParams>,
) -> ApiResult<Page<GeofenceCrossingBody>> {
    let answer = state
        .telemetry()
        .list_geofence_crossings(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .crossings
            .into_iter()
            .map(GeofenceCrossingBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/geofence-crossings/export", tag = "geofences",
    params(CrossingListParams),
    responses((status = 200, description = "The export record of the crossings with the list's filters and data scope (paging ignored, newest first)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:fence"]))
)]
async fn export_crossings(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<CrossingListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportGeofenceCrossingsRequest {
        filter: Some(query.filter()?),
    };
    let answer = state
        .telemetry()
        .export_geofence_crossings(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// Crossings of one day.
#[derive(Debug, Serialize, ToSchema)]
pub struct GeofenceDayBody {
    /// yyyy-MM-dd (Asia/Shanghai).
    pub day: String,
    pub entries: i32,
    pub exits: i32,
}

/// Dwell at one fence.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceDwellBody {
    pub geofence_id: String,
    pub name: String,
    pub entries: i32,
    pub avg_dwell_s: i64,
    pub max_dwell_s: i64,
}

/// The geofence dashboard.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceDashboardBody {
    pub fence_count: i32,
    pub enabled_count: i32,
    /// Distinct vehicles inside any fence now.
    pub vehicles_inside: i32,
    pub days: Vec<GeofenceDayBody>,
    pub dwell: Vec<GeofenceDwellBody>,
}

/// The dashboard's range (default today) and organisations.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct DashboardParams {
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
    /// Only these organisations' fences (with their sub-organisations'):
    /// their counts, crossings, dwell and the vehicles inside them.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
}

#[utoipa::path(
    get, path = "/geofences/dashboard", tag = "geofences",
    params(DashboardParams),
    responses((status = 200, description = "Counts, entries and exits per day and dwell per fence in the range (at most 92 days)", body = Envelope<GeofenceDashboardBody>)),
    security(("token" = ["as:fence"]))
)]
async fn geofence_dashboard(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<DashboardParams>,
) -> ApiResult<GeofenceDashboardBody> {
    let request = pb::GetGeofenceDashboardRequest {
        time_range: from_to(query.from, query.to)?,
        org_ids: query.org_ids,
    };
    let d = state
        .telemetry()
        .get_geofence_dashboard(state.as_user(&principal, request))
        .await?
        .into_inner()
        .dashboard
        .unwrap_or_default();
    Result::Ok(Ok(GeofenceDashboardBody {
        fence_count: d.geofence_count,
        enabled_count: d.enabled_count,
        vehicles_inside: d.vehicles_inside,
        days: d
            .days
            .into_iter()
            .map(|x| GeofenceDayBody {
                day: x.day,
                entries: x.entries,
                exits: x.exits,
            })
            .collect(),
        dwell: d
            .dwell
            .into_iter()
            .map(|x| GeofenceDwellBody {
                geofence_id: x.geofence_id,
                name: x.name,
                entries: x.entries,
                avg_dwell_s: x.avg_dwell_seconds,
                max_dwell_s: x.max_dwell_seconds,
            })
            .collect(),
    }))
}

/// A vehicle signing in at a sign-in point.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SignInBody {
    pub id: String,
    pub geofence_id: String,
    pub point_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub time: String,
}

/// Filters of sign-ins and alarms.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct SignInListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub geofence_ids: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
}

#[utoipa::path(
    get, path = "/sign-ins", tag = "geofences",
    params(SignInListParams),
    responses((status = 200, description = "Sign-ins, newest first", body = Envelope<Page<SignInBody>>)),
    security(("token" = ["as:fence"]))
)]
async fn list_sign_ins(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<SignInListParams>,
) -> ApiResult<Page<SignInBody>> {
    let request = pb::ListGeofenceSignInsRequest {
        page: Some(paging(query.page, query.size)?),
        geofence_ids: query.geofence_ids,
        plate_numbers: query.plate_numbers,
        sign_time: from_to(query.from, query.to)?,
    };
    let answer = state
        .telemetry()
        .list_geofence_sign_ins(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .sign_ins
            .into_iter()
            .map(|s| SignInBody {
                id: s.id,
                geofence_id: s.geofence_id,
                point_name: s.point_name,
                vehicle_id: s.vehicle_id,
                plate_number: s.plate_number,
                time: rfc3339(s.sign_time.as_ref()),
            })
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// An alarm raised by a fence.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct GeofenceAlarmBody {
    pub id: String,
    pub geofence_id: String,
    pub geofence_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub kind: Option<GeofenceAlarmKind>,
    /// Overstays: when the stay reached the fence's max stay.
    pub time: String,
    /// Speeding only.
    pub speed_kmh: Option<f64>,
    pub limit_kmh: Option<i32>,
    /// Overstays only: the fence's max stay, minutes.
    pub max_stay_minutes: Option<i32>,
}

/// Filters of the alarm list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AlarmListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub geofence_ids: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<GeofenceAlarmKind>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
}

#[utoipa::path(
    get, path = "/geofence-alarms", tag = "geofences",
    params(AlarmListParams),
    responses((status = 200, description = "Geofence alarms, newest first", body = Envelope<Page<GeofenceAlarmBody>>)),
    security(("token" = ["as:fence"]))
)]
async fn list_alarms(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<AlarmListParams>,
) -> ApiResult<Page<GeofenceAlarmBody>> {
    let request = pb::ListGeofenceAlarmsRequest {
        page: Some(paging(query.page, query.size)?),
        geofence_ids: query.geofence_ids,
        plate_numbers: query.plate_numbers,
        kinds: query.kinds.into_iter().map(|k| k.to_pb() as i32).collect(),
        alarm_time: from_to(query.from, query.to)?,
    };
    let answer = state
        .telemetry()
        .list_geofence_alarms(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .alarms
            .into_iter()
            .map(|a| {
                let kind = GeofenceAlarmKind::from_pb(a.kind);
                let speeding = kind == Some(GeofenceAlarmKind::Speeding);
                let overstay = kind == Some(GeofenceAlarmKind::Overstay);
                GeofenceAlarmBody {
                    id: a.id,
                    geofence_id: a.geofence_id,
                    geofence_name: a.geofence_name,
                    vehicle_id: a.vehicle_id,
                    plate_number: a.plate_number,
                    kind,
                    time: rfc3339(a.alarm_time.as_ref()),
                    speed_kmh: speeding.then_some(a.speed_kmh),
                    limit_kmh: speeding.then_some(a.limit_kmh),
                    max_stay_minutes: overstay.then_some(a.max_stay_minutes),
                }
            })
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn window_times_read_and_print_as_hh_mm() {
        assert_eq!(minute_of("09:30"), Some(570));
        assert_eq!(minute_of("24:00"), Some(1440));
        assert_eq!(minute_of("24:01"), None);
        assert_eq!(minute_of("9"), None);
        assert_eq!(hhmm(570), "09:30");
    }
}
