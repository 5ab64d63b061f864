//! The outbox against real PostgreSQL and a private JetStream server.

use std::collections::HashMap;
use std::time::Duration;

use fleetdesk_kit::events::{self, EVENT_STREAM, OutboxRelay};
use fleetdesk_kit::{Shutdown, db};
use fleetdesk_proto::org::v1::PrincipalChanged;
use fleetdesk_testkit::{NatsServer, TestDb};
use sqlx::migrate::Migrator;
use sqlx_postgres::PgPool;
use uuid::Uuid;

async fn outbox_pool(db: &TestDb) -> PgPool {
    let pool = db::connect_owner(&db.url, "kit_test", 4).await.unwrap();
    db::migrate(&pool, &Migrator::DEFAULT).await.unwrap();
    pool
}

async fn commit_events(pool: &PgPool, n: usize) -> Vec<Uuid> {
    let mut ids = Vec::new();
    for i in 0..n {
        let mut tx = pool.begin().await.unwrap();
        ids.push(
            events::enqueue(
                &mut tx,
                "fleetdesk.test.thing.created",
                &PrincipalChanged {
                    enterprise_id: i.to_string(),
                    user_ids: Vec::new(),
                },
            )
            .await
            .unwrap(),
        );
        tx.commit().await.unwrap();
    }
    ids
}

async fn roll_back_events(pool: &PgPool, n: usize) {
    let mut tx = pool.begin().await.unwrap();
    for i in 0..n {
        events::enqueue(
            &mut tx,
            "fleetdesk.test.thing.created",
            &PrincipalChanged {
                enterprise_id: format!("rolled back {i}"),
                user_ids: Vec::new(),
            },
        )
        .await
        .unwrap();
    }
    tx.rollback().await.unwrap();
}

