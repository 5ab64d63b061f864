//! Monthly reconciliation statements (chargeReconciliation, permission
//! `as:charge:settlement:page`): list by month range and status, detail with
//! the per-organisation lines, confirm or dispute (against the total the user
//! saw), the statement workbook as a signed download link, the list's
//! export, a month's statement built on demand (the current month as a
//! DRAFT, or a closed month that has none yet) and a statement's card lines.
//! Money in fen, energy in Wh.

use axum::extract::{Path, State};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::export::ExportFileBody;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::files;
use crate::routes::energy::checks::check_remark;
use crate::routes::energy::convert::{month, month_text, parse_month};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_reconciliation_statements))
        .routes(routes!(export_reconciliation_statements))
        .routes(routes!(get_reconciliation_statement))
        .routes(routes!(confirm_reconciliation_statement))
        .routes(routes!(reconciliation_statement_file))
        .routes(routes!(generate_reconciliation_statement))
        .routes(routes!(list_reconciliation_card_lines))
}

edge_enum!(
    /// GENERATING → PENDING_CONFIRMATION → CONFIRMED or DISPUTED (the operator
    /// reissues it); DRAFT: the current month so far, never confirmed.
    ReconciliationStatus => pb::ReconciliationStatus {
        Generating, PendingConfirmation, Confirmed, Disputed, Draft
    }
);

/// One organisation's share of a statement.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationOrgLineBody {
    pub org_id: String,
    pub org_name: String,
    pub session_count: i64,
    pub energy_wh: i64,
    pub total_fen: i64,
}

/// An enterprise's charging statement for one month.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationStatementBody {
    pub id: String,
    pub statement_no: String,
    /// yyyy-MM.
    pub month: String,
    pub status: Option<ReconciliationStatus>,
    pub session_count: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    pub refunded_fen: i64,
    /// What the enterprise owes for the month.
    pub total_fen: i64,
    /// Cost the holds did not cover; never billed.
    pub uncollected_fen: i64,
    /// The ledger's captures of the statement's sessions (equals total).
    pub ledger_captured_fen: i64,
    /// Cards with sessions on the statement.
    pub card_count: i32,
    /// Lines of the caller's reach only (a user who reaches part of the tree).
    pub partial: bool,
    /// Per organisation (the detail; empty in the list when the service leaves it out).
    pub org_lines: Vec<ReconciliationOrgLineBody>,
    /// The workbook can be downloaded.
    pub has_file: bool,
    pub generated_time: String,
    pub confirmed_by: String,
    pub confirm_time: String,
    pub dispute_reason: String,
    /// The finance bill raised once confirmed.
    pub finance_bill_id: String,
}

impl From<pb::ReconciliationStatement> for ReconciliationStatementBody {
    fn from(s: pb::ReconciliationStatement) -> Self {
        let pb::ReconciliationStatement {
            id,
            statement_no,
            enterprise_id: _,
            month,
            status,
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            refunded_fen,
            total_fen,
            org_lines,
            file,
            generated_time,
            confirmed_by,
            confirm_time,
            dispute_reason,
            finance_bill_id,
            uncollected_fen,
            ledger_captured_fen,
            card_count,
            partial,
        } = s;
        ReconciliationStatementBody {
            id,
            statement_no,
            month: month_text(month.as_ref()),
            status: ReconciliationStatus::from_pb(status),
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            refunded_fen,
            total_fen,
            uncollected_fen,
            ledger_captured_fen,
            card_count,
            partial,
            org_lines: org_lines
                .into_iter()
                .map(|l| ReconciliationOrgLineBody {
                    org_id: l.org_id,
                    org_name: l.org_name,
                    session_count: l.session_count,
                    energy_wh: l.energy_wh,
                    total_fen: l.total_fen,
                })
                .collect(),
            has_file: file.is_some_and(|f| !f.key.is_empty()),
            generated_time: rfc3339(generated_time.as_ref()),
            confirmed_by,
            confirm_time: rfc3339(confirm_time.as_ref()),
            dispute_reason,
            finance_bill_id,
        }
    }
}

/// Filters of the statement list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationStatementListParams {
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
    #[serde(rename = "status")]
    pub statuses: Vec<ReconciliationStatus>,
}

