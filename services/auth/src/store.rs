//! Queries of the auth schema.

use chrono::{DateTime, Utc};
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
    sqlx::query_as(
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
    .fetch_one(pool)
    .await
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
    .fetch_optional(pool)
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
    pub succeeded: bool,
    pub failure_reason: &'a str,
    pub ip: &'a str,
    pub user_agent: &'a str,
}

pub async fn record_login(pool: &PgPool, a: LoginAttempt<'_>) -> sqlx::Result<()> {
    sqlx::query(
        "insert into login_log (id, login_type, principal, account_id, enterprise_id, succeeded, \
         failure_reason, ip, user_agent) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
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
