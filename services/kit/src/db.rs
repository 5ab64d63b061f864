//! PostgreSQL: one database, one schema per service. The pool pins
//! `search_path` to the service's schema, so queries never name it and no
//! service can reach another's tables by accident.

use std::borrow::Cow;
use std::str::FromStr;

use anyhow::Context as _;
use sqlx::Connection as _;
use sqlx::migrate::Migrator;
use sqlx_postgres::{PgConnectOptions, PgPoolOptions};
use sqlx_postgres::{PgConnection, PgPool};

/// Tables every service has: the outbox and the processed-events ledger.
pub static KIT_MIGRATIONS: Migrator = sqlx::migrate!("./migrations");
/// The org_unit replica a domain service keeps for data scope ([`crate::reach`]).
pub static ORG_REPLICA_MIGRATIONS: Migrator = sqlx::migrate!("./migrations-org-replica");

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

/// The role every service pool acts as: neither owner of the tables nor
/// BYPASSRLS, so row-level security applies to it. Created by [`migrate`].
pub const APP_ROLE: &str = "fleetdesk_app";

/// A pool for serving: every connection uses `schema` and acts as
/// [`APP_ROLE`], so tenant policies bind it. Run [`migrate`] first.
pub async fn connect(url: &str, schema: &str, max_connections: u32) -> anyhow::Result<PgPool> {
    open_pool(url, schema, max_connections, true).await
}

/// Fewest connections a serving pool can work with (a request and the
/// outbox relay or a consumer at once).
pub const MIN_POOL: u32 = 2;

/// How many connections each of a process's `pools` may keep so that
/// together they fit what the server has free now: `wanted`, or fewer (with
/// a warning) when the server's `max_connections` less its reserved slots
/// and the connections already open leave less. Fails, naming the numbers,
/// when not even [`MIN_POOL`] each fit: requests would otherwise time out
/// later on pools that can never open a connection. `beside` counts the
/// connections the process opens outside its pools (kit's wake-up listener,
/// [`crate::wakeup::CONNECTIONS`], is counted here already).
pub async fn fit_pools(url: &str, pools: u32, wanted: u32, beside: u32) -> anyhow::Result<u32> {
    let base = PgConnectOptions::from_str(url).context("parse DATABASE_URL")?;
    // A database not created yet (`all --demo` creates it) or a server not
    // up yet: the pools open later and report that themselves.
    let Ok(mut conn) = PgConnection::connect_with(&base).await else {
        return Ok(wanted);
    };
    let (max, reserved, open): (i32, i32, i64) = sqlx::query_as(
        "select current_setting('max_connections')::int, \
                current_setting('superuser_reserved_connections')::int \
                  + coalesce(nullif(current_setting('reserved_connections', true), ''), '0')::int, \
                (select count(*) from pg_stat_activity where backend_type = 'client backend')",
    )
    .fetch_one(&mut conn)
    .await
    .context("read the server's connection limit")?;
    conn.close().await.ok();
    let beside = beside.saturating_add(crate::wakeup::CONNECTIONS);
    // This very connection is closed again: it does not count as open.
    let free = i64::from(max - reserved) - (open - 1) - i64::from(beside);
    let per_pool = u32::try_from(free.max(0) / i64::from(pools.max(1))).unwrap_or(0);
    if per_pool < MIN_POOL {
        anyhow::bail!(
            "PostgreSQL allows {max} connections ({reserved} reserved) and {open} are open: \
             {pools} pool(s) of this process need at least {MIN_POOL} each, \
             beside its {beside} other connection(s). \
             Raise max_connections or stop other clients."
        );
    }
    if per_pool < wanted {
        tracing::warn!(
            max,
            open,
            pools,
            wanted,
            per_pool,
            "PostgreSQL has too few free connections for FLEETDESK_DB_MAX_CONNECTIONS; pools sized down."
        );
        return Ok(per_pool);
    }
    Ok(wanted)
}

/// A pool acting as the connecting (owning) user: for migrations and demo data only.
pub async fn connect_owner(
    url: &str,
    schema: &str,
    max_connections: u32,
) -> anyhow::Result<PgPool> {
    open_pool(url, schema, max_connections, false).await
}

async fn open_pool(
    url: &str,
    schema: &str,
    max_connections: u32,
    as_app: bool,
) -> anyhow::Result<PgPool> {
    let base = PgConnectOptions::from_str(url).context("parse DATABASE_URL")?;
    if !as_app {
        let mut conn = PgConnection::connect_with(&base)
            .await
            .context("connect to PostgreSQL")?;
        sqlx::query(&format!("create schema if not exists \"{schema}\""))
            .execute(&mut conn)
            .await
            .context("create schema")?;
        conn.close().await.ok();
    }

    let options = base.options([
        ("search_path", schema),
        // Bind-parameter LIMIT/OFFSET otherwise re-plans every execution.
        ("plan_cache_mode", "force_generic_plan"),
        ("timezone", "UTC"),
    ]);
    let mut pool = PgPoolOptions::new()
        .max_connections(max_connections)
        // No ping before each use: a round trip on every request, where a
        // dead connection fails its query anyway and is dropped by the pool.
        .test_before_acquire(false)
        .acquire_timeout(std::time::Duration::from_secs(10));
    if as_app {
        pool = pool.after_connect(|conn, _meta| {
            Box::pin(async move {
                sqlx::query(&format!("set role {APP_ROLE}"))
                    .execute(conn)
                    .await?;
                Ok(())
            })
        });
    }
    pool.connect_with(options)
        .await
        .with_context(|| format!("open pool for schema {schema} (has `fleetdesk migrate` run?)"))
}

