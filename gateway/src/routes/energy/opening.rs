//! Opening the charging service (the energy menu's introduction popup and
//! /chargeIntroduce, console spec §2, §4, §8): whether the enterprise has charging,
//! the application (refused with 4009 while one is pending or once opened)
//! and the enterprise's own applications with their export. Approving and
//! rejecting are the operator's (an operator service caller of energy): no
//! route here.

use axum::extract::State;
use fleetdesk_proto::energy::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, end_time, start_time, time_range};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::routes::energy::convert::{
    ChargingOpenApplicationBody, ChargingOpenApplicationStatus, ChargingOpenState,
};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(charging_open_status))
        .routes(routes!(
            list_charging_open_applications,
            apply_charging_open
        ))
        .routes(routes!(export_charging_open_applications))
}

/// What the console shows after a successful application (console spec §8).
pub const APPLIED: &str =
    "您的开通申请已经提交成功，工作人员将在3个工作日内与您联系，请保持电话畅通";

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
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ChargingOpenApplicationListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<ChargingOpenApplicationStatus>,
    /// Applied from (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub apply_time_start: Option<Timestamp>,
    /// Applied until (a bare date includes the day).
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub apply_time_end: Option<Timestamp>,
}

impl ChargingOpenApplicationListParams {
    /// The filter shared by the list and its export.
    fn filter(self) -> Result<pb::ListChargingOpenApplicationsRequest, ApiError> {
        Result::Ok(pb::ListChargingOpenApplicationsRequest {
            page: Some(paging(self.page, self.size)?),
            statuses: codes(self.statuses),
            apply_time: time_range(self.apply_time_start, self.apply_time_end),
            // Only operator service callers may name another enterprise.
            enterprise_id: String::new(),
        })
    }
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
    EdgeQuery(query): EdgeQuery<ChargingOpenApplicationListParams>,
) -> ApiResult<Page<ChargingOpenApplicationBody>> {
    let answer = state
        .energy()
        .list_charging_open_applications(state.as_user(&principal, query.filter()?))
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

#[utoipa::path(
    post, path = "/charging/open-applications/export", tag = "charging",
    params(ChargingOpenApplicationListParams),
    responses((status = 200, description = "The export record of the enterprise's applications with the list's filters (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["oss:pc:energy:management"]))
)]
async fn export_charging_open_applications(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ChargingOpenApplicationListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportChargingOpenApplicationsRequest {
        filter: Some(pb::ListChargingOpenApplicationsRequest {
            page: None,
            ..query.filter()?
        }),
    };
    let answer = state
        .energy()
        .export_charging_open_applications(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
