//! Alarm rules (the settings of riskAlarmRecord): listed with `as:alarm`,
//! changed with `as:alarm:rule`. A rule applies to the vehicles of its
//! organisation's subtree (every vehicle without one) and to fixes that
//! arrive after it is saved; each change is audited.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::query::EdgeQuery;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Empty, Envelope, Ok};
use crate::extract::TrimmedJson;
use crate::routes::risk::alarms::RiskLevel;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_alarm_rules, create_alarm_rule))
        .routes(routes!(update_alarm_rule, delete_alarm_rule))
}

edge_enum!(
    /// What a rule watches, and so which of its parameters count:
    /// OVERSPEED (limitKmh, minDurationSeconds; inside fences with their own
    /// speed limit, the lowest of those instead), FATIGUE (maxDriveMinutes,
    /// restMinutes, dailyDriveMinutes), NIGHT_DRIVING (windowStartMinute,
    /// windowEndMinute), LOW_SOC (socBelowPercent, minDurationSeconds),
    /// TERMINAL (terminalBits), FENCE_WINDOW (fenceIds, fenceOnEnter,
    /// fenceOnExit, windowStartMinute, windowEndMinute), TEMPERATURE
    /// (minDurationSeconds: a probe outside its cold-chain range that long),
    /// OFFLINE (offlineHours).
    AlarmRuleKind => pb::AlarmRuleKind {
        Overspeed, Fatigue, NightDriving, LowSoc, Terminal, FenceWindow, Temperature, Offline,
    }
);

/// An enterprise's alarm rule.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AlarmRuleBody {
    pub id: String,
    pub name: String,
    pub kind: Option<AlarmRuleKind>,
    pub level: Option<RiskLevel>,
    /// The organisation whose subtree it watches; empty: every vehicle.
    pub org_id: String,
    pub org_name: String,
    pub enabled: bool,
    pub limit_kmh: i32,
    pub min_duration_seconds: i32,
    pub max_drive_minutes: i32,
    pub rest_minutes: i32,
    /// Minutes of the day, Beijing time; the window may cross midnight.
    pub window_start_minute: i32,
    pub window_end_minute: i32,
    pub soc_below_percent: i32,
    /// 0x0200 alarm bits, e.g. 0 (emergency), 29 (collision).
    pub terminal_bits: Vec<i32>,
    /// FATIGUE: minutes of driving in one Beijing day that raise one alarm
    /// for the day; 0 for none.
    pub daily_drive_minutes: i32,
    /// FENCE_WINDOW: the fences watched; empty for every fence.
    pub fence_ids: Vec<String>,
    pub fence_on_enter: bool,
    pub fence_on_exit: bool,
    /// OFFLINE: hours without a fix.
    pub offline_hours: i32,
    /// A HIGH alarm of this rule notifies at most once per this many minutes per vehicle.
    pub quiet_minutes: i32,
    pub created_by: String,
    pub create_time: String,
    pub updated_by: String,
    pub update_time: String,
}

impl From<pb::AlarmRule> for AlarmRuleBody {
    fn from(r: pb::AlarmRule) -> Self {
        let audit = r.audit.unwrap_or_default();
        AlarmRuleBody {
            id: r.id,
            name: r.name,
            kind: AlarmRuleKind::from_pb(r.kind),
            level: RiskLevel::from_pb(r.level),
            org_id: r.org_id,
            org_name: r.org_name,
            enabled: r.enabled,
            limit_kmh: r.limit_kmh,
            min_duration_seconds: r.min_duration_seconds,
            max_drive_minutes: r.max_drive_minutes,
            rest_minutes: r.rest_minutes,
            window_start_minute: r.window_start_minute,
            window_end_minute: r.window_end_minute,
            soc_below_percent: r.soc_below_percent,
            terminal_bits: r.terminal_bits,
            daily_drive_minutes: r.daily_drive_minutes,
            fence_ids: r.fence_ids,
            fence_on_enter: r.fence_on_enter,
            fence_on_exit: r.fence_on_exit,
            offline_hours: r.offline_hours,
            quiet_minutes: r.quiet_minutes,
            created_by: audit.created_by,
            create_time: rfc3339(audit.create_time.as_ref()),
            updated_by: audit.updated_by,
            update_time: rfc3339(audit.update_time.as_ref()),
        }
    }
}

/// Filters of the rule list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AlarmRuleListParams {
    /// Only rules of these kinds; all when absent.
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<AlarmRuleKind>,
}

