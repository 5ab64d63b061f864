//! Repair and maintenance orders (maintainOrder, orderCreate, orderDetail,
//! priceConfirm, maintainRecord and its detail; permission `as:maintain`):
//! the order list and export, create (idempotent by key), the shop's quote,
//! the price confirmation (above the enterprise's threshold it goes to an
//! org approval), cancel and completion, and the records completions made.
//! A move out of order answers 4009 and changes nothing. Money is fen.

use axum::extract::{Path, State};
use fleetdesk_proto::vehicle::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::repair_bodies::{
    RepairItemBody, RepairKind, RepairLogBody, RepairOrderBody, RepairOrderPage, RepairOrderStatus,
};
use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::{rfc3339, time_field};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_repair_orders, create_repair_order))
        .routes(routes!(export_repair_orders))
        .routes(routes!(get_repair_order))
        .routes(routes!(quote_repair_order))
        .routes(routes!(confirm_repair_price))
        .routes(routes!(cancel_repair_order))
        .routes(routes!(complete_repair_order))
        .routes(routes!(list_repair_records))
        .routes(routes!(export_repair_records))
        .routes(routes!(get_repair_record))
}

/// An order with its operation log, newest first.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairOrderDetailBody {
    pub order: RepairOrderBody,
    pub logs: Vec<RepairLogBody>,
}

/// Filters of the order list and its export (AND; a repeated key matches any value).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RepairOrderListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub vins: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    /// Contains-search.
    pub order_no: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<RepairOrderStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<RepairKind>,
    pub shop_id: Option<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub create_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub create_time_end: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub completed_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub completed_time_end: Option<Timestamp>,
    /// Orders on this statement.
    pub statement_id: Option<String>,
}

