//! The ingest consumer (kit's [`DurablePull`]): up to [`BATCH_MAX`]
//! messages or whatever arrived within [`BATCH_WAIT`] of the first, stored
//! in one transaction, then acked. A batch that fails is not acked and is written again (by the
//! redelivery after a nak); the unique keys make that harmless.

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use async_nats::jetstream;
use chrono::{NaiveDate, Utc};
use fleetdesk_kit::events::{self, BatchHandler, DurablePull};
use fleetdesk_kit::{Shutdown, db};
use prost::Message as _;
use sqlx::PgPool;

use super::domain::{self, FixRow};
use super::store;
use crate::ingest::{FIX_SUBJECTS, telemetry_stream};

/// Most messages in one transaction (a commit's fixed cost spread over
/// more rows when the stream has a backlog; a live fleet's trickle is
/// still written every [`BATCH_WAIT`]).
pub const BATCH_MAX: usize = 2_000;
/// Longest a batch waits for more after its first message.
pub const BATCH_WAIT: Duration = Duration::from_millis(200);

/// The telemetry consumer of one deployment (its durable name names the
/// database, so test stacks sharing a NATS server never share one).
#[derive(Debug)]
pub struct Ingest {
    pull: DurablePull,
    writer: Writer,
}

/// Writes batches of fixes.
#[derive(Debug)]
struct Writer {
    pool: PgPool,
    /// Days whose partitions are known to exist.
    days: HashSet<NaiveDate>,
}

/// What one batch did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Applied {
    /// History rows written (repeats not counted).
    pub stored: u64,
    /// Messages dropped: unreadable, out of range, unknown vehicles.
    pub dropped: usize,
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
            writer: Writer {
                pool,
                days: HashSet::new(),
            },
        })
    }

    /// Consumes until shutdown; failures are logged and retried.
    pub async fn run(self, shutdown: Shutdown) {
        self.pull.run(shutdown, self.writer).await;
    }
}

impl BatchHandler for Writer {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        let payloads: Vec<&[u8]> = messages.iter().map(|m| m.payload.as_ref()).collect();
        match self.apply(&payloads).await {
            Ok(applied) => {
                tracing::debug!(
                    messages = messages.len(),
                    stored = applied.stored,
                    dropped = applied.dropped,
                    "Telemetry batch stored."
                );
                Ok(())
            }
            Err(err) => {
                // A partition dropped under us: look them up again.
                self.days.clear();
                Err(err.into())
            }
        }
    }
}

impl Writer {
    /// Stores one batch of raw payloads in one transaction.
    async fn apply(&mut self, payloads: &[&[u8]]) -> Result<Applied, fleetdesk_kit::ServiceError> {
        let now = Utc::now();
        let mut dropped = 0;
        let mut fixes = Vec::with_capacity(payloads.len());
        for payload in payloads {
            let parsed = fleetdesk_proto::telematics::v1::Fix::decode(*payload)
                .map_err(|_| domain::Rejected::Unreadable)
                .and_then(|fix| FixRow::parse(fix, now));
            match parsed {
                Ok(fix) => fixes.push(fix),
                Err(reason) => {
                    dropped += 1;
                    tracing::debug!(%reason, "Fix dropped.");
                }
            }
        }
        let mut tx = db::begin_service(&self.pool).await?;
        let mut vehicles: Vec<_> = fixes.iter().map(|f| f.vehicle_id).collect();
        vehicles.sort_unstable();
        vehicles.dedup();
        let tenants = store::tenants(&mut tx, &vehicles).await?;
        let before = fixes.len();
        // The subject's tenant must be the vehicle's.
        fixes.retain(|f| tenants.get(&f.vehicle_id) == Some(&f.enterprise_id));
        dropped += before - fixes.len();
        let fixes = domain::order(fixes);
        if fixes.is_empty() {
            db::end_read(tx);
            return Ok(Applied { stored: 0, dropped });
        }
        let days: BTreeSet<NaiveDate> = domain::days(&fixes)
            .into_iter()
            .filter(|d| !self.days.contains(d))
            .collect();
        if !days.is_empty() {
            store::ensure_partitions(&mut tx, &days).await?;
        }
        let stored = store::insert_history(&mut tx, &fixes).await?;
        store::upsert_latest(&mut tx, &domain::newest(&fixes)).await?;
        tx.commit().await?;
        self.days.extend(days);
        Ok(Applied { stored, dropped })
    }
}
