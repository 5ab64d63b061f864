//! Risk alarms (riskAlarmRecord; permission `as:alarm`): the list over an
//! alarm-time range of at most 92 days, an alarm's detail with its activity
//! log and evidence track, and the workflow — assign (UNHANDLED or
//! PROCESSING → PROCESSING), handle (→ HANDLED) or dismiss (→ FALSE_ALARM)
//! one or a batch, and comments with attachments.

use axum::extract::{Path, State};
use chrono::Utc;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::org::v1 as org;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::files::{LinkSigner, key_name};
use crate::routes::monitoring::geofences::GeoPointBody;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_risk_alarms))
        .routes(routes!(export_risk_alarms))
        .routes(routes!(get_risk_alarm))
        .routes(routes!(handle_risk_alarms))
        .routes(routes!(assign_risk_alarms))
        .routes(routes!(comment_risk_alarm))
}

edge_enum!(
    /// Severity: LOW (1), MEDIUM (2), HIGH (3; notifies the risk members).
    RiskLevel => pb::RiskLevel { Low, Medium, High }
);
edge_enum!(
    /// What raised an alarm: a platform rule or a terminal alarm bit.
    AlarmType => pb::AlarmType {
        Overspeed, FatigueDriving, PhoneUse, Smoking, Distraction, ForwardCollision,
        LaneDeparture, HarshBraking, HarshAcceleration, Geofence, LowBattery, BatteryFault,
        Temperature, CameraBlocked, NightDriving, Emergency, DangerWarning, TerminalFault,
        PowerCut, Collision, Rollover, IllegalDoorOpening, Theft, Offline, TerminalOther,
        HeadwayTooShort, PedestrianCollision, FrequentLaneChange, RoadSignOverLimit, Obstacle,
        DriverAbsent, BlindSpot, TyrePressure, ActiveSafetyOther
    }
);
edge_enum!(
    /// Workflow state: UNHANDLED → PROCESSING (assigned) → HANDLED or FALSE_ALARM
    /// (closed: may be closed again by another answer, never reopened).
    AlarmStatus => pb::AlarmStatus { Unhandled, Handled, FalseAlarm, Processing }
);
edge_enum!(
    /// What the handler did about an alarm.
    AlarmHandleMethod => pb::AlarmHandleMethod { VoicePrompt, PhoneCall, TextMessage, NoAction }
);
edge_enum!(
    /// An activity-log entry's kind; VIEWED at most once per member per hour.
    AlarmActivityAction => pb::AlarmActivityAction { Assigned, Handled, Dismissed, Commented, Viewed }
);

/// A stored file with a signed download link (valid for 10 minutes).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmFileBody {
    pub key: String,
    pub name: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub url: String,
}

/// The files with links signed for the caller: the vehicle service answered
/// them within the caller's enterprise, so the keys are theirs.
pub(super) fn signed(
    files: Vec<common::FileRef>,
    links: &LinkSigner,
    now: i64,
) -> Vec<AlarmFileBody> {
    files
        .into_iter()
        .map(|f| AlarmFileBody {
            url: links.link(&f.key, now),
            name: if f.name.is_empty() {
                key_name(&f.key).to_owned()
            } else {
                f.name
            },
            key: f.key,
            content_type: f.content_type,
            size_bytes: f.size_bytes,
        })
        .collect()
}

/// An evidence clip of an alarm: an MP4 the browser plays from `file.url`
/// (signed, valid for 10 minutes).
#[derive(Debug, Clone, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmClipBody {
    pub file: AlarmFileBody,
    /// The terminal's camera channel.
    pub channel: i32,
    /// When it was recorded (RFC 3339).
    pub taken_at: String,
}

fn signed_clips(clips: Vec<pb::AlarmClip>, links: &LinkSigner, now: i64) -> Vec<AlarmClipBody> {
    clips
        .into_iter()
        .filter_map(|c| {
            let file = signed(vec![c.file?], links, now).pop()?;
            Some(AlarmClipBody {
                file,
                channel: c.channel,
                taken_at: rfc3339(c.taken_at.as_ref()),
            })
        })
        .collect()
}