#[utoipa::path(
    get, path = "/risk/alarm-rules", tag = "risk",
    params(AlarmRuleListParams),
    responses((status = 200, description = "The enterprise's alarm rules", body = Envelope<Vec<AlarmRuleBody>>)),
    security(("token" = ["as:alarm"]))
)]
async fn list_alarm_rules(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<AlarmRuleListParams>,
) -> ApiResult<Vec<AlarmRuleBody>> {
    let request = pb::ListAlarmRulesRequest {
        kinds: codes(query.kinds),
    };
    let answer = state
        .risk()
        .list_alarm_rules(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.rules.into_iter().map(Into::into).collect()))
}

/// A rule's fields, all replaced on save. Name 1 to 50 characters; the kind's
/// own parameters are checked (see AlarmRuleKind); the kind cannot change.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AlarmRuleForm {
    pub name: String,
    pub kind: Option<AlarmRuleKind>,
    pub level: Option<RiskLevel>,
    /// Empty: every vehicle of the enterprise.
    pub org_id: String,
    pub enabled: bool,
    pub limit_kmh: i32,
    pub min_duration_seconds: i32,
    pub max_drive_minutes: i32,
    pub rest_minutes: i32,
    pub window_start_minute: i32,
    pub window_end_minute: i32,
    pub soc_below_percent: i32,
    pub terminal_bits: Vec<i32>,
    pub daily_drive_minutes: i32,
    pub fence_ids: Vec<String>,
    pub fence_on_enter: bool,
    pub fence_on_exit: bool,
    pub offline_hours: i32,
    pub quiet_minutes: i32,
}

impl AlarmRuleForm {
    fn into_pb(self, id: String) -> pb::AlarmRule {
        pb::AlarmRule {
            id,
            name: self.name,
            kind: self.kind.map_or(0, i32::from),
            level: self.level.map_or(0, i32::from),
            org_id: self.org_id,
            org_name: String::new(),
            enabled: self.enabled,
            limit_kmh: self.limit_kmh,
            min_duration_seconds: self.min_duration_seconds,
            max_drive_minutes: self.max_drive_minutes,
            rest_minutes: self.rest_minutes,
            window_start_minute: self.window_start_minute,
            window_end_minute: self.window_end_minute,
            soc_below_percent: self.soc_below_percent,
            terminal_bits: self.terminal_bits,
            daily_drive_minutes: self.daily_drive_minutes,
            fence_ids: self.fence_ids,
            fence_on_enter: self.fence_on_enter,
            fence_on_exit: self.fence_on_exit,
            offline_hours: self.offline_hours,
            quiet_minutes: self.quiet_minutes,
            audit: None,
        }
    }
}

#[utoipa::path(
    post, path = "/risk/alarm-rules", tag = "risk",
    request_body = AlarmRuleForm,
    responses((status = 200, description = "The rule as stored; it applies to fixes that arrive from now on", body = Envelope<AlarmRuleBody>)),
    security(("token" = ["as:alarm:rule"]))
)]
async fn create_alarm_rule(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<AlarmRuleForm>,
) -> ApiResult<AlarmRuleBody> {
    let request = pb::CreateAlarmRuleRequest {
        rule: Some(form.into_pb(String::new())),
    };
    let answer = state
        .risk()
        .create_alarm_rule(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.rule.unwrap_or_default().into()))
}

#[utoipa::path(
    put, path = "/risk/alarm-rules/{ruleId}", tag = "risk",
    params(("ruleId" = String, Path, description = "Rule id")),
    request_body = AlarmRuleForm,
    responses((status = 200, description = "The rule as stored; fixes that arrive from now on use it; 4000 on kind when it would change", body = Envelope<AlarmRuleBody>)),
    security(("token" = ["as:alarm:rule"]))
)]
async fn update_alarm_rule(
    State(state): State<AppState>,
    principal: Principal,
    Path(rule_id): Path<String>,
    TrimmedJson(form): TrimmedJson<AlarmRuleForm>,
) -> ApiResult<AlarmRuleBody> {
    let request = pb::UpdateAlarmRuleRequest {
        rule: Some(form.into_pb(rule_id)),
    };
    let answer = state
        .risk()
        .update_alarm_rule(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.rule.unwrap_or_default().into()))
}

#[utoipa::path(
    delete, path = "/risk/alarm-rules/{ruleId}", tag = "risk",
    params(("ruleId" = String, Path, description = "Rule id")),
    responses((status = 200, description = "Deleted; alarms it raised stay", body = Envelope<Empty>)),
    security(("token" = ["as:alarm:rule"]))
)]
async fn delete_alarm_rule(
    State(state): State<AppState>,
    principal: Principal,
    Path(rule_id): Path<String>,
) -> ApiResult<Empty> {
    state
        .risk()
        .delete_alarm_rule(state.as_user(&principal, pb::DeleteAlarmRuleRequest { rule_id }))
        .await?;
    Result::Ok(Ok(Empty {}))
}
