//! Repair configuration, statements and bills (orderConfig, statement and
//! its detail, maintainBill with billDetail and billNewDetail; permission
//! `as:maintain`): the suppliers, the item catalogue and the approval
//! threshold; each supplier's monthly statement of completed orders,
//! confirmed (raising the bill) or disputed; the bills. Money is fen.

use axum::extract::{Path, State};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::repair_bodies::{RepairItemKind, RepairLogBody, RepairOrderBody};
use crate::edge::enums::{codes, edge_enum};
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, end_time, start_time, time_range};
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith};
use crate::extract::TrimmedJson;
use crate::routes::energy::convert::{month, month_text};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(get_repair_config))
        .routes(routes!(update_repair_threshold))
        .routes(routes!(create_repair_supplier))
        .routes(routes!(update_repair_supplier))
        .routes(routes!(create_repair_item))
        .routes(routes!(update_repair_item))
        .routes(routes!(list_repair_statements))
        .routes(routes!(export_repair_statements))
        .routes(routes!(get_repair_statement))
        .routes(routes!(confirm_repair_statement))
        .routes(routes!(list_repair_bills))
        .routes(routes!(export_repair_bills))
        .routes(routes!(get_repair_bill))
}

edge_enum!(
    /// PENDING_CONFIRMATION → BILLED (confirmed, its bill raised) or DISPUTED
    /// (then confirmed once corrected).
    RepairStatementStatus => pb::RepairStatementStatus {
        PendingConfirmation, Confirmed, Disputed, Billed
    }
);
edge_enum!(
    RepairBillStatus => pb::RepairBillStatus { Unpaid, PartiallyPaid, Paid, Cancelled }
);

/// A repair shop of the enterprise.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairSupplierBody {
    pub id: String,
    /// The organisation working with it (its statements' data scope).
    pub org_id: String,
    pub org_name: String,
    pub name: String,
    pub address: String,
    pub contact_name: String,
    pub contact_phone: String,
    pub enabled: bool,
    pub remark: String,
}

impl From<pb::RepairSupplier> for RepairSupplierBody {
    fn from(s: pb::RepairSupplier) -> Self {
        RepairSupplierBody {
            id: s.id,
            org_id: s.org_id,
            org_name: s.org_name,
            name: s.name,
            address: s.address,
            contact_name: s.contact_name,
            contact_phone: s.contact_phone,
            enabled: s.enabled,
            remark: s.remark,
        }
    }
}

impl RepairSupplierBody {
    fn into_pb(self, id: String) -> pb::RepairSupplier {
        pb::RepairSupplier {
            id,
            org_id: self.org_id,
            org_name: String::new(),
            name: self.name,
            address: self.address,
            contact_name: self.contact_name,
            contact_phone: self.contact_phone,
            enabled: self.enabled,
            remark: self.remark,
            audit: None,
        }
    }
}

/// A catalogue item with its unit price.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairCatalogueItemBody {
    pub id: String,
    pub name: String,
    pub kind: Option<RepairItemKind>,
    pub part_no: String,
    /// 个, 升, 工时.
    pub unit: String,
    pub unit_price_fen: i64,
    pub enabled: bool,
}

impl From<pb::RepairCatalogueItem> for RepairCatalogueItemBody {
    fn from(i: pb::RepairCatalogueItem) -> Self {
        RepairCatalogueItemBody {
            kind: RepairItemKind::from_pb(i.kind),
            id: i.id,
            name: i.name,
            part_no: i.part_no,
            unit: i.unit,
            unit_price_fen: i.unit_price_fen,
            enabled: i.enabled,
        }
    }
}

impl RepairCatalogueItemBody {
    fn into_pb(self, id: String) -> pb::RepairCatalogueItem {
        pb::RepairCatalogueItem {
            id,
            name: self.name,
            kind: self.kind.map_or(0, Into::into),
            part_no: self.part_no,
            unit: self.unit,
            unit_price_fen: self.unit_price_fen,
            enabled: self.enabled,
            audit: None,
        }
    }
}

/// The repair configuration.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairConfigBody {
    /// Quotes above it go through an org approval.
    pub approval_threshold_fen: i64,
    pub suppliers: Vec<RepairSupplierBody>,
    pub items: Vec<RepairCatalogueItemBody>,
}

