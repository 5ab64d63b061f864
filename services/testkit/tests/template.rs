//! Template databases: built once however many tests ask at once, keyed by
//! the migrations, copied with the migrations applied, stale ones dropped.

use std::borrow::Cow;
use std::str::FromStr as _;

use fleetdesk_testkit::{Schema, TestDb, template_name};
use sqlx::Connection as _;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx_postgres::PgConnectOptions;
use sqlx_postgres::PgConnection;

/// A schema whose single migration is unique to this run (so its template
/// is new) and slow enough that concurrent callers overlap while it builds.
fn probe_schema(marker: &str) -> Schema {
    let sql = format!(
        "create table probe (id int primary key); \
         comment on table probe is '{marker}'; \
         select pg_sleep(0.5);"
    );
    let migration = Migration::new(
        20_990_101_000_000,
        Cow::Borrowed("probe"),
        MigrationType::Simple,
        Cow::Owned(sql),
        false,
    );
    let migrator: &'static Migrator = Box::leak(Box::new(Migrator {
        migrations: Cow::Owned(vec![migration]),
        ..Migrator::DEFAULT
    }));
    Schema {
        name: "tk_probe",
        migrator,
        replicates_org: false,
    }
}

async fn admin() -> PgConnection {
    let options = PgConnectOptions::from_str(&fleetdesk_testkit::admin_database_url())
        .unwrap()
        .database("postgres");
    PgConnection::connect_with(&options).await.unwrap()
}

/// Probe templates are unique to a run: drop them rather than wait a day.
async fn drop_template(name: &str) {
    let mut conn = admin().await;
    let _ = sqlx::query(&format!("alter database {name} is_template false"))
        .execute(&mut conn)
        .await;
    sqlx::query(&format!("drop database if exists {name}"))
        .execute(&mut conn)
        .await
        .unwrap();
}

