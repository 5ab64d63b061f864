//! An event consumer created after its events were published (a service
//! deployed late, or one whose consumer the server removed) still applies
//! every event of its deployment once, and none of another deployment's
//! older events is replayed to it; restarted, it applies none twice.
//! Real PostgreSQL and a private JetStream server.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use async_nats::jetstream;
use fleetdesk_kit::events::{
    self, Consumer, EPOCH_MARGIN, EVENT_STREAM, Handler, ID_HEADER, OutboxRelay, SOURCE_HEADER,
};
use fleetdesk_kit::{Shutdown, db};
use fleetdesk_proto::org::v1::PrincipalChanged;
use fleetdesk_testkit::{NatsServer, TestDb};
use sqlx::migrate::Migrator;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

const SUBJECT: &str = "fleetdesk.test.principal.changed";
const SCHEMA: &str = "late_consumer_test";

/// Records each applied event as a row and counts the handler's calls.
#[derive(Clone, Default)]
struct Recorder {
    calls: Arc<AtomicUsize>,
}

impl Handler for Recorder {
    type Event = PrincipalChanged;

    async fn handle(&self, tx: &mut PgConnection, event: PrincipalChanged) -> anyhow::Result<()> {
        self.calls.fetch_add(1, Ordering::SeqCst);
        sqlx::query("insert into effect (label) values ($1)")
            .bind(&event.enterprise_id)
            .execute(&mut *tx)
            .await?;
        Ok(())
    }
}

async fn schema(db: &TestDb) -> (PgPool, PgPool) {
    let owner = db::connect_owner(&db.url, SCHEMA, 4).await.unwrap();
    db::migrate(&owner, &Migrator::DEFAULT).await.unwrap();
    sqlx::raw_sql(
        "create table effect (id serial primary key, label text not null); \
         grant select, insert on effect to fleetdesk_app; \
         grant usage on sequence effect_id_seq to fleetdesk_app",
    )
    .execute(&owner)
    .await
    .unwrap();
    let app = db::connect(&db.url, SCHEMA, 4).await.unwrap();
    (owner, app)
}

fn event(label: &str) -> PrincipalChanged {
    PrincipalChanged {
        enterprise_id: label.to_owned(),
        user_ids: Vec::new(),
    }
}

/// Writes the events through the outbox and relays them all to the stream.
async fn publish(owner: &PgPool, relay: &OutboxRelay, labels: &[&str]) {
    let mut tx = owner.begin().await.unwrap();
    for label in labels {
        events::enqueue(&mut tx, SUBJECT, &event(label))
            .await
            .unwrap();
    }
    tx.commit().await.unwrap();
    while relay.publish_batch().await.unwrap() > 0 {}
    let unsent: i64 = sqlx::query_scalar("select count(*) from outbox where sent_at is null")
        .fetch_one(owner)
        .await
        .unwrap();
    assert_eq!(unsent, 0);
}

/// The labels applied, sorted (one transaction's events share a time, so
/// the relay publishes them in no particular order).
async fn effects(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("select label from effect order by label")
        .fetch_all(pool)
        .await
        .unwrap()
}

/// Runs a new consumer named "late" until every message it was given is
/// acked; returns its durable name.
async fn consume_all(app: &PgPool, client: &async_nats::Client, recorder: &Recorder) -> String {
    let consumer = Consumer::new(
        app.clone(),
        client.clone(),
        "late",
        SUBJECT,
        recorder.clone(),
    )
    .await
    .unwrap();
    let durable = consumer.ensure().await.unwrap().cached_info().name.clone();
    let shutdown = Shutdown::new();
    let running = tokio::spawn(consumer.run(shutdown.clone()));
    let stream = events::jetstream(client.clone())
        .get_stream(EVENT_STREAM)
        .await
        .unwrap();
    let mut settled = false;
    for _ in 0..100 {
        let info = stream.consumer_info(&durable).await.unwrap();
        if info.num_pending == 0 && info.num_ack_pending == 0 {
            settled = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    shutdown.trigger();
    running.await.unwrap();
    assert!(settled, "the consumer acked everything it was given");
    durable
}

#[tokio::test]
async fn a_consumer_created_after_the_events_applies_each_once_and_no_other_deployments() {
    let nats = NatsServer::start().await;
    let client = events::connect_nats(&nats.url(), "late-consumer-test")
        .await
        .unwrap();
    let js = events::jetstream(client.clone());
    events::ensure_event_stream(&js).await.unwrap();

    // Another deployment on the same server published before this one began.
    for i in 0..3 {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert(ID_HEADER, Uuid::new_v4().to_string().as_str());
        headers.insert(SOURCE_HEADER, "another_deployment");
        let payload = prost::Message::encode_to_vec(&event(&format!("foreign-{i}")));
        js.publish_with_headers(SUBJECT, headers, payload.into())
            .await
            .unwrap()
            .await
            .unwrap();
    }
    tokio::time::sleep(EPOCH_MARGIN + Duration::from_secs(1)).await;

    let db = TestDb::new().await;
    let (owner, app) = schema(&db).await;
    let relay = OutboxRelay::new(owner.clone(), js.clone());
    publish(&owner, &relay, &["one", "two", "three", "four", "five"]).await;

    // Only now is the consumer created. It is given this deployment's five
    // events, not the other deployment's older three.
    let recorder = Recorder::default();
    let probe = Consumer::new(
        app.clone(),
        client.clone(),
        "late",
        SUBJECT,
        recorder.clone(),
    )
    .await
    .unwrap();
    let mut created = probe.ensure().await.unwrap();
    assert_eq!(created.info().await.unwrap().num_pending, 5);
    drop(probe);

    let durable = consume_all(&app, &client, &recorder).await;
    assert_eq!(
        effects(&owner).await,
        ["five", "four", "one", "three", "two"]
    );

    // Restarted (the same durable consumer) after one more event: only that one is new.
    publish(&owner, &relay, &["six"]).await;
    consume_all(&app, &client, &recorder).await;
    assert_eq!(
        effects(&owner).await,
        ["five", "four", "one", "six", "three", "two"]
    );
    assert_eq!(recorder.calls.load(Ordering::SeqCst), 6);

    // The server lost the consumer (a day without a client): the new one
    // reads the deployment's history again and applies none of it twice.
    js.get_stream(EVENT_STREAM)
        .await
        .unwrap()
        .delete_consumer(&durable)
        .await
        .unwrap();
    let replayed = consume_all(&app, &client, &recorder).await;
    let stream = js.get_stream(EVENT_STREAM).await.unwrap();
    let info = stream.consumer_info(&replayed).await.unwrap();
    assert_eq!(
        info.delivered.stream_sequence, 9,
        "the history was delivered again"
    );
    assert_eq!(
        effects(&owner).await,
        ["five", "four", "one", "six", "three", "two"]
    );
    assert_eq!(
        recorder.calls.load(Ordering::SeqCst),
        6,
        "no event applied twice"
    );
    let processed: i64 = sqlx::query_scalar("select count(*) from processed_event")
        .fetch_one(&owner)
        .await
        .unwrap();
    assert_eq!(processed, 6);
}

/// The kit default every raw [`events::DurablePull`] user (telemetry)
/// keeps: new messages only.
#[test]
fn raw_pull_consumers_still_start_at_new_messages() {
    let config = events::consumer_config("telemetry-like", "telemetry.>");
    assert_eq!(
        config.deliver_policy,
        jetstream::consumer::DeliverPolicy::New
    );
}
