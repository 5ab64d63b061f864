//! The retention job against real PostgreSQL and a local object store: old
//! rows go, younger ones stay, periods below their guarantee are refused, a
//! backlog larger than a batch is pruned whole, and a second replica stays
//! out of a round another one holds, and a service's own table joins the
//! round.

use bytes::Bytes;
use chrono::{Duration, Utc};
use fleetdesk_kit::db;
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::retention::{self, Pruned, RetentionConfig, RetentionJob};
use fleetdesk_testkit::TestDb;
use sqlx::migrate::Migrator;
use sqlx_postgres::PgPool;
use uuid::Uuid;

const SCHEMA: &str = "kit_retention_test";

struct Env {
    owner: PgPool,
    app: PgPool,
    files: FileStore,
    _dir: tempfile::TempDir,
    _db: TestDb,
}

async fn env() -> Env {
    let db = TestDb::new().await;
    let owner = db::connect_owner(&db.url, SCHEMA, 4).await.unwrap();
    db::migrate(&owner, &Migrator::DEFAULT).await.unwrap();
    let app = db::connect(&db.url, SCHEMA, 4).await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let files = FileStore::local(dir.path()).unwrap();
    Env {
        owner,
        app,
        files,
        _dir: dir,
        _db: db,
    }
}

fn job(env: &Env) -> RetentionJob {
    let periods = RetentionConfig::default().periods().unwrap();
    RetentionJob::new(env.app.clone(), env.files.clone(), periods)
}

/// An outbox row created `created_days_ago`, relayed `sent_hours_ago` (never: `None`).
async fn outbox(owner: &PgPool, label: &str, created_days_ago: i64, sent_hours_ago: Option<i64>) {
    let now = Utc::now();
    sqlx::query(
        "insert into outbox (id, subject, payload, created_at, sent_at) values ($1, $2, '', $3, $4)",
    )
    .bind(Uuid::new_v4())
    .bind(label)
    .bind(now - Duration::days(created_days_ago))
    .bind(sent_hours_ago.map(|h| now - Duration::hours(h)))
    .execute(owner)
    .await
    .unwrap();
}

async fn processed(owner: &PgPool, label: &str, days_ago: i64) {
    sqlx::query(
        "insert into processed_event (event_id, subject, processed_at) values ($1, $2, $3)",
    )
    .bind(Uuid::new_v4())
    .bind(label)
    .bind(Utc::now() - Duration::days(days_ago))
    .execute(owner)
    .await
    .unwrap();
}

async fn idempotency_key(owner: &PgPool, label: &str, days_ago: i64) {
    sqlx::query(
        "insert into idempotency_key (enterprise_id, operation, key, request_hash, response, created_at) \
         values ($1, 'CreateThing', $2, '', '', $3)",
    )
    .bind(Uuid::new_v4())
    .bind(label)
    .bind(Utc::now() - Duration::days(days_ago))
    .execute(owner)
    .await
    .unwrap();
}

/// An export job named `label` in `status`, ended `finished_days_ago`
/// (still open: `None`), created 30 days ago; with a stored file when
/// `with_file`. Returns its file key ('' without a file).
async fn export_job(
    env: &Env,
    label: &str,
    status: i16,
    finished_days_ago: Option<i64>,
    with_file: bool,
) -> String {
    let id = Uuid::new_v4();
    let enterprise = Uuid::new_v4();
    let key = if with_file {
        let key = files::key(
            enterprise,
            "export",
            &id.to_string(),
            &format!("{label}.xlsx"),
        );
        env.files
            .put(&key, Bytes::from_static(b"xlsx"))
            .await
            .unwrap();
        key
    } else {
        String::new()
    };
    let now = Utc::now();
    sqlx::query(
        "insert into export_job (id, enterprise_id, kind, name, module, status, file_key, \
         created_at, finished_at) values ($1, $2, 'things', $3, 'test', $4, $5, $6, $7)",
    )
    .bind(id)
    .bind(enterprise)
    .bind(label)
    .bind(status)
    .bind(&key)
    .bind(now - Duration::days(30))
    .bind(finished_days_ago.map(|d| now - Duration::days(d)))
    .execute(&env.owner)
    .await
    .unwrap();
    key
}

async fn labels(owner: &PgPool, sql: &str) -> Vec<String> {
    sqlx::query_scalar(sql).fetch_all(owner).await.unwrap()
}

