//! Invoice applications (ticketManagement, permission `as:invoice`): paid
//! bills with an amount left to invoice (applyBill), applying for an invoice
//! on them (applyInvoice: the standard submit for non-B2B enterprises, the
//! B2B submit under `/finance/b2b/…` for B2B ones; each needs an
//! `Idempotency-Key`), the history with its detail and B2B detail (the
//! issued invoices with their PDF links) and withdrawing an application
//! still under review. A detail route answers only applications of its own
//! channel (another is 4004).

use axum::extract::{Path, State};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bills::check_months;
use super::bodies::{
    BillBody, BillKind, Channel, InvoiceAddressBody, InvoiceApplicationStatus, InvoiceTitleBody,
    InvoiceType,
};
use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::routes::energy::convert::{month, month_text};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_invoiceable_bills))
        .routes(routes!(list_invoice_applications, apply_invoice))
        .routes(routes!(apply_b2b_invoice))
        .routes(routes!(get_invoice_application))
        .routes(routes!(get_b2b_invoice_application))
        .routes(routes!(cancel_invoice_application))
        .routes(routes!(export_invoice_applications))
}

/// Filters of the invoiceable bills.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceableBillListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    pub channel: Option<Channel>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<BillKind>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub bill_nos: Vec<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
}

/// Paid bills with an amount left to invoice, and the sum over all of them.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceableBillPage {
    pub list: Vec<BillBody>,
    pub total: i64,
    pub total_invoiceable_fen: i64,
}

#[utoipa::path(
    get, path = "/finance/invoiceable-bills", tag = "finance",
    params(InvoiceableBillListParams),
    responses((status = 200, description = "Paid bills with `invoiceableFen` left, oldest period first", body = Envelope<InvoiceableBillPage>)),
    security(("token" = ["as:invoice"]))
)]
async fn list_invoiceable_bills(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<InvoiceableBillListParams>,
) -> ApiResult<InvoiceableBillPage> {
    check_months(query.start_month.as_ref(), query.end_month.as_ref())?;
    let request = pb::ListInvoiceableBillsRequest {
        page: Some(paging(query.page, query.size)?),
        channel: query.channel.map_or(0, Into::into),
        kinds: codes(query.kinds),
        bill_nos: query.bill_nos,
        start_month: query.start_month,
        end_month: query.end_month,
    };
    let answer = state
        .finance()
        .list_invoiceable_bills(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(InvoiceableBillPage {
        list: answer.bills.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
        total_invoiceable_fen: answer.total_invoiceable_fen,
    }))
}

/// One bill on an application and how much of it is invoiced.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceApplicationBillBody {
    pub bill_id: String,
    pub bill_no: String,
    pub kind: Option<BillKind>,
    /// yyyy-MM.
    pub period: String,
    pub amount_fen: i64,
}

/// One invoice issued for an application.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct IssuedInvoiceBody {
    /// 20 digits for a fully digital invoice.
    pub invoice_number: String,
    pub invoice_code: String,
    /// Excluding tax.
    pub amount_fen: i64,
    pub tax_fen: i64,
    /// Including tax.
    pub total_fen: i64,
    pub tax_rate_bp: i32,
    pub issue_time: String,
    pub file: Option<FileRefBody>,
    /// A signed download link of the PDF (details only; empty without a file).
    pub file_url: String,
    /// Cancelled by a red-letter invoice.
    pub reversed: bool,
}

/// A request to invoice paid bills.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceApplicationBody {
    pub id: String,
    pub application_no: String,
    pub channel: Option<Channel>,
    pub invoice_type: Option<InvoiceType>,
    pub status: Option<InvoiceApplicationStatus>,
    pub title: Option<InvoiceTitleBody>,
    pub address: Option<InvoiceAddressBody>,
    pub bills: Vec<InvoiceApplicationBillBody>,
    pub amount_fen: i64,
    pub content: String,
    pub contract_no: String,
    pub purchase_order_no: String,
    pub invoice_remark: String,
    pub applicant_name: String,
    pub apply_time: String,
    pub review_time: String,
    pub reject_reason: String,
    pub invoices: Vec<IssuedInvoiceBody>,
    pub express_company: String,
    pub tracking_no: String,
    pub mailed_time: String,
}

