//! Queries of the auth schema.

use chrono::{DateTime, Utc};
use fleetdesk_kit::db;
use sqlx::{FromRow, PgPool};
use uuid::Uuid;

#[derive(Debug, Clone, FromRow)]
pub struct AccountRow {
    pub id: Uuid,
    pub username: String,
    pub phone: Option<String>,
    pub name: String,
    pub avatar_url: String,
    pub password_hash: Option<String>,
    pub status: i16,
    pub created_at: DateTime<Utc>,
}

pub const ACCOUNT_ACTIVE: i16 = 1;
pub const SESSION_PERSONAL: i16 = 1;
pub const SESSION_ENTERPRISE: i16 = 2;

const ACCOUNT_COLUMNS: &str =
    "id, username, phone, name, avatar_url, password_hash, status, created_at";

pub async fn account_by_username(
    pool: &PgPool,
    username: &str,
) -> sqlx::Result<Option<AccountRow>> {
    sqlx::query_as(&format!(
        "select {ACCOUNT_COLUMNS} from account where username = $1"
    ))
    .bind(username)
    .fetch_optional(pool)
    .await
}

pub async fn account_by_phone(pool: &PgPool, phone: &str) -> sqlx::Result<Option<AccountRow>> {
    sqlx::query_as(&format!(
        "select {ACCOUNT_COLUMNS} from account where phone = $1"
    ))
    .bind(phone)
    .fetch_optional(pool)
    .await
}

pub async fn account_by_id(pool: &PgPool, id: Uuid) -> sqlx::Result<Option<AccountRow>> {
    sqlx::query_as(&format!(
        "select {ACCOUNT_COLUMNS} from account where id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await
}

#[derive(Debug, Clone, FromRow)]
pub struct SessionRow {
    pub id: Uuid,
    pub account_id: Uuid,
    pub kind: i16,
    pub enterprise_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub revoked_at: Option<DateTime<Utc>>,
}

pub struct NewSession<'a> {
    pub token_hash: &'a [u8],
    pub account_id: Uuid,
    pub enterprise_id: Option<Uuid>,
    pub expires_at: DateTime<Utc>,
}

pub async fn insert_session(pool: &PgPool, new: NewSession<'_>) -> sqlx::Result<SessionRow> {
    let kind = if new.enterprise_id.is_some() {
        SESSION_ENTERPRISE
    } else {
        SESSION_PERSONAL
    };
    // Sessions are service data (found by token before any tenant is known).
    let mut tx = db::begin_service(pool).await?;
    let row = sqlx::query_as(
        "insert into session (id, token_hash, account_id, kind, enterprise_id, expires_at) \
         values ($1, $2, $3, $4, $5, $6) \
         returning id, account_id, kind, enterprise_id, created_at, expires_at, revoked_at",
    )
    .bind(Uuid::new_v4())
    .bind(new.token_hash)
    .bind(new.account_id)
    .bind(kind)
    .bind(new.enterprise_id)
    .bind(new.expires_at)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// Ends every live session of an account except the one of `keep`, in the
/// caller's transaction; returns (id, token hash) of each ended one.
pub async fn revoke_account_sessions(
    tx: &mut sqlx::PgConnection,
    account_id: Uuid,
    keep: Option<&[u8]>,
    reason: &str,
) -> sqlx::Result<Vec<(Uuid, Vec<u8>)>> {
    sqlx::query_as(
        "update session set revoked_at = now(), revoke_reason = $3 \
         where account_id = $1 and revoked_at is null and ($2::bytea is null or token_hash <> $2) \
         returning id, token_hash",
    )
    .bind(account_id)
    .bind(keep)
    .bind(reason)
    .fetch_all(tx)
    .await
}

pub async fn set_password(
    tx: &mut sqlx::PgConnection,
    account_id: Uuid,
    password_hash: &str,
) -> sqlx::Result<()> {
    sqlx::query("update account set password_hash = $2, updated_at = now() where id = $1")
        .bind(account_id)
        .bind(password_hash)
        .execute(tx)
        .await?;
    Ok(())
}

pub async fn session_by_token_hash(
    pool: &PgPool,
    token_hash: &[u8],
) -> sqlx::Result<Option<SessionRow>> {
    sqlx::query_as(
        "select id, account_id, kind, enterprise_id, created_at, expires_at, revoked_at \
         from session where token_hash = $1",
    )
    .bind(token_hash)
    .fetch_optional(&mut *db::begin_service(pool).await?)
    .await
}

/// Revokes a live session in the caller's transaction; returns its id if it was live.
pub async fn revoke_session(
    tx: &mut sqlx::PgConnection,
    token_hash: &[u8],
    reason: &str,
) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar(
        "update session set revoked_at = now(), revoke_reason = $2 \
         where token_hash = $1 and revoked_at is null returning id",
    )
    .bind(token_hash)
    .bind(reason)
    .fetch_optional(tx)
    .await
}

pub struct LoginAttempt<'a> {
    pub login_type: i16,
    pub principal: &'a str,
    pub account_id: Option<Uuid>,
    pub enterprise_id: Option<Uuid>,
    /// Enterprises the account belongs to: each of them sees the attempt.
    pub enterprise_ids: &'a [Uuid],
    pub succeeded: bool,
    pub failure_reason: &'a str,
    pub ip: &'a str,
    pub user_agent: &'a str,
}

