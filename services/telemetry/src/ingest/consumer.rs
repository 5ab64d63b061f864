//! The telemetry consumer (kit's [`DurablePull`]): up to [`BATCH_MAX`]
//! messages or whatever arrived within [`BATCH_WAIT`] of the first, each
//! decoded once, stored and evaluated in one transaction, then acked.
//!
//! One transaction per batch, in this order:
//! 1. service scope: the day partitions, the history (fixes of unknown
//!    vehicles, or under another tenant's subject, are dropped; it answers
//!    the fixes new to it) and their probe readings, the latest positions
//!    (locked, moved forward, and answered as they were), and the
//!    operation log's days and months they fall in;
//! 2. per enterprise, scoped to it: fence evaluation, temperature
//!    evaluation and the alarm rules over the new fixes;
//! 3. per enterprise, the reports' active-safety alarms (only batches
//!    that carry any).
//!
//! So a fix's crossings commit with the fix itself, and a replay after a
//! late fix reads the history it is already in.
//!
//! A batch whose transaction fails is handled by what failed ([`Failure`]):
//! - transient (the connection, the pool, a serialization failure or
//!   deadlock, the server shutting down: nothing about the messages): not
//!   acked, the whole batch comes back after kit's nak delay and is written
//!   again; the unique keys make that harmless. Nothing is parked.
//! - anything else may be one message's fault: the batch is split in
//!   halves, each in its own transaction, until the failing messages are
//!   alone; the rest is stored, and the messages that fail alone are
//!   parked in the dead-letter table and acked, so one bad fix never stalls
//!   history (see [`super::dead_letter`] for the rule and the replay).

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use async_nats::jetstream;
use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::events::{self, BatchHandler, DurablePull};
use fleetdesk_kit::{ErrorCode, ServiceError, Shutdown, db};
use prost::Message as _;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::dead_letter;
use super::domain::{self, FixRow, Rejected};
use super::store;
use crate::alarms::active_safety::{self, SafetyItem};
use crate::alarms::evaluate as alarms;
use crate::alarms::tracks::TrackCache;
use crate::geofences::evaluate::{self as fences, FenceCache};
use crate::ingest::{FIX_SUBJECTS, telemetry_stream};
use crate::operation::store::{self as operation, DayCache};
use crate::temperature::evaluate as temperatures;

/// Most messages in one transaction (a commit's fixed cost spread over
/// more rows when the stream has a backlog; a live fleet's trickle is
/// still written every [`BATCH_WAIT`]).
pub const BATCH_MAX: usize = 2_000;
/// Longest a batch waits for more after its first message.
pub const BATCH_WAIT: Duration = Duration::from_millis(200);
/// Batches in flight in one process, as that many replicas would take
/// them: one's statements run in Postgres while another is decoded, sent
/// or acknowledged. Batches touching one vehicle take turns on its latest
/// position, so they still apply in order (or the later one replays).
pub const WORKERS: usize = 2;

/// The telemetry consumer of one deployment (its durable name names the
/// database, so test stacks sharing a NATS server never share one).
#[derive(Debug)]
pub struct Ingest {
    pull: DurablePull,
    pool: PgPool,
}

/// Stores and evaluates batches of fixes (callable without NATS: tests and
/// `make bench` use it directly).
#[derive(Debug)]
pub struct Pipeline {
    pool: PgPool,
    fences: FenceCache,
    /// Each vehicle's rule state between batches (shared by the workers).
    tracks: TrackCache,
    /// Days whose partitions are known to exist.
    days: HashSet<NaiveDate>,
    /// The operation log's days as last read or written (shared by the workers).
    operation_days: DayCache,
    /// The highest stream sequence this process's workers stored: a message
    /// that fails alone while later ones store is at fault, not ingest.
    stored_through: Arc<AtomicU64>,
}

/// Why a batch's transaction failed, and in which step.
#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// A statement ingest runs itself: the database's own error.
    #[error("{step}: {}", database_text(.error))]
    Database {
        step: &'static str,
        error: sqlx::Error,
    },
    /// A step of another subject; it logged the database's error itself.
    #[error("{step}: {error} (the database's error is in the service log at this time)")]
    Service {
        step: &'static str,
        error: ServiceError,
    },
}

