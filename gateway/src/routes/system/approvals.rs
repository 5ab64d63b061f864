//! Approvals: the pending badge, the list and detail with history, approve
//! or reject with a comment, and vehicle allotment approvals.

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(pending_count))
        .routes(routes!(list_approvals))
        .routes(routes!(export_approvals))
        .routes(routes!(list_vehicle_allotments))
        .routes(routes!(get_approval))
        .routes(routes!(decide))
}

/// Most plates one batch filter takes.
const MAX_PLATES: usize = 250;

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalStepBody {
    /// The status this step moved to: 1 submitted (pending), 2 approved, 3 rejected, 4 withdrawn.
    pub status: i32,
    pub operator_id: String,
    pub operator_name: String,
    pub comment: String,
    pub operate_time: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalBody {
    pub id: String,
    /// 1 vehicle allotment, 2 charge allocation, 3 refund, 4 invoice.
    pub kind: i32,
    pub title: String,
    pub business_id: String,
    pub applicant_name: String,
    /// Masked by the server; reveal through `/sensitive/reveal` (subjectKind 2).
    #[serde(rename = "applicantPhone")]
    pub applicant_phone_masked: String,
    pub plate_number: String,
    /// 1 pending, 2 approved, 3 rejected, 4 withdrawn.
    pub status: i32,
    /// Business details of the kind, as JSON.
    #[schema(value_type = Object)]
    pub detail: serde_json::Value,
    pub apply_time: String,
    /// Empty while pending.
    pub decide_time: String,
    /// Who moved it when, oldest first; only in the detail.
    pub history: Vec<ApprovalStepBody>,
}

impl From<pb::Approval> for ApprovalBody {
    fn from(a: pb::Approval) -> Self {
        ApprovalBody {
            id: a.id,
            kind: a.kind,
            title: a.title,
            business_id: a.business_id,
            applicant_name: a.applicant_name,
            applicant_phone_masked: a.applicant_phone_masked,
            plate_number: a.plate_number,
            status: a.status,
            detail: serde_json::from_str(&a.detail_json).unwrap_or_default(),
            apply_time: rfc3339(a.apply_time.as_ref()),
            decide_time: rfc3339(a.decide_time.as_ref()),
            history: a
                .history
                .into_iter()
                .map(|s| ApprovalStepBody {
                    status: s.status,
                    operator_id: s.operator_id,
                    operator_name: s.operator_name,
                    comment: s.comment,
                    operate_time: rfc3339(s.operate_time.as_ref()),
                })
                .collect(),
        }
    }
}

#[utoipa::path(
    get, path = "/approvals/count", tag = "approvals",
    responses((status = 200, description = "Number of pending approvals of the enterprise (the badge)", body = Envelope<i64>)),
    security(("token" = ["as:approval:pageInfo"]))
)]
async fn pending_count(State(state): State<AppState>, principal: Principal) -> ApiResult<i64> {
    let answer = state
        .org()
        .count_pending_approvals(state.as_user(&principal, pb::CountPendingApprovalsRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.count))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ApprovalQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// 1 pending, 2 approved, 3 rejected, 4 withdrawn.
    pub status: Option<i32>,
    /// 1 vehicle allotment, 2 charge allocation, 3 refund, 4 invoice.
    pub kind: Option<i32>,
}

