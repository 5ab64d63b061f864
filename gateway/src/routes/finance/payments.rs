//! Paying bills (billPay, permission `oss:bill:pagepay`, B2B only) and the
//! payment records (billSettlement, `bill:settlement`). A payment needs an
//! `Idempotency-Key`: the same key answers the first payment and moves
//! nothing twice, the same key with another body is 4009. PREPAID_BALANCE
//! settles at once; online banking answers PENDING with the bank page to
//! open, and the bank's callback settles it (the console polls the payment).

use axum::extract::{Path, State};
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::Deserialize;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{BillPaymentBody, PaymentMethod, PaymentStatus};
use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, end_time, start_time, time_range};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_bill_payments, pay_bills))
        .routes(routes!(get_bill_payment))
        .routes(routes!(export_bill_payments))
}

/// What to pay and how.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct PayBillsForm {
    /// At most 250, all payable, of one channel.
    pub bill_ids: Vec<String>,
    /// Part of a single bill; 0 pays every bill's outstanding in full.
    pub amount_fen: i64,
    /// The total the user saw (after the coupon); 4009 when it changed since.
    pub expected_total_fen: i64,
    pub method: Option<PaymentMethod>,
    pub coupon_id: String,
    /// CORPORATE_TRANSFER: the transfer receipt and the payer.
    pub voucher: Option<FileRefBody>,
    pub payer_name: String,
    pub payer_bank_name: String,
    pub payer_account: String,
    /// Online methods: where the bank page returns to.
    pub return_url: String,
}

#[utoipa::path(
    post, path = "/finance/payments", tag = "finance",
    params(("Idempotency-Key" = String, Header, description = "Required: a replay answers the first payment and moves nothing; the same key with another body is 4009")),
    request_body = PayBillsForm,
    responses((status = 200, description = "The payment: SUCCEEDED (balance), or PENDING with `payUrl` (online banking) or under voucher review; a changed total or a bill not payable is 4009", body = Envelope<BillPaymentBody>)),
    security(("token" = ["oss:bill:pagepay"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn pay_bills(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<PayBillsForm>,
) -> Result<OkWith<BillPaymentBody>, ApiError> {
    let idempotency_key = key.required()?;
    if form.bill_ids.is_empty() {
        return Err(ApiError::invalid("billIds", "请选择要支付的账单"));
    }
    if form.bill_ids.len() > fleetdesk_kit::list::BATCH_LIMIT {
        return Err(ApiError::invalid("billIds", "每次最多支付 250 张账单"));
    }
    if form.amount_fen < 0 {
        return Err(ApiError::invalid("amountFen", "支付金额不能为负数"));
    }
    if form.amount_fen > 0 && form.bill_ids.len() > 1 {
        return Err(ApiError::invalid("amountFen", "部分支付只能针对单张账单"));
    }
    let Some(method) = form.method else {
        return Err(ApiError::invalid("method", "请选择支付方式"));
    };
    let request = pb::PayBillRequest {
        bill_ids: form.bill_ids,
        amount_fen: form.amount_fen,
        expected_total_fen: form.expected_total_fen,
        method: method.into(),
        coupon_id: form.coupon_id,
        voucher: form.voucher.map(Into::into),
        payer_name: form.payer_name,
        payer_bank_name: form.payer_bank_name,
        payer_account: form.payer_account,
        return_url: form.return_url,
        idempotency_key,
    };
    let answer = state
        .finance()
        .pay_bill(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    let payment: BillPaymentBody = answer.payment.unwrap_or_default().into();
    Result::Ok(OkWith {
        msg: if payment.status == Some(PaymentStatus::Succeeded) {
            "支付成功"
        } else {
            "支付已提交"
        },
        data: payment,
    })
}

/// Filters of the payment list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct PaymentListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Payments touching this bill.
    pub bill_id: Option<String>,
    pub payment_no: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub methods: Vec<PaymentMethod>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<PaymentStatus>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub create_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub create_time_end: Option<Timestamp>,
}

impl PaymentListParams {
    fn request(self) -> Result<pb::ListBillPaymentsRequest, ApiError> {
        Result::Ok(pb::ListBillPaymentsRequest {
            page: Some(paging(self.page, self.size)?),
            bill_id: self.bill_id.unwrap_or_default(),
            payment_no: self.payment_no.unwrap_or_default(),
            methods: codes(self.methods),
            statuses: codes(self.statuses),
            create_time: time_range(self.create_time_start, self.create_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/finance/payments", tag = "finance",
    params(PaymentListParams),
    responses((status = 200, description = "Payments, newest first", body = Envelope<Page<BillPaymentBody>>)),
    security(("token" = ["bill:settlement", "bill:biz:pageInfo"]))
)]
async fn list_bill_payments(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<PaymentListParams>,
) -> ApiResult<Page<BillPaymentBody>> {
    let answer = state
        .finance()
        .list_bill_payments(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.payments.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/finance/payments/export", tag = "finance",
    params(PaymentListParams),
    responses((status = 200, description = "The export record of the payment records with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["bill:settlement", "bill:biz:pageInfo"]))
)]
async fn export_bill_payments(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<PaymentListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportBillPaymentsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .finance()
        .export_bill_payments(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/finance/payments/{paymentId}", tag = "finance",
    params(("paymentId" = String, Path, description = "Payment id")),
    responses((status = 200, description = "The payment as it stands (the pay page polls it until it settles)", body = Envelope<BillPaymentBody>)),
    security(("token" = ["oss:bill:pagepay", "bill:settlement", "bill:biz:pageInfo"]))
)]
async fn get_bill_payment(
    State(state): State<AppState>,
    principal: Principal,
    Path(payment_id): Path<String>,
) -> ApiResult<BillPaymentBody> {
    let answer = state
        .finance()
        .get_bill_payment(state.as_user(&principal, pb::GetBillPaymentRequest { payment_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.payment.unwrap_or_default().into()))
}
