//! The order's pure rules and stored codes: a new order checked (items,
//! their amounts, its total and payment deadline), its repeat, and the one
//! transition built here (cancel).

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use crate::bills::domain::Source;
use crate::codes::stored_code;

stored_code! {
    OrderKind => pb::OrderKind {
        VehicleRent = 1,
        VehiclePurchase = 2,
        RentToOwn = 3,
        ChargingTopUp = 4,
        Insurance = 5,
        Maintenance = 6,
        ValueAddedService = 7,
        Other = 8,
    }
}

stored_code! {
    OrderStatus => pb::OrderStatus {
        PendingPayment = 1,
        Paid = 2,
        Fulfilling = 3,
        Completed = 4,
        Cancelled = 5,
        Refunding = 6,
        Refunded = 7,
    }
}

impl OrderKind {
    pub fn label(self) -> &'static str {
        match self {
            OrderKind::VehicleRent => "车辆租赁",
            OrderKind::VehiclePurchase => "车辆购买",
            OrderKind::RentToOwn => "以租代购",
            OrderKind::ChargingTopUp => "充电充值",
            OrderKind::Insurance => "保险",
            OrderKind::Maintenance => "维保",
            OrderKind::ValueAddedService => "增值服务",
            OrderKind::Other => "其他",
        }
    }
}

/// How long an order waits for payment when its caller names no deadline.
pub const DEFAULT_PAYMENT_MINUTES: i64 = 30;

/// One item of an order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Item {
    pub name: String,
    pub sku: String,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
}

/// An order to place, as its caller asks for it.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub org_id: Uuid,
    pub kind: OrderKind,
    pub title: String,
    pub items: Vec<Item>,
    pub contract_no: String,
    pub source: Source,
    pub payment_deadline: Option<DateTime<Utc>>,
    pub remark: String,
}

/// A new order that passed the rules.
#[derive(Debug, Clone)]
pub struct CheckedOrder {
    pub order: NewOrder,
    pub total_fen: i64,
    pub placed_at: DateTime<Utc>,
    pub payment_deadline: DateTime<Utc>,
}

impl NewOrder {
    /// Checks the order placed at `now`: a title, at least one item, each a
    /// positive quantity of a non-negative price (its amount, when given,
    /// their product), a deadline in the future.
    pub fn check(mut self, now: DateTime<Utc>) -> Result<CheckedOrder, ServiceError> {
        if self.title.trim().is_empty() {
            return Err(ServiceError::invalid("title", "请填写订单名称"));
        }
        if self.items.is_empty() {
            return Err(ServiceError::invalid("items", "订单至少需要一项商品"));
        }
        let mut total_fen: i64 = 0;
        for (i, item) in self.items.iter_mut().enumerate() {
            let field = |name: &str| format!("items[{i}].{name}");
            if item.name.trim().is_empty() {
                return Err(ServiceError::invalid(&field("name"), "请填写商品名称"));
            }
            if item.quantity <= 0 {
                return Err(ServiceError::invalid(&field("quantity"), "数量须大于 0"));
            }
            if item.unit_price_fen < 0 {
                return Err(ServiceError::invalid(
                    &field("unitPriceFen"),
                    "单价不能为负数",
                ));
            }
            let amount = i64::from(item.quantity)
                .checked_mul(item.unit_price_fen)
                .ok_or_else(|| ServiceError::invalid(&field("amountFen"), "金额过大"))?;
            if item.amount_fen != 0 && item.amount_fen != amount {
                return Err(ServiceError::invalid(
                    &field("amountFen"),
                    "金额须等于数量乘以单价",
                ));
            }
            item.amount_fen = amount;
            total_fen = total_fen
                .checked_add(amount)
                .ok_or_else(|| ServiceError::invalid(&field("amountFen"), "金额过大"))?;
        }
        let payment_deadline = self
            .payment_deadline
            .unwrap_or(now + Duration::minutes(DEFAULT_PAYMENT_MINUTES));
        if payment_deadline <= now {
            return Err(ServiceError::invalid(
                "paymentDeadline",
                "支付截止时间须晚于当前时间",
            ));
        }
        Ok(CheckedOrder {
            order: self,
            total_fen,
            placed_at: now,
            payment_deadline,
        })
    }
}

/// A repeated placement of a source is the first order when it asks for
/// the same kind and total; another is refused.
pub fn same_order(first: (i16, i64), again: &CheckedOrder) -> Result<(), ServiceError> {
    if first == (i16::from(again.order.kind), again.total_fen) {
        Ok(())
    } else {
        Err(ServiceError::taken(
            "sourceId",
            "该来源已下单，且内容与已有订单不一致",
        ))
    }
}

/// Only an order waiting for payment is cancelled.
pub fn cancellable(status: OrderStatus) -> Result<(), ServiceError> {
    match status {
        OrderStatus::PendingPayment => Ok(()),
        OrderStatus::Paid
        | OrderStatus::Fulfilling
        | OrderStatus::Completed
        | OrderStatus::Cancelled
        | OrderStatus::Refunding
        | OrderStatus::Refunded => Err(ServiceError::taken("orderId", "只有待支付的订单可以取消")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn order(items: Vec<Item>) -> NewOrder {
        NewOrder {
            org_id: Uuid::nil(),
            kind: OrderKind::ValueAddedService,
            title: "视频服务".into(),
            items,
            contract_no: String::new(),
            source: Source {
                service: "console".into(),
                id: "k1".into(),
            },
            payment_deadline: None,
            remark: String::new(),
        }
    }

    fn item(quantity: i32, unit: i64, amount: i64) -> Item {
        Item {
            name: "视频流量包".into(),
            sku: "VID-10G".into(),
            quantity,
            unit_price_fen: unit,
            amount_fen: amount,
            vehicle_id: None,
            plate_number: String::new(),
        }
    }

    #[test]
    fn the_total_sums_quantity_times_price_and_an_unset_amount_is_computed() {
        let checked = order(vec![item(3, 1000, 0), item(1, 500, 500)])
            .check(Utc::now())
            .unwrap();
        assert_eq!(checked.total_fen, 3500);
        assert_eq!(checked.order.items[0].amount_fen, 3000);
    }

    #[test]
    fn a_wrong_amount_no_items_or_a_past_deadline_is_refused() {
        assert!(order(vec![item(3, 1000, 2999)]).check(Utc::now()).is_err());
        assert!(order(vec![]).check(Utc::now()).is_err());
        let mut late = order(vec![item(1, 1, 1)]);
        late.payment_deadline = Some(Utc::now() - Duration::minutes(1));
        let err = late.check(Utc::now()).unwrap_err();
        assert_eq!(err.fields[0].field, "paymentDeadline");
    }

    #[test]
    fn only_pending_orders_are_cancelled() {
        assert!(cancellable(OrderStatus::PendingPayment).is_ok());
        for status in [
            OrderStatus::Paid,
            OrderStatus::Cancelled,
            OrderStatus::Completed,
        ] {
            assert!(cancellable(status).is_err());
        }
    }
}