pub async fn record_login(pool: &PgPool, a: LoginAttempt<'_>) -> sqlx::Result<()> {
    // Written before (or without) any tenant: a service-level write.
    let mut tx = db::begin_service(pool).await?;
    sqlx::query(
        "insert into login_log (id, login_type, principal, account_id, enterprise_id, succeeded, \
         failure_reason, ip, user_agent, enterprise_ids) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(Uuid::new_v4())
    .bind(a.login_type)
    .bind(a.principal)
    .bind(a.account_id)
    .bind(a.enterprise_id)
    .bind(a.succeeded)
    .bind(a.failure_reason)
    .bind(a.ip)
    .bind(a.user_agent)
    .bind(a.enterprise_ids)
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}

#[derive(Debug, Clone, FromRow)]
pub struct LoginLogRow {
    pub id: Uuid,
    pub attempted_at: DateTime<Utc>,
    pub login_type: i16,
    pub principal: String,
    pub succeeded: bool,
    pub failure_reason: String,
    pub ip: String,
    pub user_agent: String,
}

/// Filters of the login log; `None` means any.
#[derive(Debug, Default)]
pub struct LoginLogFilter {
    pub login_type: Option<i16>,
    pub succeeded: Option<bool>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Part of the principal.
    pub principal: String,
}

/// One page of an enterprise's login log, newest first, and the total.
pub async fn list_login_logs(
    pool: &PgPool,
    enterprise_id: Uuid,
    filter: &LoginLogFilter,
    page: i64,
    size: i64,
) -> sqlx::Result<(Vec<LoginLogRow>, i64)> {
    // No principal given: no `like '%%'` per row.
    let pattern = (!filter.principal.is_empty()).then(|| {
        format!(
            "%{}%",
            filter
                .principal
                .replace('\\', "\\\\")
                .replace('%', "\\%")
                .replace('_', "\\_")
        )
    });
    // `enterprise_ids @> array[$1]` is what the GIN index on enterprise_ids serves.
    const WHERE: &str = "where enterprise_ids @> array[$1::uuid] \
         and ($2::smallint is null or login_type = $2) \
         and ($3::boolean is null or succeeded = $3) \
         and ($4::timestamptz is null or attempted_at >= $4) \
         and ($5::timestamptz is null or attempted_at <= $5) \
         and ($6::text is null or principal like $6)";
    let mut tx = db::begin_tenant(pool, enterprise_id).await?;
    let rows = sqlx::query_as(&format!(
        "select id, attempted_at, login_type, principal, succeeded, failure_reason, ip, user_agent \
         from login_log {WHERE} order by attempted_at desc, id limit $7 offset $8"
    ))
    .bind(enterprise_id)
    .bind(filter.login_type)
    .bind(filter.succeeded)
    .bind(filter.from)
    .bind(filter.to)
    .bind(&pattern)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *tx)
    .await?;
    let total = sqlx::query_scalar(&format!("select count(*) from login_log {WHERE}"))
        .bind(enterprise_id)
        .bind(filter.login_type)
        .bind(filter.succeeded)
        .bind(filter.from)
        .bind(filter.to)
        .bind(&pattern)
        .fetch_one(&mut *tx)
        .await?;
    Ok((rows, total))
}

/// Creates an account; unique violations name `account_username_key` or `account_phone_key`.
pub async fn insert_account(
    pool: &PgPool,
    id: Uuid,
    username: &str,
    name: &str,
    phone: Option<&str>,
    password_hash: Option<&str>,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into account (id, username, name, phone, password_hash) values ($1, $2, $3, $4, $5)",
    )
    .bind(id)
    .bind(username)
    .bind(name)
    .bind(phone)
    .bind(password_hash)
    .execute(pool)
    .await?;
    Ok(())
}

/// Creates or refreshes an account with a fixed id (demo data).
pub async fn upsert_account(
    pool: &PgPool,
    id: Uuid,
    username: &str,
    name: &str,
    phone: Option<&str>,
    password_hash: &str,
) -> sqlx::Result<()> {
    sqlx::query(
        "insert into account (id, username, name, phone, password_hash) values ($1, $2, $3, $4, $5) \
         on conflict (id) do update set username = excluded.username, name = excluded.name, \
         phone = excluded.phone, updated_at = now()",
    )
    .bind(id)
    .bind(username)
    .bind(name)
    .bind(phone)
    .bind(password_hash)
    .execute(pool)
    .await?;
    Ok(())
}
