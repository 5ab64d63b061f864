//! Bills (billList and billDetail, permission `bill:biz:pageInfo`): the list
//! with its totals row, a bill with its lines (each traced to its source
//! record) and the payments applied to it; B2B reconciliation of bills
//! (confirm or dispute against the total the user saw) and the monthly
//! bills (monthPayBillList, `oss:bill:reconciliation`, B2B only); the bill
//! dashboard (billDashboard, `as:b2b:bill`).

use axum::extract::{Path, State};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{
    BillBody, BillKind, BillKindAmountBody, BillPaymentBody, BillStatus, Channel, InvoiceState,
    MonthlyBillBody,
};
use crate::edge::enums::codes;
use crate::edge::export::{ExportFileBody, ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::files;
use crate::routes::energy::convert::{month, month_text};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_bills))
        .routes(routes!(export_bills))
        .routes(routes!(get_bill))
        .routes(routes!(confirm_bills))
        .routes(routes!(list_monthly_bills))
        .routes(routes!(export_monthly_bills))
        .routes(routes!(get_monthly_bill))
        .routes(routes!(monthly_bill_file))
        .routes(routes!(get_bill_dashboard))
}

/// Refuses a month range that starts after it ends.
pub fn check_months(
    start: Option<&common::YearMonth>,
    end: Option<&common::YearMonth>,
) -> Result<(), ApiError> {
    if let (Some(s), Some(e)) = (start, end)
        && (s.year, s.month) > (e.year, e.month)
    {
        return Err(ApiError::invalid(
            "startMonth",
            "开始时间不允许大于结束时间",
        ));
    }
    Result::Ok(())
}

/// Filters of the bill list (AND; a repeated key matches any value).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BillListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub bill_nos: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    pub channel: Option<Channel>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<BillKind>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<BillStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub invoice_states: Vec<InvoiceState>,
    /// Only overdue (true) or only not overdue (false).
    pub overdue: Option<bool>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    /// First bill period (yyyy-MM), inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    /// Last bill period (yyyy-MM), inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub issue_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub issue_time_end: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub due_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub due_time_end: Option<Timestamp>,
    /// Bills of this monthly bill.
    pub monthly_bill_id: Option<String>,
}

impl BillListParams {
    fn request(self) -> Result<pb::ListBillsRequest, ApiError> {
        check_months(self.start_month.as_ref(), self.end_month.as_ref())?;
        Result::Ok(pb::ListBillsRequest {
            page: Some(paging(self.page, self.size)?),
            bill_nos: self.bill_nos,
            org_ids: self.org_ids,
            channel: self.channel.map_or(0, Into::into),
            kinds: codes(self.kinds),
            statuses: codes(self.statuses),
            invoice_states: codes(self.invoice_states),
            overdue: self.overdue,
            plate_numbers: self.plate_numbers,
            start_month: self.start_month,
            end_month: self.end_month,
            issue_time: time_range(self.issue_time_start, self.issue_time_end),
            due_time: time_range(self.due_time_start, self.due_time_end),
            monthly_bill_id: self.monthly_bill_id.unwrap_or_default(),
        })
    }
}

/// Totals over every bill the filters match.
#[derive(Debug, Default, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillTotalsBody {
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
}

/// A page of bills with the totals row.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillPage {
    pub list: Vec<BillBody>,
    pub total: i64,
    pub totals: BillTotalsBody,
}