/// A risk alarm. An ongoing condition is one alarm from `alarmTime` to
/// `endTime`, updated while it lasts.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RiskAlarmBody {
    pub id: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub vin: String,
    pub driver_id: String,
    pub driver_name: String,
    pub alarm_type: Option<AlarmType>,
    pub level: Option<RiskLevel>,
    /// When the condition started (RFC 3339).
    pub alarm_time: String,
    /// When it ended; empty while it lasts.
    pub end_time: String,
    /// The condition still holds.
    pub ongoing: bool,
    pub point: Option<GeoPointBody>,
    pub address: String,
    /// The highest speed seen while it lasted, km/h.
    pub speed_kmh: f64,
    /// How long the condition lasted, seconds; 0 for instant events.
    pub duration_seconds: i32,
    pub status: Option<AlarmStatus>,
    pub handle_method: Option<AlarmHandleMethod>,
    pub handle_remark: String,
    pub handler_name: String,
    /// When it was closed; empty while open.
    pub handle_time: String,
    /// Seconds from the start to its closing; 0 while open.
    pub handle_seconds: i64,
    /// The member it is assigned to (PROCESSING); empty when none.
    pub assignee_id: String,
    pub assignee_name: String,
    /// The rule that raised it; empty for active-safety alarms (always on).
    pub rule_id: String,
    pub rule_name: String,
    /// The 0x0200 alarm bit (0-31) of a terminal alarm; -1 for platform rules.
    pub terminal_bit: i32,
    /// Unused (empty): clips are in `clips`.
    pub video_clip_ids: Vec<String>,
    /// Photos of the alarm: an active-safety alarm's own, or the terminal's
    /// 0x0800 photos of the alarm's event taken around its start.
    pub images: Vec<AlarmFileBody>,
    /// Video clips of the alarm (active-safety evidence), oldest first.
    pub clips: Vec<AlarmClipBody>,
    /// An active-safety alarm's identifier at its terminal; empty for others.
    pub alarm_key: String,
}

impl RiskAlarmBody {
    fn new(a: pb::RiskAlarm, links: &LinkSigner, now: i64) -> Self {
        RiskAlarmBody {
            alarm_type: AlarmType::from_pb(a.alarm_type),
            level: RiskLevel::from_pb(a.level),
            alarm_time: rfc3339(a.alarm_time.as_ref()),
            end_time: rfc3339(a.end_time.as_ref()),
            point: a.point.as_ref().map(GeoPointBody::from),
            status: AlarmStatus::from_pb(a.status),
            handle_method: AlarmHandleMethod::from_pb(a.handle_method),
            handle_time: rfc3339(a.handle_time.as_ref()),
            images: signed(a.images, links, now),
            clips: signed_clips(a.clips, links, now),
            alarm_key: a.alarm_key,
            id: a.id,
            org_id: a.org_id,
            org_name: a.org_name,
            vehicle_id: a.vehicle_id,
            plate_number: a.plate_number,
            vin: a.vin,
            driver_id: a.driver_id,
            driver_name: a.driver_name,
            ongoing: a.ongoing,
            address: a.address,
            speed_kmh: a.speed_kmh,
            duration_seconds: a.duration_seconds,
            handle_remark: a.handle_remark,
            handler_name: a.handler_name,
            handle_seconds: a.handle_seconds,
            assignee_id: a.assignee_id,
            assignee_name: a.assignee_name,
            rule_id: a.rule_id,
            rule_name: a.rule_name,
            terminal_bit: a.terminal_bit,
            video_clip_ids: a.video_clip_ids,
        }
    }
}

fn alarm_bodies(alarms: Vec<pb::RiskAlarm>, links: &LinkSigner) -> Vec<RiskAlarmBody> {
    let now = Utc::now().timestamp();
    alarms
        .into_iter()
        .map(|a| RiskAlarmBody::new(a, links, now))
        .collect()
}

/// One entry of an alarm's activity log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmActivityBody {
    pub action: Option<AlarmActivityAction>,
    /// The state before (state changes only).
    pub from_status: Option<AlarmStatus>,
    /// The state after (state changes only).
    pub to_status: Option<AlarmStatus>,
    pub remark: String,
    pub attachments: Vec<AlarmFileBody>,
    pub actor_name: String,
    pub time: String,
}

fn activity_bodies(list: Vec<pb::AlarmActivity>, links: &LinkSigner) -> Vec<AlarmActivityBody> {
    let now = Utc::now().timestamp();
    list.into_iter()
        .map(|a| AlarmActivityBody {
            action: AlarmActivityAction::from_pb(a.action),
            from_status: AlarmStatus::from_pb(a.from_status),
            to_status: AlarmStatus::from_pb(a.to_status),
            remark: a.remark,
            attachments: signed(a.attachments, links, now),
            actor_name: a.actor_name,
            time: rfc3339(a.time.as_ref()),
        })
        .collect()
}

/// A fix of the evidence track.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmTrackPointBody {
    pub time: String,
    pub point: Option<GeoPointBody>,
    pub speed_kmh: f64,
}

