//! Migrated template databases: the first test process that needs a set of
//! schemas migrates them once into `fd_tpl_<hash>`; every test then copies
//! that database (`create database … template …`) instead of running the
//! migrations again.
//!
//! Concurrency (nextest runs every test as its own process) rests on one
//! PostgreSQL advisory lock per template: cloning holds it shared, building
//! and dropping hold it exclusive. A template only ever appears complete: it
//! is built under a `_building` name and renamed in the same transaction
//! that marks it a template.

use std::str::FromStr;

use fleetdesk_kit::db::{KIT_MIGRATIONS, ORG_REPLICA_MIGRATIONS};
use fleetdesk_kit::service::Schema;
use sha2::{Digest, Sha256};
use sqlx::Connection as _;
use sqlx_postgres::PgConnectOptions;
use sqlx_postgres::PgConnection;

/// Bumped when the way a template is built changes, so old ones are not reused.
const TEMPLATE_FORMAT: &str = "fleetdesk-template-v1";

/// First key of every template's advisory lock, so the locks never meet an
/// application's own advisory locks ("fdtp").
const LOCK_NAMESPACE: i32 = 0x6664_7470;

/// How `create database … template` copies. Measured on a 12 MB template
/// under load: `wal_log` 0.24–0.57 s, `file_copy` 1.3–2.1 s (it forces two
/// checkpoints, which other tests' writes make slow).
pub(crate) const CLONE_STRATEGY: &str = "wal_log";

/// Templates of other keys unused for this long are dropped.
const STALE_AFTER: &str = "1 day";

/// A template's name: `fd_tpl_` and the first 16 hex digits of the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TemplateName(String);

impl TemplateName {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    fn building(&self) -> String {
        format!("{}_building", self.0)
    }

    /// The advisory lock's second key, read back from the name so that a
    /// process can lock a template it did not compute the key of.
    fn lock_key(name: &str) -> Option<i32> {
        let hex = name.strip_prefix("fd_tpl_")?.get(..8)?;
        u32::from_str_radix(hex, 16).ok().map(|v| v as i32)
    }
}

/// The template that holds `schemas` migrated: any change to a schema's
/// name, its org replica or any migration's version, description or
/// checksum (kit's included, as [`fleetdesk_kit::db::migrate_with`] applies
/// them to every schema) gives another name.
pub fn template_name(schemas: &[&Schema]) -> TemplateName {
    let mut hash = Sha256::new();
    hash.update(TEMPLATE_FORMAT);
    for schema in schemas {
        hash.update([0xff]);
        hash.update(schema.name);
        hash.update([u8::from(schema.replicates_org)]);
        let replica = ORG_REPLICA_MIGRATIONS
            .iter()
            .filter(|_| schema.replicates_org);
        for migration in KIT_MIGRATIONS
            .iter()
            .chain(replica)
            .chain(schema.migrator.iter())
        {
            hash.update(migration.version.to_be_bytes());
            hash.update(migration.description.as_bytes());
            hash.update([0]);
            hash.update(&migration.checksum);
        }
    }
    TemplateName(format!("fd_tpl_{}", &hex::encode(hash.finalize())[..16]))
}

/// What [`ensure_template`] did, for tests and timings.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    pub name: TemplateName,
    /// This call migrated it (no other process had yet).
    pub built: bool,
}

/// An admin connection holding the template's advisory lock (shared) until
/// it is dropped: while it is held nobody drops or rebuilds the template.
pub(crate) struct TemplateLease {
    pub conn: PgConnection,
    pub template: Template,
}

/// Makes sure the template for `schemas` exists and leases it.
pub(crate) async fn lease_template(
    admin: &PgConnectOptions,
    schemas: &[&Schema],
) -> anyhow::Result<TemplateLease> {
    let name = template_name(schemas);
    let lock = TemplateName::lock_key(name.as_str()).expect("template name carries its key");
    let mut conn = PgConnection::connect_with(admin).await?;

    // Fast path: already built; hold it shared while the test copies it.
    advisory(&mut conn, "pg_advisory_lock_shared", lock).await?;
    if is_complete(&mut conn, &name).await? {
        return Ok(TemplateLease {
            conn,
            template: Template { name, built: false },
        });
    }
    advisory(&mut conn, "pg_advisory_unlock_shared", lock).await?;

    // Build: one process at a time; the others wait here and then find it.
    advisory(&mut conn, "pg_advisory_lock", lock).await?;
    let built = if is_complete(&mut conn, &name).await? {
        false
    } else {
        build(&mut conn, admin, &name, schemas).await?;
        true
    };
    // Keep it shared for the copy, let the waiting processes in.
    advisory(&mut conn, "pg_advisory_lock_shared", lock).await?;
    advisory(&mut conn, "pg_advisory_unlock", lock).await?;
    Ok(TemplateLease {
        conn,
        template: Template { name, built },
    })
}

