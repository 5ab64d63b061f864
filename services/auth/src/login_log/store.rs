//! Queries of the login log: an attempt written at the service level, and
//! an enterprise's log read in its tenant transaction.

use chrono::{DateTime, Utc};
use fleetdesk_kit::db;
use sqlx::FromRow;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::domain::LoginType;

pub struct LoginAttempt<'a> {
    pub login_type: LoginType,
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

pub async fn record(pool: &PgPool, attempt: LoginAttempt<'_>) -> sqlx::Result<()> {
    let LoginAttempt {
        login_type,
        principal,
        account_id,
        enterprise_id,
        enterprise_ids,
        succeeded,
        failure_reason,
        ip,
        user_agent,
    } = attempt;
    // Written before (or without) any tenant: a service-level write.
    let mut tx = db::begin_service(pool).await?;
    sqlx::query(
        "insert into login_log (id, login_type, principal, account_id, enterprise_id, succeeded, \
         failure_reason, ip, user_agent, enterprise_ids) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(Uuid::new_v4())
    .bind(i16::from(login_type))
    .bind(principal)
    .bind(account_id)
    .bind(enterprise_id)
    .bind(succeeded)
    .bind(failure_reason)
    .bind(ip)
    .bind(user_agent)
    .bind(enterprise_ids)
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
    pub login_type: Option<LoginType>,
    pub succeeded: Option<bool>,
    pub from: Option<DateTime<Utc>>,
    pub to: Option<DateTime<Utc>>,
    /// Part of the principal.
    pub principal: String,
}

/// One page of an enterprise's login log, newest first, and the total.
pub async fn list(
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
    let login_type = filter.login_type.map(i16::from);
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
    .bind(login_type)
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
        .bind(login_type)
        .bind(filter.succeeded)
        .bind(filter.from)
        .bind(filter.to)
        .bind(&pattern)
        .fetch_one(&mut *tx)
        .await?;
    Ok((rows, total))
}
