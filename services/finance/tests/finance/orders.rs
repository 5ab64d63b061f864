//! Orders over the real gRPC server: placed once per source with their
//! ORDER bill, the list's filters and reach, another tenant's order, and
//! cancelling only a PENDING_PAYMENT order, its bill with it.

use crate::support;

use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ErrorCode, db, idempotency};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::finance::v1 as pb;
use support::{Stack, Tenant, err, stack};
use uuid::Uuid;

fn order(
    t: &Tenant,
    org: Uuid,
    source_id: &str,
    plate: &str,
    quantity: i32,
) -> pb::CreateOrderRequest {
    pb::CreateOrderRequest {
        enterprise_id: t.enterprise.to_string(),
        org_id: org.to_string(),
        kind: pb::OrderKind::ValueAddedService as i32,
        title: "视频服务".into(),
        items: vec![
            pb::OrderItem {
                name: "视频流量包".into(),
                sku: "VID-10G".into(),
                quantity,
                unit_price_fen: 5_000,
                amount_fen: 0,
                vehicle_id: String::new(),
                plate_number: plate.into(),
            },
            pb::OrderItem {
                name: "安装服务".into(),
                sku: "SVC-INSTALL".into(),
                quantity: 1,
                unit_price_fen: 20_000,
                amount_fen: 20_000,
                vehicle_id: String::new(),
                plate_number: plate.into(),
            },
        ],
        coupon_id: String::new(),
        contract_no: "HT-2026-001".into(),
        source_service: if source_id.is_empty() {
            String::new()
        } else {
            "vehicle".into()
        },
        source_id: source_id.into(),
        payment_deadline: None,
        remark: String::new(),
    }
}

async fn create(
    s: &Stack,
    req: tonic::Request<pb::CreateOrderRequest>,
) -> Result<pb::CreateOrderResponse, tonic::Status> {
    s.client
        .clone()
        .create_order(req)
        .await
        .map(|r| r.into_inner())
}

#[tokio::test]
async fn an_order_is_placed_once_per_source_with_its_bill() {
    let s = stack().await;
    let a = &s.a;
    let placed = create(&s, s.service(order(a, a.shanghai, "rent-1", "粤B10001", 3)))
        .await
        .unwrap();
    let o = placed.order.unwrap();
    let bill = placed.bill.unwrap();
    assert_eq!(o.total_fen, 35_000);
    assert_eq!(o.payable_fen, 35_000);
    assert_eq!(o.status, pb::OrderStatus::PendingPayment as i32);
    assert_eq!(o.items[0].amount_fen, 15_000);
    assert_eq!(bill.kind, pb::BillKind::Order as i32);
    assert_eq!(bill.order_id, o.id);
    assert_eq!(bill.amount_fen, 35_000);
    assert_eq!(bill.lines.len(), 2);
    assert_eq!(bill.due_time, o.payment_deadline);

    let again = create(&s, s.service(order(a, a.shanghai, "rent-1", "粤B10001", 3)))
        .await
        .unwrap();
    assert_eq!(again.order.unwrap().id, o.id);
    assert_eq!(again.bill.unwrap().id, bill.id);
    let e = err(
        &create(&s, s.service(order(a, a.shanghai, "rent-1", "粤B10001", 4)))
            .await
            .unwrap_err(),
    );
    assert_eq!(e.code, ErrorCode::Conflict);

    // A user's order is keyed by its Idempotency-Key.
    let keyed = |key: &str| {
        let mut req = s.req(a, order(a, a.south, "", "粤B10002", 1));
        req.metadata_mut()
            .insert(idempotency::METADATA_KEY, key.parse().unwrap());
        req
    };
    let first = create(&s, keyed("order-key-1"))
        .await
        .unwrap()
        .order
        .unwrap();
    let repeat = create(&s, keyed("order-key-1"))
        .await
        .unwrap()
        .order
        .unwrap();
    assert_eq!(first.id, repeat.id);
    assert_eq!(first.source_service, "console");

    // The list: filters, reach and tenant.
    let list = |t: &Tenant, reach: ReachClaim, filter: pb::ListOrdersRequest| {
        let req = s.req_reaching(
            t,
            reach,
            pb::ListOrdersRequest {
                page: Some(common::PageRequest { page: 1, size: 20 }),
                ..filter
            },
        );
        let mut c = s.client.clone();
        async move { c.list_orders(req).await.unwrap().into_inner().orders }
    };
    let all = ReachClaim {
        all: true,
        ..ReachClaim::default()
    };
    assert_eq!(
        list(a, all.clone(), pb::ListOrdersRequest::default())
            .await
            .len(),
        2
    );
    let plates = list(
        a,
        all.clone(),
        pb::ListOrdersRequest {
            plate_numbers: vec!["粤B10001".into()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(plates.len(), 1);
    assert_eq!(plates[0].id, o.id);
    let east = list(
        a,
        all.clone(),
        pb::ListOrdersRequest {
            org_ids: vec![a.east.to_string()],
            ..Default::default()
        },
    )
    .await;
    assert_eq!(east.len(), 1);
    let south_only = ReachClaim {
        subtrees: vec![a.south],
        ..ReachClaim::default()
    };
    let seen = list(a, south_only, pb::ListOrdersRequest::default()).await;
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].id, first.id);
    assert!(
        list(&s.b, all, pb::ListOrdersRequest::default())
            .await
            .is_empty()
    );
    let e = err(&s
        .client
        .clone()
        .get_order(s.req(
            &s.b,
            pb::GetOrderRequest {
                order_id: o.id.clone(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);
}

#[tokio::test]
async fn only_a_pending_order_is_cancelled_and_its_bill_with_it() {
    let s = stack().await;
    let a = &s.a;
    let placed = create(&s, s.service(order(a, a.shanghai, "rent-2", "粤B10001", 1)))
        .await
        .unwrap();
    let o = placed.order.unwrap();
    let mut c = s.client.clone();
    let cancelled = c
        .cancel_order(s.req(
            a,
            pb::CancelOrderRequest {
                order_id: o.id.clone(),
                reason: "不需要了".into(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap();
    assert_eq!(cancelled.status, pb::OrderStatus::Cancelled as i32);
    assert_eq!(cancelled.cancel_reason, "不需要了");
    let detail = c
        .get_order(s.req(
            a,
            pb::GetOrderRequest {
                order_id: o.id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(
        detail.bill.unwrap().status,
        pb::BillStatus::Cancelled as i32
    );
    let e = err(&c
        .cancel_order(s.req(
            a,
            pb::CancelOrderRequest {
                order_id: o.id.clone(),
                reason: String::new(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);

    // A paid order is not cancelled either.
    let paid = create(&s, s.service(order(a, a.shanghai, "rent-3", "粤B10001", 1)))
        .await
        .unwrap()
        .order
        .unwrap();
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query("update enterprise_order set status = 2, paid_fen = total_fen, paid_at = now() where id = $1")
        .bind(Uuid::parse_str(&paid.id).unwrap())
        .execute(&mut *tx)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let e = err(&c
        .cancel_order(s.req(
            a,
            pb::CancelOrderRequest {
                order_id: paid.id.clone(),
                reason: String::new(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::Conflict);
    assert_eq!(e.fields[0].field, "orderId");
    // Another tenant's order is not found.
    let e = err(&c
        .cancel_order(s.req(
            &s.b,
            pb::CancelOrderRequest {
                order_id: paid.id.clone(),
                reason: String::new(),
            },
        ))
        .await
        .unwrap_err());
    assert_eq!(e.code, ErrorCode::NotFound);
}
