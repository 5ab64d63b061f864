//! Queries of sessions. Sessions are service data: found by token before
//! any tenant is known.

use chrono::{DateTime, Utc};
use fleetdesk_kit::db;
use sqlx::FromRow;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::domain::SessionKind;

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

pub async fn insert(pool: &PgPool, new: NewSession<'_>) -> sqlx::Result<SessionRow> {
    let NewSession {
        token_hash,
        account_id,
        enterprise_id,
        expires_at,
    } = new;
    let kind = SessionKind::of(enterprise_id.is_some());
    let mut tx = db::begin_service(pool).await?;
    let row = sqlx::query_as(
        "insert into session (id, token_hash, account_id, kind, enterprise_id, expires_at) \
         values ($1, $2, $3, $4, $5, $6) \
         returning id, account_id, kind, enterprise_id, created_at, expires_at, revoked_at",
    )
    .bind(Uuid::new_v4())
    .bind(token_hash)
    .bind(account_id)
    .bind(i16::from(kind))
    .bind(enterprise_id)
    .bind(expires_at)
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(row)
}

/// Ends every live session of an account except the one of `keep`, in the
/// caller's transaction; returns (id, token hash) of each ended one.
pub async fn revoke_account_sessions(
    tx: &mut sqlx_postgres::PgConnection,
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

pub async fn by_token_hash(pool: &PgPool, token_hash: &[u8]) -> sqlx::Result<Option<SessionRow>> {
    sqlx::query_as(
        "select id, account_id, kind, enterprise_id, created_at, expires_at, revoked_at \
         from session where token_hash = $1",
    )
    .bind(token_hash)
    .fetch_optional(&mut *db::begin_service(pool).await?)
    .await
}

/// Revokes a live session in the caller's transaction; returns its id if it was live.
pub async fn revoke(
    tx: &mut sqlx_postgres::PgConnection,
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
