//! Refunds (refundManagement, permission `as:refund`): the refund records
//! (refundRecord) and a refund's detail, applying for a refund of a paid
//! bill (billRefund), confirming a refund the operator proposed
//! (billRefundSure for non-B2B enterprises, its B2B variant under
//! `/finance/b2b/…`) and withdrawing one not yet paying out. Applying and
//! confirming move money and need an `Idempotency-Key`. A refund's channel
//! is the enterprise's: B2B for a B2B enterprise, else standard.

use axum::extract::{Path, State};
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{Channel, RefundMethod, RefundReason, RefundStatus};
use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_refunds, create_refund))
        .routes(routes!(get_refund))
        .routes(routes!(confirm_refund))
        .routes(routes!(confirm_b2b_refund))
        .routes(routes!(cancel_refund))
        .routes(routes!(export_refunds))
}

/// Money going back to the enterprise.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RefundBody {
    pub id: String,
    pub refund_no: String,
    pub channel: Option<Channel>,
    pub bill_id: String,
    pub bill_no: String,
    pub order_id: String,
    pub payment_id: String,
    pub reason: Option<RefundReason>,
    pub reason_detail: String,
    pub requested_fen: i64,
    /// What the operator agreed to; the enterprise confirms this amount.
    pub approved_fen: i64,
    pub refunded_fen: i64,
    pub method: Option<RefundMethod>,
    pub payee_name: String,
    pub payee_bank_name: String,
    pub payee_masked_account: String,
    pub status: Option<RefundStatus>,
    pub applicant_name: String,
    pub apply_time: String,
    pub reviewer_name: String,
    pub review_time: String,
    pub reject_reason: String,
    pub confirmed_by: String,
    pub confirm_time: String,
    pub complete_time: String,
    pub transaction_no: String,
    pub failure_reason: String,
    pub attachments: Vec<FileRefBody>,
}

impl From<pb::Refund> for RefundBody {
    fn from(r: pb::Refund) -> Self {
        let pb::Refund {
            id,
            refund_no,
            enterprise_id: _,
            channel,
            bill_id,
            bill_no,
            order_id,
            payment_id,
            reason,
            reason_detail,
            requested_fen,
            approved_fen,
            refunded_fen,
            method,
            payee_name,
            payee_bank_name,
            payee_masked_account,
            status,
            applicant_name,
            apply_time,
            reviewer_name,
            review_time,
            reject_reason,
            confirmed_by,
            confirm_time,
            complete_time,
            transaction_no,
            failure_reason,
            attachments,
            audit: _,
        } = r;
        RefundBody {
            id,
            refund_no,
            channel: Channel::from_pb(channel),
            bill_id,
            bill_no,
            order_id,
            payment_id,
            reason: RefundReason::from_pb(reason),
            reason_detail,
            requested_fen,
            approved_fen,
            refunded_fen,
            method: RefundMethod::from_pb(method),
            payee_name,
            payee_bank_name,
            payee_masked_account,
            status: RefundStatus::from_pb(status),
            applicant_name,
            apply_time: rfc3339(apply_time.as_ref()),
            reviewer_name,
            review_time: rfc3339(review_time.as_ref()),
            reject_reason,
            confirmed_by,
            confirm_time: rfc3339(confirm_time.as_ref()),
            complete_time: rfc3339(complete_time.as_ref()),
            transaction_no,
            failure_reason,
            attachments: attachments.into_iter().map(Into::into).collect(),
        }
    }
}

/// The channel of the enterprise's refunds.
fn channel_of(principal: &Principal) -> Channel {
    if principal.flags.b2b {
        Channel::B2b
    } else {
        Channel::Standard
    }
}

/// Filters of the refund records.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RefundListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    pub refund_no: Option<String>,
    pub bill_id: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub reasons: Vec<RefundReason>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<RefundStatus>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub apply_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub apply_time_end: Option<Timestamp>,
}

