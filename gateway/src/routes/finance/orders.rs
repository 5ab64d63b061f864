//! The order centre (orderManage, permission `as:order:center`, only for
//! enterprises on the order-centre list or in the SF group): orders for
//! vehicles, services and top-ups with their lines, an order's detail with
//! the bill carrying its payment, placing an order (one per
//! `Idempotency-Key`) and cancelling one still awaiting payment.

use axum::extract::{Path, State};
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{BillBody, OrderBody, OrderKind, OrderStatus};
use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::edge::time::time_field;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedJson;
use crate::idempotency::IdempotencyKey;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_finance_orders, create_finance_order))
        .routes(routes!(export_finance_orders))
        .routes(routes!(get_finance_order))
        .routes(routes!(cancel_finance_order))
}

/// Filters of the order list (AND; a repeated key matches any value).
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OrderListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub order_nos: Vec<String>,
    /// Organisations; each takes its subtree.
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub org_ids: Vec<String>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<OrderKind>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<OrderStatus>,
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub plate_numbers: Vec<String>,
    pub contract_no: Option<String>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub placed_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub placed_time_end: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub paid_time_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub paid_time_end: Option<Timestamp>,
}

impl OrderListParams {
    fn request(self) -> Result<pb::ListOrdersRequest, ApiError> {
        Result::Ok(pb::ListOrdersRequest {
            page: Some(paging(self.page, self.size)?),
            order_nos: self.order_nos,
            org_ids: self.org_ids,
            kinds: codes(self.kinds),
            statuses: codes(self.statuses),
            plate_numbers: self.plate_numbers,
            contract_no: self.contract_no.unwrap_or_default(),
            placed_time: time_range(self.placed_time_start, self.placed_time_end),
            paid_time: time_range(self.paid_time_start, self.paid_time_end),
        })
    }
}

#[utoipa::path(
    get, path = "/finance/orders", tag = "finance",
    params(OrderListParams),
    responses((status = 200, description = "Orders in the caller's data scope, newest first", body = Envelope<Page<OrderBody>>)),
    security(("token" = ["as:order:center"])),
    extensions(("x-enterprise" = json!("orderCenter")))
)]
async fn list_finance_orders(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<OrderListParams>,
) -> ApiResult<Page<OrderBody>> {
    let answer = state
        .finance()
        .list_orders(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.orders.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/finance/orders/export", tag = "finance",
    params(OrderListParams),
    responses((status = 200, description = "The export record of the order list with the list's filters, order and data scope (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:order:center"])),
    extensions(("x-enterprise" = json!("orderCenter")))
)]
async fn export_finance_orders(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<OrderListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportOrdersRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .finance()
        .export_orders(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}

/// An order with the bill that carries its payment.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrderDetailBody {
    pub order: OrderBody,
    pub bill: Option<BillBody>,
}

#[utoipa::path(
    get, path = "/finance/orders/{orderId}", tag = "finance",
    params(("orderId" = String, Path, description = "Order id")),
    responses((status = 200, description = "The order and its ORDER bill", body = Envelope<OrderDetailBody>)),
    security(("token" = ["as:order:center"])),
    extensions(("x-enterprise" = json!("orderCenter")))
)]
async fn get_finance_order(
    State(state): State<AppState>,
    principal: Principal,
    Path(order_id): Path<String>,
) -> ApiResult<OrderDetailBody> {
    let answer = state
        .finance()
        .get_order(state.as_user(&principal, pb::GetOrderRequest { order_id }))
        .await?
        .into_inner();
    Result::Ok(Ok(OrderDetailBody {
        order: answer.order.unwrap_or_default().into(),
        bill: answer.bill.map(Into::into),
    }))
}

/// One line of a new order.
#[derive(Debug, Default, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct OrderItemForm {
    pub name: String,
    pub sku: String,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub vehicle_id: String,
    pub plate_number: String,
}

/// A new order.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct OrderForm {
    pub org_id: String,
    pub kind: Option<OrderKind>,
    pub title: String,
    /// At least one.
    pub items: Vec<OrderItemForm>,
    pub coupon_id: String,
    pub contract_no: String,
    /// yyyy-MM-dd HH:mm:ss or RFC 3339; empty: 30 minutes.
    pub payment_deadline: String,
    pub remark: String,
}

#[utoipa::path(
    post, path = "/finance/orders", tag = "finance",
    params(("Idempotency-Key" = Option<String>, Header, description = "A replay answers the first order and places nothing")),
    request_body = OrderForm,
    responses((status = 200, description = "The new order, PENDING_PAYMENT, with its bill", body = Envelope<OrderDetailBody>)),
    security(("token" = ["as:order:center"])),
    extensions(("x-enterprise" = json!("orderCenter")))
)]
async fn create_finance_order(
    State(state): State<AppState>,
    principal: Principal,
    key: IdempotencyKey,
    TrimmedJson(form): TrimmedJson<OrderForm>,
) -> Result<OkWith<OrderDetailBody>, ApiError> {
    if form.items.is_empty() {
        return Err(ApiError::invalid("items", "请至少添加一个订单明细"));
    }
    let request = pb::CreateOrderRequest {
        payment_deadline: time_field("paymentDeadline", &form.payment_deadline)?,
        enterprise_id: String::new(),
        org_id: form.org_id,
        kind: form.kind.map_or(0, Into::into),
        title: form.title,
        items: form
            .items
            .into_iter()
            .map(|i| pb::OrderItem {
                amount_fen: i.unit_price_fen.saturating_mul(i64::from(i.quantity)),
                name: i.name,
                sku: i.sku,
                quantity: i.quantity,
                unit_price_fen: i.unit_price_fen,
                vehicle_id: i.vehicle_id,
                plate_number: i.plate_number,
            })
            .collect(),
        coupon_id: form.coupon_id,
        contract_no: form.contract_no,
        source_service: String::new(),
        source_id: String::new(),
        remark: form.remark,
    };
    let answer = state
        .finance()
        .create_order(state.as_user_once(&principal, &key, request)?)
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "订单已创建",
        data: OrderDetailBody {
            order: answer.order.unwrap_or_default().into(),
            bill: answer.bill.map(Into::into),
        },
    })
}

#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct CancelOrderForm {
    pub reason: String,
}

#[utoipa::path(
    post, path = "/finance/orders/{orderId}/cancel", tag = "finance",
    params(("orderId" = String, Path, description = "Order id")),
    request_body = CancelOrderForm,
    responses((status = 200, description = "PENDING_PAYMENT → CANCELLED with its bill, the coupon released; any other state is 4009", body = Envelope<OrderBody>)),
    security(("token" = ["as:order:center"])),
    extensions(("x-enterprise" = json!("orderCenter")))
)]
async fn cancel_finance_order(
    State(state): State<AppState>,
    principal: Principal,
    Path(order_id): Path<String>,
    TrimmedJson(form): TrimmedJson<CancelOrderForm>,
) -> Result<OkWith<OrderBody>, ApiError> {
    let request = pb::CancelOrderRequest {
        order_id,
        reason: form.reason,
    };
    let answer = state
        .finance()
        .cancel_order(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: "订单已取消",
        data: answer.order.unwrap_or_default().into(),
    })
}