impl Failure {
    pub(super) fn database(step: &'static str) -> impl FnOnce(sqlx::Error) -> Failure {
        move |error| Failure::Database { step, error }
    }

    fn service(step: &'static str) -> impl FnOnce(ServiceError) -> Failure {
        move |error| Failure::Service { step, error }
    }

    /// Whether the failure is about the moment, not the messages: retried
    /// whole, never parked (see [`dead_letter::is_transient`]).
    pub fn is_transient(&self) -> bool {
        match self {
            Failure::Database { error, .. } => dead_letter::is_transient(error),
            // Other subjects turn every database error into Internal: that
            // one is left to the split (a transient one does not fail alone
            // twice while the rest of the batch stores).
            Failure::Service { error, .. } => {
                matches!(
                    error.code,
                    ErrorCode::Unavailable | ErrorCode::TooManyRequests
                )
            }
        }
    }
}

/// A database error with its SQLSTATE, as the dead-letter table keeps it.
fn database_text(error: &sqlx::Error) -> String {
    match error {
        sqlx::Error::Database(db) => match db.code() {
            Some(code) => format!("{} (SQLSTATE {code})", db.message()),
            None => db.message().to_owned(),
        },
        other => other.to_string(),
    }
}

impl From<Failure> for ServiceError {
    fn from(failure: Failure) -> ServiceError {
        match failure {
            Failure::Database { error, .. } => ServiceError::from(error),
            Failure::Service { error, .. } => error,
        }
    }
}

/// Decodes and checks one message's payload against the receiving clock
/// `now` (pure: a failed batch's messages are decoded again, alike).
pub fn decode(payload: &[u8], now: DateTime<Utc>) -> Result<(FixRow, Vec<SafetyItem>), Rejected> {
    fleetdesk_proto::telematics::v1::Fix::decode(payload)
        .map_err(|_| Rejected::Unreadable)
        .and_then(|fix| FixRow::parse_report(fix, now))
}

/// What one batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    /// History rows written.
    pub stored: usize,
    /// Fixes not stored: repeats of stored ones, unknown vehicles, or
    /// under another tenant's subject.
    pub dropped: usize,
    pub fences: fences::Summary,
    pub temperatures: temperatures::Summary,
    pub alarms: alarms::Summary,
    /// Active-safety alarms raised (new rows).
    pub safety_alarms: usize,
}

/// The durable consumer of the deployment whose database is `source`.
pub fn durable_name(source: &str) -> String {
    events::durable_name("vehicle-ingest", source)
}

impl Ingest {
    /// A new consumer starts with fixes published from now on.
    pub async fn new(pool: PgPool, nats: async_nats::Client) -> anyhow::Result<Ingest> {
        let source = events::source_of(&pool).await?;
        let consumer = jetstream::consumer::pull::Config {
            // Room for the next batch while one is being written.
            max_ack_pending: 20_000,
            ..events::consumer_config(&durable_name(&source), FIX_SUBJECTS)
        };
        Ok(Ingest {
            pull: DurablePull::new(events::jetstream(nats), telemetry_stream(), consumer)
                .batches(BATCH_MAX, BATCH_WAIT),
            pool,
        })
    }

    /// Consumes with [`WORKERS`] workers until shutdown; failures are
    /// logged and retried.
    pub async fn run(self, shutdown: Shutdown) {
        // One fence cache: an R-tree is built once for every worker.
        let fences = FenceCache::default();
        let tracks = TrackCache::default();
        let operation_days = DayCache::default();
        let stored_through = Arc::new(AtomicU64::new(0));
        if let Err(err) = dead_letter::report_parked(&self.pool).await {
            tracing::warn!(error = %err, "Dead-letter count not read.");
        }
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                let pipeline = Pipeline {
                    pool: self.pool.clone(),
                    fences: fences.clone(),
                    tracks: tracks.clone(),
                    days: HashSet::new(),
                    operation_days: operation_days.clone(),
                    stored_through: stored_through.clone(),
                };
                tokio::spawn(self.pull.clone().run(shutdown.clone(), pipeline))
            })
            .collect();
        for worker in workers {
            if let Err(err) = worker.await {
                tracing::error!(error = %err, "Ingest worker ended abnormally.");
            }
        }
    }
}