#[utoipa::path(
    get, path = "/approvals", tag = "approvals",
    params(ApprovalQuery),
    responses((status = 200, description = "Approvals of the enterprise, newest first (getApprovalList)", body = Envelope<Page<ApprovalBody>>)),
    security(("token" = ["as:approval:pageInfo"]))
)]
async fn list_approvals(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<ApprovalQuery>,
) -> ApiResult<Page<ApprovalBody>> {
    let request = pb::ListApprovalsRequest {
        page: Some(paging(query.page, query.size)?),
        status: query.status.unwrap_or(0),
        kind: query.kind.unwrap_or(0),
    };
    let answer = state
        .org()
        .list_approvals(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .approvals
            .into_iter()
            .map(ApprovalBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/approvals/export", tag = "approvals",
    params(ApprovalQuery),
    responses((status = 200, description = "The export record of the approvals list with the list's filters (paging ignored; /approval/export); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:approval:pageInfo"]))
)]
async fn export_approvals(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<ApprovalQuery>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportApprovalsRequest {
        status: query.status.unwrap_or(0),
        kind: query.kind.unwrap_or(0),
    };
    let answer = state
        .org()
        .export_approvals(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AllotmentQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// 1 pending, 2 approved, 3 rejected, 4 withdrawn.
    pub status: Option<i32>,
    /// Plates separated by commas or line breaks, at most 250.
    pub plate_numbers: Option<String>,
}

/// Splits a batch filter on commas and line breaks, dropping empty entries.
pub fn batch_values(raw: &str) -> Vec<String> {
    raw.split([',', '\n', '\r', '，'])
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
        .collect()
}

#[utoipa::path(
    get, path = "/approvals/vehicle-allotments", tag = "approvals",
    params(AllotmentQuery),
    responses((status = 200, description = "Vehicle allotment approvals (getVehicleAllotmentList)", body = Envelope<Page<ApprovalBody>>)),
    security(("token" = ["as:approval:pageInfo"]))
)]
async fn list_vehicle_allotments(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<AllotmentQuery>,
) -> ApiResult<Page<ApprovalBody>> {
    let plates = batch_values(query.plate_numbers.as_deref().unwrap_or(""));
    if plates.len() > MAX_PLATES {
        return Err(ApiError::invalid(
            "plateNumbers",
            format!("每次批量查询，最大不超过{MAX_PLATES}台"),
        ));
    }
    let request = pb::ListVehicleAllotmentApprovalsRequest {
        page: Some(paging(query.page, query.size)?),
        status: query.status.unwrap_or(0),
        plate_numbers: plates,
    };
    let answer = state
        .org()
        .list_vehicle_allotment_approvals(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .approvals
            .into_iter()
            .map(ApprovalBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/approvals/{id}", tag = "approvals",
    params(("id" = String, Path, description = "Approval id")),
    responses((status = 200, description = "One approval with its history", body = Envelope<ApprovalBody>)),
    security(("token" = ["as:approval:pageInfo"]))
)]
async fn get_approval(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ApprovalBody> {
    let answer = state
        .org()
        .get_approval(state.as_user(&principal, pb::GetApprovalRequest { id }))
        .await?
        .into_inner();
    Result::Ok(Ok(ApprovalBody::from(answer.approval.unwrap_or_default())))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DecisionRequest {
    /// true approves, false rejects.
    pub approve: bool,
    /// Required when rejecting; at most 200 characters.
    #[serde(default)]
    pub comment: String,
}

#[utoipa::path(
    post, path = "/approvals/{id}/decision", tag = "approvals",
    params(("id" = String, Path, description = "Approval id")),
    request_body = DecisionRequest,
    responses(
        (status = 200, description = "Decided (updateApprovalStatus); the approval with its history", body = Envelope<ApprovalBody>),
        (status = 409, description = "4009: no longer pending")
    ),
    security(("token" = ["oss:as:approval"]))
)]
async fn decide(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(body): TrimmedJson<DecisionRequest>,
) -> Result<OkWith<ApprovalBody>, ApiError> {
    let approve = body.approve;
    let answer = state
        .org()
        .decide_approval(state.as_user(
            &principal,
            pb::DecideApprovalRequest {
                id,
                approve,
                comment: body.comment,
            },
        ))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: if approve {
            "审批已通过"
        } else {
            "审批已驳回"
        },
        data: ApprovalBody::from(answer.approval.unwrap_or_default()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batch_filters_split_on_commas_and_line_breaks() {
        assert_eq!(
            batch_values(" 沪A12345,浙A67890\n\n粤B54321，京A00001 "),
            ["沪A12345", "浙A67890", "粤B54321", "京A00001"]
        );
        assert!(batch_values(" , \n").is_empty());
    }
}
