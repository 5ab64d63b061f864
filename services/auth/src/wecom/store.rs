//! The stored `state` of a WeCom QR sign-in: issued hashed, used up once.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use rand::RngCore as _;
use sha2::{Digest as _, Sha256};
use sqlx_postgres::PgPool;

/// How long a state may be used.
pub const STATE_TTL_SECS: i64 = 10 * 60;

/// A new state (128 bits, base64url) for `browser_binding`, stored hashed.
pub async fn issue_state(pool: &PgPool, browser_binding: &str) -> sqlx::Result<String> {
    let mut bytes = [0u8; 16];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    let state = B64.encode(bytes);
    sqlx::query("delete from wecom_state where expires_at < now()")
        .execute(pool)
        .await?;
    sqlx::query(
        "insert into wecom_state (state_hash, browser_binding, expires_at) \
         values ($1, $2, now() + make_interval(secs => $3))",
    )
    .bind(Sha256::digest(state.as_bytes()).to_vec())
    .bind(browser_binding)
    .bind(STATE_TTL_SECS as f64)
    .execute(pool)
    .await?;
    Ok(state)
}

/// Uses up `state`: true only when it existed, had not expired and was issued
/// to `browser_binding`. Deleted in any case, so it never works twice.
pub async fn consume_state(
    pool: &PgPool,
    state: &str,
    browser_binding: &str,
) -> sqlx::Result<bool> {
    let row: Option<(String, bool)> = sqlx::query_as(
        "delete from wecom_state where state_hash = $1 \
         returning browser_binding, expires_at > now()",
    )
    .bind(Sha256::digest(state.as_bytes()).to_vec())
    .fetch_optional(pool)
    .await?;
    Ok(
        matches!(row, Some((bound, live)) if live && !browser_binding.is_empty() && bound == browser_binding),
    )
}