/// The application as the edge shows it; `links` signs each invoice's file
/// (the details), or leaves the links empty (lists).
fn application_body(
    a: pb::InvoiceApplication,
    links: Option<&crate::files::LinkSigner>,
) -> InvoiceApplicationBody {
    let pb::InvoiceApplication {
        id,
        application_no,
        enterprise_id: _,
        channel,
        invoice_type,
        status,
        title,
        address,
        bills,
        amount_fen,
        content,
        contract_no,
        purchase_order_no,
        invoice_remark,
        applicant_name,
        apply_time,
        review_time,
        reject_reason,
        invoices,
        express_company,
        tracking_no,
        mailed_time,
        audit: _,
    } = a;
    let now = chrono::Utc::now().timestamp();
    InvoiceApplicationBody {
        id,
        application_no,
        channel: Channel::from_pb(channel),
        invoice_type: InvoiceType::from_pb(invoice_type),
        status: InvoiceApplicationStatus::from_pb(status),
        title: title.map(Into::into),
        address: address.map(Into::into),
        bills: bills
            .into_iter()
            .map(|b| InvoiceApplicationBillBody {
                period: month_text(b.period.as_ref()),
                kind: BillKind::from_pb(b.kind),
                bill_id: b.bill_id,
                bill_no: b.bill_no,
                amount_fen: b.amount_fen,
            })
            .collect(),
        amount_fen,
        content,
        contract_no,
        purchase_order_no,
        invoice_remark,
        applicant_name,
        apply_time: rfc3339(apply_time.as_ref()),
        review_time: rfc3339(review_time.as_ref()),
        reject_reason,
        invoices: invoices
            .into_iter()
            .map(|i| {
                let file = i.file.filter(|f| !f.key.is_empty());
                IssuedInvoiceBody {
                    file_url: match (links, &file) {
                        (Some(links), Some(f)) => links.link(&f.key, now),
                        _ => String::new(),
                    },
                    file: file.map(Into::into),
                    issue_time: rfc3339(i.issue_time.as_ref()),
                    invoice_number: i.invoice_number,
                    invoice_code: i.invoice_code,
                    amount_fen: i.amount_fen,
                    tax_fen: i.tax_fen,
                    total_fen: i.total_fen,
                    tax_rate_bp: i.tax_rate_bp,
                    reversed: i.reversed,
                }
            })
            .collect(),
        express_company,
        tracking_no,
        mailed_time: rfc3339(mailed_time.as_ref()),
    }
}

/// One bill to invoice and how much of it (0: all that is left).
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct InvoiceBillAmountForm {
    pub bill_id: String,
    pub amount_fen: i64,
}

/// An application for an invoice on paid bills.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ApplyInvoiceForm {
    pub invoice_type: Option<InvoiceType>,
    pub title_id: String,
    /// Required for paper invoices.
    pub address_id: String,
    /// At most 250.
    pub bills: Vec<InvoiceBillAmountForm>,
    /// The total the user saw; 4009 when it changed since.
    pub expected_total_fen: i64,
    pub content: String,
    pub contract_no: String,
    pub purchase_order_no: String,
    pub invoice_remark: String,
}

