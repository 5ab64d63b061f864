//! A telemetry batch with one fix the pipeline cannot store: the fix is
//! parked in the dead-letter table and the rest of its batch is stored, so
//! history goes on; after the cause is gone a replay stores it once. A
//! transient failure parks nothing and the batch comes back whole.
//!
//! The failures are real Postgres errors: a trigger on the test database's
//! history table refuses fixes marked by their altitude.

use crate::support;

use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::events;
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_telemetry::ingest::{self, dead_letter};
use fleetdesk_testkit::metric;
use prost::Message as _;
use support::{Stack, Tenant, stack};
use uuid::Uuid;

/// Altitudes the trigger refuses: as the fix's own fault, and as a
/// serialization failure (a moment's, not the fix's).
const POISONED: i32 = 4242;
const CONTENDED: i32 = 4343;
/// Refused as the fix's fault, but every fix of the batch is: ingest is
/// broken (a bad release), not the fixes.
const ALL_REFUSED: i32 = 4444;

async fn refuse_marked_fixes(s: &Stack) {
    sqlx::query(
        "create function refuse_marked_fix() returns trigger language plpgsql as $$ \
         begin \
           if new.altitude_m = 4242 then \
             raise exception 'marked fix refused'; \
           elsif new.altitude_m = 4343 then \
             raise exception 'marked fix contended' using errcode = 'serialization_failure'; \
           elsif new.altitude_m = 4444 then \
             raise exception 'ingest broken'; \
           end if; \
           return new; \
         end $$",
    )
    .execute(&s.owner)
    .await
    .unwrap();
    sqlx::query(
        "create trigger refuse_marked_fix after insert on position \
         for each row execute function refuse_marked_fix()",
    )
    .execute(&s.owner)
    .await
    .unwrap();
}

async fn accept_all_fixes(s: &Stack) {
    sqlx::query("drop trigger refuse_marked_fix on position")
        .execute(&s.owner)
        .await
        .unwrap();
}

fn fix(t: &Tenant, vehicle: Uuid, at: DateTime<Utc>, altitude_m: i32) -> pb::Fix {
    pb::Fix {
        terminal: format!("t-{vehicle}"),
        enterprise_id: t.enterprise.to_string(),
        vehicle_id: vehicle.to_string(),
        fix_time: Some(timestamp(at)),
        receive_time: Some(timestamp(at)),
        latitude: 22.54,
        longitude: 114.05,
        altitude_m,
        speed_dkmh: 300,
        ..Default::default()
    }
}

fn subject(f: &pb::Fix) -> String {
    format!("telemetry.{}.{}", f.enterprise_id, f.vehicle_id)
}

/// Publishes fixes as the edge does, back to back (one batch for ingest).
async fn publish(s: &Stack, fixes: &[pb::Fix]) {
    let js = events::jetstream(async_nats::connect(s.nats.url()).await.unwrap());
    let mut acks = Vec::new();
    for f in fixes {
        let mut headers = async_nats::HeaderMap::new();
        let at = f.fix_time.as_ref().unwrap();
        headers.insert(
            "Nats-Msg-Id",
            format!("{}:{}:{}", f.terminal, at.seconds, at.nanos).as_str(),
        );
        acks.push(
            js.publish_with_headers(subject(f), headers, f.encode_to_vec().into())
                .await
                .unwrap(),
        );
    }
    for ack in acks {
        ack.await.unwrap();
    }
}

