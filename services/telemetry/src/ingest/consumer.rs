//! The telemetry consumer (kit's [`DurablePull`]): up to [`BATCH_MAX`]
//! messages or whatever arrived within [`BATCH_WAIT`] of the first, each
//! decoded once, stored and evaluated in one transaction, then acked. A
//! batch that fails is not acked and is written again (by the redelivery
//! after a nak); the unique keys make that harmless.
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

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::time::Duration;

use async_nats::jetstream;
use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::events::{self, BatchHandler, DurablePull};
use fleetdesk_kit::{ServiceError, Shutdown, db};
use prost::Message as _;
use sqlx::PgPool;
use uuid::Uuid;

use super::domain::{self, FixRow};
use super::store;
use crate::alarms::active_safety::{self, SafetyItem};
use crate::alarms::evaluate as alarms;
use crate::alarms::tracks::TrackCache;
use crate::geofences::evaluate::{self as fences, FenceCache};
use crate::ingest::{FIX_SUBJECTS, telemetry_stream};
use crate::operation::store as operation;
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
        let workers: Vec<_> = (0..WORKERS)
            .map(|_| {
                let pipeline = Pipeline {
                    pool: self.pool.clone(),
                    fences: fences.clone(),
                    tracks: tracks.clone(),
                    days: HashSet::new(),
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
            let parsed = fleetdesk_proto::telematics::v1::Fix::decode(message.payload.as_ref())
                .map_err(|_| domain::Rejected::Unreadable)
                .and_then(|fix| FixRow::parse_report(fix, now));
            match parsed {
                Ok((fix, items)) => {
                    fixes.push(fix);
                    safety.extend(items);
                }
                Err(reason) => {
                    dropped += 1;
                    tracing::debug!(%reason, "Fix dropped.");
                }
            }
        }
        let applied = self.apply_reports(fixes, safety).await?;
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

impl Pipeline {
    pub fn new(pool: PgPool) -> Pipeline {
        Pipeline {
            pool,
            fences: FenceCache::default(),
            tracks: TrackCache::default(),
            days: HashSet::new(),
        }
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
    ) -> Result<Applied, ServiceError> {
        let fixes = domain::order(fixes);
        let received = fixes.len();
        if fixes.is_empty() {
            return Ok(Applied::default());
        }
        let mut tx = db::begin_service(&self.pool).await?;
        let days: BTreeSet<NaiveDate> = domain::days(&fixes)
            .into_iter()
            .filter(|d| !self.days.contains(d))
            .collect();
        if !days.is_empty() {
            store::ensure_partitions(&mut tx, &days).await?;
        }
        let fixes = store::insert_history(&mut tx, fixes).await?;
        let mut applied = Applied {
            stored: fixes.len(),
            dropped: received - fixes.len(),
            ..Applied::default()
        };
        let previous = store::upsert_latest(&mut tx, &domain::newest(&fixes)).await?;
        let latest_before: HashMap<Uuid, DateTime<Utc>> =
            previous.iter().map(|(v, fix)| (*v, fix.time)).collect();
        let mut tracks = Vec::new();
        operation::add_fixes(&mut tx, &fixes).await?;
        for (enterprise, batch) in domain::for_evaluation(&fixes, &previous) {
            db::enter_tenant(&mut tx, enterprise).await?;
            let index = self.fences.index(&mut tx, enterprise).await?;
            let fenced = fences::evaluate(&mut tx, &index, enterprise, batch.vehicles).await?;
            applied.fences.add(fenced.summary);
            let (found, windows) =
                temperatures::apply_windows(&mut tx, enterprise, &batch.readings).await?;
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
            let evaluated = alarms::apply(&mut tx, enterprise, batch).await?;
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
                db::enter_tenant(&mut tx, enterprise).await?;
                applied.safety_alarms += active_safety::apply(&mut tx, enterprise, &items).await?;
            }
        }
        tx.commit().await?;
        // Only what committed: a failed batch's tracks never ran for real.
        self.tracks.keep(tracks);
        self.days.extend(days);
        Ok(applied)
    }
}