async fn database_exists(name: &str) -> bool {
    let mut conn = admin().await;
    sqlx::query_scalar("select exists(select 1 from pg_database where datname = $1)")
        .bind(name)
        .fetch_one(&mut conn)
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_callers_build_the_template_once() {
    let schema = probe_schema(&uuid::Uuid::new_v4().to_string());
    let callers =
        (0..4).map(|_| tokio::spawn(async move { TestDb::migrated_reporting(&[&schema]).await }));
    let results = futures::future::join_all(callers).await;
    let results: Vec<_> = results.into_iter().map(|r| r.unwrap()).collect();

    let builds = results.iter().filter(|(_, t)| t.built).count();
    assert_eq!(builds, 1, "exactly one caller migrates the template");
    let names: std::collections::BTreeSet<_> = results
        .iter()
        .map(|(_, t)| t.name.clone().as_str().to_owned())
        .collect();
    assert_eq!(
        names.len(),
        1,
        "all callers copy the same template: {names:?}"
    );
    let dbs: std::collections::BTreeSet<_> =
        results.iter().map(|(db, _)| db.name.clone()).collect();
    assert_eq!(dbs.len(), 4, "each caller gets its own database");

    // A later caller reuses it without building.
    let (_db, again) = TestDb::migrated_reporting(&[&schema]).await;
    assert!(!again.built);
    assert_eq!(again.name, results[0].1.name);
    drop_template(again.name.as_str()).await;
}

#[tokio::test]
async fn a_changed_migration_gives_another_template() {
    let first = probe_schema("one");
    let same = probe_schema("one");
    let changed = probe_schema("two");
    assert_eq!(template_name(&[&first]), template_name(&[&same]));
    assert_ne!(template_name(&[&first]), template_name(&[&changed]));

    let renamed = Schema {
        name: "tk_other",
        ..first
    };
    assert_ne!(template_name(&[&first]), template_name(&[&renamed]));
    let with_replica = Schema {
        replicates_org: true,
        ..first
    };
    assert_ne!(template_name(&[&first]), template_name(&[&with_replica]));
    assert_ne!(
        template_name(&[&first]),
        template_name(&[&first, &renamed]),
        "another set of schemas"
    );
}

#[tokio::test]
async fn the_copy_has_the_migrations_applied() {
    let schema = probe_schema(&uuid::Uuid::new_v4().to_string());
    let db = TestDb::migrated(&[&schema]).await;
    let mut conn = PgConnection::connect(&db.url).await.unwrap();

    let versions: Vec<i64> =
        sqlx::query_scalar("select version from tk_probe._sqlx_migrations order by version")
            .fetch_all(&mut conn)
            .await
            .unwrap();
    assert_eq!(
        versions.last(),
        Some(&20_990_101_000_000),
        "the service's migration"
    );
    assert!(versions.len() > 1, "kit's migrations too: {versions:?}");
    let probe_rows: i64 = sqlx::query_scalar("select count(*) from tk_probe.probe")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(probe_rows, 0);

    // The copy is the test's own: writing to it leaves the template alone.
    sqlx::query("insert into tk_probe.probe values (1)")
        .execute(&mut conn)
        .await
        .unwrap();
    let other = TestDb::migrated(&[&schema]).await;
    let mut other_conn = PgConnection::connect(&other.url).await.unwrap();
    let other_rows: i64 = sqlx::query_scalar("select count(*) from tk_probe.probe")
        .fetch_one(&mut other_conn)
        .await
        .unwrap();
    assert_eq!(other_rows, 0);
    drop_template(template_name(&[&schema]).as_str()).await;
}

#[tokio::test]
async fn stale_templates_go_unless_someone_holds_them() {
    let suffix = &uuid::Uuid::new_v4().simple().to_string()[..16];
    let stale = format!("fd_tpl_{suffix}");
    // Its lock key is what the name starts with; a neighbour with another
    // key stays unlocked.
    let held = format!(
        "fd_tpl_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..16]
    );
    let fresh = format!(
        "fd_tpl_{}",
        &uuid::Uuid::new_v4().simple().to_string()[..16]
    );
    // Another process copying `held` right now holds its lock shared. It is
    // taken before `held` exists: the test processes beside this one drop
    // stale templates too, and would take an unlocked `held` for one.
    let held_key = u32::from_str_radix(&held["fd_tpl_".len()..][..8], 16).unwrap() as i32;
    let mut holder = admin().await;
    sqlx::query("select pg_advisory_lock_shared($1, $2)::text")
        .bind(0x6664_7470_i32)
        .bind(held_key)
        .execute(&mut holder)
        .await
        .unwrap();
    let mut conn = admin().await;
    for (name, built) in [
        (&stale, "now() - interval '2 days'"),
        (&held, "now() - interval '2 days'"),
        (&fresh, "now()"),
    ] {
        sqlx::query(&format!("create database {name} is_template true"))
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::query(&format!(
            "do $$ begin execute format('comment on database %I is %L', '{name}', \
             'fleetdesk test template, built ' || ({built})); end $$"
        ))
        .execute(&mut conn)
        .await
        .unwrap();
    }
    let schema = probe_schema("stale-check");
    let _db = TestDb::migrated(&[&schema]).await;

    // Another test process may be the one dropping it, still under way.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while database_exists(&stale).await && std::time::Instant::now() < deadline {
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert!(
        !database_exists(&stale).await,
        "a day-old template is dropped"
    );
    assert!(database_exists(&held).await, "a template in use is kept");
    assert!(database_exists(&fresh).await, "a recent template is kept");
    holder.close().await.unwrap();
    // Another test process may drop `held` as soon as it is released.
    for name in [&held, &fresh] {
        let _ = sqlx::query(&format!("alter database {name} is_template false"))
            .execute(&mut conn)
            .await;
        sqlx::query(&format!("drop database if exists {name}"))
            .execute(&mut conn)
            .await
            .unwrap();
    }
}
