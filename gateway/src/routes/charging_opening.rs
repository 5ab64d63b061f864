//! Opening the charging service (the energy menu's introduction popup and
//! /chargeIntroduce, spec §2, §4, §8): whether the enterprise has charging,
//! the application (refused with 4009 while one is pending or once opened)
//! and the enterprise's own applications. Approving and rejecting are the
//! operator's (an operator service caller of energy): no route here.

use axum::extract::State;
use fleetdesk_proto::energy::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::list::ListQuery;
use crate::routes::rfc3339;
use crate::routes::vehicles::edge_enum;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(charging_open_status))
        .routes(routes!(
            list_charging_open_applications,
            apply_charging_open
        ))
}

/// What the console shows after a successful application (spec §8).
pub const APPLIED: &str =
    "您的开通申请已经提交成功，工作人员将在3个工作日内与您联系，请保持电话畅通";

edge_enum!(
    /// NOT_OPENED: the introduction popup; APPLYING: the button reads 申请中;
    /// OPENED: a charging account exists and the full energy menu shows.
    ChargingOpenState => pb::ChargingOpenState { NotOpened, Applying, Opened }
);
edge_enum!(
    /// PENDING → CONTACTED → APPROVED or REJECTED (then the enterprise may apply again).
    ChargingOpenApplicationStatus => pb::ChargingOpenApplicationStatus {
        Pending, Contacted, Approved, Rejected
    }
);

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingOpenApplicationBody {
    pub id: String,
    pub enterprise_name: String,
    pub applicant_name: String,
    /// Masked by the server.
    pub applicant_phone: String,
    pub status: Option<ChargingOpenApplicationStatus>,
    pub apply_time: String,
    pub contact_time: String,
    /// The operator's staff member who handled it.
    pub handler_name: String,
    pub decide_time: String,
    pub reject_reason: String,
    /// The applicant's note.
    pub remark: String,
    /// The operator's remark when approving.
    pub approve_remark: String,
}

impl From<pb::ChargingOpenApplication> for ChargingOpenApplicationBody {
    fn from(a: pb::ChargingOpenApplication) -> Self {
        let pb::ChargingOpenApplication {
            id,
            enterprise_id: _,
            enterprise_name,
            applicant_account_id: _,
            applicant_name,
            applicant_masked_phone,
            status,
            apply_time,
            contact_time,
            handler_name,
            decide_time,
            reject_reason,
            remark,
            approve_remark,
        } = a;
        ChargingOpenApplicationBody {
            id,
            enterprise_name,
            applicant_name,
            applicant_phone: applicant_masked_phone,
            status: ChargingOpenApplicationStatus::from_pb(status),
            apply_time: rfc3339(apply_time.as_ref()),
            contact_time: rfc3339(contact_time.as_ref()),
            handler_name,
            decide_time: rfc3339(decide_time.as_ref()),
            reject_reason,
            remark,
            approve_remark,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChargingOpenStatusBody {
    pub state: Option<ChargingOpenState>,
    /// The latest application; absent when the enterprise never applied.
    pub latest_application: Option<ChargingOpenApplicationBody>,
    /// On the charge blacklist: no charging at all, and no application.
    pub blacklisted: bool,
}

#[utoipa::path(
    get, path = "/charging/open-status", tag = "charging",
    responses((status = 200, description = "Whether the caller's enterprise has charging, is applying, or neither", body = Envelope<ChargingOpenStatusBody>)),
    security(("token" = ["oss:pc:energy:management"]))
)]
async fn charging_open_status(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<ChargingOpenStatusBody> {
    let answer = state
        .energy()
        .get_charging_open_status(state.as_user(&principal, pb::GetChargingOpenStatusRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(ChargingOpenStatusBody {
        state: ChargingOpenState::from_pb(answer.state),
        latest_application: answer
            .latest_application
            .map(ChargingOpenApplicationBody::from),
        blacklisted: answer.blacklisted,
    }))
}

/// An application to open charging.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ChargingOpenForm {
    /// Optional note for the operator's staff, at most 200 characters.
    pub remark: String,
}

#[utoipa::path(
    post, path = "/charging/open-applications", tag = "charging",
    request_body = ChargingOpenForm,
    responses((status = 200, description = "Submitted; msg is the text the console shows (staff call back within 3 working days). 4009 while an application is pending or once charging is open", body = Envelope<ChargingOpenApplicationBody>)),
    security(("token" = ["oss:pc:energy:management"]))
)]
async fn apply_charging_open(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<ChargingOpenForm>,
) -> Result<OkWith<ChargingOpenApplicationBody>, ApiError> {
    if form.remark.chars().count() > 200 {
        return Err(ApiError::invalid("remark", "备注不能超过 200 个字符"));
    }
    let answer = state
        .energy()
        .apply_charging_open(state.as_user(
            &principal,
            pb::ApplyChargingOpenRequest {
                remark: form.remark,
            },
        ))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: APPLIED,
        data: answer.application.unwrap_or_default().into(),
    })
}

/// Filters of the application list.
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct ChargingOpenApplicationListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode, inline)]
    pub status: Option<Vec<ChargingOpenApplicationStatus>>,
    /// Applied from (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    pub apply_time_start: Option<String>,
    /// Applied until (a bare date includes the day).
    pub apply_time_end: Option<String>,
}

#[utoipa::path(
    get, path = "/charging/open-applications", tag = "charging",
    params(ChargingOpenApplicationListParams),
    responses((status = 200, description = "The enterprise's applications, newest first", body = Envelope<Page<ChargingOpenApplicationBody>>)),
    security(("token" = ["oss:pc:energy:management"]))
)]
async fn list_charging_open_applications(
    State(state): State<AppState>,
    principal: Principal,
    query: ListQuery,
) -> ApiResult<Page<ChargingOpenApplicationBody>> {
    let request = pb::ListChargingOpenApplicationsRequest {
        page: Some(query.paging()?),
        statuses: query
            .parsed::<ChargingOpenApplicationStatus>("status")?
            .into_iter()
            .map(i32::from)
            .collect(),
        apply_time: query.range("applyTime")?,
        // Only operator service callers may name another enterprise.
        enterprise_id: String::new(),
    };
    let answer = state
        .energy()
        .list_charging_open_applications(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .applications
            .into_iter()
            .map(ChargingOpenApplicationBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}
