//! Bills raised from other domains' events, end to end over NATS: energy's
//! confirmed charging statement and vehicle's issued repair bill each
//! become one bill, however often the event arrives — under its own id
//! again (the consumer's `processed_event`), or re-published under a new id
//! (the bill's unique source).

use crate::support;

use std::time::Duration;

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::events::Outcome;
use fleetdesk_kit::{db, events, subjects};
use fleetdesk_proto::energy::v1::ReconciliationStatementConfirmed;
use fleetdesk_proto::finance::v1 as pb;
use fleetdesk_proto::vehicle::v1::RepairBillIssued;
use support::{Stack, Tenant, month, stack};
use uuid::Uuid;

/// Waits (up to 10 s) until `t` has a bill of `(service, source_id)`; the list's row.
async fn bill_of(s: &Stack, t: &Tenant, service: &str, source_id: &str) -> pb::Bill {
    for _ in 0..100 {
        if s.bills_of_source(t, service, source_id).await > 0 {
            let all = s.bills(t, pb::ListBillsRequest::default()).await;
            return all
                .bills
                .into_iter()
                .find(|b| b.source_service == service && b.source_id == source_id)
                .unwrap();
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("no bill of {service}/{source_id}");
}

fn headers(id: Uuid) -> async_nats::HeaderMap {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(events::ID_HEADER, id.to_string().as_str());
    headers
}

#[tokio::test]
async fn a_confirmed_charging_statement_becomes_one_charging_bill() {
    let s = stack().await;
    let a = &s.a;
    let statement = Uuid::new_v4().to_string();
    let event = ReconciliationStatementConfirmed {
        statement_id: statement.clone(),
        enterprise_id: a.enterprise.to_string(),
        statement_no: "CS202610-0001".into(),
        month: Some(month(2026, 10)),
        session_count: 42,
        energy_wh: 1_234_000,
        total_fen: 456_789,
        confirmed_by: "张三".into(),
        confirm_time: Some(timestamp(chrono::Utc::now())),
    };
    let first = Uuid::new_v4();
    s.publish(subjects::ENERGY_STATEMENT_CONFIRMED, first, &event)
        .await;
    let bill = bill_of(&s, a, "energy", &statement).await;
    assert_eq!(bill.kind, pb::BillKind::Charging as i32);
    assert_eq!(bill.status, pb::BillStatus::Unpaid as i32);
    assert_eq!(bill.amount_fen, 456_789);
    assert_eq!(bill.org_id, a.root.to_string());
    assert_eq!(bill.period, Some(month(2026, 10)));
    assert_eq!(bill.lines.len(), 1);
    assert_eq!(bill.lines[0].amount_fen, 456_789);
    assert!(bill.lines[0].description.contains("CS202610-0001"));

    // Published again under the same id (the stream drops it) and under a
    // new one (the source finds the first bill): still one bill.
    s.publish(subjects::ENERGY_STATEMENT_CONFIRMED, first, &event)
        .await;
    let republished = Uuid::new_v4();
    s.publish(subjects::ENERGY_STATEMENT_CONFIRMED, republished, &event)
        .await;
    fleetdesk_testkit::event_applied(&s.owner, republished).await;
    assert_eq!(s.bills_of_source(a, "energy", &statement).await, 1);

    // Redelivered by JetStream under its id: applied once already.
    let nats = async_nats::connect(fleetdesk_testkit::nats_url())
        .await
        .unwrap();
    let consumer = fleetdesk_finance::bills::raised::statements(s.owner.clone(), nats)
        .await
        .unwrap();
    let outcome = consumer
        .apply(
            Some(&headers(first)),
            &prost::Message::encode_to_vec(&event),
        )
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Duplicate);
    assert_eq!(s.bills_of_source(a, "energy", &statement).await, 1);
    // B sees none of it.
    assert!(
        s.bills(&s.b, pb::ListBillsRequest::default())
            .await
            .bills
            .is_empty()
    );
}

#[tokio::test]
async fn an_issued_repair_bill_becomes_one_repair_bill_linking_it() {
    let s = stack().await;
    let a = &s.a;
    let repair_bill = Uuid::new_v4().to_string();
    // Whole seconds: the database keeps microseconds.
    let due =
        chrono::DateTime::from_timestamp(chrono::Utc::now().timestamp() + 20 * 86_400, 0).unwrap();
    let event = RepairBillIssued {
        bill_id: repair_bill.clone(),
        enterprise_id: a.enterprise.to_string(),
        bill_no: "WX202610-0007".into(),
        statement_id: Uuid::new_v4().to_string(),
        statement_no: "WXD202610-0003".into(),
        shop_id: Uuid::new_v4().to_string(),
        shop_name: "深圳南山维修厂".into(),
        period: Some(month(2026, 10)),
        order_count: 3,
        amount_fen: 88_800,
        issued_time: Some(timestamp(chrono::Utc::now())),
        due_time: Some(timestamp(due)),
        org_id: a.south.to_string(),
    };
    let first = Uuid::new_v4();
    s.publish(subjects::VEHICLE_REPAIR_BILL_ISSUED, first, &event)
        .await;
    let bill = bill_of(&s, a, "vehicle", &repair_bill).await;
    assert_eq!(bill.kind, pb::BillKind::Repair as i32);
    assert_eq!(bill.org_id, a.south.to_string());
    assert_eq!(bill.org_name, "华南");
    assert_eq!(bill.amount_fen, 88_800);
    assert_eq!(bill.due_time, Some(timestamp(due)));
    assert!(bill.title.contains("深圳南山维修厂"));
    assert!(bill.lines[0].description.contains("WX202610-0007"));
    // The line links vehicle's repair bill.
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let (kind, source): (i16, String) =
        sqlx::query_as("select source_kind, source_id from bill_line where bill_id = $1")
            .bind(Uuid::parse_str(&bill.id).unwrap())
            .fetch_one(&mut *tx)
            .await
            .unwrap();
    drop(tx);
    assert_eq!((kind, source), (3, repair_bill.clone()));

    let republished = Uuid::new_v4();
    s.publish(subjects::VEHICLE_REPAIR_BILL_ISSUED, republished, &event)
        .await;
    fleetdesk_testkit::event_applied(&s.owner, republished).await;
    let nats = async_nats::connect(fleetdesk_testkit::nats_url())
        .await
        .unwrap();
    let consumer = fleetdesk_finance::bills::raised::repairs(s.owner.clone(), nats)
        .await
        .unwrap();
    let outcome = consumer
        .apply(
            Some(&headers(first)),
            &prost::Message::encode_to_vec(&event),
        )
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Duplicate);
    assert_eq!(s.bills_of_source(a, "vehicle", &repair_bill).await, 1);
}