async fn count(owner: &PgPool, table: &str) -> i64 {
    sqlx::query_scalar(&format!("select count(*) from {table}"))
        .fetch_one(owner)
        .await
        .unwrap()
}

#[tokio::test]
async fn rows_older_than_their_period_go_and_younger_ones_stay() {
    let env = env().await;
    let owner = &env.owner;
    // Outbox: relayed 1 day ago is the limit.
    outbox(owner, "relayed-2-days-ago", 3, Some(48)).await;
    outbox(owner, "relayed-an-hour-ago", 3, Some(1)).await;
    outbox(owner, "never-relayed", 30, None).await;
    // processed_event: 8 days (the stream's 7 plus one).
    processed(owner, "9-days", 9).await;
    processed(owner, "7-days", 7).await;
    // idempotency_key: 7 days.
    idempotency_key(owner, "8-days", 8).await;
    idempotency_key(owner, "6-days", 6).await;
    // export_job: 7 days after it ended, its file first.
    let old_file = export_job(&env, "succeeded-8-days-ago", 3, Some(8), true).await;
    let young_file = export_job(&env, "succeeded-6-days-ago", 3, Some(6), true).await;
    export_job(&env, "failed-8-days-ago", 4, Some(8), false).await;
    export_job(&env, "cancelled-9-days-ago", 5, Some(9), false).await;
    export_job(&env, "running-for-30-days", 2, None, false).await;
    export_job(&env, "queued-30-days-ago", 1, None, false).await;

    let pruned = job(&env).round(Utc::now()).await.unwrap();

    assert_eq!(
        pruned,
        Some(Pruned {
            tables: [
                ("outbox", 1),
                ("processed_event", 1),
                ("idempotency_key", 1)
            ]
            .into(),
            export_job: 3,
            export_files: 1,
        })
    );
    assert_eq!(
        labels(owner, "select subject from outbox order by subject").await,
        ["never-relayed", "relayed-an-hour-ago"]
    );
    assert_eq!(
        labels(owner, "select subject from processed_event").await,
        ["7-days"]
    );
    assert_eq!(
        labels(owner, "select key from idempotency_key").await,
        ["6-days"]
    );
    assert_eq!(
        labels(owner, "select name from export_job order by name").await,
        [
            "queued-30-days-ago",
            "running-for-30-days",
            "succeeded-6-days-ago"
        ]
    );
    assert!(
        !env.files.exists(&old_file).await.unwrap(),
        "the old file is deleted"
    );
    assert!(
        env.files.exists(&young_file).await.unwrap(),
        "the young file stays"
    );

    // Nothing left to prune: a second round deletes nothing.
    let again = job(&env).round(Utc::now()).await.unwrap().unwrap();
    assert_eq!(again.total(), 0);
}

#[tokio::test]
async fn a_backlog_larger_than_one_batch_is_pruned_whole() {
    let env = env().await;
    let backlog = retention::BATCH_ROWS * 2 + 1;
    sqlx::query(
        "insert into processed_event (event_id, subject, processed_at) \
         select gen_random_uuid(), 'old', now() - interval '30 days' from generate_series(1, $1)",
    )
    .bind(backlog)
    .execute(&env.owner)
    .await
    .unwrap();
    sqlx::query(
        "insert into outbox (id, subject, payload, sent_at) \
         select gen_random_uuid(), 'old', '', now() - interval '3 days' from generate_series(1, $1)",
    )
    .bind(backlog)
    .execute(&env.owner)
    .await
    .unwrap();
    let jobs = retention::EXPORT_BATCH_ROWS * 2 + 1;
    for i in 0..jobs {
        export_job(&env, &format!("old-{i}"), 3, Some(10), i % 2 == 0).await;
    }
    processed(&env.owner, "young", 1).await;

    let pruned = job(&env).round(Utc::now()).await.unwrap().unwrap();

    assert_eq!(pruned.rows("processed_event"), backlog.unsigned_abs());
    assert_eq!(pruned.rows("outbox"), backlog.unsigned_abs());
    assert_eq!(pruned.export_job, jobs.unsigned_abs());
    assert_eq!(count(&env.owner, "outbox").await, 0);
    assert_eq!(count(&env.owner, "export_job").await, 0);
    assert_eq!(
        labels(&env.owner, "select subject from processed_event").await,
        ["young"]
    );
}

