//! The maintenance job (the vehicle target starts it by this path):
//! daily, keeps every plan's reminders in step with the fleet
//! (`store::sync` for each plan of each enterprise), so a vehicle added to
//! an organisation, moved between organisations or given another model
//! gets, keeps or loses its reminders without anyone saving the plan; and
//! hourly, re-judges every open reminder (`reminders::judge::refresh`), so
//! the states and order the list reads from its index follow the calendar
//! and the odometer within the hour. Hourly rather than on every odometer
//! move: telemetry writes a fix every few seconds, and an hour's driving is
//! well inside the plans' due-soon windows. This is the one place a plans
//! module calls into `reminders`: the job runs both subjects' rounds.
//! `run_once` is one full round at a given time (tests call it),
//! `judge_once` the hourly part; `run` repeats them.

use std::time::Duration as StdDuration;

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::PgPool;

use super::convert;
use super::store::{self, PlanRow, Synced};
use crate::context::Actor;
use crate::odometer::beijing_day;
use crate::reminders::judge::{self, Refresh};

/// How often the reminders are re-judged (plans are synced once a day).
const EVERY: StdDuration = StdDuration::from_secs(3600);
/// Every replica runs the job: a round takes this transaction-scoped
/// advisory lock so two rounds never interleave.
pub const JOB_LOCK: i64 = 0x6d61_696e_706c_616e; // "mainplan"

/// The job acting in `enterprise`: a service, reaching everything.
fn system(enterprise: uuid::Uuid) -> Actor {
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

/// One full round at `now`: every plan synced, then every open reminder
/// judged; what the sync opened, moved and closed.
pub async fn run_once(pool: &PgPool, now: DateTime<Utc>) -> Result<Synced, ServiceError> {
    let round = sync_once(pool, now).await?;
    judge_once(pool, now).await?;
    Ok(round)
}

/// Every open reminder of every enterprise judged at `now`, a batch per
/// transaction; answers how many changed.
pub async fn judge_once(pool: &PgPool, now: DateTime<Utc>) -> Result<u64, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let enterprises: Vec<uuid::Uuid> =
        sqlx::query_scalar("select distinct enterprise_id from maintenance_plan")
            .fetch_all(&mut *tx)
            .await?;
    db::end_read(tx);
    let today = beijing_day(now);
    let mut written = 0;
    for enterprise in enterprises {
        written += judge::refresh(pool, enterprise, Refresh::Every, today).await?;
    }
    if written > 0 {
        tracing::info!(written, "Maintenance reminders judged.");
    }
    Ok(written)
}

/// Every plan synced at `now`; what it opened, moved and closed.
async fn sync_once(pool: &PgPool, now: DateTime<Utc>) -> Result<Synced, ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    sqlx::query("select pg_advisory_xact_lock($1)")
        .bind(JOB_LOCK)
        .execute(&mut *tx)
        .await?;
    let plans: Vec<(uuid::Uuid, uuid::Uuid)> =
        sqlx::query_as("select enterprise_id, id from maintenance_plan order by enterprise_id, id")
            .fetch_all(&mut *tx)
            .await?;
    let today = beijing_day(now);
    let mut round = Synced::default();
    for (enterprise, plan_id) in plans {
        db::enter_tenant(&mut tx, enterprise).await?;
        let actor = system(enterprise);
        let row: PlanRow = store::get(&mut tx, &actor, plan_id, false).await?;
        let draft = convert::draft(&row)?;
        let synced = store::sync(&mut tx, &actor, plan_id, &draft, today).await?;
        round.opened += synced.opened;
        round.moved += synced.moved;
        round.closed += synced.closed;
    }
    tx.commit().await?;
    if round.opened > 0 || round.closed > 0 {
        tracing::info!(
            opened = round.opened,
            closed = round.closed,
            "Maintenance plans job ran."
        );
    }
    Ok(round)
}

/// Runs [`run_once`] now and on the first round of each Beijing day,
/// [`judge_once`] on the others, hourly until shutdown.
pub async fn run(pool: PgPool, shutdown: Shutdown) {
    let mut synced: Option<NaiveDate> = None;
    loop {
        let now = Utc::now();
        let round = if synced == Some(beijing_day(now)) {
            judge_once(&pool, now).await.map(|_| ())
        } else {
            run_once(&pool, now).await.map(|_| {
                synced = Some(beijing_day(now));
            })
        };
        if let Err(err) = round {
            tracing::warn!(error = %err, "Maintenance job failed.");
        }
        tokio::select! {
            () = tokio::time::sleep(EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}
