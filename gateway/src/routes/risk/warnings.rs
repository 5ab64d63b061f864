//! Warnings (warnRecord; permission `as:risk:warn`): forward-looking
//! warnings raised daily by platform rules (expiring licences and ID
//! cards, overdue rent, …), listed and acknowledged one or a batch.

use axum::extract::State;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::{codes, edge_enum};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedJson;
use crate::routes::risk::alarms::RiskLevel;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_warnings))
        .routes(routes!(acknowledge_warnings))
}

edge_enum!(
    /// What a warning is about.
    WarningType => pb::WarningType {
        InsuranceExpiring, InspectionDue, MaintenanceDue, LicenceExpiring, LongIdle,
        LongOffline, NightDriving, AbnormalEnergyUse, FrequentAlarms, PaymentOverdue,
        IdCardExpiring
    }
);
edge_enum!(
    /// UNREAD → ACKNOWLEDGED; RESOLVED when the condition cleared.
    WarningStatus => pb::WarningStatus { Unread, Acknowledged, Resolved }
);

/// A warning, raised once per subject and period.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct WarningBody {
    pub id: String,
    pub org_id: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub driver_id: String,
    pub driver_name: String,
    pub warning_type: Option<WarningType>,
    pub level: Option<RiskLevel>,
    pub title: String,
    pub content: String,
    pub warn_time: String,
    pub status: Option<WarningStatus>,
    /// Who acknowledged it; empty while unread.
    pub acknowledged_by: String,
    pub acknowledge_time: String,
}

impl From<pb::Warning> for WarningBody {
    fn from(w: pb::Warning) -> Self {
        WarningBody {
            warning_type: WarningType::from_pb(w.warning_type),
            level: RiskLevel::from_pb(w.level),
            status: WarningStatus::from_pb(w.status),
            warn_time: rfc3339(w.warn_time.as_ref()),
            acknowledge_time: rfc3339(w.acknowledge_time.as_ref()),
            id: w.id,
            org_id: w.org_id,
            vehicle_id: w.vehicle_id,
            plate_number: w.plate_number,
            driver_id: w.driver_id,
            driver_name: w.driver_name,
            title: w.title,
            content: w.content,
            acknowledged_by: w.acknowledged_by,
        }
    }
}

/// Filters of the warning list; combined with AND, a repeated key matches
/// any of its values.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct WarningListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Plate numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[serde(default)]
    pub driver_id: String,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub warning_types: Vec<WarningType>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub levels: Vec<RiskLevel>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<WarningStatus>,
    /// Warnings raised from this time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub warn_time_start: Option<Timestamp>,
    /// A bare date includes the day.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub warn_time_end: Option<Timestamp>,
}

impl WarningListParams {
    fn filter(self) -> Result<pb::ListWarningsRequest, ApiError> {
        Result::Ok(pb::ListWarningsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            driver_id: self.driver_id,
            warning_types: codes(self.warning_types),
            levels: codes(self.levels),
            statuses: codes(self.statuses),
            warn_time: time_range(self.warn_time_start, self.warn_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/risk/warnings", tag = "risk",
    params(WarningListParams),
    responses((status = 200, description = "Warnings in the caller's data scope, newest first", body = Envelope<Page<WarningBody>>)),
    security(("token" = ["as:risk:warn"]))
)]
async fn list_warnings(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<WarningListParams>,
) -> ApiResult<Page<WarningBody>> {
    let answer = state
        .risk()
        .list_warnings(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.warnings.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

/// The warnings to acknowledge, 1 to 250.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct AcknowledgeWarningsForm {
    pub warning_ids: Vec<String>,
}

#[utoipa::path(
    post, path = "/risk/warnings/acknowledge", tag = "risk",
    request_body = AcknowledgeWarningsForm,
    responses((status = 200, description = "The warnings as they are now (ACKNOWLEDGED); 4000 on warningIds when none or over 250", body = Envelope<Vec<WarningBody>>)),
    security(("token" = ["as:risk:warn"]))
)]
async fn acknowledge_warnings(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<AcknowledgeWarningsForm>,
) -> ApiResult<Vec<WarningBody>> {
    let request = pb::AcknowledgeWarningsRequest {
        warning_ids: form.warning_ids,
    };
    let answer = state
        .risk()
        .acknowledge_warnings(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.warnings.into_iter().map(Into::into).collect()))
}
