//! The month-end job: once a month has closed (and [`ISSUE_GRACE`] passed
//! for its last CDRs), issue its statement for every enterprise with
//! charging that has none yet. Rounds run every few minutes in every
//! replica; a statement's row lock makes concurrent builds of one month
//! wait and then keep the first one's statement.
//!
//! [`ISSUE_GRACE`]: super::domain::ISSUE_GRACE

use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::{ServiceError, Shutdown, db};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::{build, domain, store};

/// How often a round looks for due statements.
const ROUND_EVERY: Duration = Duration::from_secs(300);
/// Enterprises read per query of a round.
const BATCH: i64 = 100;

/// Runs rounds until shutdown.
pub async fn run(pool: PgPool, files: FileStore, shutdown: Shutdown) {
    loop {
        match round(&pool, &files, Utc::now()).await {
            Ok(0) => {}
            Ok(issued) => tracing::info!(issued, "Month-end statements issued."),
            Err(err) => tracing::warn!(error = %err, "Month-end statement round failed."),
        }
        tokio::select! {
            () = tokio::time::sleep(ROUND_EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}

/// Issues the due month's missing statements as of `now`; how many it
/// issued. An enterprise whose build fails is logged and tried again next
/// round; the others go on.
pub async fn round(
    pool: &PgPool,
    files: &FileStore,
    now: DateTime<Utc>,
) -> Result<usize, ServiceError> {
    let month = domain::due_month(now);
    let mut issued = 0;
    let mut after: Option<Uuid> = None;
    loop {
        let mut tx = db::begin_service(pool).await?;
        let due = store::due_enterprises(&mut tx, month, after, BATCH).await?;
        db::end_read(tx);
        for enterprise_id in &due {
            match build::build(pool, files, *enterprise_id, month, false).await {
                Ok(_) => issued += 1,
                Err(err) => tracing::error!(enterprise = %enterprise_id, month = month.code(),
                    error = %err, "Month-end statement not issued."),
            }
        }
        if (due.len() as i64) < BATCH {
            return Ok(issued);
        }
        after = due.last().copied();
    }
}