/// Begins a transaction acting for one tenant: tenant policies show and
/// accept only that enterprise's rows. `begin` and the setting travel in one
/// round trip (a uuid prints as hex and dashes only, so it is safe inline);
/// on a cheap read, every round trip counts.
pub async fn begin_tenant(
    pool: &PgPool,
    enterprise_id: uuid::Uuid,
) -> sqlx::Result<sqlx::Transaction<'static, sqlx_postgres::Postgres>> {
    pool.begin_with(format!(
        "begin; select set_config('app.enterprise_id', '{enterprise_id}', true)"
    ))
    .await
}

/// [`begin_tenant`] for reading one page of a list: its statements are
/// planned once per connection, not on every call. A list statement is the
/// tenant's equality plus index-served filters and order (no `$n is null or`
/// switches), so its plan does not depend on the values; left to itself,
/// Postgres re-plans it on every call for the largest tenants, whose custom
/// plan looks cheaper than the generic one (the vehicle page of the
/// 100,000-vehicle tenant: 5,000 → 9,700 statements/s). Set in the begin's
/// round trip, for this transaction only.
pub async fn begin_tenant_list(
    pool: &PgPool,
    enterprise_id: uuid::Uuid,
) -> sqlx::Result<sqlx::Transaction<'static, sqlx_postgres::Postgres>> {
    pool.begin_with(format!(
        "begin; select set_config('app.enterprise_id', '{enterprise_id}', true); \
         set local plan_cache_mode = force_generic_plan"
    ))
    .await
}

/// Ends a transaction that only read. Dropping it queues the rollback, which
/// the pool's check of every released connection sends with its own round
/// trip; awaiting a commit would cost one more round trip on every read.
pub fn end_read(tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>) {
    drop(tx);
}

/// Narrows a transaction begun with [`begin_service`] to one tenant, as
/// [`begin_tenant`] would have begun it: from here on tenant policies show
/// and accept only that enterprise's rows. Called again for the next
/// enterprise, it moves on to that one (a batch that spans tenants).
pub async fn enter_tenant(
    conn: &mut sqlx_postgres::PgConnection,
    enterprise_id: uuid::Uuid,
) -> sqlx::Result<()> {
    sqlx::query(
        "select set_config('app.enterprise_id', $1::text, true), \
         set_config('app.scope', '', true)",
    )
    .bind(enterprise_id)
    .execute(conn)
    .await?;
    Ok(())
}

/// Begins a transaction for a service-level task that must cross tenants
/// (resolving a person's memberships, relays, operator lists). Use sparingly.
pub async fn begin_service(
    pool: &PgPool,
) -> sqlx::Result<sqlx::Transaction<'static, sqlx_postgres::Postgres>> {
    pool.begin_with("begin; select set_config('app.scope', 'service', true)")
        .await
}

/// Applies the kit's migrations and then the service's, in one history table
/// inside the service's schema.
pub async fn migrate(pool: &PgPool, service: &Migrator) -> anyhow::Result<()> {
    migrate_with(pool, service, false).await
}

/// Like [`migrate`], adding the org_unit replica's migrations when
/// `replicates_org` (see [`crate::service::Schema::replicates_org`]).
pub async fn migrate_with(
    pool: &PgPool,
    service: &Migrator,
    replicates_org: bool,
) -> anyhow::Result<()> {
    let mut all: Vec<_> = KIT_MIGRATIONS.iter().cloned().collect();
    if replicates_org {
        all.extend(ORG_REPLICA_MIGRATIONS.iter().cloned());
    }
    all.extend(service.iter().cloned());
    all.sort_by_key(|m| m.version);
    let combined = Migrator {
        migrations: Cow::Owned(all),
        ..Migrator::DEFAULT
    };
    combined.run(pool).await.context("apply migrations")?;
    grant_app_role(pool).await
}

/// Creates [`APP_ROLE`] if needed and lets it use the schema's tables.
async fn grant_app_role(pool: &PgPool) -> anyhow::Result<()> {
    // Roles are cluster-wide: parallel migrations may race to create it.
    sqlx::query(&format!(
        "do $$ begin create role {APP_ROLE} nologin; \
         exception when duplicate_object or unique_violation then null; end $$"
    ))
    .execute(pool)
    .await
    .context("create app role")?;
    let schema: String = sqlx::query_scalar("select current_schema()")
        .fetch_one(pool)
        .await?;
    for statement in [
        format!("grant {APP_ROLE} to current_user"),
        format!("grant usage on schema {{schema}} to {APP_ROLE}"),
        format!(
            "grant select, insert, update, delete on all tables in schema {{schema}} to {APP_ROLE}"
        ),
        format!("grant usage, select on all sequences in schema {{schema}} to {APP_ROLE}"),
    ] {
        let statement = statement.replace("{schema}", &format!("\"{schema}\""));
        if let Err(err) = sqlx::query(&statement).execute(pool).await {
            // A superuser needs no membership; granting it to oneself may be
            // refused (0LP01). Parallel migrations on a fresh cluster race on
            // the same membership row (23505): the other one granted it.
            let harmless = matches!(&err, sqlx::Error::Database(db)
                if matches!(db.code().as_deref(), Some("0LP01" | "23505")));
            if !harmless {
                return Err(err).with_context(|| format!("grant: {statement}"));
            }
        }
    }
    Ok(())
}
