//! Charging top-up orders paid in finance reach energy as one
//! `ChargingTopUpPaid` in the outbox, written with the payment: from the
//! balance (a repeated PayBill, same key or another, writes none) and by
//! the bank's callback (replayed ten times: still one). Other orders turn
//! PAID without an event.

use crate::support;

use fleetdesk_bank_standin::Outcome;
use fleetdesk_kit::{db, subjects};
use fleetdesk_proto::finance::v1 as pb;
use prost::Message;
use support::bank::banked;
use support::{Stack, Tenant};

fn top_up_order(
    t: &Tenant,
    source_id: &str,
    kind: pb::OrderKind,
    fen: i64,
) -> pb::CreateOrderRequest {
    pb::CreateOrderRequest {
        enterprise_id: t.enterprise.to_string(),
        org_id: t.root.to_string(),
        kind: kind as i32,
        title: "充电充值".into(),
        items: vec![pb::OrderItem {
            name: "充电余额".into(),
            sku: "CHARGE-TOPUP".into(),
            quantity: 1,
            unit_price_fen: fen,
            amount_fen: fen,
            vehicle_id: String::new(),
            plate_number: String::new(),
        }],
        coupon_id: String::new(),
        contract_no: String::new(),
        source_service: "energy".into(),
        source_id: source_id.into(),
        payment_deadline: None,
        remark: String::new(),
    }
}

/// Places the order; its (order, ORDER bill).
async fn place(s: &Stack, req: pb::CreateOrderRequest) -> (pb::Order, pb::Bill) {
    let placed = s
        .client
        .clone()
        .create_order(s.service(req))
        .await
        .unwrap()
        .into_inner();
    (placed.order.unwrap(), placed.bill.unwrap())
}

async fn order(s: &Stack, t: &Tenant, id: &str) -> pb::Order {
    s.client
        .clone()
        .get_order(s.req(
            t,
            pb::GetOrderRequest {
                order_id: id.to_owned(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap()
}

/// Every ChargingTopUpPaid in finance's outbox.
async fn announced(s: &Stack) -> Vec<pb::ChargingTopUpPaid> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let payloads: Vec<Vec<u8>> =
        sqlx::query_scalar("select payload from outbox where subject = $1 order by created_at")
            .bind(subjects::FINANCE_CHARGING_TOP_UP_PAID)
            .fetch_all(&mut *tx)
            .await
            .unwrap();
    payloads
        .iter()
        .map(|p| pb::ChargingTopUpPaid::decode(p.as_slice()).unwrap())
        .collect()
}

#[tokio::test]
async fn a_top_up_paid_from_the_balance_is_announced_once() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let (o, bill) = place(
        s,
        top_up_order(a, "topup-1", pb::OrderKind::ChargingTopUp, 50_000),
    )
    .await;
    // Another kind of order is paid without an event.
    let (other, other_bill) = place(
        s,
        top_up_order(a, "video-1", pb::OrderKind::ValueAddedService, 7_000),
    )
    .await;
    s.top_up(a, 100_000).await;
    assert!(announced(s).await.is_empty());

    let req = s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "pay-topup-1");
    s.pay(a, req.clone()).await.unwrap();
    let events = announced(s).await;
    assert_eq!(events.len(), 1);
    let e = &events[0];
    assert_eq!(e.order_id, o.id);
    assert_eq!(e.order_no, o.order_no);
    assert_eq!(e.enterprise_id, a.enterprise.to_string());
    assert_eq!(e.amount_fen, 50_000);
    let paid = order(s, a, &o.id).await;
    assert_eq!(paid.status, pb::OrderStatus::Paid as i32);
    assert_eq!(e.paid_time, paid.paid_time);
    assert!(paid.paid_time.is_some());

    // The same call again (replayed) and another key on the paid bill
    // (refused): nothing more.
    s.pay(a, req).await.unwrap();
    assert!(
        s.pay(
            a,
            s.pay_request(&[&bill], pb::PaymentMethod::PrepaidBalance, "pay-topup-2"),
        )
        .await
        .is_err()
    );
    assert_eq!(announced(s).await.len(), 1);
    assert_eq!(s.balance(a).await, 50_000);

    s.pay(
        a,
        s.pay_request(
            &[&other_bill],
            pb::PaymentMethod::PrepaidBalance,
            "pay-video-1",
        ),
    )
    .await
    .unwrap();
    assert_eq!(
        order(s, a, &other.id).await.status,
        pb::OrderStatus::Paid as i32
    );
    assert_eq!(announced(s).await.len(), 1);
    s.books_hold().await;
}

#[tokio::test]
async fn a_top_up_paid_by_bank_is_announced_once_however_often_the_bank_calls() {
    let w = banked().await;
    let s = &w.s;
    let a = &s.a;
    let (o, bill) = place(
        s,
        top_up_order(a, "topup-bank", pb::OrderKind::ChargingTopUp, 80_000),
    )
    .await;
    let pending = s
        .pay(
            a,
            s.pay_request(&[&bill], pb::PaymentMethod::OnlineBanking, "bank-topup"),
        )
        .await
        .unwrap();
    assert_eq!(pending.status, pb::PaymentStatus::Pending as i32);
    assert!(announced(s).await.is_empty());
    assert_eq!(
        order(s, a, &o.id).await.status,
        pb::OrderStatus::PendingPayment as i32
    );

    w.bank
        .settle_order(&pending.transaction_no, Outcome::Success, None)
        .unwrap();
    let paid = s.settled_payment(a, &pending.id).await;
    assert_eq!(paid.status, pb::PaymentStatus::Succeeded as i32);
    let replayed = w.bank.replay(&pending.transaction_no, 10).await.unwrap();
    assert!(
        replayed.statuses.iter().all(|s| *s == Some(200)),
        "{replayed:?}"
    );
    let events = announced(s).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0].order_id, o.id);
    assert_eq!(events[0].amount_fen, 80_000);
    assert_eq!(
        order(s, a, &o.id).await.status,
        pb::OrderStatus::Paid as i32
    );
    // Tenant B has no order and no event of its own.
    assert!(
        events
            .iter()
            .all(|e| e.enterprise_id != s.b.enterprise.to_string())
    );
    s.books_hold().await;
}
