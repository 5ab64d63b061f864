//! PostgreSQL: one database, one schema per service. The pool pins
//! `search_path` to the service's schema, so queries never name it and no
//! service can reach another's tables by accident.

use std::borrow::Cow;
use std::str::FromStr;

use anyhow::Context as _;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection as _, PgConnection, PgPool};

/// Tables every service has: the outbox and the processed-events ledger.
static KIT_MIGRATIONS: Migrator = sqlx::migrate!("./migrations");

/// Creates the database named in `url` if it does not exist yet.
pub async fn ensure_database(url: &str) -> anyhow::Result<()> {
    let options = PgConnectOptions::from_str(url).context("parse DATABASE_URL")?;
    let name = options.get_database().unwrap_or("postgres").to_owned();
    let mut conn = PgConnection::connect_with(&options.clone().database("postgres"))
        .await
        .context("connect to PostgreSQL")?;
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from pg_database where datname = $1)")
            .bind(&name)
            .fetch_one(&mut conn)
            .await?;
    if !exists {
        // Names cannot be bound as parameters; quote it as an identifier.
        let sql = format!("create database \"{}\"", name.replace('"', "\"\""));
        if let Err(err) = sqlx::query(&sql).execute(&mut conn).await {
            // Another process may have won the race.
            let raced =
                matches!(&err, sqlx::Error::Database(db) if db.code().as_deref() == Some("42P04"));
            if !raced {
                return Err(err).context("create database");
            }
        }
    }
    Ok(())
}

/// A pool whose connections all use `schema`, creating the schema if needed.
pub async fn connect(url: &str, schema: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    let base = PgConnectOptions::from_str(url).context("parse DATABASE_URL")?;
    let mut conn = PgConnection::connect_with(&base)
        .await
        .context("connect to PostgreSQL")?;
    sqlx::query(&format!("create schema if not exists \"{schema}\""))
        .execute(&mut conn)
        .await
        .context("create schema")?;
    conn.close().await.ok();

    let options = base.options([
        ("search_path", schema),
        // Bind-parameter LIMIT/OFFSET otherwise re-plans every execution.
        ("plan_cache_mode", "force_generic_plan"),
        ("timezone", "UTC"),
    ]);
    PgPoolOptions::new()
        .max_connections(max_connections)
        .acquire_timeout(std::time::Duration::from_secs(10))
        .connect_with(options)
        .await
        .with_context(|| format!("open pool for schema {schema}"))
}

/// Applies the kit's migrations and then the service's, in one history table
/// inside the service's schema.
pub async fn migrate(pool: &PgPool, service: &Migrator) -> anyhow::Result<()> {
    let mut all: Vec<_> = KIT_MIGRATIONS.iter().cloned().collect();
    all.extend(service.iter().cloned());
    all.sort_by_key(|m| m.version);
    let combined = Migrator {
        migrations: Cow::Owned(all),
        ..Migrator::DEFAULT
    };
    combined.run(pool).await.context("apply migrations")?;
    Ok(())
}