/// How many times each `Nats-Msg-Id` is in the stream, once it holds `expected` messages
/// and nothing more arrives for a moment.
async fn stream_ids(nats_url: &str, expected: u64) -> HashMap<String, usize> {
    let js = events::jetstream(async_nats::connect(nats_url).await.unwrap());
    let mut stream = None;
    for _ in 0..200 {
        if let Ok(mut s) = js.get_stream(EVENT_STREAM).await
            && s.info().await.unwrap().state.messages >= expected
        {
            stream = Some(s);
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let mut stream = stream.unwrap_or_else(|| panic!("stream never reached {expected} messages"));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let state = stream.info().await.unwrap().state.clone();
    let mut seen = HashMap::new();
    for seq in state.first_sequence..=state.last_sequence {
        let msg = stream.get_raw_message(seq).await.unwrap();
        let id = msg
            .headers
            .get("Nats-Msg-Id")
            .expect("message id header")
            .to_string();
        *seen.entry(id).or_insert(0) += 1;
    }
    seen
}

async fn unsent(pool: &PgPool) -> i64 {
    sqlx::query_scalar("select count(*) from outbox where sent_at is null")
        .fetch_one(pool)
        .await
        .unwrap()
}

fn spawn_relay(pool: &PgPool, client: async_nats::Client) -> Shutdown {
    let shutdown = Shutdown::new();
    tokio::spawn(OutboxRelay::new(pool.clone(), events::jetstream(client)).run(shutdown.clone()));
    shutdown
}

#[tokio::test]
async fn committed_events_are_published_exactly_once_and_rolled_back_ones_never() {
    let db = TestDb::new().await;
    let nats = NatsServer::start().await;
    let pool = outbox_pool(&db).await;
    let committed = commit_events(&pool, 20).await;
    roll_back_events(&pool, 5).await;

    let relay = spawn_relay(
        &pool,
        events::connect_nats(&nats.url(), "test").await.unwrap(),
    );
    let seen = stream_ids(&nats.url(), 20).await;
    relay.trigger();

    assert_eq!(seen.len(), 20, "only committed events reach the stream");
    for id in &committed {
        assert_eq!(seen.get(&id.to_string()), Some(&1), "event {id} once");
    }
    assert_eq!(unsent(&pool).await, 0);
}

#[tokio::test]
async fn events_written_while_nats_is_down_are_published_once_it_returns() {
    let db = TestDb::new().await;
    let mut nats = NatsServer::start().await;
    let pool = outbox_pool(&db).await;
    let relay = spawn_relay(
        &pool,
        events::connect_nats(&nats.url(), "test").await.unwrap(),
    );
    // One event while everything is up, so the stream exists.
    let mut committed = commit_events(&pool, 1).await;
    stream_ids(&nats.url(), 1).await;

    nats.stop();
    committed.extend(commit_events(&pool, 10).await);
    roll_back_events(&pool, 3).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        unsent(&pool).await,
        10,
        "nothing is marked sent without an ack"
    );

    nats.resume().await;
    let seen = stream_ids(&nats.url(), 11).await;
    relay.trigger();
    assert_eq!(seen.len(), 11);
    for id in &committed {
        assert_eq!(seen.get(&id.to_string()), Some(&1), "event {id} once");
    }
    assert_eq!(unsent(&pool).await, 0);
}

#[tokio::test]
async fn republishing_after_a_lost_mark_is_deduplicated_by_the_stream() {
    let db = TestDb::new().await;
    let nats = NatsServer::start().await;
    let pool = outbox_pool(&db).await;
    let js = events::jetstream(events::connect_nats(&nats.url(), "test").await.unwrap());
    events::ensure_event_stream(&js).await.unwrap();
    let relay = OutboxRelay::new(pool.clone(), js);
    commit_events(&pool, 5).await;
    assert_eq!(relay.publish_batch().await.unwrap(), 5);

    // As if the relay crashed after the ack but before marking the rows sent.
    sqlx::query("update outbox set sent_at = null")
        .execute(&pool)
        .await
        .unwrap();
    assert_eq!(relay.publish_batch().await.unwrap(), 5);

    let seen = stream_ids(&nats.url(), 5).await;
    assert_eq!(seen.len(), 5);
    assert!(seen.values().all(|n| *n == 1), "{seen:?}");
}

#[tokio::test]
async fn a_consumer_applies_each_event_id_once() {
    let db = TestDb::new().await;
    let pool = outbox_pool(&db).await;
    let id = Uuid::new_v4();
    let mut tx = pool.begin().await.unwrap();
    assert!(
        events::mark_processed(&mut tx, id, "fleetdesk.test.thing.created")
            .await
            .unwrap()
    );
    assert!(
        !events::mark_processed(&mut tx, id, "fleetdesk.test.thing.created")
            .await
            .unwrap()
    );
    tx.commit().await.unwrap();
}

/// A backlog raised in one transaction (a daily job's warnings) shares one
/// `created_at`: the relay still reads each batch straight from the unsent
/// rows' index, in order, without sorting the backlog (with `created_at`
/// alone indexed, 800,000 such events made each poll sort them all: 1.9 s).
#[tokio::test]
async fn a_backlog_raised_in_one_transaction_is_read_a_batch_at_a_time() {
    let db = TestDb::new().await;
    let pool = outbox_pool(&db).await;
    sqlx::query(
        "insert into outbox (id, subject, payload) \
         select gen_random_uuid(), 'fleetdesk.test.thing.created', '\\x00' \
         from generate_series(1, 20000)",
    )
    .execute(&pool)
    .await
    .unwrap();
    sqlx::query("analyze outbox").execute(&pool).await.unwrap();
    let plan: Vec<String> = sqlx::query_scalar(&format!(
        "explain {}",
        events::UNSENT_BATCH.replace("$1", "100")
    ))
    .fetch_all(&pool)
    .await
    .unwrap();
    let plan = plan.join("\n");
    assert!(plan.contains("outbox_unsent_idx"), "{plan}");
    assert!(
        !plan.contains("Sort"),
        "the batch read sorts the backlog:\n{plan}"
    );
}