#[utoipa::path(
    get, path = "/finance/bills", tag = "finance",
    params(BillListParams),
    responses((status = 200, description = "Bills in the caller's data scope, newest first, with the totals of every match", body = Envelope<BillPage>)),
    security(("token" = ["bill:biz:pageInfo"]))
)]
async fn list_bills(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<BillListParams>,
) -> ApiResult<BillPage> {
    let answer = state
        .finance()
        .list_bills(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    let totals = answer.totals.unwrap_or_default();
    Result::Ok(Ok(BillPage {
        list: answer.bills.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
        totals: BillTotalsBody {
            payable_fen: totals.payable_fen,
            paid_fen: totals.paid_fen,
            outstanding_fen: totals.outstanding_fen,
        },
    }))
}

#[utoipa::path(
    post, path = "/finance/bills/export", tag = "finance",
    params(BillListParams),
    responses((status = 200, description = "The export record of the bill list with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["bill:biz:pageInfo"]))
)]
async fn export_bills(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<BillListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportBillsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .finance()
        .export_bills(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// A bill with the payments applied to it, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillDetailBody {
    pub bill: BillBody,
    pub payments: Vec<BillPaymentBody>,
}

#[utoipa::path(
    get, path = "/finance/bills/{billId}", tag = "finance",
    params(("billId" = String, Path, description = "Bill id")),
    responses((status = 200, description = "The bill, its lines and its payments", body = Envelope<BillDetailBody>)),
    security(("token" = ["bill:biz:pageInfo", "oss:bill:pagepay"]))
)]
async fn get_bill(
    State(state): State<AppState>,
    principal: Principal,
    Path(bill_id): Path<String>,
) -> ApiResult<BillDetailBody> {
    let answer = state
        .finance()
        .get_bill(state.as_user(&principal, pb::GetBillRequest { bill_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(BillDetailBody {
        bill: answer.bill.unwrap_or_default().into(),
        payments: answer.payments.into_iter().map(Into::into).collect(),
    }))
}

/// The enterprise's answer to bills awaiting reconciliation.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfirmBillsForm {
    /// At most 250, all PENDING_CONFIRMATION.
    pub bill_ids: Vec<String>,
    /// Confirm (true) or dispute (false).
    pub accepted: bool,
    /// Sum of the bills' payable the user saw; 4009 when it changed since.
    pub expected_total_fen: i64,
    /// Required when disputing.
    pub dispute_reason: String,
}

#[utoipa::path(
    post, path = "/finance/bills/confirm", tag = "finance",
    request_body = ConfirmBillsForm,
    responses((status = 200, description = "Confirmed (→ UNPAID) or disputed; a bill not awaiting confirmation or a changed total is 4009", body = Envelope<Vec<BillBody>>)),
    security(("token" = ["oss:bill:reconciliation"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn confirm_bills(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<ConfirmBillsForm>,
) -> Result<OkWith<Vec<BillBody>>, ApiError> {
    if form.bill_ids.is_empty() {
        return Err(ApiError::invalid("billIds", "请选择账单"));
    }
    if form.bill_ids.len() > fleetdesk_kit::list::BATCH_LIMIT {
        return Err(ApiError::invalid("billIds", "每次最多选择 250 张账单"));
    }
    if !form.accepted && form.dispute_reason.is_empty() {
        return Err(ApiError::invalid("disputeReason", "请填写异议原因"));
    }
    let accepted = form.accepted;
    let request = pb::ConfirmBillsRequest {
        bill_ids: form.bill_ids,
        accepted,
        expected_total_fen: form.expected_total_fen,
        dispute_reason: form.dispute_reason,
    };
    let answer = state
        .finance()
        .confirm_bills(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: if accepted {
            "账单已确认"
        } else {
            "异议已提交"
        },
        data: answer.bills.into_iter().map(Into::into).collect(),
    })
}

/// Filters of the monthly bill list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyBillListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// First month (yyyy-MM), inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    /// Last month (yyyy-MM), inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<BillStatus>,
    pub overdue: Option<bool>,
}

impl MonthlyBillListParams {
    fn request(self) -> Result<pb::ListMonthlyBillsRequest, ApiError> {
        check_months(self.start_month.as_ref(), self.end_month.as_ref())?;
        Result::Ok(pb::ListMonthlyBillsRequest {
            page: Some(paging(self.page, self.size)?),
            start_month: self.start_month,
            end_month: self.end_month,
            statuses: codes(self.statuses),
            overdue: self.overdue,
        })
    }
}

#[utoipa::path(
    get, path = "/finance/monthly-bills", tag = "finance",
    params(MonthlyBillListParams),
    responses((status = 200, description = "The enterprise's monthly bills, latest month first", body = Envelope<Page<MonthlyBillBody>>)),
    security(("token" = ["oss:bill:reconciliation"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn list_monthly_bills(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<MonthlyBillListParams>,
) -> ApiResult<Page<MonthlyBillBody>> {
    let answer = state
        .finance()
        .list_monthly_bills(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.monthly_bills.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/finance/monthly-bills/export", tag = "finance",
    params(MonthlyBillListParams),
    responses((status = 200, description = "The export record of the monthly bills with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["oss:bill:reconciliation"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn export_monthly_bills(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<MonthlyBillListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportMonthlyBillsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .finance()
        .export_monthly_bills(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// One month with its bills.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyBillDetailBody {
    pub monthly_bill: MonthlyBillBody,
    pub bills: Vec<BillBody>,
}

async fn monthly_bill(
    state: &AppState,
    principal: &Principal,
    monthly_bill_id: String,
) -> Result<pb::GetMonthlyBillResponse, ApiError> {
    let request = pb::GetMonthlyBillRequest {
        monthly_bill_id,
        month: None,
    };
    Result::Ok(
        state
            .finance()
            .get_monthly_bill(state.as_user(principal, request))
            .await?
            .into_inner(),
    )
}

#[utoipa::path(
    get, path = "/finance/monthly-bills/{monthlyBillId}", tag = "finance",
    params(("monthlyBillId" = String, Path, description = "Monthly bill id")),
    responses((status = 200, description = "The month and its bills", body = Envelope<MonthlyBillDetailBody>)),
    security(("token" = ["oss:bill:reconciliation"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn get_monthly_bill(
    State(state): State<AppState>,
    principal: Principal,
    Path(monthly_bill_id): Path<String>,
) -> ApiResult<MonthlyBillDetailBody> {
    let answer = monthly_bill(&state, &principal, monthly_bill_id).await?;
    Result::Ok(Ok(MonthlyBillDetailBody {
        monthly_bill: answer.monthly_bill.unwrap_or_default().into(),
        bills: answer.bills.into_iter().map(Into::into).collect(),
    }))
}

/// A signed link to a stored file, or 4009 while there is none yet.
pub async fn file_link(
    state: &AppState,
    file: Option<common::FileRef>,
    not_yet: &'static str,
) -> Result<ExportFileBody, ApiError> {
    let file = file.unwrap_or_default();
    if file.key.is_empty() {
        return Err(ApiError(ServiceError::new(ErrorCode::Conflict, not_yet)));
    }
    if !state.files.exists(&file.key).await? {
        return Err(ApiError(files::gone()));
    }
    let name = if file.name.is_empty() {
        files::key_name(&file.key).to_owned()
    } else {
        file.name
    };
    Result::Ok(ExportFileBody {
        url: state.links.link(&file.key, chrono::Utc::now().timestamp()),
        name,
    })
}

#[utoipa::path(
    get, path = "/finance/monthly-bills/{monthlyBillId}/file", tag = "finance",
    params(("monthlyBillId" = String, Path, description = "Monthly bill id")),
    responses((status = 200, description = "A signed download link of the month's statement workbook; 4009 while it is being generated", body = Envelope<ExportFileBody>)),
    security(("token" = ["oss:bill:reconciliation"])),
    extensions(("x-enterprise" = json!("mustB2B")))
)]
async fn monthly_bill_file(
    State(state): State<AppState>,
    principal: Principal,
    Path(monthly_bill_id): Path<String>,
) -> ApiResult<ExportFileBody> {
    let answer = monthly_bill(&state, &principal, monthly_bill_id).await?;
    let file = answer.monthly_bill.and_then(|m| m.file);
    Result::Ok(Ok(
        file_link(&state, file, "月度账单尚未生成，请稍后再试").await?
    ))
}

/// Payable and paid in one month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct MonthlyBillFigureBody {
    /// yyyy-MM.
    pub month: String,
    pub payable_fen: i64,
    pub paid_fen: i64,
}

/// Figures of the bill dashboard.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct BillDashboardBody {
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub overdue_fen: i64,
    pub overdue_count: i32,
    /// Outstanding and due within the next 7 days.
    pub due_soon_fen: i64,
    pub unpaid_count: i32,
    pub pending_confirmation_count: i32,
    pub invoiceable_fen: i64,
    pub by_kind: Vec<BillKindAmountBody>,
    /// Last 12 months, oldest first.
    pub trend: Vec<MonthlyBillFigureBody>,
}

impl From<pb::BillDashboard> for BillDashboardBody {
    fn from(d: pb::BillDashboard) -> Self {
        let pb::BillDashboard {
            payable_fen,
            paid_fen,
            outstanding_fen,
            overdue_fen,
            overdue_count,
            due_soon_fen,
            unpaid_count,
            pending_confirmation_count,
            invoiceable_fen,
            by_kind,
            trend,
        } = d;
        BillDashboardBody {
            payable_fen,
            paid_fen,
            outstanding_fen,
            overdue_fen,
            overdue_count,
            due_soon_fen,
            unpaid_count,
            pending_confirmation_count,
            invoiceable_fen,
            by_kind: by_kind.into_iter().map(Into::into).collect(),
            trend: trend
                .into_iter()
                .map(|f| MonthlyBillFigureBody {
                    month: month_text(f.month.as_ref()),
                    payable_fen: f.payable_fen,
                    paid_fen: f.paid_fen,
                })
                .collect(),
        }
    }
}

/// The dashboard's scope.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct BillDashboardParams {
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    pub channel: Option<Channel>,
    /// First bill period (yyyy-MM); unset: this year so far.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
}

#[utoipa::path(
    get, path = "/finance/bill-dashboard", tag = "finance",
    params(BillDashboardParams),
    responses((status = 200, description = "Due, overdue and paid, by kind, and the last 12 months", body = Envelope<BillDashboardBody>)),
    security(("token" = ["as:b2b:bill"]))
)]
async fn get_bill_dashboard(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<BillDashboardParams>,
) -> ApiResult<BillDashboardBody> {
    check_months(query.start_month.as_ref(), query.end_month.as_ref())?;
    let request = pb::GetBillDashboardRequest {
        org_ids: query.org_ids,
        channel: query.channel.map_or(0, Into::into),
        start_month: query.start_month,
        end_month: query.end_month,
    };
    let answer = state
        .finance()
        .get_bill_dashboard(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.dashboard.unwrap_or_default().into()))
}
