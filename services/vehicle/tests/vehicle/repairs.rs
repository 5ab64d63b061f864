//! Repair orders over the real vehicle service (MaintenanceService,
//! fleetdesk-maintenance::repairs) with NATS: from the order to the bill,
//! an approval above the threshold asked of org through the outbox and
//! org's decision (approved and rejected) coming back as ApprovalDecided,
//! illegal moves refused with nothing changed, and nothing of one tenant
//! or outside the caller's reach seen.

use crate::support;

use std::time::Duration;

use fleetdesk_kit::{ErrorCode, ServiceError, db, events, subjects};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::org::v1 as org;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_client::MaintenanceServiceClient;
use prost::Message;
use support::{Stack, Tenant};
use tonic::transport::Channel;
use uuid::Uuid;

const PERMS: &[&str] = &["as:maintain"];
/// The threshold the tests set: 1,000 yuan.
const THRESHOLD_FEN: i64 = 100_000;

fn client(s: &Stack) -> MaintenanceServiceClient<Channel> {
    MaintenanceServiceClient::new(s.channel.clone())
}

fn req<T>(s: &Stack, t: &Tenant, message: T) -> tonic::Request<T> {
    s.req_as(t, t.user, PERMS, message)
}

fn err(status: &tonic::Status) -> ServiceError {
    ServiceError::from_status(status)
}

