//! Top-ups paid in finance (`ChargingTopUpPaid` over NATS) reach the
//! charging main account once per order: the same event redelivered and
//! the order announced again under a new id add the amount once, another
//! tenant is untouched, and an enterprise not yet opened finds the money
//! on MAIN when the operator opens it.

use crate::support;

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::events::Outcome;
use fleetdesk_kit::{db, events, subjects};
use fleetdesk_proto::energy::v1 as pb;
use fleetdesk_proto::finance::v1::ChargingTopUpPaid;
use prost::Message;
use support::{Stack, Tenant, stack};
use uuid::Uuid;

/// Publishes `event` as finance's outbox relay does (id and source headers).
async fn publish(s: &Stack, id: Uuid, event: &ChargingTopUpPaid) {
    let nats = async_nats::connect(fleetdesk_testkit::nats_url())
        .await
        .unwrap();
    let js = events::jetstream(nats);
    events::ensure_event_stream(&js).await.unwrap();
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(events::ID_HEADER, id.to_string().as_str());
    let source = events::source_of(&s.owner).await.unwrap();
    headers.insert(events::SOURCE_HEADER, source.as_str());
    js.publish_with_headers(
        subjects::FINANCE_CHARGING_TOP_UP_PAID,
        headers,
        event.encode_to_vec().into(),
    )
    .await
    .unwrap()
    .await
    .unwrap();
}

fn paid(t: &Tenant, order_id: Uuid, fen: i64) -> ChargingTopUpPaid {
    ChargingTopUpPaid {
        order_id: order_id.to_string(),
        enterprise_id: t.enterprise.to_string(),
        order_no: "DD20261129-0A1B2C3D".into(),
        amount_fen: fen,
        paid_time: Some(timestamp(chrono::Utc::now())),
    }
}

/// `t`'s top-up transfers: (amount onto MAIN, memo).
async fn top_ups(s: &Stack, t: &Tenant) -> Vec<(i64, String)> {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query_as(
        "select e.amount_fen, tr.memo from ledger_transfer tr \
         join ledger_entry e on e.transfer_id = tr.id \
         join ledger_account a on a.id = e.account_id \
         where tr.enterprise_id = $1 and tr.kind = 1 and a.kind = 1",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await
    .unwrap()
}

#[tokio::test]
async fn a_paid_top_up_reaches_the_main_account_once() {
    let s = stack(true).await;
    let (a, b) = (&s.a, &s.b);
    let before_b = s.account_of(b, b.root).await.available_fen;
    assert_eq!(s.account_of(a, a.root).await.available_fen, 0);
    let order = Uuid::new_v4();
    let event = paid(a, order, 123_456);

    let first = Uuid::new_v4();
    publish(&s, first, &event).await;
    fleetdesk_testkit::event_applied(&s.owner, first).await;
    assert_eq!(s.account_of(a, a.root).await.available_fen, 123_456);

    // Published again under its id, and the order announced again under a
    // new one: the order's transfer key keeps it to one top-up.
    publish(&s, first, &event).await;
    let again = Uuid::new_v4();
    publish(&s, again, &event).await;
    fleetdesk_testkit::event_applied(&s.owner, again).await;
    // JetStream redelivering the first id: applied once already.
    let nats = async_nats::connect(fleetdesk_testkit::nats_url())
        .await
        .unwrap();
    let consumer = fleetdesk_energy::top_ups::consumer(s.owner.clone(), nats)
        .await
        .unwrap();
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(events::ID_HEADER, first.to_string().as_str());
    let outcome = consumer
        .apply(Some(&headers), &event.encode_to_vec())
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Duplicate);

    assert_eq!(s.account_of(a, a.root).await.available_fen, 123_456);
    assert_eq!(
        top_ups(&s, a).await,
        vec![(123_456, "充电充值 订单 DD20261129-0A1B2C3D".to_owned())]
    );
    // The same order with another amount moves nothing.
    let changed = Uuid::new_v4();
    publish(&s, changed, &paid(a, order, 999)).await;
    fleetdesk_testkit::event_applied(&s.owner, changed).await;
    assert_eq!(s.account_of(a, a.root).await.available_fen, 123_456);

    // B is untouched.
    assert_eq!(s.account_of(b, b.root).await.available_fen, before_b);
    assert!(top_ups(&s, b).await.is_empty());
    for (balance, entries) in s.books(a).await {
        assert_eq!(balance, entries);
    }
}

#[tokio::test]
async fn a_top_up_before_opening_is_on_main_when_charging_opens() {
    let s = stack(false).await;
    let a = &s.a;
    let id = Uuid::new_v4();
    publish(&s, id, &paid(a, Uuid::new_v4(), 40_000)).await;
    fleetdesk_testkit::event_applied(&s.owner, id).await;
    // Not opened: still no accounts to list.
    let listed = s
        .client
        .clone()
        .list_charging_accounts(s.req(a, pb::ListChargingAccountsRequest::default()))
        .await;
    assert_eq!(listed.unwrap_err().code(), tonic::Code::FailedPrecondition);
    let main = s.open(a).await;
    assert_eq!(main.available_fen, 40_000);
    assert_eq!(s.account_of(a, a.root).await.available_fen, 40_000);
}
