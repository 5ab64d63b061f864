//! The durable consumer helper against real PostgreSQL and a private
//! JetStream server: each event id has one effect, however often delivered.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use fleetdesk_kit::events::{
    self, Consumer, Handler, ID_HEADER, OutboxRelay, Outcome, SOURCE_HEADER,
};
use fleetdesk_kit::{Shutdown, db};
use fleetdesk_proto::org::v1::PrincipalChanged;
use fleetdesk_testkit::{NatsServer, TestDb};
use sqlx::migrate::Migrator;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

const SUBJECT: &str = "fleetdesk.test.principal.changed";

/// Records each applied event as a row; fails the first `fail_first` attempts.
#[derive(Clone)]
struct Recorder {
    attempts: Arc<AtomicUsize>,
    fail_first: usize,
}

impl Handler for Recorder {
    type Event = PrincipalChanged;

    async fn handle(&self, tx: &mut PgConnection, event: PrincipalChanged) -> anyhow::Result<()> {
        sqlx::query("insert into effect (label) values ($1)")
            .bind(&event.enterprise_id)
            .execute(&mut *tx)
            .await?;
        if self.attempts.fetch_add(1, Ordering::SeqCst) < self.fail_first {
            anyhow::bail!("injected failure after the effect was written");
        }
        Ok(())
    }
}

async fn schema(db: &TestDb) -> (PgPool, PgPool) {
    let owner = db::connect_owner(&db.url, "consumer_test", 6)
        .await
        .unwrap();
    db::migrate(&owner, &Migrator::DEFAULT).await.unwrap();
    sqlx::query("create table effect (id serial primary key, label text not null)")
        .execute(&owner)
        .await
        .unwrap();
    sqlx::raw_sql(
        "grant select, insert on effect to fleetdesk_app; \
         grant usage on sequence effect_id_seq to fleetdesk_app",
    )
    .execute(&owner)
    .await
    .unwrap();
    let app = db::connect(&db.url, "consumer_test", 4).await.unwrap();
    (owner, app)
}

async fn effects(pool: &PgPool) -> Vec<String> {
    sqlx::query_scalar("select label from effect order by id")
        .fetch_all(pool)
        .await
        .unwrap()
}

fn headers(id: Uuid, source: &str) -> async_nats::HeaderMap {
    let mut headers = async_nats::HeaderMap::new();
    headers.insert(ID_HEADER, id.to_string().as_str());
    headers.insert(SOURCE_HEADER, source);
    headers
}

fn payload(label: &str) -> Vec<u8> {
    prost::Message::encode_to_vec(&PrincipalChanged {
        enterprise_id: label.to_owned(),
        user_ids: Vec::new(),
    })
}

#[tokio::test]
async fn a_redelivered_event_has_one_effect_and_foreign_or_broken_ones_none() {
    let db = TestDb::new().await;
    let nats = NatsServer::start().await;
    let (owner, app) = schema(&db).await;
    let client = events::connect_nats(&nats.url(), "test").await.unwrap();
    let recorder = Recorder {
        attempts: Arc::new(AtomicUsize::new(0)),
        fail_first: 0,
    };
    let consumer = Consumer::new(app.clone(), client, "test", SUBJECT, recorder)
        .await
        .unwrap();
    let source = events::source_of(&app).await.unwrap();
    let id = Uuid::new_v4();

    let first = consumer
        .apply(Some(&headers(id, &source)), &payload("a"))
        .await;
    let again = consumer
        .apply(Some(&headers(id, &source)), &payload("a"))
        .await;
    assert_eq!(first.unwrap(), Outcome::Applied);
    assert_eq!(again.unwrap(), Outcome::Duplicate);

    let foreign = consumer
        .apply(Some(&headers(Uuid::new_v4(), "another_db")), &payload("b"))
        .await;
    assert_eq!(foreign.unwrap(), Outcome::Ignored);
    let garbage = consumer
        .apply(Some(&headers(Uuid::new_v4(), &source)), b"\xff\xff\xff")
        .await;
    assert_eq!(garbage.unwrap(), Outcome::Ignored);
    let no_id = consumer.apply(None, &payload("c")).await;
    assert_eq!(no_id.unwrap(), Outcome::Ignored);

    assert_eq!(effects(&owner).await, ["a"]);
}

#[tokio::test]
async fn events_flow_from_the_outbox_to_one_effect_even_after_a_failed_attempt() {
    let db = TestDb::new().await;
    let nats = NatsServer::start().await;
    let (owner, app) = schema(&db).await;
    let shutdown = Shutdown::new();
    let client = events::connect_nats(&nats.url(), "test").await.unwrap();
    let attempts = Arc::new(AtomicUsize::new(0));
    let consumer = Consumer::new(
        app.clone(),
        client.clone(),
        "test",
        SUBJECT,
        Recorder {
            attempts: attempts.clone(),
            fail_first: 1,
        },
    )
    .await
    .unwrap();
    // Created before the events are written: a new consumer starts at new events.
    consumer.ensure().await.unwrap();
    tokio::spawn(consumer.run(shutdown.clone()));
    tokio::spawn(OutboxRelay::new(owner.clone(), events::jetstream(client)).run(shutdown.clone()));

    for label in ["one", "two"] {
        let mut tx = owner.begin().await.unwrap();
        events::enqueue(
            &mut tx,
            SUBJECT,
            &PrincipalChanged {
                enterprise_id: label.to_owned(),
                user_ids: Vec::new(),
            },
        )
        .await
        .unwrap();
        tx.commit().await.unwrap();
    }

    for _ in 0..100 {
        if effects(&owner).await.len() >= 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    // Give a stray second delivery time to show up.
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let mut seen = effects(&owner).await;
    shutdown.trigger();
    seen.sort();
    assert_eq!(seen, ["one", "two"], "each event applied once");
    assert_eq!(
        attempts.load(Ordering::SeqCst),
        3,
        "the failed attempt was retried"
    );
    let processed: i64 = sqlx::query_scalar("select count(*) from processed_event")
        .fetch_one(&owner)
        .await
        .unwrap();
    assert_eq!(processed, 2);
}