/// A supplier of `t` and the threshold set; the supplier's id.
async fn configure(s: &Stack, t: &Tenant) -> String {
    client(s)
        .update_repair_approval_threshold(req(
            s,
            t,
            pb::UpdateRepairApprovalThresholdRequest {
                approval_threshold_fen: THRESHOLD_FEN,
            },
        ))
        .await
        .unwrap();
    client(s)
        .save_repair_supplier(req(
            s,
            t,
            pb::SaveRepairSupplierRequest {
                supplier: Some(pb::RepairSupplier {
                    org_id: t.org.to_string(),
                    name: "深圳市鹏程汽车维修有限公司".into(),
                    address: "深圳市南山区科技园".into(),
                    contact_name: "王师傅".into(),
                    contact_phone: "13800138000".into(),
                    enabled: true,
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .supplier
        .unwrap()
        .id
}

async fn create(s: &Stack, t: &Tenant, shop: &str, key: &str) -> pb::RepairOrder {
    let mut request = req(
        s,
        t,
        pb::CreateRepairOrderRequest {
            vehicle_id: t.vehicles[0].to_string(),
            kind: pb::RepairKind::Repair as i32,
            fault_description: "刹车异响".into(),
            odometer_m: 52_000_000,
            shop_id: shop.to_owned(),
            contact_name: "李四".into(),
            contact_phone: "13900139000".into(),
            ..Default::default()
        },
    );
    request
        .metadata_mut()
        .insert("idempotency-key", key.parse().unwrap());
    client(s)
        .create_repair_order(request)
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap()
}

fn line(
    name: &str,
    kind: pb::RepairItemKind,
    quantity: f64,
    unit_price_fen: i64,
) -> pb::RepairQuoteItem {
    pb::RepairQuoteItem {
        name: name.into(),
        kind: kind as i32,
        quantity,
        unit_price_fen,
        ..Default::default()
    }
}

async fn quote(
    s: &Stack,
    t: &Tenant,
    order: &str,
    items: Vec<pb::RepairQuoteItem>,
) -> pb::RepairOrder {
    client(s)
        .submit_repair_quote(req(
            s,
            t,
            pb::SubmitRepairQuoteRequest {
                repair_order_id: order.to_owned(),
                items,
                remark: String::new(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .order
        .unwrap()
}

async fn accept(
    s: &Stack,
    t: &Tenant,
    order: &pb::RepairOrder,
) -> Result<pb::RepairOrder, tonic::Status> {
    client(s)
        .confirm_repair_price(req(
            s,
            t,
            pb::ConfirmRepairPriceRequest {
                repair_order_id: order.id.clone(),
                accepted: true,
                expected_total_fen: order.quote_total_fen,
                reason: String::new(),
            },
        ))
        .await
        .map(|r| r.into_inner().order.unwrap())
}

async fn complete(s: &Stack, t: &Tenant, order: &str) -> Result<pb::RepairOrder, tonic::Status> {
    client(s)
        .complete_repair_order(req(
            s,
            t,
            pb::CompleteRepairOrderRequest {
                repair_order_id: order.to_owned(),
                completed_time: Some(fleetdesk_kit::convert::timestamp(chrono::Utc::now())),
                odometer_m: 52_010_000,
                remark: "已更换刹车片".into(),
                ..Default::default()
            },
        ))
        .await
        .map(|r| r.into_inner().order.unwrap())
}

async fn get(s: &Stack, t: &Tenant, order: &str) -> pb::GetRepairOrderResponse {
    client(s)
        .get_repair_order(req(
            s,
            t,
            pb::GetRepairOrderRequest {
                repair_order_id: order.to_owned(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
}

/// The events `subject` in the service's outbox, oldest first.
async fn outbox<E: Message + Default>(s: &Stack, subject: &str) -> Vec<E> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let rows: Vec<Vec<u8>> =
        sqlx::query_scalar("select payload from outbox where subject = $1 order by created_at")
            .bind(subject)
            .fetch_all(&mut *tx)
            .await
            .unwrap();
    rows.iter()
        .map(|p| E::decode(p.as_slice()).unwrap())
        .collect()
}

/// Org's decision on `order`'s approval, published as org does (through an outbox).
async fn decide(s: &Stack, t: &Tenant, order: &str, status: org::ApprovalStatus) {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    events::enqueue(
        &mut tx,
        subjects::ORG_APPROVAL_DECIDED,
        &org::ApprovalDecided {
            approval_id: Uuid::new_v4().to_string(),
            enterprise_id: t.enterprise.to_string(),
            kind: org::ApprovalKind::RepairPrice as i32,
            business_id: order.to_owned(),
            status: status as i32,
            operator_id: t.user.to_string(),
        },
    )
    .await
    .unwrap();
    tx.commit().await.unwrap();
}

/// Waits (up to 20 s) for `order` to reach `status`.
async fn until(
    s: &Stack,
    t: &Tenant,
    order: &str,
    status: pb::RepairOrderStatus,
) -> pb::RepairOrder {
    for _ in 0..200 {
        let found = get(s, t, order).await.order.unwrap();
        if found.status == status as i32 {
            return found;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("order {order} never reached {status:?}");
}

#[tokio::test]
async fn an_order_goes_from_quote_through_approval_to_the_bill() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let shop = configure(&s, &t).await;

    // Create is idempotent by key.
    let cheap = create(&s, &t, &shop, "repair-1").await;
    assert_eq!(create(&s, &t, &shop, "repair-1").await.id, cheap.id);
    assert_eq!(cheap.status, pb::RepairOrderStatus::AwaitingQuote as i32);
    assert!(cheap.order_no.starts_with("WX"));

    // At or below the threshold the price is confirmed at once; totals are the server's.
    let quoted = quote(
        &s,
        &t,
        &cheap.id,
        vec![
            line("刹车片", pb::RepairItemKind::Part, 2.0, 35_000),
            line("工时费", pb::RepairItemKind::Labour, 1.5, 8_000),
        ],
    )
    .await;
    assert_eq!(quoted.quote_total_fen, 82_000);
    assert_eq!(quoted.quote_items[1].amount_fen, 12_000);
    let confirmed = accept(&s, &t, &quoted).await.unwrap();
    assert_eq!(confirmed.status, pb::RepairOrderStatus::InRepair as i32);
    assert_eq!(confirmed.confirmed_total_fen, 82_000);
    let done = complete(&s, &t, &cheap.id).await.unwrap();
    assert_eq!(done.status, pb::RepairOrderStatus::Completed as i32);
    assert_eq!(done.final_total_fen, 82_000);
    assert!(!done.record_id.is_empty() && !done.statement_id.is_empty());

    // Above it an approval is asked of org, and its approval moves the order on.
    let dear = create(&s, &t, &shop, "repair-2").await;
    let quoted = quote(
        &s,
        &t,
        &dear.id,
        vec![line("变速箱总成", pb::RepairItemKind::Part, 1.0, 300_000)],
    )
    .await;
    let waiting = accept(&s, &t, &quoted).await.unwrap();
    assert_eq!(
        waiting.status,
        pb::RepairOrderStatus::AwaitingApproval as i32
    );
    let asked: Vec<org::ApprovalRequested> =
        outbox(&s, &subjects::approval_requested("vehicle")).await;
    assert_eq!(asked.len(), 1);
    assert_eq!(asked[0].kind, org::ApprovalKind::RepairPrice as i32);
    assert_eq!(asked[0].business_id, dear.id);
    assert_eq!(asked[0].enterprise_id, t.enterprise.to_string());
    assert!(
        asked[0].content.contains("3000.00元"),
        "{}",
        asked[0].content
    );
    decide(&s, &t, &dear.id, org::ApprovalStatus::Approved).await;
    let approved = until(&s, &t, &dear.id, pb::RepairOrderStatus::InRepair).await;
    assert_eq!(approved.confirmed_total_fen, 300_000);
    complete(&s, &t, &dear.id).await.unwrap();

    // Both completions are on the supplier's statement of the month.
    let statement = client(&s)
        .get_repair_statement(req(
            &s,
            &t,
            pb::GetRepairStatementRequest {
                statement_id: done.statement_id.clone(),
            },
        ))
        .await
        .unwrap()
        .into_inner();
    let head = statement.statement.unwrap();
    assert_eq!(head.order_count, 2);
    assert_eq!(head.total_fen, 382_000);
    assert_eq!(
        head.status,
        pb::RepairStatementStatus::PendingConfirmation as i32
    );
    assert_eq!(statement.orders.len(), 2);

    // A stale total is refused; the right one raises the bill and settles the orders.
    let stale = client(&s)
        .confirm_repair_statement(req(
            &s,
            &t,
            pb::ConfirmRepairStatementRequest {
                statement_id: head.id.clone(),
                accepted: true,
                expected_total_fen: 82_000,
                dispute_reason: String::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&stale).code, ErrorCode::Conflict);
    let billed = client(&s)
        .confirm_repair_statement(req(
            &s,
            &t,
            pb::ConfirmRepairStatementRequest {
                statement_id: head.id.clone(),
                accepted: true,
                expected_total_fen: 382_000,
                dispute_reason: String::new(),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .statement
        .unwrap();
    assert_eq!(billed.status, pb::RepairStatementStatus::Billed as i32);
    let bills = client(&s)
        .list_repair_bills(req(
            &s,
            &t,
            pb::ListRepairBillsRequest {
                page: Some(common::PageRequest { page: 1, size: 10 }),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(bills.bills.len(), 1);
    assert_eq!(bills.bills[0].id, billed.bill_id);
    assert_eq!(bills.total_outstanding_fen, 382_000);
    let issued: Vec<pb::RepairBillIssued> = outbox(&s, subjects::VEHICLE_REPAIR_BILL_ISSUED).await;
    assert_eq!(issued.len(), 1);
    assert_eq!(issued[0].amount_fen, 382_000);
    assert_eq!(issued[0].bill_id, billed.bill_id);
    let settled = get(&s, &t, &cheap.id).await;
    assert_eq!(
        settled.order.unwrap().status,
        pb::RepairOrderStatus::Settled as i32
    );
    assert!(settled.logs.len() >= 5, "{:?}", settled.logs);

    // The service is in the records, and the lists export.
    let records = client(&s)
        .list_repair_records(req(
            &s,
            &t,
            pb::ListRepairRecordsRequest {
                page: Some(common::PageRequest { page: 1, size: 10 }),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert_eq!(records.records.len(), 2);
    let job = client(&s)
        .export_repair_orders(req(
            &s,
            &t,
            pb::ExportRepairOrdersRequest {
                filter: Some(pb::ListRepairOrdersRequest::default()),
            },
        ))
        .await
        .unwrap()
        .into_inner()
        .job
        .unwrap();
    let rows = s.exported_rows(&job.id).await;
    assert_eq!(rows.len(), 3, "{rows:?}");
    assert_eq!(rows[0][0], "维修单号");
}

#[tokio::test]
async fn a_rejected_approval_sends_the_order_back_for_a_new_quote() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let shop = configure(&s, &t).await;
    let order = create(&s, &t, &shop, "repair-r").await;
    let quoted = quote(
        &s,
        &t,
        &order.id,
        vec![line("电池模组", pb::RepairItemKind::Part, 2.0, 150_000)],
    )
    .await;
    accept(&s, &t, &quoted).await.unwrap();
    decide(&s, &t, &order.id, org::ApprovalStatus::Rejected).await;
    let back = until(&s, &t, &order.id, pb::RepairOrderStatus::AwaitingQuote).await;
    assert_eq!(back.quote_reject_reason, "审批未通过");
    assert_eq!(back.confirmed_total_fen, 0);
    // A decision arriving for an order no longer awaiting it changes nothing.
    decide(&s, &t, &order.id, org::ApprovalStatus::Approved).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(
        get(&s, &t, &order.id).await.order.unwrap().status,
        pb::RepairOrderStatus::AwaitingQuote as i32
    );
    // A new quote asks for a new approval.
    let again = quote(
        &s,
        &t,
        &order.id,
        vec![line("电池模组", pb::RepairItemKind::Part, 1.0, 150_000)],
    )
    .await;
    accept(&s, &t, &again).await.unwrap();
    let asked: Vec<org::ApprovalRequested> =
        outbox(&s, &subjects::approval_requested("vehicle")).await;
    assert_eq!(asked.len(), 2);
    assert_ne!(asked[0].request_key, asked[1].request_key);
}

#[tokio::test]
async fn illegal_moves_answer_the_conflict_code_and_change_nothing() {
    let s = support::stack().await;
    let t = s.tenant(1).await;
    let shop = configure(&s, &t).await;
    let order = create(&s, &t, &shop, "repair-i").await;
    let before = get(&s, &t, &order.id).await;

    // Completing or confirming an order waiting for its quote.
    let refused = complete(&s, &t, &order.id).await.unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Conflict);
    let refused = accept(&s, &t, &order).await.unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Conflict);
    // Bad input names its field and changes nothing.
    let bad = client(&s)
        .submit_repair_quote(req(
            &s,
            &t,
            pb::SubmitRepairQuoteRequest {
                repair_order_id: order.id.clone(),
                items: vec![line("机油", pb::RepairItemKind::Material, 0.0, 100)],
                remark: String::new(),
            },
        ))
        .await
        .unwrap_err();
    let bad = err(&bad);
    assert_eq!(bad.code, ErrorCode::BadRequest);
    assert_eq!(bad.fields[0].field, "items");
    let after = get(&s, &t, &order.id).await;
    assert_eq!(after.order, before.order);
    assert_eq!(after.logs.len(), before.logs.len());

    // Cancelling once work has begun.
    let quoted = quote(
        &s,
        &t,
        &order.id,
        vec![line("机油", pb::RepairItemKind::Material, 4.0, 6_000)],
    )
    .await;
    accept(&s, &t, &quoted).await.unwrap();
    let refused = client(&s)
        .cancel_repair_order(req(
            &s,
            &t,
            pb::CancelRepairOrderRequest {
                repair_order_id: order.id.clone(),
                reason: "不修了".into(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Conflict);
    let refused = client(&s)
        .submit_repair_quote(req(
            &s,
            &t,
            pb::SubmitRepairQuoteRequest {
                repair_order_id: order.id.clone(),
                items: vec![line("机油", pb::RepairItemKind::Material, 1.0, 6_000)],
                remark: String::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&refused).code, ErrorCode::Conflict);
    assert_eq!(
        get(&s, &t, &order.id).await.order.unwrap().status,
        pb::RepairOrderStatus::InRepair as i32
    );
}

#[tokio::test]
async fn another_tenant_and_another_organisation_see_nothing() {
    let s = support::stack().await;
    let a = s.tenant(1).await;
    let b = s.tenant_with_plates(1, "粤C").await;
    let shop = configure(&s, &a).await;
    let order = create(&s, &a, &shop, "repair-t").await;

    let missing = client(&s)
        .get_repair_order(req(
            &s,
            &b,
            pb::GetRepairOrderRequest {
                repair_order_id: order.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
    // Another tenant's id is not found before its input is looked at.
    let missing = client(&s)
        .submit_repair_quote(req(
            &s,
            &b,
            pb::SubmitRepairQuoteRequest {
                repair_order_id: order.id.clone(),
                items: vec![],
                remark: String::new(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
    let missing = client(&s)
        .create_repair_order(req(
            &s,
            &b,
            pb::CreateRepairOrderRequest {
                vehicle_id: a.vehicles[0].to_string(),
                shop_id: shop.clone(),
                ..Default::default()
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
    let listed = client(&s)
        .list_repair_orders(req(
            &s,
            &b,
            pb::ListRepairOrdersRequest {
                page: Some(common::PageRequest { page: 1, size: 10 }),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.orders.is_empty());
    let config = client(&s)
        .get_repair_config(req(&s, &b, pb::GetRepairConfigRequest {}))
        .await
        .unwrap()
        .into_inner();
    assert!(config.suppliers.is_empty());

    // A member of A reaching only another organisation sees none of it.
    let elsewhere = Uuid::new_v4();
    let listed = client(&s)
        .list_repair_orders(s.req_reaching(
            &a,
            Uuid::new_v4(),
            PERMS,
            vec![elsewhere],
            pb::ListRepairOrdersRequest {
                page: Some(common::PageRequest { page: 1, size: 10 }),
                ..Default::default()
            },
        ))
        .await
        .unwrap()
        .into_inner();
    assert!(listed.orders.is_empty());
    let missing = client(&s)
        .get_repair_order(s.req_reaching(
            &a,
            Uuid::new_v4(),
            PERMS,
            vec![elsewhere],
            pb::GetRepairOrderRequest {
                repair_order_id: order.id.clone(),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
    // Such a member may send vehicles to the shop but not change it.
    let missing = client(&s)
        .save_repair_supplier(s.req_reaching(
            &a,
            Uuid::new_v4(),
            PERMS,
            vec![elsewhere],
            pb::SaveRepairSupplierRequest {
                supplier: Some(pb::RepairSupplier {
                    id: shop.clone(),
                    org_id: elsewhere.to_string(),
                    name: "改名".into(),
                    ..Default::default()
                }),
            },
        ))
        .await
        .unwrap_err();
    assert_eq!(err(&missing).code, ErrorCode::NotFound);
}
