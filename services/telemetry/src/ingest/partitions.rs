//! The partition job: every hour, the day partitions of the next three days
//! are created and those past retention dropped (never a DELETE); the
//! temperature evaluation's reading buffer is trimmed.

use std::time::Duration;

use chrono::{Days, NaiveDate, Utc};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::PgPool;

use super::domain::RETENTION_DAYS;
use super::store;

const EVERY: Duration = Duration::from_secs(3600);
/// Every replica runs the job: rounds take this transaction-scoped advisory
/// lock so two of them never create or drop the same partition at once.
pub const JOB_LOCK: i64 = 0x6665_6574_7061_7274; // "feetpart"

/// One round: today and three days ahead exist, days before
/// `today - RETENTION_DAYS` are gone. Returns the partitions dropped.
pub async fn maintain(pool: &PgPool, today: NaiveDate) -> Result<i32, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(JOB_LOCK)
        .execute(&mut *tx)
        .await?;
    let ahead = (0..=3)
        .filter_map(|d| today.checked_add_days(Days::new(d)))
        .collect();
    store::ensure_partitions(&mut tx, &ahead).await?;
    let keep_from = today
        .checked_sub_days(Days::new(RETENTION_DAYS.unsigned_abs()))
        .unwrap_or(today);
    let dropped = store::drop_partitions_before(&mut tx, keep_from).await?;
    tx.commit().await?;
    if dropped > 0 {
        tracing::info!(dropped, %keep_from, "Position partitions past retention dropped.");
    }
    Ok(dropped)
}

/// Runs [`maintain`] now and every hour until shutdown.
pub async fn run(pool: PgPool, shutdown: Shutdown) {
    loop {
        if let Err(err) = maintain(&pool, Utc::now().date_naive()).await {
            tracing::warn!(error = %err, "Position partition job failed.");
        }
        if let Err(err) = crate::temperature::evaluate::trim_buffer(&pool).await {
            tracing::warn!(error = %err, "Temperature buffer not trimmed.");
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}
