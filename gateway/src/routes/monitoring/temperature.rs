//! Temperature monitoring (temperatureMonitor and its hidden
//! authorizationRecord; permission `as:temperature`): refrigerated vehicles
//! with their latest probes and open alarms, a vehicle's chart series and
//! bands, readings, excursion alarms, and consignee share links — plus the
//! one public route a share link opens (no session: the token decides).

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Deserializer, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{
    EdgeQuery, ExportQuery, batch, end_time, start_time, time_range, whole_number,
};
use crate::edge::time::instant;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Empty, Envelope, Ok, OkWith, Page};
use crate::extract::{ClientMeta, TrimmedJson};
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(temperature_list_vehicles))
        .routes(routes!(temperature_vehicle_series))
        .routes(routes!(
            temperature_list_thresholds,
            temperature_set_threshold
        ))
        .routes(routes!(temperature_list_readings))
        .routes(routes!(temperature_list_alarms))
        .routes(routes!(temperature_export_alarms))
        .routes(routes!(temperature_list_shares, temperature_create_share))
        .routes(routes!(temperature_revoke_share))
        .routes(routes!(public_shared_temperature))
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ProbeCelsiusBody {
    pub probe: i32,
    pub celsius: f64,
}

fn probes(list: Vec<pb::ProbeTemperature>) -> Vec<ProbeCelsiusBody> {
    list.into_iter()
        .map(|t| ProbeCelsiusBody {
            probe: t.probe,
            celsius: t.celsius,
        })
        .collect()
}

/// A band: probe 0 applies to every probe without its own.
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureThresholdBody {
    pub vehicle_id: String,
    pub probe_no: i32,
    pub min_celsius: f64,
    pub max_celsius: f64,
    pub min_duration_seconds: i32,
}