/// Checks the form and sends it as an application of `channel`.
async fn apply(
    state: &AppState,
    principal: &Principal,
    key: &IdempotencyKey,
    form: ApplyInvoiceForm,
    channel: Channel,
) -> Result<OkWith<InvoiceApplicationBody>, ApiError> {
    let idempotency_key = key.required()?;
    let Some(invoice_type) = form.invoice_type else {
        return Err(ApiError::invalid("invoiceType", "请选择发票类型"));
    };
    if form.title_id.is_empty() {
        return Err(ApiError::invalid("titleId", "请选择开票抬头"));
    }
    let paper = matches!(
        invoice_type,
        InvoiceType::PaperSpecial | InvoiceType::PaperGeneral
    );
    if paper && form.address_id.is_empty() {
        return Err(ApiError::invalid("addressId", "纸质发票请选择邮寄地址"));
    }
    if form.bills.is_empty() {
        return Err(ApiError::invalid("bills", "请选择要开票的账单"));
    }
    if form.bills.len() > fleetdesk_kit::list::BATCH_LIMIT {
        return Err(ApiError::invalid("bills", "每次最多选择 250 张账单"));
    }
    if let Some(i) = form.bills.iter().position(|b| b.amount_fen < 0) {
        return Err(ApiError::invalid(
            &format!("bills[{i}].amountFen"),
            "开票金额不能为负数",
        ));
    }
    let request = pb::ApplyInvoiceRequest {
        channel: channel.into(),
        invoice_type: invoice_type.into(),
        title_id: form.title_id,
        address_id: form.address_id,
        bills: form
            .bills
            .into_iter()
            .map(|b| pb::InvoiceBillAmount {
                bill_id: b.bill_id,
                amount_fen: b.amount_fen,
            })
            .collect(),
        expected_total_fen: form.expected_total_fen,
        content: form.content,
        contract_no: form.contract_no,
        purchase_order_no: form.purchase_order_no,
        invoice_remark: form.invoice_remark,
        idempotency_key,
    };
    let answer = state
        .finance()
        .apply_invoice(state.as_user_once(principal, key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "开票申请已提交",
        data: application_body(answer.application.unwrap_or_default(), None),
    })
}

#[utoipa::path(
    post, path = "/finance/invoice-applications", tag = "finance",
    params(("Idempotency-Key" = String, Header, description = "Required: a replay answers the first application; the same key with another body is 4009")),
    request_body = ApplyInvoiceForm,
    responses((status = 200, description = "The application, PENDING_REVIEW; more than a bill has left to invoice, or a changed total, is 4009", body = Envelope<InvoiceApplicationBody>)),
    security(("token" = ["as:invoice"])),
    extensions(("x-enterprise" = json!("noB2B")))
)]
async fn apply_invoice(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<ApplyInvoiceForm>,
) -> Result<OkWith<InvoiceApplicationBody>, ApiError> {
    apply(&state, &principal, &key, form, Channel::Standard).await
}

