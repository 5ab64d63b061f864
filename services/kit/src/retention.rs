//! Retention of the kit tables that only grow: relayed outbox rows, the
//! once-only ledger of event consumers (`processed_event`), generic
//! `Idempotency-Key` answers, and export jobs with their files. A service
//! adds its own growing tables to its round as [`Pruning`]s (org: the
//! export records of the downloads list).
//!
//! Each period is configurable ([`RetentionConfig`], environment variables
//! with defaults) and refused when it would undercut a guarantee:
//! - a relayed outbox row has no reader left (the relay was the only one);
//! - a `processed_event` id must outlive every redelivery of its event, so
//!   it is kept longer than the event stream keeps messages
//!   ([`crate::events::EVENT_MAX_AGE`]) plus a day;
//! - an idempotency key answers retries for at least 7 days. Money keys are
//!   not only here: ledger transfers keep their own keys for ever
//!   (`ledger_transfer`, never touched by this job);
//! - an export file is kept at least as long as the requester is told
//!   (org's notice says 7 days); its file is deleted before its job row, so
//!   a row never outlives its file unnoticed the other way round;
//! - an export's record in the downloads list outlives its file (it reads
//!   as expired meanwhile).
//!
//! Every replica runs [`RetentionJob::run`] (hourly, started by
//! [`crate::service::Runtime`]); a round takes a transaction-scoped
//! advisory lock per schema, so two replicas never prune the same schema at
//! once, and deletes in bounded batches, each its own short transaction,
//! so a large backlog never holds locks for long.

use std::collections::BTreeMap;
use std::time::Duration;

use chrono::{DateTime, Utc};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::db;
use crate::events::EVENT_MAX_AGE;
use crate::files::FileStore;
use crate::shutdown::Shutdown;

/// Rows deleted per statement.
pub const BATCH_ROWS: i64 = 5_000;
/// Export jobs per batch: each may have a file to delete first.
pub const EXPORT_BATCH_ROWS: i64 = 200;
/// Time between rounds.
pub const EVERY: Duration = Duration::from_secs(3600);
/// The first round waits this long after start, so starting up stays light.
const FIRST_ROUND_AFTER: Duration = Duration::from_secs(60);
/// First key of the round's advisory lock; the second is the schema's hash,
/// so services sharing a database prune side by side.
pub const JOB_LOCK_CLASS: i32 = 0x7265_7465; // "rete"

/// How much longer than the event stream a processed id is kept at least.
const PROCESSED_EVENT_MARGIN_DAYS: u64 = 1;
/// The shortest time an idempotency key answers a retry.
pub const MIN_IDEMPOTENCY_KEY_DAYS: u64 = 7;
/// How long the requester is told an export file is kept (org's
/// `exports::domain::KEEP_DAYS`, quoted in the export's notice).
pub const MIN_EXPORT_DAYS: u64 = 7;

/// The retention periods, one environment variable each.
#[derive(Debug, Clone, clap::Args)]
pub struct RetentionConfig {
    /// Hours a relayed outbox row is kept after its relay.
    #[arg(long, env = "FLEETDESK_RETAIN_OUTBOX_HOURS", default_value_t = 24)]
    pub outbox_hours: u64,

    /// Days a consumer's processed event id is kept (at least the event
    /// stream's max age, 7 days, plus one).
    #[arg(
        long,
        env = "FLEETDESK_RETAIN_PROCESSED_EVENT_DAYS",
        default_value_t = 8
    )]
    pub processed_event_days: u64,

    /// Days an Idempotency-Key answer is kept (at least 7).
    #[arg(
        long,
        env = "FLEETDESK_RETAIN_IDEMPOTENCY_KEY_DAYS",
        default_value_t = 7
    )]
    pub idempotency_key_days: u64,

    /// Days an ended export job and its file are kept after it ended (at
    /// least the 7 days the requester is told).
    #[arg(long, env = "FLEETDESK_RETAIN_EXPORT_DAYS", default_value_t = 7)]
    pub export_days: u64,

    /// Days an export's record stays in the downloads list after it was
    /// requested (at least as long as its file).
    #[arg(
        long,
        env = "FLEETDESK_RETAIN_EXPORT_RECORD_DAYS",
        default_value_t = 90
    )]
    pub export_record_days: u64,
}

impl Default for RetentionConfig {
    fn default() -> Self {
        RetentionConfig {
            outbox_hours: 24,
            processed_event_days: 8,
            idempotency_key_days: 7,
            export_days: 7,
            export_record_days: 90,
        }
    }
}

/// Reads [`RetentionConfig`] alone from the environment.
#[derive(Debug, clap::Parser)]
struct FromEnv {
    #[command(flatten)]
    retention: RetentionConfig,
}

/// A period refused because it would undercut a guarantee.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{variable}={configured} 过短：{reason}，至少须为 {minimum}")]
pub struct PeriodTooShort {
    pub variable: &'static str,
    pub configured: u64,
    pub minimum: u64,
    pub reason: &'static str,
}

/// Validated periods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Periods {
    pub outbox: Duration,
    pub processed_event: Duration,
    pub idempotency_key: Duration,
    pub export: Duration,
    pub export_record: Duration,
}