#[tokio::test]
async fn a_second_replica_stays_out_of_a_round_another_one_holds() {
    let env = env().await;
    processed(&env.owner, "old", 30).await;
    // Another replica's round, holding the schema's lock.
    let mut other = env.owner.begin().await.unwrap();
    sqlx::query("select pg_advisory_xact_lock($1, hashtext($2))")
        .bind(retention::JOB_LOCK_CLASS)
        .bind(SCHEMA)
        .execute(&mut *other)
        .await
        .unwrap();

    assert_eq!(job(&env).round(Utc::now()).await.unwrap(), None);
    assert_eq!(count(&env.owner, "processed_event").await, 1);

    other.rollback().await.unwrap();
    let pruned = job(&env).round(Utc::now()).await.unwrap().unwrap();
    assert_eq!(pruned.rows("processed_event"), 1);
}

/// A service's own table joins the round with the period it names.
#[tokio::test]
async fn a_table_of_the_service_is_pruned_by_its_own_period() {
    let env = env().await;
    sqlx::query("create table download (label text, requested_at timestamptz)")
        .execute(&env.owner)
        .await
        .unwrap();
    sqlx::query(&format!(
        "grant select, delete on download to {}",
        db::APP_ROLE
    ))
    .execute(&env.owner)
    .await
    .unwrap();
    sqlx::query(
        "insert into download values ('91-days', now() - interval '91 days'), \
         ('89-days', now() - interval '89 days')",
    )
    .execute(&env.owner)
    .await
    .unwrap();
    let downloads = retention::Pruning {
        table: "download",
        statement: "delete from download where ctid in \
                    (select ctid from download where requested_at < $1 limit $2)",
        period: |p| p.export_record,
    };

    let pruned = job(&env)
        .also(downloads)
        .round(Utc::now())
        .await
        .unwrap()
        .unwrap();

    assert_eq!(pruned.rows("download"), 1);
    assert_eq!(pruned.rows("outbox"), 0, "kit's tables are still pruned");
    assert_eq!(
        labels(&env.owner, "select label from download").await,
        ["89-days"]
    );
}

#[test]
fn periods_below_their_guarantee_are_refused_naming_the_variable() {
    let defaults = RetentionConfig::default().periods().unwrap();
    assert_eq!(defaults.processed_event.as_secs(), 8 * 24 * 3600);
    assert_eq!(defaults.idempotency_key.as_secs(), 7 * 24 * 3600);
    assert_eq!(defaults.export.as_secs(), 7 * 24 * 3600);
    assert_eq!(defaults.outbox.as_secs(), 24 * 3600);
    assert_eq!(defaults.export_record.as_secs(), 90 * 24 * 3600);

    let cases = [
        (
            RetentionConfig {
                processed_event_days: 7,
                ..RetentionConfig::default()
            },
            "FLEETDESK_RETAIN_PROCESSED_EVENT_DAYS",
            8,
        ),
        (
            RetentionConfig {
                idempotency_key_days: 6,
                ..RetentionConfig::default()
            },
            "FLEETDESK_RETAIN_IDEMPOTENCY_KEY_DAYS",
            7,
        ),
        (
            RetentionConfig {
                export_days: 1,
                ..RetentionConfig::default()
            },
            "FLEETDESK_RETAIN_EXPORT_DAYS",
            7,
        ),
        (
            RetentionConfig {
                export_days: 14,
                export_record_days: 10,
                ..RetentionConfig::default()
            },
            "FLEETDESK_RETAIN_EXPORT_RECORD_DAYS",
            14,
        ),
    ];
    for (config, variable, minimum) in cases {
        let refused = config.periods().unwrap_err();
        assert_eq!(refused.variable, variable);
        assert_eq!(refused.minimum, minimum);
        let message = refused.to_string();
        assert!(message.starts_with(variable), "{message}");
        assert!(message.contains("过短"), "{message}");
        assert!(
            message.contains(&format!("至少须为 {minimum}")),
            "{message}"
        );
    }

    // Longer than the guarantee is fine; so is pruning the outbox soon after relay.
    let longer = RetentionConfig {
        outbox_hours: 1,
        processed_event_days: 30,
        idempotency_key_days: 90,
        export_days: 14,
        export_record_days: 14,
    };
    assert_eq!(longer.periods().unwrap().export.as_secs(), 14 * 24 * 3600);
}
