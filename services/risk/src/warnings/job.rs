//! The daily warnings job: raises the warnings of `super` (licences, ID
//! cards, overdue instalments) across every enterprise, each once per subject and
//! period, and resolves those whose condition cleared. `run_once` is one
//! round at a given time (tests call it); `run` repeats it daily.

use std::time::Duration as StdDuration;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::PgPool;

use super::domain::{self, Document, LICENCE_HORIZON_DAYS};
use super::store::{self, Subject};

const EVERY: StdDuration = StdDuration::from_secs(24 * 3600);
/// Every replica runs the job: a round takes this transaction-scoped
/// advisory lock so two rounds never interleave.
pub const JOB_LOCK: i64 = 0x7269_736b_7761_726e; // "riskwarn"

/// What one round did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Round {
    pub raised: u64,
    pub resolved: u64,
}

/// One round at `now`: raises what is due and not yet raised.
pub async fn run_once(pool: &PgPool, now: DateTime<Utc>) -> Result<Round, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(JOB_LOCK)
        .execute(&mut *tx)
        .await?;
    let mut round = Round {
        resolved: store::resolve_cleared(&mut tx).await?,
        ..Round::default()
    };
    let until = now + Duration::days(LICENCE_HORIZON_DAYS);
    for document in [Document::Licence, Document::IdCard] {
        for d in store::expiring(&mut tx, document, until).await? {
            let subject = Subject {
                enterprise_id: d.enterprise_id,
                org_id: d.org_id,
                id: d.id,
                vehicle_id: d.vehicle_id,
                driver_id: Some(d.id),
            };
            let raise = domain::expiring(document, &d.name, d.expire_time, now);
            round.raised += u64::from(store::raise(&mut tx, &subject, &raise, now).await?);
        }
    }
    for u in store::overdue_records(&mut tx).await? {
        let subject = Subject {
            enterprise_id: u.enterprise_id,
            org_id: u.org_id,
            id: u.id,
            vehicle_id: Some(u.vehicle_id),
            driver_id: None,
        };
        let raise = domain::overdue(
            &u.plate_number,
            &u.contract_no,
            u.paid_periods.unwrap_or_default(),
            u.overdue_periods.unwrap_or_default(),
            u.monthly_payment_fen,
        );
        round.raised += u64::from(store::raise(&mut tx, &subject, &raise, now).await?);
    }
    tx.commit().await?;
    if round != Round::default() {
        tracing::info!(
            raised = round.raised,
            resolved = round.resolved,
            "Warnings job ran."
        );
    }
    Ok(round)
}

/// Runs [`run_once`] now and every day until shutdown.
pub async fn run(pool: PgPool, shutdown: Shutdown) {
    loop {
        if let Err(err) = run_once(&pool, Utc::now()).await {
            tracing::warn!(error = %err, "Warnings job failed.");
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}