/// An alarm with its activity log (oldest first) and the vehicle's fixes from
/// 5 minutes before it to 5 minutes after its end (at most 500).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RiskAlarmDetailBody {
    pub alarm: RiskAlarmBody,
    pub activities: Vec<AlarmActivityBody>,
    pub track: Vec<AlarmTrackPointBody>,
}

/// Filters of the alarm list; combined with AND, a repeated key matches any
/// of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RiskAlarmListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// VINs, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub vins: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub alarm_types: Vec<AlarmType>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub levels: Vec<RiskLevel>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<AlarmStatus>,
    /// Alarms assigned to this member (the caller's own id: 只看我的).
    #[serde(default)]
    pub assignee_id: String,
    /// Required with alarmTimeEnd: alarms started in the range, at most 92
    /// days (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub alarm_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub alarm_time_end: Option<Timestamp>,
}

impl RiskAlarmListParams {
    fn filter(self) -> Result<pb::ListRiskAlarmsRequest, ApiError> {
        Result::Ok(pb::ListRiskAlarmsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            driver_id: String::new(),
            alarm_types: codes(self.alarm_types),
            levels: codes(self.levels),
            statuses: codes(self.statuses),
            alarm_time: time_range(self.alarm_time_start, self.alarm_time_end),
            assignee_id: self.assignee_id,
        })
    }
}

#[utoipa::path(
    get, path = "/risk/alarms", tag = "risk",
    params(RiskAlarmListParams),
    responses((status = 200, description = "Alarms in the caller's data scope, newest first; 4000 without an alarm-time range or with one over 92 days", body = Envelope<Page<RiskAlarmBody>>)),
    security(("token" = ["as:alarm"]))
)]
async fn list_risk_alarms(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<RiskAlarmListParams>,
) -> ApiResult<Page<RiskAlarmBody>> {
    let answer = state
        .risk()
        .list_risk_alarms(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: alarm_bodies(answer.alarms, &state.links),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/risk/alarms/export", tag = "risk",
    params(RiskAlarmListParams),
    responses((status = 200, description = "The export record of the alarms with the list's filters and data scope (paging ignored, newest first); 4000 as the list", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:alarm"]))
)]
async fn export_risk_alarms(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<RiskAlarmListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportRiskAlarmsRequest {
        filter: Some(query.filter()?),
    };
    let answer = state
        .risk()
        .export_risk_alarms(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/risk/alarms/{alarmId}", tag = "risk",
    params(("alarmId" = String, Path, description = "Alarm id")),
    responses((status = 200, description = "The alarm, its activity log and evidence track; opening it logs VIEWED (at most once per member per hour)", body = Envelope<RiskAlarmDetailBody>)),
    security(("token" = ["as:alarm"]))
)]
async fn get_risk_alarm(
    State(state): State<AppState>,
    principal: Principal,
    Path(alarm_id): Path<String>,
) -> ApiResult<RiskAlarmDetailBody> {
    let answer = state
        .risk()
        .get_risk_alarm(state.as_user(&principal, pb::GetRiskAlarmRequest { alarm_id }))
        .await?
        .into_inner();
    let now = Utc::now().timestamp();
    Result::Ok(Ok(RiskAlarmDetailBody {
        alarm: RiskAlarmBody::new(answer.alarm.unwrap_or_default(), &state.links, now),
        activities: activity_bodies(answer.activities, &state.links),
        track: answer
            .track
            .into_iter()
            .map(|p| AlarmTrackPointBody {
                time: rfc3339(p.time.as_ref()),
                point: p.point.as_ref().map(GeoPointBody::from),
                speed_kmh: p.speed_kmh,
            })
            .collect(),
    }))
}

/// Attachments must be files the caller's enterprise uploaded (POST /files);
/// `field` names the body's key a refusal points at.
pub(super) async fn checked_files(
    state: &AppState,
    principal: &Principal,
    field: &str,
    files: Vec<FileRefBody>,
) -> Result<Vec<common::FileRef>, ApiError> {
    let prefix = format!("{}/", principal.enterprise_id);
    for f in &files {
        if !f.key.starts_with(&prefix) || !state.files.exists(&f.key).await? {
            return Err(ApiError::invalid(field, "附件不存在或已过期，请重新上传"));
        }
    }
    Result::Ok(files.into_iter().map(Into::into).collect())
}

/// Closes alarms: HANDLED needs a handle method; FALSE_ALARM needs the reason
/// in `remark` (请填写误报原因). At most 250 alarms, 500 characters of remark.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct HandleRiskAlarmsForm {
    pub alarm_ids: Vec<String>,
    /// HANDLED or FALSE_ALARM.
    pub status: Option<AlarmStatus>,
    pub handle_method: Option<AlarmHandleMethod>,
    pub remark: String,
    /// Files uploaded through POST /files.
    pub attachments: Vec<FileRefBody>,
}

#[utoipa::path(
    post, path = "/risk/alarms/handle", tag = "risk",
    request_body = HandleRiskAlarmsForm,
    responses((status = 200, description = "The alarms as they are now. A closed alarm may be closed again (a correction or a second answer: each is logged, the last stands); 4000 on remark (请填写误报原因) for FALSE_ALARM without a reason", body = Envelope<Vec<RiskAlarmBody>>)),
    security(("token" = ["as:alarm"]))
)]
async fn handle_risk_alarms(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<HandleRiskAlarmsForm>,
) -> ApiResult<Vec<RiskAlarmBody>> {
    let request = pb::HandleRiskAlarmsRequest {
        alarm_ids: form.alarm_ids,
        status: form.status.map_or(0, i32::from),
        handle_method: form.handle_method.map_or(0, i32::from),
        remark: form.remark,
        attachments: checked_files(&state, &principal, "attachments", form.attachments).await?,
    };
    let answer = state
        .risk()
        .handle_risk_alarms(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(alarm_bodies(answer.alarms, &state.links)))
}

