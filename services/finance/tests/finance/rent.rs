//! Rent instalments from vehicle's usage records, over the real consumer
//! and the tick: a rental is billed for its elapsed months (the first one
//! prorated by days), once however often its event arrives; a new rent
//! applies to later instalments only, an older event changes nothing, an
//! ended lease gets its last days billed and then nothing more; another
//! tenant sees none of it.

use crate::support;

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_finance::bills::rent;
use fleetdesk_finance::calendar::{Month, day_of};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::events::{self, Outcome};
use fleetdesk_kit::{db, subjects};
use fleetdesk_proto::finance::v1 as pb;
use fleetdesk_proto::vehicle::v1 as vpb;
use support::{Stack, Tenant, stack};
use uuid::Uuid;

const PLATE: &str = "粤B R1234";

struct Rental {
    id: Uuid,
    vehicle: Uuid,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    rent_fen: i64,
    payment_day: i32,
}

fn changed(
    t: &Tenant,
    org: Uuid,
    r: &Rental,
    ended: Option<DateTime<Utc>>,
    at: DateTime<Utc>,
) -> vpb::UsageRecordChanged {
    vpb::UsageRecordChanged {
        record: Some(vpb::UsageRecord {
            id: r.id.to_string(),
            enterprise_id: t.enterprise.to_string(),
            org_id: org.to_string(),
            vehicle_id: r.vehicle.to_string(),
            plate_number: PLATE.to_owned(),
            kind: vpb::UsageKind::Rent as i32,
            status: vpb::UsageRecordStatus::Active as i32,
            contract_no: "ZL-2026-00001".to_owned(),
            start_time: Some(timestamp(r.start)),
            end_time: Some(timestamp(r.end)),
            details: Some(vpb::usage_record::Details::Rent(vpb::RentDetails {
                monthly_rent_fen: r.rent_fen,
                deposit_fen: 2 * r.rent_fen,
                term_months: 12,
                payment_day: r.payment_day,
                return_time: None,
            })),
            ..Default::default()
        }),
        ended_time: ended.map(timestamp),
        changed_time: Some(timestamp(at)),
    }
}

fn headers(id: Uuid) -> async_nats::HeaderMap {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(events::ID_HEADER, id.to_string().as_str());
    headers
}

/// Applies `event` through finance's consumer under a new event id.
async fn deliver(s: &Stack, event: &vpb::UsageRecordChanged) -> Uuid {
    let id = Uuid::new_v4();
    let outcome = consumer(s)
        .await
        .apply(Some(&headers(id)), &prost::Message::encode_to_vec(event))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Applied);
    id
}

async fn consumer(s: &Stack) -> events::Consumer<rent::ChangedRecords> {
    let nats = async_nats::connect(fleetdesk_testkit::nats_url())
        .await
        .unwrap();
    rent::consumer(s.owner.clone(), nats).await.unwrap()
}

/// `t`'s rent bills of record `record`, oldest period first.
async fn rent_bills(s: &Stack, t: &Tenant, record: Uuid) -> Vec<pb::Bill> {
    let mut bills: Vec<pb::Bill> = s
        .bills(t, pb::ListBillsRequest::default())
        .await
        .bills
        .into_iter()
        .filter(|b| b.source_service == "vehicle" && b.source_id.starts_with(&record.to_string()))
        .collect();
    bills.sort_by_key(|b| b.source_id.clone());
    bills
}

/// How many bills of record `record` the table holds, whoever's.
async fn count(s: &Stack, record: Uuid) -> i64 {
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    sqlx::query_scalar("select count(*) from bill where source_id like $1")
        .bind(format!("{record}:%"))
        .fetch_one(&mut *tx)
        .await
        .unwrap()
}

fn month_days(m: Month) -> i64 {
    (day_of(m.plus(1).start()) - day_of(m.start())).num_days()
}

fn period(b: &pb::Bill) -> Month {
    let p = b.period.unwrap();
    Month::new(p.year, p.month).unwrap()
}

/// `day` of month `m`, 10:00 Asia/Shanghai.
fn at_day(m: Month, day: i64) -> DateTime<Utc> {
    m.start() + chrono::Duration::days(day - 1) + chrono::Duration::hours(10)
}

