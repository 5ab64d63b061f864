//! The fetch job (the vehicle target starts it by this path when a traffic
//! authority is configured): once a Beijing day per enterprise, every plate
//! of its vehicles is asked of the authority for the past year, page by
//! page (`super::authority`, signed, 429s waited out), and what comes back
//! is upserted by decision number (`store::upsert`), so a violation seen
//! again stays one row and a new one gets its responsible driver. It runs
//! only here, never inside a request. `fetch_enterprise` is one
//! enterprise's round (tests and the demo call it on demand); `run`
//! checks hourly which enterprises are due.

use std::time::Duration as StdDuration;

use chrono::{DateTime, Days, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::authority::Authority;
use super::domain::Source;
use super::store;
use crate::context::Actor;
use crate::odometer::beijing_day;

/// How often the job looks for enterprises not fetched today.
const EVERY: StdDuration = StdDuration::from_secs(3600);
/// How far back each round asks (the authority's longest span).
const LOOKBACK_DAYS: u64 = 365;
/// Every replica runs the job: an enterprise's round holds this
/// session-level advisory lock (with the enterprise) so two never overlap.
const JOB_LOCK: i32 = 0x7476_696f; // "tvio"

/// The job acting in `enterprise`: a service, reaching everything.
fn system(enterprise: Uuid) -> Actor {
    Actor {
        enterprise_id: enterprise,
        user_id: None,
        name: "系统".to_owned(),
        reach: ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    }
}

/// What one round found.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Fetched {
    pub plates: usize,
    /// Records the authority answered.
    pub records: usize,
    /// Of them, new violations.
    pub new: usize,
    /// Plates the authority failed on (tried again next round).
    pub failed: usize,
}

/// One round for `enterprise` at `now`: every plate of its vehicles asked
/// for the past year, what came back upserted, the day recorded.
pub async fn fetch_enterprise(
    pool: &PgPool,
    authority: &Authority,
    enterprise: Uuid,
    now: DateTime<Utc>,
) -> Result<Fetched, ServiceError> {
    let mut lock = pool.acquire().await?;
    let locked: bool = sqlx::query_scalar("select pg_try_advisory_lock($1, hashtext($2::text))")
        .bind(JOB_LOCK)
        .bind(enterprise)
        .fetch_one(&mut *lock)
        .await?;
    if !locked {
        return Ok(Fetched::default());
    }
    let round = fetch_locked(pool, authority, enterprise, now).await;
    sqlx::query("select pg_advisory_unlock($1, hashtext($2::text))")
        .bind(JOB_LOCK)
        .bind(enterprise)
        .execute(&mut *lock)
        .await?;
    round
}

async fn fetch_locked(
    pool: &PgPool,
    authority: &Authority,
    enterprise: Uuid,
    now: DateTime<Utc>,
) -> Result<Fetched, ServiceError> {
    let actor = system(enterprise);
    let mut tx = db::begin_tenant(pool, enterprise).await?;
    let plates: Vec<(String, Uuid, Uuid)> = sqlx::query_as(
        "select plate_number, id, org_id from vehicle where enterprise_id = $1 \
         order by plate_number",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    db::end_read(tx);
    let today = beijing_day(now);
    let from = today
        .checked_sub_days(Days::new(LOOKBACK_DAYS))
        .unwrap_or(today);
    let mut round = Fetched::default();
    for (plate, vehicle, org) in plates {
        round.plates += 1;
        let records = match authority.violations(&plate, from, today).await {
            Ok(records) => records,
            Err(err) => {
                tracing::warn!(error = %err, %plate, "Violations not fetched.");
                round.failed += 1;
                continue;
            }
        };
        let mut tx = db::begin_tenant(pool, enterprise).await?;
        for record in records {
            round.records += 1;
            let record = match record.check(now) {
                Ok(r) if r.plate == plate => r,
                Ok(_) | Err(_) => {
                    tracing::warn!(%plate, "A violation from the authority was not usable.");
                    continue;
                }
            };
            if store::upsert(&mut tx, &actor, (vehicle, org), &record, Source::Fetched).await? {
                round.new += 1;
            }
        }
        tx.commit().await?;
    }
    let mut tx = db::begin_tenant(pool, enterprise).await?;
    sqlx::query(
        "insert into traffic_violation_sync (enterprise_id, synced_on, fetched) \
         values ($1, $2, $3) on conflict (enterprise_id) do update \
         set synced_on = excluded.synced_on, fetched = excluded.fetched",
    )
    .bind(enterprise)
    .bind(today)
    .bind(i32::try_from(round.new).unwrap_or(i32::MAX))
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if round.new > 0 || round.failed > 0 {
        tracing::info!(
            %enterprise,
            plates = round.plates,
            new = round.new,
            failed = round.failed,
            "Traffic violations fetched."
        );
    }
    Ok(round)
}

/// Every enterprise with vehicles not yet fetched on `now`'s Beijing day.
pub async fn due(pool: &PgPool, now: DateTime<Utc>) -> Result<Vec<Uuid>, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let due: Vec<Uuid> = sqlx::query_scalar(
        "select e.enterprise_id from (select distinct enterprise_id from vehicle) e \
         left join traffic_violation_sync s on s.enterprise_id = e.enterprise_id \
         where s.synced_on is null or s.synced_on < $1",
    )
    .bind(beijing_day(now))
    .fetch_all(&mut *tx)
    .await?;
    db::end_read(tx);
    Ok(due)
}

/// Fetches each due enterprise, then looks again hourly, until shutdown.
pub async fn run(pool: PgPool, authority: Authority, shutdown: Shutdown) {
    loop {
        let round = async {
            let now = Utc::now();
            match due(&pool, now).await {
                Ok(enterprises) => {
                    for enterprise in enterprises {
                        if let Err(err) = fetch_enterprise(&pool, &authority, enterprise, now).await
                        {
                            tracing::warn!(error = %err, %enterprise, "Violation fetch failed.");
                        }
                    }
                }
                Err(err) => tracing::warn!(error = %err, "Violation fetch job failed."),
            }
        };
        // A round stops with the service (the next start fetches again).
        tokio::select! {
            () = round => {}
            () = shutdown.wait() => return,
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}