/// Assigns open alarms to a member of the caller's enterprise (the caller's
/// own id assigns them to the caller). At most 250 alarms.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AssignRiskAlarmsForm {
    pub alarm_ids: Vec<String>,
    /// A user id of the enterprise (GET /system/users).
    pub assignee_id: String,
    /// At most 500 characters.
    pub remark: String,
}

const NO_ASSIGNEE: &str = "请选择处理人";

/// The name an assignee is recorded under: the caller themself, or an
/// enabled member of the caller's enterprise as org knows them.
async fn assignee_name(
    state: &AppState,
    principal: &Principal,
    assignee_id: &str,
) -> Result<String, ApiError> {
    if assignee_id.is_empty() {
        return Err(ApiError::invalid("assigneeId", NO_ASSIGNEE));
    }
    // Taking an alarm oneself needs no member lookup (nor the right to list users).
    if assignee_id == principal.user_id {
        return Result::Ok(principal.name.clone());
    }
    let answer = state
        .org()
        .get_user(state.as_user(
            principal,
            org::GetUserRequest {
                id: assignee_id.to_owned(),
            },
        ))
        .await;
    match answer {
        Result::Ok(answer) => member_name(answer.into_inner().user, &principal.enterprise_id),
        Err(status)
            if matches!(
                status.code(),
                tonic::Code::NotFound | tonic::Code::InvalidArgument
            ) =>
        {
            Err(ApiError::invalid("assigneeId", NO_ASSIGNEE))
        }
        Err(status) => Err(status.into()),
    }
}

/// An enabled user of `enterprise_id`, by name; anyone else is no assignee.
fn member_name(user: Option<org::User>, enterprise_id: &str) -> Result<String, ApiError> {
    match user {
        Some(u)
            if u.enterprise_id == enterprise_id
                && u.status != org::EnabledStatus::Disabled as i32
                && !u.name.trim().is_empty() =>
        {
            Result::Ok(u.name)
        }
        _ => Err(ApiError::invalid("assigneeId", NO_ASSIGNEE)),
    }
}

#[utoipa::path(
    post, path = "/risk/alarms/assign", tag = "risk",
    request_body = AssignRiskAlarmsForm,
    responses((status = 200, description = "The alarms, now PROCESSING under the member; 4000 on assigneeId (请选择处理人) for anyone not an enabled member of the enterprise; 4009 when one is closed already", body = Envelope<Vec<RiskAlarmBody>>)),
    security(("token" = ["as:alarm"]))
)]
async fn assign_risk_alarms(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<AssignRiskAlarmsForm>,
) -> ApiResult<Vec<RiskAlarmBody>> {
    let assignee_name = assignee_name(&state, &principal, &form.assignee_id).await?;
    let request = pb::AssignRiskAlarmsRequest {
        alarm_ids: form.alarm_ids,
        assignee_id: form.assignee_id,
        remark: form.remark,
        assignee_name,
    };
    let answer = state
        .risk()
        .assign_risk_alarms(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(alarm_bodies(answer.alarms, &state.links)))
}

/// A remark (1 to 500 characters) with optional attachments.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CommentRiskAlarmForm {
    pub remark: String,
    /// Files uploaded through POST /files.
    pub attachments: Vec<FileRefBody>,
}

