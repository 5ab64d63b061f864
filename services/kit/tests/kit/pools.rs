//! A process's pools fit what the PostgreSQL server has free, and what a
//! refusal of the server becomes: "retry" (5003) when it is transient.

use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;

#[tokio::test]
async fn pools_get_what_they_ask_for_fewer_when_the_server_is_short_and_a_clear_error_when_none_fit()
 {
    let test_db = TestDb::new().await;
    // One pool of two always fits a server that serves the tests at all.
    assert_eq!(db::fit_pools(&test_db.url, 1, 2, 0).await.unwrap(), 2);

    // More pools than the server has slots for: sized down, never above
    // what was asked, never below the minimum.
    let asked = 1_000;
    let fitted = db::fit_pools(&test_db.url, 10, asked, 0).await.unwrap();
    assert!(
        fitted < asked,
        "a server of a few hundred connections gave {fitted}"
    );
    assert!(fitted >= db::MIN_POOL);

    // Pools that cannot have even the minimum each: refused, saying why.
    let err = db::fit_pools(&test_db.url, 100_000, 10, 0)
        .await
        .unwrap_err();
    let message = err.to_string();
    assert!(message.contains("PostgreSQL allows"), "{message}");
    assert!(message.contains("max_connections"), "{message}");

    // Connections opened beside the pools take their share first: a process
    // that would open the whole server beside one pool is refused.
    let err = db::fit_pools(&test_db.url, 1, 2, 100_000)
        .await
        .unwrap_err();
    assert!(
        err.to_string()
            .contains("beside its 100001 other connection(s)"),
        "{err}"
    );

    // A database that does not exist yet is not this check's business.
    let missing = format!("{}_not_created", test_db.url);
    assert_eq!(db::fit_pools(&missing, 7, 10, 0).await.unwrap(), 10);
}

#[tokio::test]
async fn a_connection_the_server_ends_is_unavailable_and_a_failing_statement_internal() {
    use fleetdesk_kit::{ErrorCode, ServiceError};
    use sqlx::Connection as _;

    let test_db = TestDb::new().await;
    let mut victim = sqlx_postgres::PgConnection::connect(&test_db.url)
        .await
        .unwrap();
    let mut other = sqlx_postgres::PgConnection::connect(&test_db.url)
        .await
        .unwrap();
    let pid: i32 = sqlx::query_scalar("select pg_backend_pid()")
        .fetch_one(&mut victim)
        .await
        .unwrap();
    // What a restart or a failover does to every open connection (57P01).
    sqlx::query("select pg_terminate_backend($1)")
        .bind(pid)
        .execute(&mut other)
        .await
        .unwrap();
    let ended = sqlx::query("select 1")
        .execute(&mut victim)
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from(ended).code, ErrorCode::Unavailable);

    // A statement that can never succeed is no reason to retry (22012).
    let broken = sqlx::query("select 1 / 0")
        .execute(&mut other)
        .await
        .unwrap_err();
    assert_eq!(ServiceError::from(broken).code, ErrorCode::Internal);
}