/// Builds the template; the caller holds its lock exclusively.
async fn build(
    conn: &mut PgConnection,
    admin: &PgConnectOptions,
    name: &TemplateName,
    schemas: &[&Schema],
) -> anyhow::Result<()> {
    let building = name.building();
    // A build that died half-way leaves this behind; nobody else can be using it.
    drop_database(conn, &building).await?;
    sqlx::query(&format!("create database {building}"))
        .execute(&mut *conn)
        .await?;
    let url = database_url(admin, &building);
    for schema in schemas {
        let owner = fleetdesk_kit::db::connect_owner(&url, schema.name, 1).await?;
        let migrated = schema.migrate(&owner).await;
        // Postgres copies only a template nobody is connected to.
        owner.close().await;
        migrated
            .map_err(|e| anyhow::anyhow!("migrate schema {} in {building}: {e:#}", schema.name))?;
    }
    // Renamed and marked in one transaction: under its own name it is complete.
    let mut tx = conn.begin().await?;
    sqlx::query(&format!(
        "alter database {building} rename to {}",
        name.as_str()
    ))
    .execute(&mut *tx)
    .await?;
    sqlx::query(&format!(
        "alter database {} is_template true",
        name.as_str()
    ))
    .execute(&mut *tx)
    .await?;
    sqlx::query(&format!(
        "do $$ begin execute format('comment on database %I is %L', '{}', \
         'fleetdesk test template, built ' || now()); end $$",
        name.as_str()
    ))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

async fn is_complete(conn: &mut PgConnection, name: &TemplateName) -> sqlx::Result<bool> {
    sqlx::query_scalar(
        "select exists(select 1 from pg_database where datname = $1 and datistemplate)",
    )
    .bind(name.as_str())
    .fetch_one(conn)
    .await
}

/// Drops templates of other keys built more than [`STALE_AFTER`] ago, and
/// builds abandoned half-way, skipping any another process holds the lock of
/// (copying or building it right now).
pub(crate) async fn drop_stale_templates(
    conn: &mut PgConnection,
    keep: &TemplateName,
) -> anyhow::Result<Vec<String>> {
    let stale: Vec<String> = sqlx::query_scalar(&format!(
        "select datname from pg_database \
         where datname like 'fd\\_tpl\\_%' and datname <> $1 and datname <> $1 || '_building' \
           and coalesce(substring(shobj_description(oid, 'pg_database') from 'built (.*)$')::timestamptz, \
                        '-infinity') < now() - interval '{STALE_AFTER}'"
    ))
    .bind(keep.as_str())
    .fetch_all(&mut *conn)
    .await?;
    let mut dropped = Vec::new();
    for name in stale {
        let Some(lock) = TemplateName::lock_key(&name) else {
            continue;
        };
        let free: bool = sqlx::query_scalar("select pg_try_advisory_lock($1, $2)")
            .bind(LOCK_NAMESPACE)
            .bind(lock)
            .fetch_one(&mut *conn)
            .await?;
        if !free {
            continue;
        }
        let result = drop_database(conn, &name).await;
        advisory(conn, "pg_advisory_unlock", lock).await?;
        result?;
        dropped.push(name);
    }
    Ok(dropped)
}

async fn drop_database(conn: &mut PgConnection, name: &str) -> sqlx::Result<()> {
    let exists: bool =
        sqlx::query_scalar("select exists(select 1 from pg_database where datname = $1)")
            .bind(name)
            .fetch_one(&mut *conn)
            .await?;
    if exists {
        // Postgres refuses to drop a database still marked as a template.
        sqlx::query(&format!("alter database {name} is_template false"))
            .execute(&mut *conn)
            .await?;
        sqlx::query(&format!("drop database if exists {name} with (force)"))
            .execute(&mut *conn)
            .await?;
    }
    Ok(())
}

async fn advisory(conn: &mut PgConnection, function: &str, lock: i32) -> sqlx::Result<()> {
    sqlx::query(&format!("select {function}($1, $2)::text"))
        .bind(LOCK_NAMESPACE)
        .bind(lock)
        .execute(conn)
        .await
        .map(|_| ())
}

pub(crate) fn admin_options() -> PgConnectOptions {
    PgConnectOptions::from_str(&crate::admin_database_url())
        .expect("database url")
        .database("postgres")
}

pub(crate) fn database_url(admin: &PgConnectOptions, name: &str) -> String {
    format!(
        "postgres://{}@{}:{}/{}",
        admin.get_username(),
        admin.get_host(),
        admin.get_port(),
        name
    )
}