#[utoipa::path(
    post, path = "/finance/b2b/invoice-applications", tag = "finance",
    params(("Idempotency-Key" = String, Header, description = "Required: a replay answers the first application; the same key with another body is 4009")),
    request_body = ApplyInvoiceForm,
    responses((status = 200, description = "The B2B application (contract and purchase-order numbers printed in the remark), PENDING_REVIEW", body = Envelope<InvoiceApplicationBody>)),
    security(("token" = ["as:invoice"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn apply_b2b_invoice(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<ApplyInvoiceForm>,
) -> Result<OkWith<InvoiceApplicationBody>, ApiError> {
    apply(&state, &principal, &key, form, Channel::B2b).await
}

/// Filters of the invoice history.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct InvoiceApplicationListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    pub channel: Option<Channel>,
    pub application_no: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub invoice_types: Vec<InvoiceType>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<InvoiceApplicationStatus>,
    /// Applications covering this bill.
    pub bill_id: Option<String>,
    /// An issued invoice's number, exact.
    pub invoice_number: Option<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub apply_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub apply_time_end: Option<Timestamp>,
}

impl InvoiceApplicationListParams {
    fn request(self) -> Result<pb::ListInvoiceApplicationsRequest, ApiError> {
        Result::Ok(pb::ListInvoiceApplicationsRequest {
            page: Some(paging(self.page, self.size)?),
            channel: self.channel.map_or(0, Into::into),
            application_no: self.application_no.unwrap_or_default(),
            invoice_types: codes(self.invoice_types),
            statuses: codes(self.statuses),
            bill_id: self.bill_id.unwrap_or_default(),
            invoice_number: self.invoice_number.unwrap_or_default(),
            apply_time: time_range(self.apply_time_start, self.apply_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/finance/invoice-applications", tag = "finance",
    params(InvoiceApplicationListParams),
    responses((status = 200, description = "Invoice applications, newest first", body = Envelope<Page<InvoiceApplicationBody>>)),
    security(("token" = ["as:invoice"]))
)]
async fn list_invoice_applications(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<InvoiceApplicationListParams>,
) -> ApiResult<Page<InvoiceApplicationBody>> {
    let answer = state
        .finance()
        .list_invoice_applications(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .applications
            .into_iter()
            .map(|a| application_body(a, None))
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/finance/invoice-applications/export", tag = "finance",
    params(InvoiceApplicationListParams),
    responses((status = 200, description = "The export record of the invoice history with the list's filters and order (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:invoice"]))
)]
async fn export_invoice_applications(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<InvoiceApplicationListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportInvoiceApplicationsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .finance()
        .export_invoice_applications(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// The application of `channel` with its invoice links; another channel's is 4004.
async fn application_of(
    state: &AppState,
    principal: &Principal,
    application_id: String,
    channel: Channel,
) -> Result<InvoiceApplicationBody, ApiError> {
    let answer = state
        .finance()
        .get_invoice_application(state.as_user(
            principal,
            pb::GetInvoiceApplicationRequest { application_id },
        ))
        .await?
        .into_inner();
    let application = answer.application.unwrap_or_default();
    if application.channel != i32::from(channel) {
        return Err(ApiError(ServiceError::new(
            ErrorCode::NotFound,
            "开票申请不存在",
        )));
    }
    Result::Ok(application_body(application, Some(&state.links)))
}

#[utoipa::path(
    get, path = "/finance/invoice-applications/{applicationId}", tag = "finance",
    params(("applicationId" = String, Path, description = "Invoice application id")),
    responses((status = 200, description = "A standard application with its issued invoices and their PDF links (invoiceHistoryDetail)", body = Envelope<InvoiceApplicationBody>)),
    security(("token" = ["as:invoice"])),
    extensions(("x-enterprise" = json!("noB2B")))
)]
async fn get_invoice_application(
    State(state): State<AppState>,
    principal: Principal,
    Path(application_id): Path<String>,
) -> ApiResult<InvoiceApplicationBody> {
    Result::Ok(Ok(application_of(
        &state,
        &principal,
        application_id,
        Channel::Standard,
    )
    .await?))
}

#[utoipa::path(
    get, path = "/finance/b2b/invoice-applications/{applicationId}", tag = "finance",
    params(("applicationId" = String, Path, description = "Invoice application id")),
    responses((status = 200, description = "A B2B application with its issued invoices and their PDF links (invoiceHistoryB2BDetail)", body = Envelope<InvoiceApplicationBody>)),
    security(("token" = ["as:invoice"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn get_b2b_invoice_application(
    State(state): State<AppState>,
    principal: Principal,
    Path(application_id): Path<String>,
) -> ApiResult<InvoiceApplicationBody> {
    Result::Ok(Ok(application_of(
        &state,
        &principal,
        application_id,
        Channel::B2b,
    )
    .await?))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelInvoiceApplicationForm {
    pub reason: String,
}

#[utoipa::path(
    post, path = "/finance/invoice-applications/{applicationId}/cancel", tag = "finance",
    params(("applicationId" = String, Path, description = "Invoice application id")),
    request_body = CancelInvoiceApplicationForm,
    responses((status = 200, description = "Withdraws an application not yet sent to the invoicing platform, or reverses its issued invoice with a red-letter one (once; the reason is required); either way CANCELLED and the bills invoiceable again. While the platform is being asked, and once cancelled, 4009", body = Envelope<InvoiceApplicationBody>)),
    security(("token" = ["as:invoice"]))
)]
async fn cancel_invoice_application(
    State(state): State<AppState>,
    principal: Principal,
    Path(application_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CancelInvoiceApplicationForm>,
) -> Result<OkWith<InvoiceApplicationBody>, ApiError> {
    let request = pb::CancelInvoiceApplicationRequest {
        application_id,
        reason: form.reason,
    };
    let answer = state
        .finance()
        .cancel_invoice_application(state.as_user(&principal, request))
        .await?
        .into_inner();
    let application = answer.application.unwrap_or_default();
    let reversed = application.invoices.iter().any(|i| i.reversed);
    Result::Ok(OkWith {
        msg: if reversed {
            "发票已红冲"
        } else {
            "开票申请已撤回"
        },
        data: application_body(application, None),
    })
}