const DAY: u64 = 24 * 3600;

impl RetentionConfig {
    /// The periods set in the environment (defaults otherwise), validated.
    pub fn from_env() -> anyhow::Result<Periods> {
        let parsed = <FromEnv as clap::Parser>::try_parse_from(["fleetdesk"])
            .map_err(|e| anyhow::anyhow!("保留期限配置无效：{e}"))?;
        Ok(parsed.retention.periods()?)
    }

    /// The periods, or the first one that would undercut its guarantee.
    pub fn periods(&self) -> Result<Periods, PeriodTooShort> {
        let processed_minimum = EVENT_MAX_AGE.as_secs().div_ceil(DAY) + PROCESSED_EVENT_MARGIN_DAYS;
        at_least(
            "FLEETDESK_RETAIN_PROCESSED_EVENT_DAYS",
            self.processed_event_days,
            processed_minimum,
            "事件流可在其保留期内重投事件，已处理事件的记录须比事件流多保留一天",
        )?;
        at_least(
            "FLEETDESK_RETAIN_IDEMPOTENCY_KEY_DAYS",
            self.idempotency_key_days,
            MIN_IDEMPOTENCY_KEY_DAYS,
            "幂等键须在 7 天内始终应答重试",
        )?;
        at_least(
            "FLEETDESK_RETAIN_EXPORT_DAYS",
            self.export_days,
            MIN_EXPORT_DAYS,
            "导出完成通知告知用户文件保留 7 天",
        )?;
        at_least(
            "FLEETDESK_RETAIN_EXPORT_RECORD_DAYS",
            self.export_record_days,
            self.export_days,
            "下载记录须比导出文件保留得久（FLEETDESK_RETAIN_EXPORT_DAYS）",
        )?;
        Ok(Periods {
            outbox: Duration::from_secs(self.outbox_hours.saturating_mul(3600)),
            processed_event: Duration::from_secs(self.processed_event_days.saturating_mul(DAY)),
            idempotency_key: Duration::from_secs(self.idempotency_key_days.saturating_mul(DAY)),
            export: Duration::from_secs(self.export_days.saturating_mul(DAY)),
            export_record: Duration::from_secs(self.export_record_days.saturating_mul(DAY)),
        })
    }
}

fn at_least(
    variable: &'static str,
    configured: u64,
    minimum: u64,
    reason: &'static str,
) -> Result<(), PeriodTooShort> {
    if configured < minimum {
        return Err(PeriodTooShort {
            variable,
            configured,
            minimum,
            reason,
        });
    }
    Ok(())
}

/// One growing table a round prunes: `statement` deletes at most `$2` rows
/// older than `$1`, the cut-off its `period` of [`Periods`] gives.
#[derive(Debug, Clone, Copy)]
pub struct Pruning {
    pub table: &'static str,
    pub statement: &'static str,
    pub period: fn(&Periods) -> Duration,
}

/// The kit tables every service schema has.
pub const KIT_TABLES: [Pruning; 3] = [
    Pruning {
        table: "outbox",
        statement: "delete from outbox where id in \
                    (select id from outbox where sent_at < $1 limit $2)",
        period: |p| p.outbox,
    },
    Pruning {
        table: "processed_event",
        statement: "delete from processed_event where event_id in \
                    (select event_id from processed_event where processed_at < $1 limit $2)",
        period: |p| p.processed_event,
    },
    Pruning {
        table: "idempotency_key",
        statement: "delete from idempotency_key where (enterprise_id, operation, key) in \
                    (select enterprise_id, operation, key from idempotency_key \
                     where created_at < $1 limit $2)",
        period: |p| p.idempotency_key,
    },
];

/// What one round deleted.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pruned {
    /// Rows deleted per pruned table (every table of the round, 0 included).
    pub tables: BTreeMap<&'static str, u64>,
    pub export_job: u64,
    /// Export files deleted (jobs that failed or were cancelled have none).
    pub export_files: u64,
}

impl Pruned {
    /// Rows deleted from `table` (0 for a table the round does not prune).
    pub fn rows(&self, table: &str) -> u64 {
        self.tables.get(table).copied().unwrap_or(0)
    }

    pub fn total(&self) -> u64 {
        self.tables.values().sum::<u64>() + self.export_job
    }
}

/// The retention job of one service schema.
#[derive(Debug, Clone)]
pub struct RetentionJob {
    pool: PgPool,
    files: FileStore,
    periods: Periods,
    tables: Vec<Pruning>,
    batch_rows: i64,
    export_batch_rows: i64,
}

impl RetentionJob {
    pub fn new(pool: PgPool, files: FileStore, periods: Periods) -> RetentionJob {
        RetentionJob {
            pool,
            files,
            periods,
            tables: KIT_TABLES.to_vec(),
            batch_rows: BATCH_ROWS,
            export_batch_rows: EXPORT_BATCH_ROWS,
        }
    }

    /// Also prunes a table of the service's own.
    pub fn also(mut self, pruning: Pruning) -> RetentionJob {
        self.tables.push(pruning);
        self
    }