impl From<pb::TemperatureThreshold> for TemperatureThresholdBody {
    fn from(t: pb::TemperatureThreshold) -> Self {
        TemperatureThresholdBody {
            vehicle_id: t.vehicle_id,
            probe_no: t.probe_no,
            min_celsius: t.min_celsius,
            max_celsius: t.max_celsius,
            min_duration_seconds: t.min_duration_seconds,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureVehicleBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub org_name: String,
    /// The last probe readings: a newer fix without probes keeps them.
    pub latest: Vec<ProbeCelsiusBody>,
    /// When `latest` was read (RFC 3339); empty before the first reading.
    pub latest_time: String,
    /// Excursion alarms still lasting.
    pub open_alarms: i32,
    pub thresholds: Vec<TemperatureThresholdBody>,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureReadingBody {
    pub vehicle_id: String,
    pub plate_number: String,
    pub probe_no: i32,
    #[serde(rename = "celsius")]
    pub temperature_celsius: f64,
    pub record_time: String,
    pub out_of_range: bool,
}

impl From<pb::TemperatureReading> for TemperatureReadingBody {
    fn from(r: pb::TemperatureReading) -> Self {
        TemperatureReadingBody {
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            probe_no: r.probe_no,
            temperature_celsius: r.temperature_celsius,
            record_time: rfc3339(r.record_time.as_ref()),
            out_of_range: r.out_of_range,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureAlarmBody {
    pub id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub probe_no: i32,
    pub started_at: String,
    /// Empty while the excursion lasts.
    pub ended_at: String,
    pub min_seen_celsius: f64,
    pub max_seen_celsius: f64,
    pub threshold_min_celsius: f64,
    pub threshold_max_celsius: f64,
    pub min_duration_seconds: i32,
}

impl From<pb::TemperatureAlarm> for TemperatureAlarmBody {
    fn from(a: pb::TemperatureAlarm) -> Self {
        TemperatureAlarmBody {
            id: a.id,
            vehicle_id: a.vehicle_id,
            plate_number: a.plate_number,
            probe_no: a.probe_no,
            started_at: rfc3339(a.started_at.as_ref()),
            ended_at: rfc3339(a.ended_at.as_ref()),
            min_seen_celsius: a.min_seen_celsius,
            max_seen_celsius: a.max_seen_celsius,
            threshold_min_celsius: a.threshold_min_celsius,
            threshold_max_celsius: a.threshold_max_celsius,
            min_duration_seconds: a.min_duration_seconds,
        }
    }
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureShareBody {
    pub id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub consignee_name: String,
    pub consignee_phone: String,
    pub expires_at: String,
    pub created_at: String,
    /// Empty unless revoked.
    pub revoked_at: String,
}

impl From<pb::TemperatureShare> for TemperatureShareBody {
    fn from(s: pb::TemperatureShare) -> Self {
        TemperatureShareBody {
            id: s.id,
            vehicle_id: s.vehicle_id,
            plate_number: s.plate_number,
            consignee_name: s.consignee_name,
            consignee_phone: s.consignee_phone,
            expires_at: rfc3339(s.expires_at.as_ref()),
            created_at: rfc3339(s.created_at.as_ref()),
            revoked_at: rfc3339(s.revoked_at.as_ref()),
        }
    }
}

/// Filters of the refrigerated vehicle list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureVehicleListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Substring of the plate number.
    #[serde(default)]
    pub plate_search: String,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// Only vehicles with an excursion alarm still lasting.
    #[serde(default)]
    pub alarm_only: bool,
}

#[utoipa::path(
    get, path = "/temperature/vehicles", tag = "monitoring",
    params(TemperatureVehicleListParams),
    responses((status = 200, description = "Vehicles reporting temperatures or holding a band, in the caller's data scope, by plate", body = Envelope<Page<TemperatureVehicleBody>>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_list_vehicles(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<TemperatureVehicleListParams>,
) -> ApiResult<Page<TemperatureVehicleBody>> {
    let request = pb::ListTemperatureVehiclesRequest {
        page: Some(paging(query.page, query.size)?),
        plate_search: query.plate_search,
        org_ids: query.org_ids,
        alarm_only: query.alarm_only,
    };
    let answer = state
        .telemetry()
        .list_temperature_vehicles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .vehicles
            .into_iter()
            .map(|v| TemperatureVehicleBody {
                vehicle_id: v.vehicle_id,
                plate_number: v.plate_number,
                org_name: v.org_name,
                latest: probes(v.latest),
                latest_time: rfc3339(v.latest_time.as_ref()),
                open_alarms: v.open_alarms,
                thresholds: v.thresholds.into_iter().map(Into::into).collect(),
            })
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// A probe number; 0 (every probe) when absent.
fn probe_no<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    whole_number(d, "探头编号应为数字")
}

/// Most points of a chart; 0 (the default) when absent.
fn max_points<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
    whole_number(d, "点数应为数字")
}

/// One vehicle's chart: `from`/`to` (at most 7 days), `maxPoints` (default 500).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureSeriesParams {
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
    #[param(value_type = Option<i32>)]
    #[serde(default, deserialize_with = "max_points")]
    pub max_points: i32,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureSeriesBody {
    /// Oldest first; bucket averages per probe.
    pub readings: Vec<TemperatureReadingBody>,
    pub thresholds: Vec<TemperatureThresholdBody>,
}

#[utoipa::path(
    get, path = "/temperature/vehicles/{vehicleId}/series", tag = "monitoring",
    params(("vehicleId" = String, Path, description = "Vehicle id"), TemperatureSeriesParams),
    responses((status = 200, description = "The vehicle's readings averaged into at most maxPoints buckets per probe, with its bands", body = Envelope<TemperatureSeriesBody>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_vehicle_series(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    EdgeQuery(query): EdgeQuery<TemperatureSeriesParams>,
) -> ApiResult<TemperatureSeriesBody> {
    let request = pb::ListTemperatureSeriesRequest {
        vehicle_id,
        range: time_range(query.from, query.to),
        max_points: query.max_points,
    };
    let answer = state
        .telemetry()
        .list_temperature_series(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(TemperatureSeriesBody {
        readings: answer.readings.into_iter().map(Into::into).collect(),
        thresholds: answer.thresholds.into_iter().map(Into::into).collect(),
    }))
}

#[utoipa::path(
    get, path = "/temperature/vehicles/{vehicleId}/thresholds", tag = "monitoring",
    params(("vehicleId" = String, Path, description = "Vehicle id")),
    responses((status = 200, description = "The vehicle's bands by probe", body = Envelope<Vec<TemperatureThresholdBody>>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_list_thresholds(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
) -> ApiResult<Vec<TemperatureThresholdBody>> {
    let answer = state
        .telemetry()
        .list_temperature_thresholds(state.as_user(
            &principal,
            pb::ListTemperatureThresholdsRequest { vehicle_id },
        ))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.thresholds.into_iter().map(Into::into).collect()))
}

/// A band: -100..100 °C, min below max, the minimum out-of-band duration in
/// seconds (0..86400) before an alarm; probe 0 = every probe without its own.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct TemperatureThresholdForm {
    pub probe_no: i32,
    pub min_celsius: f64,
    pub max_celsius: f64,
    pub min_duration_seconds: i32,
}

#[utoipa::path(
    put, path = "/temperature/vehicles/{vehicleId}/thresholds", tag = "monitoring",
    params(("vehicleId" = String, Path, description = "Vehicle id")),
    request_body = TemperatureThresholdForm,
    responses((status = 200, description = "The band as stored (replaces the probe's band)", body = Envelope<TemperatureThresholdBody>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_set_threshold(
    State(state): State<AppState>,
    principal: Principal,
    Path(vehicle_id): Path<String>,
    TrimmedJson(form): TrimmedJson<TemperatureThresholdForm>,
) -> ApiResult<TemperatureThresholdBody> {
    let request = pb::SetTemperatureThresholdRequest {
        threshold: Some(pb::TemperatureThreshold {
            vehicle_id,
            probe_no: form.probe_no,
            min_celsius: form.min_celsius,
            max_celsius: form.max_celsius,
            min_duration_seconds: form.min_duration_seconds,
        }),
    };
    let answer = state
        .telemetry()
        .set_temperature_threshold(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.threshold.unwrap_or_default().into()))
}

/// Filters of the readings list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureReadingListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// Required, at most 7 days: RFC 3339, yyyy-MM-dd HH:mm:ss or yyyy-MM-dd.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
    /// 0 = all.
    #[param(value_type = Option<i32>)]
    #[serde(default, deserialize_with = "probe_no")]
    pub probe_no: i32,
    #[serde(default)]
    pub out_of_range_only: bool,
}

#[utoipa::path(
    get, path = "/temperature/readings", tag = "monitoring",
    params(TemperatureReadingListParams),
    responses((status = 200, description = "Probe readings in the caller's data scope, newest first", body = Envelope<Page<TemperatureReadingBody>>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_list_readings(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<TemperatureReadingListParams>,
) -> ApiResult<Page<TemperatureReadingBody>> {
    let request = pb::ListTemperatureReadingsRequest {
        page: Some(paging(query.page, query.size)?),
        plate_numbers: query.plate_numbers,
        vins: Vec::new(),
        org_ids: query.org_ids,
        record_time: time_range(query.from, query.to),
        probe_no: query.probe_no,
        out_of_range_only: query.out_of_range_only,
    };
    let answer = state
        .telemetry()
        .list_temperature_readings(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.readings.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// Filters of the alarm list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureAlarmListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[serde(default)]
    pub vehicle_id: String,
    /// 0 = all.
    #[param(value_type = Option<i32>)]
    #[serde(default, deserialize_with = "probe_no")]
    pub probe_no: i32,
    /// Alarms started in [from, to).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub from: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub to: Option<Timestamp>,
    /// Only excursions still lasting.
    #[serde(default)]
    pub open_only: bool,
}

impl TemperatureAlarmListParams {
    /// The alarm list's filter (the list and its export).
    fn filter(self) -> Result<pb::ListTemperatureAlarmsRequest, ApiError> {
        Result::Ok(pb::ListTemperatureAlarmsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vehicle_id: self.vehicle_id,
            probe_no: self.probe_no,
            started: time_range(self.from, self.to),
            open_only: self.open_only,
        })
    }
}

#[utoipa::path(
    get, path = "/temperature/alarms", tag = "monitoring",
    params(TemperatureAlarmListParams),
    responses((status = 200, description = "Excursions that lasted the band's minimum duration, newest first", body = Envelope<Page<TemperatureAlarmBody>>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_list_alarms(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<TemperatureAlarmListParams>,
) -> ApiResult<Page<TemperatureAlarmBody>> {
    let answer = state
        .telemetry()
        .list_temperature_alarms(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.alarms.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/temperature/alarms/export", tag = "monitoring",
    params(TemperatureAlarmListParams),
    responses((status = 200, description = "The export record of the alarms with the list's filters and data scope (paging ignored, newest first)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_export_alarms(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<TemperatureAlarmListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportTemperatureAlarmsRequest {
        filter: Some(query.filter()?),
    };
    let answer = state
        .telemetry()
        .export_temperature_alarms(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// Filters of the share list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct TemperatureShareListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[serde(default)]
    pub vehicle_id: String,
}

#[utoipa::path(
    get, path = "/temperature/shares", tag = "monitoring",
    params(TemperatureShareListParams),
    responses((status = 200, description = "Share links (authorisation record), newest first", body = Envelope<Page<TemperatureShareBody>>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_list_shares(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<TemperatureShareListParams>,
) -> ApiResult<Page<TemperatureShareBody>> {
    let request = pb::ListTemperatureSharesRequest {
        page: Some(paging(query.page, query.size)?),
        vehicle_id: query.vehicle_id,
    };
    let answer = state
        .telemetry()
        .list_temperature_shares(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.shares.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// A share of one vehicle's temperatures with a consignee, expiring at most
/// 30 days ahead (RFC 3339 or yyyy-MM-dd HH:mm:ss).
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct TemperatureShareForm {
    pub vehicle_id: String,
    pub consignee_name: String,
    pub consignee_phone: String,
    pub expires_at: String,
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct CreatedTemperatureShareBody {
    pub share: TemperatureShareBody,
    /// The link's secret: `/public/temperature/{token}`; shown only now.
    pub token: String,
}

#[utoipa::path(
    post, path = "/temperature/shares", tag = "monitoring",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first share")),
    request_body = TemperatureShareForm,
    responses((status = 200, description = "The share and its token (only this answer carries it)", body = Envelope<CreatedTemperatureShareBody>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_create_share(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<TemperatureShareForm>,
) -> ApiResult<CreatedTemperatureShareBody> {
    let expires_at = match form.expires_at.as_str() {
        "" => None,
        v => Some(
            instant(v, true)
                .map(fleetdesk_kit::convert::timestamp)
                .ok_or_else(|| {
                    ApiError::invalid("expiresAt", "时间格式应为 yyyy-MM-dd HH:mm:ss")
                })?,
        ),
    };
    let request = pb::CreateTemperatureShareRequest {
        vehicle_id: form.vehicle_id,
        consignee_name: form.consignee_name,
        consignee_phone: form.consignee_phone,
        expires_at,
    };
    let answer = state
        .telemetry()
        .create_temperature_share(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(Ok(CreatedTemperatureShareBody {
        share: answer.share.unwrap_or_default().into(),
        token: answer.token,
    }))
}

#[utoipa::path(
    post, path = "/temperature/shares/{shareId}/revoke", tag = "monitoring",
    params(("shareId" = String, Path, description = "Share id")),
    responses((status = 200, description = "Revoked (again: no change); the link stops working at once", body = Envelope<Empty>)),
    security(("token" = ["as:temperature"]))
)]
async fn temperature_revoke_share(
    State(state): State<AppState>,
    principal: Principal,
    Path(share_id): Path<String>,
) -> ApiResult<Empty> {
    state
        .telemetry()
        .revoke_temperature_share(
            state.as_user(&principal, pb::RevokeTemperatureShareRequest { share_id }),
        )
        .await?;
    Result::Ok(Ok(Empty {}))
}

#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SharedTemperatureBody {
    pub plate_number: String,
    pub expires_at: String,
    /// The last probe readings: a newer fix without probes keeps them.
    pub latest: Vec<ProbeCelsiusBody>,
    /// When `latest` was read (RFC 3339).
    pub latest_time: String,
    /// The last 24 hours, oldest first (5-minute averages per probe).
    pub readings: Vec<TemperatureReadingBody>,
    pub thresholds: Vec<TemperatureThresholdBody>,
}

#[utoipa::path(
    get, path = "/public/temperature/{token}", tag = "monitoring",
    params(("token" = String, Path, description = "The share link's token")),
    responses((status = 200, description = "One vehicle's latest temperatures and last 24 h while the link is unexpired and unrevoked; 4004 (链接已失效) otherwise; 4029 past 60 calls a minute from one address", body = Envelope<SharedTemperatureBody>)),
    security(())
)]
async fn public_shared_temperature(
    State(state): State<AppState>,
    client: ClientMeta,
    Path(token): Path<String>,
) -> ApiResult<SharedTemperatureBody> {
    state.public_limit.check(&client.ip)?;
    let answer = state
        .telemetry()
        .get_shared_temperature(state.as_gateway(pb::GetSharedTemperatureRequest { token }))
        .await?
        .into_inner();
    Result::Ok(Ok(SharedTemperatureBody {
        plate_number: answer.plate_number,
        expires_at: rfc3339(answer.expires_at.as_ref()),
        latest: probes(answer.latest),
        latest_time: rfc3339(answer.latest_time.as_ref()),
        readings: answer.readings.into_iter().map(Into::into).collect(),
        thresholds: answer.thresholds.into_iter().map(Into::into).collect(),
    }))
}