impl BatchHandler for Pipeline {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        let now = Utc::now();
        let mut dropped = 0;
        let mut fixes = Vec::with_capacity(messages.len());
        let mut safety = Vec::new();
        for message in messages {
            match decode(&message.payload, now) {
                Ok((fix, items)) => {
                    if let Some(device_time) = fix.device_time {
                        let reason = domain::time_suspect(device_time, now).unwrap_or("old");
                        metrics::counter!("telemetry_fixes_time_suspect_total", "reason" => reason)
                            .increment(1);
                        tracing::warn!(vehicle = %fix.vehicle_id, %device_time, reason, "Fix time cannot be right; stored at its receive time.");
                    }
                    fixes.push(fix);
                    safety.extend(items);
                }
                Err(reason) => {
                    dropped += 1;
                    metrics::counter!("telemetry_fixes_dropped_total", "reason" => reason.label())
                        .increment(1);
                    tracing::warn!(%reason, "Fix dropped.");
                }
            }
        }
        let applied = match self.apply_checked(fixes, safety).await {
            Ok(applied) => applied,
            Err(failure) if failure.is_transient() => return Err(failure.into()),
            Err(failure) => {
                return dead_letter::isolate_and_park(self, messages, now, failure)
                    .await
                    .map_err(anyhow::Error::from);
            }
        };
        self.note_stored(messages.iter().filter_map(stream_sequence).max());
        tracing::debug!(
            messages = messages.len(),
            stored = applied.stored,
            dropped = applied.dropped + dropped,
            crossings = applied.fences.crossings,
            replays = applied.fences.replays,
            temperature_alarms = applied.temperatures.alarms,
            alarms_raised = applied.alarms.raised,
            safety_alarms = applied.safety_alarms,
            "Telemetry batch stored."
        );
        Ok(())
    }
}

/// A message's sequence in the telemetry stream.
pub(super) fn stream_sequence(message: &jetstream::Message) -> Option<u64> {
    message.info().ok().map(|info| info.stream_sequence)
}

impl Pipeline {
    pub fn new(pool: PgPool) -> Pipeline {
        Pipeline {
            pool,
            fences: FenceCache::default(),
            tracks: TrackCache::default(),
            days: HashSet::new(),
            operation_days: DayCache::default(),
            stored_through: Arc::new(AtomicU64::new(0)),
        }
    }

    pub(super) fn pool(&self) -> &PgPool {
        &self.pool
    }

    /// Records that messages up to stream sequence `sequence` were stored.
    pub(super) fn note_stored(&self, sequence: Option<u64>) {
        if let Some(sequence) = sequence {
            self.stored_through.fetch_max(sequence, Ordering::Relaxed);
        }
    }

    /// Whether a message later in the stream than `sequence` was stored:
    /// ingest works past it.
    pub(super) fn stored_past(&self, sequence: u64) -> bool {
        self.stored_through.load(Ordering::Relaxed) > sequence
    }

    /// Stores and evaluates one batch of checked fixes in one transaction.
    pub async fn apply(&mut self, fixes: Vec<FixRow>) -> Result<Applied, ServiceError> {
        self.apply_reports(fixes, Vec::new()).await
    }

    /// [`Pipeline::apply`] with the reports' active-safety alarms, written
    /// in the same transaction (skipped when there are none).
    pub async fn apply_reports(
        &mut self,
        fixes: Vec<FixRow>,
        safety: Vec<SafetyItem>,
    ) -> Result<Applied, ServiceError> {
        self.apply_checked(fixes, safety)
            .await
            .map_err(ServiceError::from)
    }