impl ReconciliationStatementListParams {
    fn filter(self) -> Result<pb::ListReconciliationStatementsRequest, ApiError> {
        if let (Some(s), Some(e)) = (&self.start_month, &self.end_month)
            && (s.year, s.month) > (e.year, e.month)
        {
            return Err(ApiError::invalid(
                "startMonth",
                "开始时间不允许大于结束时间",
            ));
        }
        Result::Ok(pb::ListReconciliationStatementsRequest {
            page: Some(paging(self.page, self.size)?),
            start_month: self.start_month,
            end_month: self.end_month,
            statuses: codes(self.statuses),
        })
    }
}

#[utoipa::path(
    get, path = "/charging/statements", tag = "charging",
    params(ReconciliationStatementListParams),
    responses((status = 200, description = "The enterprise's monthly statements, newest month first", body = Envelope<Page<ReconciliationStatementBody>>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn list_reconciliation_statements(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<ReconciliationStatementListParams>,
) -> ApiResult<Page<ReconciliationStatementBody>> {
    let answer = state
        .energy()
        .list_reconciliation_statements(state.as_user(&principal, query.filter()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .statements
            .into_iter()
            .map(ReconciliationStatementBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/charging/statements/export", tag = "charging",
    params(ReconciliationStatementListParams),
    responses((status = 200, description = "The export record of the statement list with the list's filters (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn export_reconciliation_statements(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<ReconciliationStatementListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportReconciliationStatementsRequest {
        filter: Some(pb::ListReconciliationStatementsRequest {
            page: None,
            ..query.filter()?
        }),
    };
    let answer = state
        .energy()
        .export_reconciliation_statements(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// The statement as energy has it (tenant and permission checked there).
async fn statement(
    state: &AppState,
    principal: &Principal,
    id: String,
) -> Result<pb::ReconciliationStatement, ApiError> {
    let answer = state
        .energy()
        .get_reconciliation_statement(state.as_user(
            principal,
            pb::GetReconciliationStatementRequest {
                statement_id: id,
                month: None,
            },
        ))
        .await?
        .into_inner();
    Result::Ok(answer.statement.unwrap_or_default())
}

#[utoipa::path(
    get, path = "/charging/statements/{id}", tag = "charging",
    params(("id" = String, Path, description = "Statement id")),
    responses((status = 200, description = "One statement with its per-organisation lines", body = Envelope<ReconciliationStatementBody>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn get_reconciliation_statement(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ReconciliationStatementBody> {
    Result::Ok(Ok(statement(&state, &principal, id).await?.into()))
}

/// Confirming (or disputing) a statement the user checked.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfirmStatementForm {
    /// Confirm (true) or dispute (false).
    pub accepted: bool,
    /// The total the user saw; 4009 when it changed since.
    pub expected_total_fen: i64,
    /// Required when disputing, at most 200 characters.
    pub dispute_reason: String,
}

#[utoipa::path(
    post, path = "/charging/statements/{id}/confirm", tag = "charging",
    params(("id" = String, Path, description = "Statement id")),
    request_body = ConfirmStatementForm,
    responses((status = 200, description = "Confirmed (the finance bill follows) or disputed; 4009 unless it awaits confirmation or when its total changed", body = Envelope<ReconciliationStatementBody>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn confirm_reconciliation_statement(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<ConfirmStatementForm>,
) -> Result<OkWith<ReconciliationStatementBody>, ApiError> {
    if !form.accepted && form.dispute_reason.is_empty() {
        return Err(ApiError::invalid("disputeReason", "请填写异议原因"));
    }
    check_remark("disputeReason", &form.dispute_reason)?;
    let request = pb::ConfirmReconciliationStatementRequest {
        statement_id: id,
        accepted: form.accepted,
        expected_total_fen: form.expected_total_fen,
        dispute_reason: form.dispute_reason,
    };
    let answer = state
        .energy()
        .confirm_reconciliation_statement(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: if form.accepted {
            "对账单已确认"
        } else {
            "异议已提交"
        },
        data: answer.statement.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    get, path = "/charging/statements/{id}/file", tag = "charging",
    params(("id" = String, Path, description = "Statement id")),
    responses((status = 200, description = "A signed download link of the statement workbook (xlsx, every session of the month); 4009 while it is being generated", body = Envelope<ExportFileBody>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn reconciliation_statement_file(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ExportFileBody> {
    let statement = statement(&state, &principal, id).await?;
    let file = statement.file.unwrap_or_default();
    if file.key.is_empty() {
        return Err(ApiError(ServiceError::new(
            ErrorCode::Conflict,
            "对账单尚未生成，请稍后再试",
        )));
    }
    if !state.files.exists(&file.key).await? {
        return Err(ApiError(files::gone()));
    }
    let name = if file.name.is_empty() {
        files::key_name(&file.key).to_owned()
    } else {
        file.name
    };
    Result::Ok(Ok(ExportFileBody {
        url: state.links.link(&file.key, chrono::Utc::now().timestamp()),
        name,
    }))
}

/// The month whose statement to build now.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct GenerateStatementForm {
    /// yyyy-MM: the current month (a DRAFT with the figures so far) or a
    /// closed month without an issued statement.
    pub month: String,
}

#[utoipa::path(
    post, path = "/charging/statements/generate", tag = "charging",
    request_body = GenerateStatementForm,
    responses((status = 200, description = "The month's statement as built: the current month as a DRAFT (rebuilt with the figures so far, with its workbook), a closed month issued when it had none; an issued one is answered as it is. 4000 for a future month", body = Envelope<ReconciliationStatementBody>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn generate_reconciliation_statement(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<GenerateStatementForm>,
) -> Result<OkWith<ReconciliationStatementBody>, ApiError> {
    if form.month.is_empty() {
        return Err(ApiError::invalid("month", "请选择月份"));
    }
    let month = parse_month("month", &form.month)?;
    let answer = state
        .energy()
        .generate_reconciliation_statement(state.as_user(
            &principal,
            pb::GenerateReconciliationStatementRequest { month: Some(month) },
        ))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "对账单已生成",
        data: answer.statement.unwrap_or_default().into(),
    })
}

/// One card's share of a statement.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationCardLineBody {
    pub card_id: String,
    pub card_no: String,
    pub org_id: String,
    pub org_name: String,
    /// As on the card's latest session of the statement.
    pub plate_number: String,
    pub driver_name: String,
    pub session_count: i64,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub parking_fee_fen: i64,
    pub time_fee_fen: i64,
    pub fixed_fee_fen: i64,
    pub reservation_fee_fen: i64,
    pub discount_fen: i64,
    /// Cost the holds did not cover; never billed.
    pub uncollected_fen: i64,
    pub refunded_fen: i64,
    pub total_fen: i64,
}

impl From<pb::ReconciliationCardLine> for ReconciliationCardLineBody {
    fn from(l: pb::ReconciliationCardLine) -> Self {
        let pb::ReconciliationCardLine {
            card_id,
            card_no,
            org_id,
            org_name,
            plate_number,
            driver_name,
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            uncollected_fen,
            refunded_fen,
            total_fen,
        } = l;
        ReconciliationCardLineBody {
            card_id,
            card_no,
            org_id,
            org_name,
            plate_number,
            driver_name,
            session_count,
            energy_wh,
            electricity_fen,
            service_fee_fen,
            parking_fee_fen,
            time_fee_fen,
            fixed_fee_fen,
            reservation_fee_fen,
            discount_fen,
            uncollected_fen,
            refunded_fen,
            total_fen,
        }
    }
}

/// Filters of a statement's card lines (repeat a key for several values).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct ReconciliationCardLineParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// Organisations, each with its sub-organisations.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "orgId")]
    pub org_ids: Vec<String>,
    /// Card numbers, at most 250.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    #[serde(rename = "cardNo")]
    pub card_nos: Vec<String>,
}

#[utoipa::path(
    get, path = "/charging/statements/{id}/card-lines", tag = "charging",
    params(("id" = String, Path, description = "Statement id"), ReconciliationCardLineParams),
    responses((status = 200, description = "The statement's card lines in the caller's data scope, by organisation then card number", body = Envelope<Page<ReconciliationCardLineBody>>)),
    security(("token" = ["as:charge:settlement:page"]))
)]
async fn list_reconciliation_card_lines(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    EdgeQuery(query): EdgeQuery<ReconciliationCardLineParams>,
) -> ApiResult<Page<ReconciliationCardLineBody>> {
    let request = pb::ListReconciliationCardLinesRequest {
        page: Some(paging(query.page, query.size)?),
        statement_id: id,
        org_ids: query.org_ids,
        card_nos: query.card_nos,
    };
    let answer = state
        .energy()
        .list_reconciliation_card_lines(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .lines
            .into_iter()
            .map(ReconciliationCardLineBody::from)
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}