impl RepairOrderListParams {
    fn request(self) -> Result<pb::ListRepairOrdersRequest, ApiError> {
        Result::Ok(pb::ListRepairOrdersRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            vins: self.vins,
            org_ids: self.org_ids,
            order_no: self.order_no.unwrap_or_default(),
            statuses: codes(self.statuses),
            kinds: codes(self.kinds),
            shop_id: self.shop_id.unwrap_or_default(),
            create_time: time_range(self.create_time_start, self.create_time_end),
            completed_time: time_range(self.completed_time_start, self.completed_time_end),
            statement_id: self.statement_id.unwrap_or_default(),
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/repair-orders", tag = "vehicles",
    params(RepairOrderListParams),
    responses((status = 200, description = "Repair orders in the caller's data scope, newest first", body = Envelope<RepairOrderPage>)),
    security(("token" = ["as:maintain"]))
)]
async fn list_repair_orders(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<RepairOrderListParams>,
) -> ApiResult<RepairOrderPage> {
    let answer = state
        .maintenance()
        .list_repair_orders(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairOrderPage {
        list: answer.orders.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/maintenance/repair-orders/export", tag = "vehicles",
    params(RepairOrderListParams),
    responses((status = 200, description = "The export record of the order list with its filters and data scope (paging ignored)", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn export_repair_orders(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<RepairOrderListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportRepairOrdersRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_repair_orders(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// A new order: the vehicle goes to a shop of the configuration.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairOrderForm {
    pub vehicle_id: String,
    pub driver_id: String,
    pub kind: Option<RepairKind>,
    pub fault_description: String,
    pub fault_images: Vec<FileRefBody>,
    pub odometer_m: i64,
    pub shop_id: String,
    /// yyyy-MM-dd HH:mm:ss or RFC 3339; empty for none.
    pub appointment_time: String,
    pub contact_name: String,
    pub contact_phone: String,
    pub accident_id: String,
}

#[utoipa::path(
    post, path = "/maintenance/repair-orders", tag = "vehicles",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first order and creates nothing")),
    request_body = RepairOrderForm,
    responses((status = 200, description = "The new order, AWAITING_QUOTE; another tenant's or an unreachable vehicle or shop is 4004", body = Envelope<RepairOrderBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn create_repair_order(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<RepairOrderForm>,
) -> Result<OkWith<RepairOrderBody>, ApiError> {
    let request = pb::CreateRepairOrderRequest {
        appointment_time: time_field("appointmentTime", &form.appointment_time)?,
        vehicle_id: form.vehicle_id,
        driver_id: form.driver_id,
        kind: form.kind.map_or(0, Into::into),
        fault_description: form.fault_description,
        fault_images: form.fault_images.into_iter().map(Into::into).collect(),
        odometer_m: form.odometer_m,
        shop_id: form.shop_id,
        contact_name: form.contact_name,
        contact_phone: form.contact_phone,
        accident_id: form.accident_id,
        idempotency_key: String::new(),
    };
    let answer = state
        .maintenance()
        .create_repair_order(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "维修单已创建",
        data: answer.order.unwrap_or_default().into(),
    })
}

#[utoipa::path(
    get, path = "/maintenance/repair-orders/{orderId}", tag = "vehicles",
    params(("orderId" = String, Path, description = "Repair order id")),
    responses((status = 200, description = "The order and its operation log", body = Envelope<RepairOrderDetailBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn get_repair_order(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_order_id): Path<String>,
) -> ApiResult<RepairOrderDetailBody> {
    let answer = state
        .maintenance()
        .get_repair_order(state.as_user(&principal, pb::GetRepairOrderRequest { repair_order_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairOrderDetailBody {
        order: answer.order.unwrap_or_default().into(),
        logs: answer.logs.into_iter().map(Into::into).collect(),
    }))
}

/// The shop's quote: at least one line; it replaces any earlier one.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RepairQuoteForm {
    pub items: Vec<RepairItemBody>,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/maintenance/repair-orders/{orderId}/quote", tag = "vehicles",
    params(("orderId" = String, Path, description = "Repair order id")),
    request_body = RepairQuoteForm,
    responses((status = 200, description = "AWAITING_QUOTE or QUOTED → QUOTED, the total computed; any other state is 4009", body = Envelope<RepairOrderBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn quote_repair_order(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_order_id): Path<String>,
    TrimmedJson(form): TrimmedJson<RepairQuoteForm>,
) -> ApiResult<RepairOrderBody> {
    let request = pb::SubmitRepairQuoteRequest {
        repair_order_id,
        items: form.items.into_iter().map(Into::into).collect(),
        remark: form.remark,
    };
    let answer = state
        .maintenance()
        .submit_repair_quote(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.order.unwrap_or_default().into()))
}

/// The enterprise's answer to a quote.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct ConfirmRepairPriceForm {
    /// Accept (true) or send back for a new quote (false).
    pub accepted: bool,
    /// The total the user saw; 4009 when the quote changed since.
    pub expected_total_fen: i64,
    /// Required when sending back.
    pub reason: String,
}

#[utoipa::path(
    post, path = "/maintenance/repair-orders/{orderId}/confirm-price", tag = "vehicles",
    params(("orderId" = String, Path, description = "Repair order id")),
    request_body = ConfirmRepairPriceForm,
    responses((status = 200, description = "QUOTED → IN_REPAIR (at or below the threshold), AWAITING_APPROVAL (above it: an org approval is raised) or AWAITING_QUOTE (sent back); any other state is 4009", body = Envelope<RepairOrderBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn confirm_repair_price(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_order_id): Path<String>,
    TrimmedJson(form): TrimmedJson<ConfirmRepairPriceForm>,
) -> ApiResult<RepairOrderBody> {
    let request = pb::ConfirmRepairPriceRequest {
        repair_order_id,
        accepted: form.accepted,
        expected_total_fen: form.expected_total_fen,
        reason: form.reason,
    };
    let answer = state
        .maintenance()
        .confirm_repair_price(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.order.unwrap_or_default().into()))
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelRepairOrderForm {
    pub reason: String,
}

#[utoipa::path(
    post, path = "/maintenance/repair-orders/{orderId}/cancel", tag = "vehicles",
    params(("orderId" = String, Path, description = "Repair order id")),
    request_body = CancelRepairOrderForm,
    responses((status = 200, description = "Cancelled; from IN_REPAIR on it is 4009", body = Envelope<RepairOrderBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn cancel_repair_order(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_order_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CancelRepairOrderForm>,
) -> ApiResult<RepairOrderBody> {
    let request = pb::CancelRepairOrderRequest {
        repair_order_id,
        reason: form.reason,
    };
    let answer = state
        .maintenance()
        .cancel_repair_order(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.order.unwrap_or_default().into()))
}

/// The work done.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CompleteRepairOrderForm {
    /// yyyy-MM-dd HH:mm:ss or RFC 3339.
    pub completed_time: String,
    /// Odometer at hand-back, metres.
    pub odometer_m: i64,
    pub completion_images: Vec<FileRefBody>,
    pub remark: String,
    /// The work as done; empty: the confirmed quote.
    pub final_items: Vec<RepairItemBody>,
}

#[utoipa::path(
    post, path = "/maintenance/repair-orders/{orderId}/complete", tag = "vehicles",
    params(("orderId" = String, Path, description = "Repair order id")),
    request_body = CompleteRepairOrderForm,
    responses((status = 200, description = "IN_REPAIR → COMPLETED: the service is recorded and the order joins its shop's statement of the month; any other state is 4009", body = Envelope<RepairOrderBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn complete_repair_order(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_order_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CompleteRepairOrderForm>,
) -> ApiResult<RepairOrderBody> {
    let request = pb::CompleteRepairOrderRequest {
        repair_order_id,
        completed_time: time_field("completedTime", &form.completed_time)?,
        odometer_m: form.odometer_m,
        completion_images: form.completion_images.into_iter().map(Into::into).collect(),
        remark: form.remark,
        final_items: form.final_items.into_iter().map(Into::into).collect(),
    };
    let answer = state
        .maintenance()
        .complete_repair_order(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.order.unwrap_or_default().into()))
}

/// A service a completed order recorded.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairRecordBody {
    pub id: String,
    pub repair_order_id: String,
    pub order_no: String,
    pub org_id: String,
    pub org_name: String,
    pub vehicle_id: String,
    pub plate_number: String,
    pub kind: Option<RepairKind>,
    pub shop_id: String,
    pub shop_name: String,
    pub completed_time: String,
    pub odometer_m: i64,
    pub items: Vec<RepairItemBody>,
    pub total_fen: i64,
    pub remark: String,
    pub operator_name: String,
    pub create_time: String,
}

impl From<pb::RepairRecord> for RepairRecordBody {
    fn from(r: pb::RepairRecord) -> Self {
        RepairRecordBody {
            kind: RepairKind::from_pb(r.kind),
            completed_time: rfc3339(r.completed_time.as_ref()),
            create_time: rfc3339(r.create_time.as_ref()),
            items: r.items.into_iter().map(Into::into).collect(),
            id: r.id,
            repair_order_id: r.repair_order_id,
            order_no: r.order_no,
            org_id: r.org_id,
            org_name: r.org_name,
            vehicle_id: r.vehicle_id,
            plate_number: r.plate_number,
            shop_id: r.shop_id,
            shop_name: r.shop_name,
            odometer_m: r.odometer_m,
            total_fen: r.total_fen,
            remark: r.remark,
            operator_name: r.operator_name,
        }
    }
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairRecordPage {
    pub list: Vec<RepairRecordBody>,
    pub total: i64,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RepairRecordDetailBody {
    pub record: RepairRecordBody,
    pub order: RepairOrderBody,
}

/// Filters of the record list and its export.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RepairRecordListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    pub shop_id: Option<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<RepairKind>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub completed_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub completed_time_end: Option<Timestamp>,
    pub order_no: Option<String>,
}

impl RepairRecordListParams {
    fn request(self) -> Result<pb::ListRepairRecordsRequest, ApiError> {
        Result::Ok(pb::ListRepairRecordsRequest {
            page: Some(paging(self.page, self.size)?),
            plate_numbers: self.plate_numbers,
            org_ids: self.org_ids,
            shop_id: self.shop_id.unwrap_or_default(),
            kinds: codes(self.kinds),
            completed_time: time_range(self.completed_time_start, self.completed_time_end),
            order_no: self.order_no.unwrap_or_default(),
        })
    }
}

#[utoipa::path(
    get, path = "/maintenance/repair-records", tag = "vehicles",
    params(RepairRecordListParams),
    responses((status = 200, description = "Services recorded by completed orders, latest first", body = Envelope<RepairRecordPage>)),
    security(("token" = ["as:maintain"]))
)]
async fn list_repair_records(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<RepairRecordListParams>,
) -> ApiResult<RepairRecordPage> {
    let answer = state
        .maintenance()
        .list_repair_records(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(RepairRecordPage {
        list: answer.records.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/maintenance/repair-records/export", tag = "vehicles",
    params(RepairRecordListParams),
    responses((status = 200, description = "The export record of the record list", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn export_repair_records(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<RepairRecordListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportRepairRecordsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .maintenance()
        .export_repair_records(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

#[utoipa::path(
    get, path = "/maintenance/repair-records/{recordId}", tag = "vehicles",
    params(("recordId" = String, Path, description = "Repair record id")),
    responses((status = 200, description = "The record and its order", body = Envelope<RepairRecordDetailBody>)),
    security(("token" = ["as:maintain"]))
)]
async fn get_repair_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(repair_record_id): Path<String>,
) -> ApiResult<RepairRecordDetailBody> {
    let answer = state
        .maintenance()
        .get_repair_record(
            state.as_user(&principal, pb::GetRepairRecordRequest { repair_record_id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(RepairRecordDetailBody {
        record: answer.record.unwrap_or_default().into(),
        order: answer.order.unwrap_or_default().into(),
    }))
}