impl RefundListParams {
    /// The records of the caller's channel under these filters.
    fn request(self, principal: &Principal) -> Result<pb::ListRefundsRequest, ApiError> {
        Result::Ok(pb::ListRefundsRequest {
            page: Some(paging(self.page, self.size)?),
            channel: channel_of(principal).into(),
            refund_no: self.refund_no.unwrap_or_default(),
            bill_id: self.bill_id.unwrap_or_default(),
            reasons: codes(self.reasons),
            statuses: codes(self.statuses),
            apply_time: time_range(self.apply_time_start, self.apply_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/finance/refunds", tag = "finance",
    params(RefundListParams),
    responses((status = 200, description = "The enterprise's refunds of its channel, newest first", body = Envelope<Page<RefundBody>>)),
    security(("token" = ["as:refund"]))
)]
async fn list_refunds(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<RefundListParams>,
) -> ApiResult<Page<RefundBody>> {
    let request = query.request(&principal)?;
    let answer = state
        .finance()
        .list_refunds(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.refunds.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/finance/refunds/export", tag = "finance",
    params(RefundListParams),
    responses((status = 200, description = "The export record of the refund records of the caller's channel with the list's filters and order (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:refund"]))
)]
async fn export_refunds(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<RefundListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportRefundsRequest {
        filter: Some(query.request(&principal)?),
    };
    let answer = state
        .finance()
        .export_refunds(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/finance/refunds/{refundId}", tag = "finance",
    params(("refundId" = String, Path, description = "Refund id")),
    responses((status = 200, description = "The refund", body = Envelope<RefundBody>)),
    security(("token" = ["as:refund"]))
)]
async fn get_refund(
    State(state): State<AppState>,
    principal: Principal,
    Path(refund_id): Path<String>,
) -> ApiResult<RefundBody> {
    let answer = state
        .finance()
        .get_refund(state.as_user(&principal, pb::GetRefundRequest { refund_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.refund.unwrap_or_default().into()))
}

/// Where a refund is paid: the payee account for BANK_TRANSFER.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PayeeForm {
    pub method: Option<RefundMethod>,
    pub payee_name: String,
    pub payee_bank_name: String,
    pub payee_account: String,
}

impl PayeeForm {
    /// The method, with the payee account a bank transfer needs.
    fn checked(&self) -> Result<RefundMethod, ApiError> {
        let Some(method) = self.method else {
            return Err(ApiError::invalid("method", "请选择退款方式"));
        };
        if method == RefundMethod::BankTransfer {
            if self.payee_name.is_empty() {
                return Err(ApiError::invalid("payeeName", "请填写收款户名"));
            }
            if self.payee_bank_name.is_empty() {
                return Err(ApiError::invalid("payeeBankName", "请填写收款银行"));
            }
            if self.payee_account.is_empty() {
                return Err(ApiError::invalid("payeeAccount", "请填写收款账号"));
            }
        }
        Result::Ok(method)
    }
}

/// An application for a refund of a paid bill.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CreateRefundForm {
    pub bill_id: String,
    pub reason: Option<RefundReason>,
    pub reason_detail: String,
    /// Positive, at most the bill's paid minus refunded.
    pub amount_fen: i64,
    #[serde(flatten)]
    pub payee: PayeeForm,
    pub attachments: Vec<FileRefBody>,
}

#[utoipa::path(
    post, path = "/finance/refunds", tag = "finance",
    params(("Idempotency-Key" = String, Header, description = "Required: a replay answers the first refund; the same key with another body is 4009")),
    request_body = CreateRefundForm,
    responses((status = 200, description = "The refund, PENDING_REVIEW; more than the bill has left to refund is 4009", body = Envelope<RefundBody>)),
    security(("token" = ["as:refund"]))
)]
async fn create_refund(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<CreateRefundForm>,
) -> Result<OkWith<RefundBody>, ApiError> {
    let idempotency_key = key.required()?;
    if form.bill_id.is_empty() {
        return Err(ApiError::invalid("billId", "请选择退款账单"));
    }
    let Some(reason) = form.reason else {
        return Err(ApiError::invalid("reason", "请选择退款原因"));
    };
    if form.amount_fen <= 0 {
        return Err(ApiError::invalid("amountFen", "退款金额须大于 0"));
    }
    let method = form.payee.checked()?;
    let request = pb::CreateRefundRequest {
        channel: channel_of(&principal).into(),
        bill_id: form.bill_id,
        reason: reason.into(),
        reason_detail: form.reason_detail,
        amount_fen: form.amount_fen,
        method: method.into(),
        payee_name: form.payee.payee_name,
        payee_bank_name: form.payee.payee_bank_name,
        payee_account: form.payee.payee_account,
        attachments: form.attachments.into_iter().map(Into::into).collect(),
        idempotency_key,
    };
    let answer = state
        .finance()
        .create_refund(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "退款申请已提交",
        data: answer.refund.unwrap_or_default().into(),
    })
}