    /// Smaller batches (tests show a backlog larger than one is pruned whole).
    pub fn batches(mut self, rows: i64, export_rows: i64) -> RetentionJob {
        self.batch_rows = rows.max(1);
        self.export_batch_rows = export_rows.max(1);
        self
    }

    /// Runs a round [`FIRST_ROUND_AFTER`] start and then every [`EVERY`]
    /// until shutdown; failures are logged and tried again next round.
    pub async fn run(self, shutdown: Shutdown) {
        let mut wait = FIRST_ROUND_AFTER;
        loop {
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.wait() => return,
            }
            wait = EVERY;
            match self.round(Utc::now()).await {
                Ok(Some(pruned)) if pruned.total() > 0 => tracing::info!(
                    tables = ?pruned.tables,
                    export_job = pruned.export_job,
                    export_files = pruned.export_files,
                    "Retention pruned old rows."
                ),
                Ok(_) => {}
                Err(err) => {
                    tracing::warn!(error = %format!("{err:#}"), "Retention round failed; trying again next round.");
                }
            }
        }
    }

    /// One round as of `now`: `None` when another replica is pruning this
    /// schema right now.
    pub async fn round(&self, now: DateTime<Utc>) -> anyhow::Result<Option<Pruned>> {
        // Held until the round ends; the batches commit on their own.
        let mut lock = db::begin_service(&self.pool).await?;
        let mine: bool =
            sqlx::query_scalar("select pg_try_advisory_xact_lock($1, hashtext(current_schema()))")
                .bind(JOB_LOCK_CLASS)
                .fetch_one(&mut *lock)
                .await?;
        if !mine {
            return Ok(None);
        }
        let mut pruned = Pruned::default();
        for pruning in &self.tables {
            let before = cutoff(now, (pruning.period)(&self.periods));
            let deleted = self.prune(pruning, before).await?;
            pruned.tables.insert(pruning.table, deleted);
        }
        let (jobs, files) = self.prune_exports(cutoff(now, self.periods.export)).await?;
        pruned.export_job = jobs;
        pruned.export_files = files;
        lock.commit().await?;
        Ok(Some(pruned))
    }

    /// Deletes batch after batch until one comes back short.
    async fn prune(&self, pruning: &Pruning, before: DateTime<Utc>) -> anyhow::Result<u64> {
        let mut total = 0;
        loop {
            // Service scope: tenant tables (idempotency_key) are pruned across tenants.
            let mut tx = db::begin_service(&self.pool).await?;
            let deleted = sqlx::query(pruning.statement)
                .bind(before)
                .bind(self.batch_rows)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            total += deleted;
            metrics::counter!("retention_rows_pruned_total", "table" => pruning.table)
                .increment(deleted);
            if deleted < self.batch_rows.unsigned_abs() {
                return Ok(total);
            }
        }
    }

    /// Deletes ended export jobs that ended before `before`: each file
    /// first, then the rows whose file is gone. Returns (jobs, files).
    async fn prune_exports(&self, before: DateTime<Utc>) -> anyhow::Result<(u64, u64)> {
        let (mut jobs, mut files) = (0, 0);
        loop {
            let mut tx = db::begin_service(&self.pool).await?;
            // Locked, so a retry of one of them waits for this batch and
            // then finds no row (a retry resets finished_at, so it is not
            // picked up once it started).
            let batch: Vec<(Uuid, String)> = sqlx::query_as(
                "select id, file_key from export_job \
                 where status in (3, 4, 5) and finished_at < $1 \
                 order by finished_at limit $2 for update skip locked",
            )
            .bind(before)
            .bind(self.export_batch_rows)
            .fetch_all(&mut *tx)
            .await?;
            let mut gone = Vec::with_capacity(batch.len());
            for (id, file_key) in &batch {
                if file_key.is_empty() {
                    gone.push(*id);
                    continue;
                }
                match self.files.delete(file_key).await {
                    Ok(()) => {
                        files += 1;
                        gone.push(*id);
                    }
                    // The row stays, so the next round deletes the file.
                    Err(err) => tracing::warn!(job = %id, error = %err.message,
                        "Export file not deleted; its job is kept until it is."),
                }
            }
            let deleted = sqlx::query("delete from export_job where id = any($1)")
                .bind(&gone)
                .execute(&mut *tx)
                .await?
                .rows_affected();
            tx.commit().await?;
            jobs += deleted;
            metrics::counter!("retention_rows_pruned_total", "table" => "export_job")
                .increment(deleted);
            // A short batch is the last; a batch of files that would not go
            // is left for the next round rather than retried at once.
            if (batch.len() as i64) < self.export_batch_rows || deleted == 0 {
                return Ok((jobs, files));
            }
        }
    }
}

/// `now - period`; a period longer than the calendar keeps everything.
fn cutoff(now: DateTime<Utc>, period: Duration) -> DateTime<Utc> {
    chrono::Duration::from_std(period)
        .ok()
        .and_then(|period| now.checked_sub_signed(period))
        .unwrap_or(DateTime::<Utc>::UNIX_EPOCH)
}