#[utoipa::path(
    post, path = "/risk/alarms/{alarmId}/comments", tag = "risk",
    params(("alarmId" = String, Path, description = "Alarm id")),
    request_body = CommentRiskAlarmForm,
    responses((status = 200, description = "The alarm's activity log with the comment, oldest first", body = Envelope<Vec<AlarmActivityBody>>)),
    security(("token" = ["as:alarm"]))
)]
async fn comment_risk_alarm(
    State(state): State<AppState>,
    principal: Principal,
    Path(alarm_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CommentRiskAlarmForm>,
) -> ApiResult<Vec<AlarmActivityBody>> {
    let request = pb::CommentRiskAlarmRequest {
        alarm_id,
        remark: form.remark,
        attachments: checked_files(&state, &principal, "attachments", form.attachments).await?,
    };
    let answer = state
        .risk()
        .comment_risk_alarm(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(activity_bodies(answer.activities, &state.links)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    fn read(raw: &str) -> Result<pb::ListRiskAlarmsRequest, ApiError> {
        from_query::<RiskAlarmListParams>(&ListQuery::parse(raw).unwrap())?.filter()
    }

    fn refusal(err: &ApiError) -> (String, String) {
        let field = &err.0.fields[0];
        (field.field.clone(), field.message.clone())
    }

    #[test]
    fn the_list_query_reads_repeated_filters_as_the_contract_names_them() {
        let request = read(
            "page=2&size=50&plateNumbers=%E7%B2%A4B1&plateNumbers=B2&orgIds=o1\
             &alarmTypes=OVERSPEED&alarmTypes=COLLISION&levels=HIGH\
             &statuses=UNHANDLED&statuses=PROCESSING&assigneeId=u1\
             &alarmTimeStart=2026-11-01&alarmTimeEnd=2026-11-07",
        )
        .unwrap();
        assert_eq!(
            request.page,
            Some(common::PageRequest { page: 2, size: 50 })
        );
        assert_eq!(request.plate_numbers, vec!["粤B1", "B2"]);
        assert_eq!(request.org_ids, vec!["o1"]);
        assert_eq!(
            request.alarm_types,
            vec![
                pb::AlarmType::Overspeed as i32,
                pb::AlarmType::Collision as i32
            ]
        );
        assert_eq!(request.levels, vec![pb::RiskLevel::High as i32]);
        assert_eq!(
            request.statuses,
            vec![
                pb::AlarmStatus::Unhandled as i32,
                pb::AlarmStatus::Processing as i32
            ]
        );
        assert_eq!(request.assignee_id, "u1");
        let range = request.alarm_time.unwrap();
        let end = fleetdesk_kit::convert::datetime(range.end.as_ref().unwrap()).unwrap();
        // A bare end date includes its day (Shanghai).
        assert_eq!(end.to_rfc3339(), "2026-11-07T16:00:00+00:00");
    }

    #[test]
    fn the_list_query_refuses_unknown_values_and_oversized_batches() {
        let err = read("statuses=CLOSED").unwrap_err();
        assert_eq!(refusal(&err).0, "statuses");
        let plates: Vec<String> = (0..251).map(|i| format!("plateNumbers=P{i}")).collect();
        let err = read(&plates.join("&")).unwrap_err();
        assert_eq!(
            refusal(&err),
            (
                "plateNumbers".to_owned(),
                "每次批量查询，最大不超过250台".to_owned()
            )
        );
        assert!(read("").unwrap().alarm_time.is_none());
    }

    fn user(enterprise: &str, status: org::EnabledStatus, name: &str) -> Option<org::User> {
        Some(org::User {
            id: "u2".to_owned(),
            enterprise_id: enterprise.to_owned(),
            name: name.to_owned(),
            status: status as i32,
            ..Default::default()
        })
    }

    #[test]
    fn only_an_enabled_member_of_the_callers_enterprise_is_an_assignee() {
        let ok = member_name(user("e1", org::EnabledStatus::Enabled, "王五"), "e1").unwrap();
        assert_eq!(ok, "王五");
        for other in [
            user("e2", org::EnabledStatus::Enabled, "王五"),
            user("e1", org::EnabledStatus::Disabled, "王五"),
            user("e1", org::EnabledStatus::Enabled, " "),
            None,
        ] {
            let err = member_name(other, "e1").unwrap_err();
            assert_eq!(
                refusal(&err),
                ("assigneeId".to_owned(), NO_ASSIGNEE.to_owned())
            );
        }
    }
}