async fn eventually<F, Fut>(within: Duration, mut check: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + within;
    while tokio::time::Instant::now() < deadline {
        if check().await {
            return true;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    check().await
}

async fn parked(s: &Stack) -> Vec<dead_letter::DeadLetter> {
    dead_letter::list(&s.owner, 100).await.unwrap()
}

async fn history(s: &Stack, vehicle: Uuid) -> Vec<DateTime<Utc>> {
    sqlx::query_scalar("select fix_time from position where vehicle_id = $1 order by fix_time")
        .bind(vehicle)
        .fetch_all(&s.owner)
        .await
        .unwrap()
}

async fn latest(s: &Stack, vehicle: Uuid) -> Option<DateTime<Utc>> {
    sqlx::query_scalar("select fix_time from latest_position where vehicle_id = $1")
        .bind(vehicle)
        .fetch_optional(&s.owner)
        .await
        .unwrap()
}

/// A time the database keeps exactly (it keeps microseconds).
fn whole_seconds_ago(seconds: i64) -> DateTime<Utc> {
    DateTime::from_timestamp(Utc::now().timestamp() - seconds, 0).unwrap()
}

#[tokio::test]
async fn a_fix_that_fails_the_pipeline_is_parked_while_its_batch_is_stored_and_replayed_after_a_fix()
 {
    metric("telemetry_fixes_parked_total");
    let s = stack().await;
    let t = s.tenant(3).await;
    refuse_marked_fixes(&s).await;
    let base = whole_seconds_ago(600);
    let at = |i: i64| base + chrono::Duration::seconds(10 * i);
    // Four fixes of each vehicle, interleaved; the first vehicle's newest
    // is the poisoned one, in the middle of the batch.
    let mut batch = Vec::new();
    for i in 0..4 {
        for (n, vehicle) in t.vehicles.iter().enumerate() {
            let altitude = if n == 0 && i == 3 { POISONED } else { 10 };
            batch.push(fix(&t, *vehicle, at(i), altitude));
        }
    }
    let poisoned = batch.iter().position(|f| f.altitude_m == POISONED).unwrap();
    batch.swap(poisoned, 5);
    publish(&s, &batch).await;

    assert!(
        eventually(Duration::from_secs(20), || async {
            parked(&s).await.len() == 1
        })
        .await,
        "the poisoned fix was not parked"
    );
    let everything_else = eventually(Duration::from_secs(10), || async {
        let mut stored = 0;
        for v in &t.vehicles {
            stored += history(&s, *v).await.len();
        }
        stored == 11
    })
    .await;
    assert!(everything_else, "the rest of the batch was not stored");
    let rows = parked(&s).await;
    let row = &rows[0];
    assert_eq!(row.subject, subject(&batch[5]));
    assert_eq!(row.payload, batch[5].encode_to_vec());
    assert!(row.stream_sequence > 0);
    assert!(
        row.error.contains("marked fix refused") && row.error.contains("P0001"),
        "the error names the cause: {}",
        row.error
    );
    assert_eq!(row.attempts, 1);
    assert_eq!(history(&s, t.vehicles[0]).await, [at(0), at(1), at(2)]);
    // The latest positions moved on: the others to their newest fix, the
    // first vehicle to its newest one that stored.
    assert_eq!(latest(&s, t.vehicles[0]).await, Some(at(2)));
    for v in &t.vehicles[1..] {
        assert_eq!(latest(&s, *v).await, Some(at(3)));
    }
    // Counted after the row commits: read once they are.
    let counted = eventually(Duration::from_secs(5), || async {
        metric("telemetry_fixes_parked_total") == 1.0 && metric("telemetry_dead_letters") == 1.0
    })
    .await;
    assert!(counted, "parked fixes are not in /metrics");

    // A replay while the cause is still there keeps it, one attempt more.
    let again = dead_letter::replay(&s.app, &[]).await.unwrap();
    assert_eq!((again.stored, again.failing, again.remaining), (0, 1, 1));
    assert_eq!(parked(&s).await[0].attempts, 2);

    accept_all_fixes(&s).await;
    let replayed = dead_letter::replay(&s.app, &[]).await.unwrap();
    assert_eq!(
        (replayed.stored, replayed.failing, replayed.remaining),
        (1, 0, 0)
    );
    assert!(parked(&s).await.is_empty());
    assert_eq!(
        history(&s, t.vehicles[0]).await,
        [0, 1, 2, 3].map(at),
        "stored once"
    );
    assert_eq!(latest(&s, t.vehicles[0]).await, Some(at(3)));
    assert_eq!(metric("telemetry_dead_letters"), 0.0);
    let nothing = dead_letter::replay(&s.app, &[]).await.unwrap();
    assert_eq!(nothing, dead_letter::Replayed::default());
}

/// Whether ingest's consumer has messages delivered again: a batch failed
/// and acked nothing.
async fn redelivered(s: &Stack) -> bool {
    let js = events::jetstream(async_nats::connect(s.nats.url()).await.unwrap());
    let stream = ingest::ensure_stream(&js).await.unwrap();
    let database: String = sqlx::query_scalar("select current_database()::text")
        .fetch_one(&s.owner)
        .await
        .unwrap();
    let durable = ingest::consumer::durable_name(&database);
    eventually(Duration::from_secs(10), || {
        let stream = stream.clone();
        let durable = durable.clone();
        async move {
            let info = stream.consumer_info(&durable).await.unwrap();
            info.num_redelivered > 0
        }
    })
    .await
}

#[tokio::test]
async fn a_transient_failure_parks_nothing_and_the_batch_comes_back_whole() {
    let s = stack().await;
    let t = s.tenant(1).await;
    let vehicle = t.vehicles[0];
    refuse_marked_fixes(&s).await;
    let base = whole_seconds_ago(600);
    let at = |i: i64| base + chrono::Duration::seconds(10 * i);
    let batch: Vec<pb::Fix> = (0..4)
        .map(|i| fix(&t, vehicle, at(i), if i == 1 { CONTENDED } else { 10 }))
        .collect();
    publish(&s, &batch).await;

    assert!(redelivered(&s).await, "the failed batch was acked");
    assert!(
        parked(&s).await.is_empty(),
        "a transient failure parked a fix"
    );
    assert!(
        !history(&s, vehicle).await.contains(&at(1)),
        "the contended fix cannot be stored yet"
    );

    // The moment passes: the redelivered batch stores every fix.
    accept_all_fixes(&s).await;
    let all = eventually(Duration::from_secs(10), || async {
        history(&s, vehicle).await.len() == 4
    })
    .await;
    assert!(all, "the batch was not stored after the failure passed");
    assert!(parked(&s).await.is_empty());
}

#[tokio::test]
async fn a_batch_whose_every_fix_fails_parks_nothing_while_nothing_else_stores() {
    let s = stack().await;
    let t = s.tenant(2).await;
    refuse_marked_fixes(&s).await;
    let base = whole_seconds_ago(600);
    let at = |i: i64| base + chrono::Duration::seconds(10 * i);
    let batch: Vec<pb::Fix> = (0..3)
        .flat_map(|i| t.vehicles.iter().map(move |v| (i, *v)))
        .map(|(i, v)| fix(&t, v, at(i), ALL_REFUSED))
        .collect();
    publish(&s, &batch).await;

    assert!(redelivered(&s).await, "the failed batch was acked");
    assert!(parked(&s).await.is_empty(), "a broken ingest parked fixes");

    accept_all_fixes(&s).await;
    let all = eventually(Duration::from_secs(10), || async {
        history(&s, t.vehicles[0]).await.len() + history(&s, t.vehicles[1]).await.len() == 6
    })
    .await;
    assert!(all, "the batch was not stored once ingest works again");
    assert!(parked(&s).await.is_empty());
}