#[tokio::test]
async fn a_rental_is_billed_once_for_its_elapsed_months_the_first_prorated() {
    let s = stack().await;
    let a = &s.a;
    let this = Month::of(Utc::now());
    let first = this.plus(-3);
    let r = Rental {
        id: Uuid::new_v4(),
        vehicle: Uuid::new_v4(),
        // From the 15th of three months ago, for a year.
        start: at_day(first, 15),
        end: at_day(first.plus(12), 15),
        rent_fen: 350_000,
        payment_day: 10,
    };
    let event = changed(a, a.south, &r, None, Utc::now());
    let id = Uuid::new_v4();
    s.publish(subjects::VEHICLE_USAGE_RECORD_CHANGED, id, &event)
        .await;
    for _ in 0..100 {
        if count(&s, r.id).await >= 3 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let bills = rent_bills(&s, a, r.id).await;
    assert_eq!(
        bills.iter().map(period).collect::<Vec<_>>(),
        [first, first.plus(1), first.plus(2)]
    );
    // 15th to the month's end: (days − 14) of its days, half a fen up.
    let md = month_days(first);
    let prorated = (350_000 * (md - 14) * 2 + md) / (2 * md);
    assert_eq!(
        bills.iter().map(|b| b.amount_fen).collect::<Vec<_>>(),
        [prorated, 350_000, 350_000]
    );
    let today = day_of(Utc::now());
    for b in &bills {
        assert_eq!(b.kind, pb::BillKind::Rent as i32);
        assert_eq!(b.status, pb::BillStatus::Unpaid as i32);
        assert_eq!(b.org_id, a.south.to_string());
        assert_eq!(b.lines.len(), 1);
        assert_eq!(b.lines[0].plate_number, PLATE);
        assert_eq!(b.lines[0].vehicle_id, r.vehicle.to_string());
        assert_eq!(b.lines[0].tax_rate_bp, 1300);
        // Due on the billing day of the month after, or today when that has passed.
        let m = period(b).plus(1);
        let billing_day = NaiveDate::from_ymd_opt(m.year(), m.to_pb().month as u32, 10).unwrap();
        let due = fleetdesk_kit::convert::datetime(b.due_time.as_ref().unwrap()).unwrap();
        assert_eq!(day_of(due), billing_day.max(today));
    }
    assert!(
        bills[0].lines[0]
            .description
            .contains(&format!("{}/{md} 天", md - 14))
    );
    // The line links the usage record.
    let mut tx = db::begin_service(&s.owner).await.unwrap();
    let links: Vec<(i16, String)> = sqlx::query_as(
        "select l.source_kind, l.source_id from bill_line l join bill b on b.id = l.bill_id \
         where b.source_id like $1",
    )
    .bind(format!("{}:%", r.id))
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    drop(tx);
    assert_eq!(links, vec![(1, r.id.to_string()); 3]);

    // Redelivered under its id (applied before), published again under a
    // new id (the schedule is billed up to date): still three bills.
    let outcome = consumer(&s)
        .await
        .apply(Some(&headers(id)), &prost::Message::encode_to_vec(&event))
        .await
        .unwrap();
    assert_eq!(outcome, Outcome::Duplicate);
    deliver(&s, &event).await;
    assert_eq!(count(&s, r.id).await, 3);
    // The tick of this moment finds nothing more to bill.
    assert_eq!(rent::tick(&s.owner, Utc::now()).await.unwrap(), 0);
    // Tenant B sees none of it.
    assert!(rent_bills(&s, &s.b, r.id).await.is_empty());
    assert!(
        s.bills(&s.b, pb::ListBillsRequest::default())
            .await
            .bills
            .is_empty()
    );
}

#[tokio::test]
async fn a_new_rent_bills_later_months_and_an_ended_lease_bills_its_last_days_then_nothing() {
    let s = stack().await;
    let a = &s.a;
    let this = Month::of(Utc::now());
    let mut r = Rental {
        id: Uuid::new_v4(),
        vehicle: Uuid::new_v4(),
        start: at_day(this.plus(-2), 1),
        end: at_day(this.plus(22), 1),
        rent_fen: 300_000,
        payment_day: 5,
    };
    let t0 = Utc::now();
    let v1 = changed(a, a.east, &r, None, t0);
    deliver(&s, &v1).await;
    let amounts = |bills: &[pb::Bill]| bills.iter().map(|b| b.amount_fen).collect::<Vec<_>>();
    assert_eq!(amounts(&rent_bills(&s, a, r.id).await), [300_000, 300_000]);

    // The rent goes up: nothing is billed again, the next month costs more.
    r.rent_fen = 360_000;
    deliver(
        &s,
        &changed(a, a.east, &r, None, t0 + chrono::Duration::seconds(1)),
    )
    .await;
    // The first state again (an older event arriving late) changes nothing.
    deliver(&s, &v1).await;
    assert_eq!(count(&s, r.id).await, 2);
    let next = this.plus(1).start() + chrono::Duration::hours(1);
    assert_eq!(rent::tick(&s.owner, next).await.unwrap(), 1);
    let bills = rent_bills(&s, a, r.id).await;
    assert_eq!(amounts(&bills), [300_000, 300_000, 360_000]);
    assert_eq!(period(&bills[2]), this);
    // A second tick of the same moment raises nothing.
    assert_eq!(rent::tick(&s.owner, next).await.unwrap(), 0);

    // Ended on the 11th of next month: its ten days are billed at once.
    let ended = this.plus(1).start() + chrono::Duration::days(10) + chrono::Duration::hours(3);
    deliver(
        &s,
        &changed(
            a,
            a.east,
            &r,
            Some(ended),
            t0 + chrono::Duration::seconds(2),
        ),
    )
    .await;
    let bills = rent_bills(&s, a, r.id).await;
    let md = month_days(this.plus(1));
    assert_eq!(bills.len(), 4);
    assert_eq!(period(&bills[3]), this.plus(1));
    assert_eq!(bills[3].amount_fen, (360_000 * 10 * 2 + md) / (2 * md));
    // And nothing after it, however late the tick.
    let later = this.plus(6).start() + chrono::Duration::hours(1);
    assert_eq!(rent::tick(&s.owner, later).await.unwrap(), 0);
    assert_eq!(count(&s, r.id).await, 4);
    assert!(rent_bills(&s, &s.b, r.id).await.is_empty());
}

#[tokio::test]
async fn other_kinds_of_usage_record_raise_no_bills() {
    let s = stack().await;
    let a = &s.a;
    let r = Rental {
        id: Uuid::new_v4(),
        vehicle: Uuid::new_v4(),
        start: at_day(Month::of(Utc::now()).plus(-4), 1),
        end: at_day(Month::of(Utc::now()).plus(8), 1),
        rent_fen: 300_000,
        payment_day: 5,
    };
    let mut event = changed(a, a.root, &r, None, Utc::now());
    if let Some(record) = event.record.as_mut() {
        record.kind = vpb::UsageKind::RentToOwn as i32;
        record.details = None;
    }
    deliver(&s, &event).await;
    assert_eq!(count(&s, r.id).await, 0);
}
