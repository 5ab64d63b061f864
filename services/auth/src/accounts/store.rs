//! Queries of accounts (service data: found by name or phone before any
//! tenant is known).

use chrono::{DateTime, Utc};
use sqlx::FromRow;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::domain::AccountStatus;

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

impl AccountRow {
    /// Whether the account may sign in.
    pub fn is_active(&self) -> bool {
        AccountStatus::of_column(self.status) == AccountStatus::Active
    }
}

const ACCOUNT_COLUMNS: &str =
    "id, username, phone, name, avatar_url, password_hash, status, created_at";

pub async fn by_username(pool: &PgPool, username: &str) -> sqlx::Result<Option<AccountRow>> {
    sqlx::query_as(&format!(
        "select {ACCOUNT_COLUMNS} from account where username = $1"
    ))
    .bind(username)
    .fetch_optional(pool)
    .await
}

pub async fn by_phone(pool: &PgPool, phone: &str) -> sqlx::Result<Option<AccountRow>> {
    sqlx::query_as(&format!(
        "select {ACCOUNT_COLUMNS} from account where phone = $1"
    ))
    .bind(phone)
    .fetch_optional(pool)
    .await
}

pub async fn by_id(pool: &PgPool, id: Uuid) -> sqlx::Result<Option<AccountRow>> {
    sqlx::query_as(&format!(
        "select {ACCOUNT_COLUMNS} from account where id = $1"
    ))
    .bind(id)
    .fetch_optional(pool)
    .await
}

pub async fn set_password(
    tx: &mut sqlx_postgres::PgConnection,
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

/// Creates an account; unique violations name `account_username_key` or `account_phone_key`.
pub async fn insert(
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
pub async fn upsert(
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