#[utoipa::path(
    get, path = "/maintenance/repair-config", tag = "vehicles",
    responses((status = 200, description = "Suppliers in the caller's data scope, the item catalogue and the approval threshold", body = Envelope<RepairConfigBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn get_repair_config(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<RepairConfigBody> {
    let answer = state
        .maintenance()
        .get_repair_config(state.as_user(&principal, pb::GetRepairConfigRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairConfigBody {
        approval_threshold_fen: answer.approval_threshold_fen,
        suppliers: answer.suppliers.into_iter().map(Into::into).collect(),
        items: answer.items.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Default, Deserialize, Serialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairThresholdBody {
    pub approval_threshold_fen: i64,
}

#[utoipa::path(
    put, path = "/maintenance/repair-config/threshold", tag = "vehicles",
    request_body = RepairThresholdBody,
    responses((status = 200, description = "The threshold set", body = Envelope<RepairThresholdBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn update_repair_threshold(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<RepairThresholdBody>,
) -> ApiResult<RepairThresholdBody> {
    let request = pb::UpdateRepairApprovalThresholdRequest {
        approval_threshold_fen: form.approval_threshold_fen,
    };
    let answer = state
        .maintenance()
        .update_repair_approval_threshold(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairThresholdBody {
        approval_threshold_fen: answer.approval_threshold_fen,
    }))
}

async fn save_supplier(
    state: &AppState,
    principal: &Principal,
    supplier: pb::RepairSupplier,
) -> Result<RepairSupplierBody, ApiError> {
    let answer = state
        .maintenance()
        .save_repair_supplier(state.as_user(
            principal,
            pb::SaveRepairSupplierRequest {
                supplier: Some(supplier),
            },
        ))
        .await?
        .into_inner();
    Result::Ok(answer.supplier.unwrap_or_default().into())
}

#[utoipa::path(
    post, path = "/maintenance/repair-config/suppliers", tag = "vehicles",
    request_body = RepairSupplierBody,
    responses((status = 200, description = "The new supplier; a taken name is 4000 naming name", body = Envelope<RepairSupplierBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn create_repair_supplier(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<RepairSupplierBody>,
) -> Result<OkWith<RepairSupplierBody>, ApiError> {
    let data = save_supplier(&state, &principal, form.into_pb(String::new())).await?;
    Result::Ok(OkWith {
        msg: "维修厂已新增",
        data,
    })
}

#[utoipa::path(
    put, path = "/maintenance/repair-config/suppliers/{supplierId}", tag = "vehicles",
    params(("supplierId" = String, Path, description = "Supplier id")),
    request_body = RepairSupplierBody,
    responses((status = 200, description = "The changed supplier", body = Envelope<RepairSupplierBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn update_repair_supplier(
    State(state): State<AppState>,
    principal: Principal,
    Path(supplier_id): Path<String>,
    TrimmedJson(form): TrimmedJson<RepairSupplierBody>,
) -> ApiResult<RepairSupplierBody> {
    let id = if supplier_id.is_empty() {
        "-".to_owned()
    } else {
        supplier_id
    };
    Result::Ok(Ok(
        save_supplier(&state, &principal, form.into_pb(id)).await?
    ))
}

async fn save_item(
    state: &AppState,
    principal: &Principal,
    item: pb::RepairCatalogueItem,
) -> Result<RepairCatalogueItemBody, ApiError> {
    let answer = state
        .maintenance()
        .save_repair_catalogue_item(state.as_user(
            principal,
            pb::SaveRepairCatalogueItemRequest { item: Some(item) },
        ))
        .await?
        .into_inner();
    Result::Ok(answer.item.unwrap_or_default().into())
}

#[utoipa::path(
    post, path = "/maintenance/repair-config/items", tag = "vehicles",
    request_body = RepairCatalogueItemBody,
    responses((status = 200, description = "The new catalogue item", body = Envelope<RepairCatalogueItemBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn create_repair_item(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<RepairCatalogueItemBody>,
) -> Result<OkWith<RepairCatalogueItemBody>, ApiError> {
    let data = save_item(&state, &principal, form.into_pb(String::new())).await?;
    Result::Ok(OkWith {
        msg: "维修项目已新增",
        data,
    })
}

#[utoipa::path(
    put, path = "/maintenance/repair-config/items/{itemId}", tag = "vehicles",
    params(("itemId" = String, Path, description = "Catalogue item id")),
    request_body = RepairCatalogueItemBody,
    responses((status = 200, description = "The changed item", body = Envelope<RepairCatalogueItemBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn update_repair_item(
    State(state): State<AppState>,
    principal: Principal,
    Path(item_id): Path<String>,
    TrimmedJson(form): TrimmedJson<RepairCatalogueItemBody>,
) -> ApiResult<RepairCatalogueItemBody> {
    let id = if item_id.is_empty() {
        "-".to_owned()
    } else {
        item_id
    };
    Result::Ok(Ok(save_item(&state, &principal, form.into_pb(id)).await?))
}

/// A supplier's monthly statement.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairStatementBody {
    pub id: String,
    pub statement_no: String,
    pub org_id: String,
    pub shop_id: String,
    pub shop_name: String,
    /// yyyy-MM.
    pub period: String,
    pub order_count: i32,
    pub total_fen: i64,
    pub status: Option<RepairStatementStatus>,
    pub repair_order_ids: Vec<String>,
    pub issued_time: String,
    pub confirmed_by: String,
    pub confirm_time: String,
    pub dispute_reason: String,
    pub bill_id: String,
}

impl From<pb::RepairStatement> for RepairStatementBody {
    fn from(s: pb::RepairStatement) -> Self {
        RepairStatementBody {
            period: month_text(s.period.as_ref()),
            status: RepairStatementStatus::from_pb(s.status),
            issued_time: rfc3339(s.issued_time.as_ref()),
            confirm_time: rfc3339(s.confirm_time.as_ref()),
            id: s.id,
            statement_no: s.statement_no,
            org_id: s.org_id,
            shop_id: s.shop_id,
            shop_name: s.shop_name,
            order_count: s.order_count,
            total_fen: s.total_fen,
            repair_order_ids: s.repair_order_ids,
            confirmed_by: s.confirmed_by,
            dispute_reason: s.dispute_reason,
            bill_id: s.bill_id,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairStatementPage {
    pub list: Vec<RepairStatementBody>,
    pub total: i64,
}

/// A statement with its orders and operation log.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairStatementDetailBody {
    pub statement: RepairStatementBody,
    pub orders: Vec<RepairOrderBody>,
    pub logs: Vec<RepairLogBody>,
}

/// Filters of the statement list and its export.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RepairStatementListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    pub shop_id: Option<String>,
    /// Contains-search.
    pub statement_no: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<RepairStatementStatus>,
    /// yyyy-MM, inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    /// yyyy-MM, inclusive.
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
}

impl RepairStatementListParams {
    fn request(self) -> Result<pb::ListRepairStatementsRequest, ApiError> {
        Result::Ok(pb::ListRepairStatementsRequest {
            page: Some(paging(self.page, self.size)?),
            shop_id: self.shop_id.unwrap_or_default(),
            statement_no: self.statement_no.unwrap_or_default(),
            statuses: codes(self.statuses),
            start_month: self.start_month,
            end_month: self.end_month,
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/repair-statements", tag = "vehicles",
    params(RepairStatementListParams),
    responses((status = 200, description = "Statements of the suppliers in the caller's data scope, latest month first", body = Envelope<RepairStatementPage>)),
    security(("token" = ["as:maintain"]))
)]
async fn list_repair_statements(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<RepairStatementListParams>,
) -> ApiResult<RepairStatementPage> {
    let answer = state
        .maintenance()
        .list_repair_statements(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairStatementPage {
        list: answer.statements.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/maintenance/repair-statements/export", tag = "vehicles",
    params(RepairStatementListParams),
    responses((status = 200, description = "The export record of the statement list", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn export_repair_statements(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<RepairStatementListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportRepairStatementsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_repair_statements(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/repair-statements/{statementId}", tag = "vehicles",
    params(("statementId" = String, Path, description = "Statement id")),
    responses((status = 200, description = "The statement, its orders and its operation log", body = Envelope<RepairStatementDetailBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn get_repair_statement(
    State(state): State<AppState>,
    principal: Principal,
    Path(statement_id): Path<String>,
) -> ApiResult<RepairStatementDetailBody> {
    let answer = state
        .maintenance()
        .get_repair_statement(
            state.as_user(&principal, pb::GetRepairStatementRequest { statement_id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(RepairStatementDetailBody {
        statement: answer.statement.unwrap_or_default().into(),
        orders: answer.orders.into_iter().map(Into::into).collect(),
        logs: answer.logs.into_iter().map(Into::into).collect(),
    }))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfirmRepairStatementForm {
    /// Confirm (true) or dispute (false).
    pub accepted: bool,
    /// The total the user saw; 4009 when it changed since.
    pub expected_total_fen: i64,
    /// Required when disputing.
    pub dispute_reason: String,
}

#[utoipa::path(
    post, path = "/maintenance/repair-statements/{statementId}/confirm", tag = "vehicles",
    params(("statementId" = String, Path, description = "Statement id")),
    request_body = ConfirmRepairStatementForm,
    responses((status = 200, description = "Confirmed: BILLED with its bill raised and its orders SETTLED; disputed: DISPUTED. Any other move is 4009", body = Envelope<RepairStatementBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn confirm_repair_statement(
    State(state): State<AppState>,
    principal: Principal,
    Path(statement_id): Path<String>,
    TrimmedJson(form): TrimmedJson<ConfirmRepairStatementForm>,
) -> ApiResult<RepairStatementBody> {
    let request = pb::ConfirmRepairStatementRequest {
        statement_id,
        accepted: form.accepted,
        expected_total_fen: form.expected_total_fen,
        dispute_reason: form.dispute_reason,
    };
    let answer = state
        .maintenance()
        .confirm_repair_statement(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.statement.unwrap_or_default().into()))
}

/// The bill of a confirmed statement.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairBillBody {
    pub id: String,
    pub bill_no: String,
    pub statement_id: String,
    pub statement_no: String,
    pub shop_id: String,
    pub shop_name: String,
    /// yyyy-MM.
    pub period: String,
    pub amount_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub status: Option<RepairBillStatus>,
    pub issued_time: String,
    pub due_time: String,
    pub paid_time: String,
    pub finance_bill_id: String,
}

impl From<pb::RepairBill> for RepairBillBody {
    fn from(b: pb::RepairBill) -> Self {
        RepairBillBody {
            period: month_text(b.period.as_ref()),
            status: RepairBillStatus::from_pb(b.status),
            issued_time: rfc3339(b.issued_time.as_ref()),
            due_time: rfc3339(b.due_time.as_ref()),
            paid_time: rfc3339(b.paid_time.as_ref()),
            id: b.id,
            bill_no: b.bill_no,
            statement_id: b.statement_id,
            statement_no: b.statement_no,
            shop_id: b.shop_id,
            shop_name: b.shop_name,
            amount_fen: b.amount_fen,
            paid_fen: b.paid_fen,
            outstanding_fen: b.outstanding_fen,
            finance_bill_id: b.finance_bill_id,
        }
    }
}

/// One page of bills, with the amounts of every matching row.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairBillPage {
    pub list: Vec<RepairBillBody>,
    pub total: i64,
    pub total_amount_fen: i64,
    pub total_outstanding_fen: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairBillDetailBody {
    pub bill: RepairBillBody,
    pub statement: RepairStatementBody,
}

/// Filters of the bill list and its export.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RepairBillListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    pub shop_id: Option<String>,
    pub bill_no: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<RepairBillStatus>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub start_month: Option<common::YearMonth>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "month")]
    pub end_month: Option<common::YearMonth>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub due_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub due_time_end: Option<Timestamp>,
}

impl RepairBillListParams {
    fn request(self) -> Result<pb::ListRepairBillsRequest, ApiError> {
        Result::Ok(pb::ListRepairBillsRequest {
            page: Some(paging(self.page, self.size)?),
            shop_id: self.shop_id.unwrap_or_default(),
            bill_no: self.bill_no.unwrap_or_default(),
            statuses: codes(self.statuses),
            start_month: self.start_month,
            end_month: self.end_month,
            due_time: time_range(self.due_time_start, self.due_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/repair-bills", tag = "vehicles",
    params(RepairBillListParams),
    responses((status = 200, description = "Repair bills, latest month first, with the amounts of every matching row", body = Envelope<RepairBillPage>)),
    security(("token" = ["as:maintain"]))
)]
async fn list_repair_bills(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<RepairBillListParams>,
) -> ApiResult<RepairBillPage> {
    let answer = state
        .maintenance()
        .list_repair_bills(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairBillPage {
        list: answer.bills.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
        total_amount_fen: answer.total_amount_fen,
        total_outstanding_fen: answer.total_outstanding_fen,
    }))
}

#[utoipa::path(
    post, path = "/maintenance/repair-bills/export", tag = "vehicles",
    params(RepairBillListParams),
    responses((status = 200, description = "The export record of the bill list", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn export_repair_bills(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<RepairBillListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportRepairBillsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_repair_bills(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/repair-bills/{billId}", tag = "vehicles",
    params(("billId" = String, Path, description = "Repair bill id")),
    responses((status = 200, description = "The bill and its statement", body = Envelope<RepairBillDetailBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn get_repair_bill(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_bill_id): Path<String>,
) -> ApiResult<RepairBillDetailBody> {
    let answer = state
        .maintenance()
        .get_repair_bill(state.as_user(&principal, pb::GetRepairBillRequest { repair_bill_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairBillDetailBody {
        bill: answer.bill.unwrap_or_default().into(),
        statement: answer.statement.unwrap_or_default().into(),
    }))
}