    /// [`Pipeline::apply_reports`] answering what failed, and where.
    pub async fn apply_checked(
        &mut self,
        fixes: Vec<FixRow>,
        safety: Vec<SafetyItem>,
    ) -> Result<Applied, Failure> {
        let result = self.apply_once(fixes, safety).await;
        if result.is_err() {
            // A partition dropped under us: look them up again.
            self.days.clear();
        }
        result
    }

    async fn apply_once(
        &mut self,
        fixes: Vec<FixRow>,
        safety: Vec<SafetyItem>,
    ) -> Result<Applied, Failure> {
        let fixes = domain::order(fixes);
        let received = fixes.len();
        if fixes.is_empty() {
            return Ok(Applied::default());
        }
        let mut tx = db::begin_service(&self.pool)
            .await
            .map_err(Failure::database("begin"))?;
        let days: BTreeSet<NaiveDate> = domain::days(&fixes)
            .into_iter()
            .filter(|d| !self.days.contains(d))
            .collect();
        if !days.is_empty() {
            store::ensure_partitions(&mut tx, &days)
                .await
                .map_err(Failure::database("day partitions"))?;
        }
        let fixes = store::insert_history(&mut tx, fixes)
            .await
            .map_err(Failure::database("history"))?;
        let mut applied = Applied {
            stored: fixes.len(),
            dropped: received - fixes.len(),
            ..Applied::default()
        };
        let previous = store::upsert_latest(&mut tx, &domain::newest(&fixes))
            .await
            .map_err(Failure::database("latest positions"))?;
        let latest_before: HashMap<Uuid, DateTime<Utc>> =
            previous.iter().map(|(v, fix)| (*v, fix.time)).collect();
        let mut tracks = Vec::new();
        let operation_days = operation::add_fixes(&mut tx, &self.operation_days, &fixes)
            .await
            .map_err(Failure::service("operation log"))?;
        for (enterprise, batch) in domain::for_evaluation(&fixes, &previous) {
            db::enter_tenant(&mut tx, enterprise)
                .await
                .map_err(Failure::database("tenant scope"))?;
            let index = self
                .fences
                .index(&mut tx, enterprise)
                .await
                .map_err(Failure::service("fence index"))?;
            let fenced = fences::evaluate(&mut tx, &index, enterprise, batch.vehicles)
                .await
                .map_err(Failure::service("fence evaluation"))?;
            applied.fences.add(fenced.summary);
            let (found, windows) =
                temperatures::apply_windows(&mut tx, enterprise, &batch.readings)
                    .await
                    .map_err(Failure::service("temperature evaluation"))?;
            applied.temperatures.add(found);
            let batch = alarms::Batch {
                fences: &index,
                fixes: batch.samples,
                windows: &windows,
                crossings: &fenced.crossings,
                replayed: &fenced.replayed,
                latest_before: &latest_before,
                tracks: &self.tracks,
            };
            let evaluated = alarms::apply(&mut tx, enterprise, batch)
                .await
                .map_err(Failure::service("alarm rules"))?;
            applied.alarms.add(evaluated.summary);
            tracks.extend(evaluated.tracks);
        }
        // Active-safety alarms, keyed by their identifiers: a re-sent
        // report's items are written again harmlessly, so they do not wait
        // for their fix to be new.
        if !safety.is_empty() {
            let mut by_enterprise: BTreeMap<Uuid, Vec<SafetyItem>> = BTreeMap::new();
            for item in safety {
                by_enterprise
                    .entry(item.enterprise_id)
                    .or_default()
                    .push(item);
            }
            for (enterprise, items) in by_enterprise {
                db::enter_tenant(&mut tx, enterprise)
                    .await
                    .map_err(Failure::database("tenant scope"))?;
                applied.safety_alarms += active_safety::apply(&mut tx, enterprise, &items)
                    .await
                    .map_err(Failure::service("active-safety alarms"))?;
            }
        }
        tx.commit().await.map_err(Failure::database("commit"))?;
        // Only what committed: a failed batch's tracks never ran for real.
        self.tracks.keep(tracks);
        self.operation_days.keep(operation_days);
        self.days.extend(days);
        Ok(applied)
    }
}
