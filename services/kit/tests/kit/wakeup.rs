//! The shared wake-up listener against a real PostgreSQL: every waiter of a
//! process is woken by a NOTIFY through one LISTEN connection, and a
//! notification sent while a waiter was busy is not lost to it.

use std::time::Duration;

use fleetdesk_kit::wakeup::{self, EXPORT_JOB, OUTBOX};
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPoolOptions;

/// Well under the relay's and the export workers' poll (1 and 2 s): a
/// waiter woken within it was woken by the notification.
const PROMPTLY: Duration = Duration::from_millis(500);

#[tokio::test]
async fn every_waiter_wakes_on_a_notify_through_one_listen_connection() {
    let db = TestDb::new().await;
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .connect(&db.url)
        .await
        .expect("pool");
    let mut relay = wakeup::subscribe(&pool, OUTBOX).await;
    let mut exports = [
        wakeup::subscribe(&pool, EXPORT_JOB).await,
        wakeup::subscribe(&pool, EXPORT_JOB).await,
    ];
    // Whatever the first connection woke is consumed first.
    for waiter in exports.iter_mut() {
        let _ = tokio::time::timeout(PROMPTLY, waiter.notified()).await;
    }
    let _ = tokio::time::timeout(PROMPTLY, relay.notified()).await;

    let listening: i64 = sqlx::query_scalar(
        "select count(*) from pg_stat_activity where datname = current_database() \
         and query ilike 'listen%'",
    )
    .fetch_one(&pool)
    .await
    .expect("count listeners");
    assert_eq!(listening, 1, "three waiters, one LISTEN connection");

    // Sent while nobody waits (the waiters are busy): seen at the next wait.
    sqlx::query("select pg_notify($1, '')")
        .bind(EXPORT_JOB)
        .execute(&pool)
        .await
        .expect("notify");
    tokio::time::sleep(Duration::from_millis(200)).await;
    for waiter in exports.iter_mut() {
        tokio::time::timeout(PROMPTLY, waiter.notified())
            .await
            .expect("an export waiter is woken by its channel's notification");
    }
    // Another channel's notification does not wake the relay.
    assert!(
        tokio::time::timeout(PROMPTLY, relay.notified())
            .await
            .is_err(),
        "the relay woke on the export channel"
    );
    sqlx::query("select pg_notify($1, '')")
        .bind(OUTBOX)
        .execute(&pool)
        .await
        .expect("notify");
    tokio::time::timeout(PROMPTLY, relay.notified())
        .await
        .expect("the relay is woken by an outbox notification");
}
