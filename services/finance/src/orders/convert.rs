//! Orders between the wire and the store: the list filter and a new order
//! checked, rows as proto messages, and an order's ORDER bill.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use super::domain::{CheckedOrder, Item, NewOrder, OrderKind, OrderStatus};
use super::store::{ItemRow, OrderQuery, OrderRow};
use crate::bills::domain::{BillKind, Channel, Line, LineSource, NewBill, Source};
use crate::calendar::Month;
use crate::filters;

/// The list's filter, checked (organisations not yet expanded).
pub fn query(r: &pb::ListOrdersRequest) -> Result<OrderQuery, ServiceError> {
    let pb::ListOrdersRequest {
        page: _,
        order_nos,
        org_ids,
        kinds,
        statuses,
        plate_numbers,
        contract_no,
        placed_time,
        paid_time,
    } = r;
    Ok(OrderQuery {
        order_nos: list::batch("orderNos", order_nos)?,
        org_ids: filters::ids("orgIds", org_ids, "组织编号无效")?,
        kinds: filters::codes("kinds", kinds, OrderKind::from_pb)?,
        statuses: filters::codes("statuses", statuses, OrderStatus::from_pb)?,
        plate_numbers: list::batch("plateNumbers", plate_numbers)?,
        contract_no: contract_no.clone(),
        placed: TimeRange::parse("placedTime", placed_time.as_ref())?,
        paid: TimeRange::parse("paidTime", paid_time.as_ref())?,
    })
}

/// A new order of a CreateOrder request; a caller naming no source is
/// keyed by `idempotency_key` (else the order is new every time).
pub fn new_order(
    r: pb::CreateOrderRequest,
    idempotency_key: Option<&str>,
) -> Result<NewOrder, ServiceError> {
    let pb::CreateOrderRequest {
        enterprise_id: _,
        org_id,
        kind,
        title,
        items,
        coupon_id,
        contract_no,
        source_service,
        source_id,
        payment_deadline,
        remark,
    } = r;
    if !coupon_id.trim().is_empty() {
        return Err(ServiceError::invalid("couponId", "优惠券暂不可用于下单"));
    }
    let kind =
        OrderKind::from_pb(kind).ok_or_else(|| ServiceError::invalid("kind", "请选择订单类型"))?;
    let org_id = Uuid::parse_str(org_id.trim())
        .map_err(|_| ServiceError::invalid("orgId", "请指定所属组织"))?;
    let source = match (source_service.trim(), source_id.trim(), idempotency_key) {
        ("", "", Some(key)) => Source {
            service: "console".to_owned(),
            id: key.to_owned(),
        },
        ("", "", None) => Source {
            service: "console".to_owned(),
            id: Uuid::new_v4().to_string(),
        },
        ("", _, _) | (_, "", _) => {
            return Err(ServiceError::invalid(
                "sourceId",
                "请同时指定订单来源服务和来源编号",
            ));
        }
        (service, id, _) => Source {
            service: service.to_owned(),
            id: id.to_owned(),
        },
    };
    let items = items
        .into_iter()
        .enumerate()
        .map(|(i, item)| {
            let pb::OrderItem {
                name,
                sku,
                quantity,
                unit_price_fen,
                amount_fen,
                vehicle_id,
                plate_number,
            } = item;
            let vehicle_id = match vehicle_id.trim() {
                "" => None,
                v => Some(Uuid::parse_str(v).map_err(|_| {
                    ServiceError::invalid(&format!("items[{i}].vehicleId"), "车辆编号无效")
                })?),
            };
            Ok(Item {
                name,
                sku,
                quantity,
                unit_price_fen,
                amount_fen,
                vehicle_id,
                plate_number,
            })
        })
        .collect::<Result<_, ServiceError>>()?;
    Ok(NewOrder {
        org_id,
        kind,
        title,
        items,
        contract_no,
        source,
        payment_deadline: payment_deadline.as_ref().and_then(datetime),
        remark,
    })
}

/// The ORDER bill that carries order `id`'s payment: one line per item,
/// due at the payment deadline, of the month the order was placed.
pub fn order_bill(id: Uuid, order_no: &str, checked: &CheckedOrder) -> NewBill {
    let order = &checked.order;
    NewBill {
        org_id: order.org_id,
        channel: Channel::Standard,
        kind: BillKind::Order,
        title: format!("订单 {order_no}：{}", order.title.trim()),
        period: Month::of(checked.placed_at),
        order_id: Some(id),
        lines: order
            .items
            .iter()
            .map(|item| Line {
                description: item.name.clone(),
                vehicle_id: item.vehicle_id,
                plate_number: item.plate_number.clone(),
                period_start: None,
                period_end: None,
                quantity: item.quantity,
                unit_price_fen: item.unit_price_fen,
                amount_fen: item.amount_fen,
                tax_rate_bp: 0,
                source: LineSource::Order,
                source_id: id.to_string(),
            })
            .collect(),
        discount_fen: 0,
        due_time: Some(checked.payment_deadline),
        requires_confirmation: false,
        source: Source {
            service: "finance".to_owned(),
            id: format!("order:{id}"),
        },
        attachments: serde_json::json!([]),
        remark: String::new(),
    }
}

fn item_pb(i: ItemRow) -> pb::OrderItem {
    let ItemRow {
        order_id: _,
        name,
        sku,
        quantity,
        unit_price_fen,
        amount_fen,
        vehicle_id,
        plate_number,
    } = i;
    pb::OrderItem {
        name,
        sku,
        quantity,
        unit_price_fen,
        amount_fen,
        vehicle_id: vehicle_id.map(|v| v.to_string()).unwrap_or_default(),
        plate_number,
    }
}

/// An order with its items (those of `items` that are its own).
pub fn order(row: OrderRow, items: &mut Vec<ItemRow>) -> Result<pb::Order, ServiceError> {
    let OrderRow {
        id,
        enterprise_id,
        org_id,
        org_name,
        order_no,
        kind,
        status,
        title,
        total_fen,
        discount_fen,
        payable_fen,
        paid_fen,
        refunded_fen,
        coupon_id,
        contract_no,
        source_service,
        source_id,
        placed_by_name,
        placed_at,
        paid_at,
        completed_at,
        payment_deadline,
        cancel_reason,
        remark,
        created_at,
        updated_by_name,
        updated_at,
    } = row;
    let (own, rest): (Vec<ItemRow>, Vec<ItemRow>) = std::mem::take(items)
        .into_iter()
        .partition(|i| i.order_id == id);
    *items = rest;
    Ok(pb::Order {
        id: id.to_string(),
        order_no,
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.to_string(),
        org_name,
        kind: known::<OrderKind>(kind)?.pb(),
        status: known::<OrderStatus>(status)?.pb(),
        title,
        items: own.into_iter().map(item_pb).collect(),
        total_fen,
        discount_fen,
        coupon_id: coupon_id.map(|c| c.to_string()).unwrap_or_default(),
        payable_fen,
        paid_fen,
        refunded_fen,
        contract_no,
        source_service,
        source_id,
        placed_by: placed_by_name.clone(),
        placed_time: Some(timestamp(placed_at)),
        paid_time: paid_at.map(timestamp),
        complete_time: completed_at.map(timestamp),
        payment_deadline: Some(timestamp(payment_deadline)),
        cancel_reason,
        remark,
        audit: Some(common::Audit {
            created_by: placed_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    })
}