/// The enterprise's confirmation of a proposed refund.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfirmRefundForm {
    /// The approved amount the user saw; 4009 when it changed since.
    pub expected_amount_fen: i64,
    #[serde(flatten)]
    pub payee: PayeeForm,
}

async fn confirm(
    state: &AppState,
    principal: &Principal,
    key: &IdempotencyKey,
    refund_id: String,
    form: ConfirmRefundForm,
) -> Result<OkWith<RefundBody>, ApiError> {
    let idempotency_key = key.required()?;
    let method = form.payee.checked()?;
    let request = pb::ConfirmRefundRequest {
        refund_id,
        expected_amount_fen: form.expected_amount_fen,
        method: method.into(),
        payee_name: form.payee.payee_name,
        payee_bank_name: form.payee.payee_bank_name,
        payee_account: form.payee.payee_account,
        idempotency_key,
    };
    let answer = state
        .finance()
        .confirm_refund(state.as_user_once(principal, key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "退款已确认",
        data: answer.refund.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    post, path = "/finance/refunds/{refundId}/confirm", tag = "finance",
    params(
        ("refundId" = String, Path, description = "Refund id"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first confirmation and pays nothing twice")
    ),
    request_body = ConfirmRefundForm,
    responses((status = 200, description = "PENDING_CONFIRMATION → PROCESSING (billRefundSure); another state or a changed amount is 4009", body = Envelope<RefundBody>)),
    security(("token" = ["as:refund"])),
    extensions(("x-enterprise" = json!("noB2B")))
)]
async fn confirm_refund(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(refund_id): Path<String>,
    TrimmedJson(form): TrimmedJson<ConfirmRefundForm>,
) -> Result<OkWith<RefundBody>, ApiError> {
    confirm(&state, &principal, &key, refund_id, form).await
}

#[utoipa::path(
    post, path = "/finance/b2b/refunds/{refundId}/confirm", tag = "finance",
    params(
        ("refundId" = String, Path, description = "Refund id"),
        ("Idempotency-Key" = String, Header, description = "Required: a replay answers the first confirmation and pays nothing twice")
    ),
    request_body = ConfirmRefundForm,
    responses((status = 200, description = "PENDING_CONFIRMATION → PROCESSING (billRefundSureB2B); another state or a changed amount is 4009", body = Envelope<RefundBody>)),
    security(("token" = ["as:refund"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn confirm_b2b_refund(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    Path(refund_id): Path<String>,
    TrimmedJson(form): TrimmedJson<ConfirmRefundForm>,
) -> Result<OkWith<RefundBody>, ApiError> {
    confirm(&state, &principal, &key, refund_id, form).await
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelRefundForm {
    pub reason: String,
}

#[utoipa::path(
    post, path = "/finance/refunds/{refundId}/cancel", tag = "finance",
    params(("refundId" = String, Path, description = "Refund id")),
    request_body = CancelRefundForm,
    responses((status = 200, description = "Withdrawn; from PROCESSING on it is 4009", body = Envelope<RefundBody>)),
    security(("token" = ["as:refund"]))
)]
async fn cancel_refund(
    State(state): State<AppState>,
    principal: Principal,
    Path(refund_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CancelRefundForm>,
) -> Result<OkWith<RefundBody>, ApiError> {
    let request = pb::CancelRefundRequest {
        refund_id,
        reason: form.reason,
    };
    let answer = state
        .finance()
        .cancel_refund(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "退款已撤回",
        data: answer.refund.unwrap_or_default().into(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused_field(form: &PayeeForm) -> Option<String> {
        form.checked().err().map(|e| e.0.fields[0].field.clone())
    }

    #[test]
    fn a_bank_transfer_needs_the_whole_payee_account_and_other_methods_none() {
        let mut form = PayeeForm::default();
        assert_eq!(refused_field(&form).as_deref(), Some("method"));
        form.method = Some(RefundMethod::BankTransfer);
        assert_eq!(refused_field(&form).as_deref(), Some("payeeName"));
        form.payee_name = "演示物流".into();
        form.payee_bank_name = "招商银行".into();
        assert_eq!(refused_field(&form).as_deref(), Some("payeeAccount"));
        form.payee_account = "6225880000000000".into();
        assert_eq!(form.checked().ok(), Some(RefundMethod::BankTransfer));
        let balance = PayeeForm {
            method: Some(RefundMethod::PrepaidBalance),
            ..PayeeForm::default()
        };
        assert_eq!(balance.checked().ok(), Some(RefundMethod::PrepaidBalance));
    }
}
