//! The ingest loop: pull up to [`BATCH_MAX`] messages or whatever arrived
//! within [`BATCH_WAIT`] of the first, store them in one transaction, then
//! ack each. A batch that fails is not acked and is written again (by the
//! redelivery after a nak); the unique keys make that harmless.

use std::collections::{BTreeSet, HashSet};
use std::time::Duration;

use async_nats::jetstream::{self, AckKind};
use chrono::{NaiveDate, Utc};
use fleetdesk_kit::{Shutdown, db, events};
use futures::StreamExt as _;
use prost::Message as _;
use sqlx::PgPool;

use super::domain::{self, FixRow};
use super::store;
use crate::ingest::{FIX_SUBJECTS, TELEMETRY_STREAM, ensure_stream};

/// Most messages in one transaction.
pub const BATCH_MAX: usize = 1_000;
/// Longest a batch waits for more after its first message.
pub const BATCH_WAIT: Duration = Duration::from_millis(200);

/// The telemetry consumer of one deployment (its durable name names the
/// database, so test stacks sharing a NATS server never share one).
pub struct Ingest {
    pool: PgPool,
    js: jetstream::Context,
    durable: String,
    /// Days whose partitions are known to exist.
    days: HashSet<NaiveDate>,
}

impl std::fmt::Debug for Ingest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ingest")
            .field("durable", &self.durable)
            .finish_non_exhaustive()
    }
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
    let digest = <sha2::Sha256 as sha2::Digest>::digest(source.as_bytes());
    let tag: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("vehicle-ingest-{tag}")
}

impl Ingest {
    pub async fn new(pool: PgPool, nats: async_nats::Client) -> anyhow::Result<Ingest> {
        let source = events::source_of(&pool).await?;
        Ok(Ingest {
            pool,
            js: events::jetstream(nats),
            durable: durable_name(&source),
            days: HashSet::new(),
        })
    }

    /// Creates the stream and the durable consumer if missing. A new
    /// consumer starts with fixes published from now on.
    pub async fn ensure(&self) -> anyhow::Result<jetstream::consumer::PullConsumer> {
        let stream = ensure_stream(&self.js).await?;
        stream
            .get_or_create_consumer(
                &self.durable,
                jetstream::consumer::pull::Config {
                    durable_name: Some(self.durable.clone()),
                    filter_subject: FIX_SUBJECTS.to_owned(),
                    deliver_policy: jetstream::consumer::DeliverPolicy::New,
                    ack_policy: jetstream::consumer::AckPolicy::Explicit,
                    ack_wait: Duration::from_secs(30),
                    // Room for the next batch while one is being written.
                    max_ack_pending: 20_000,
                    inactive_threshold: Duration::from_secs(24 * 3600),
                    ..Default::default()
                },
            )
            .await
            .map_err(|e| anyhow::anyhow!("consumer {} on {TELEMETRY_STREAM}: {e}", self.durable))
    }

    /// Stores one batch of raw payloads in one transaction.
    pub async fn apply(
        &mut self,
        payloads: &[&[u8]],
    ) -> Result<Applied, fleetdesk_kit::ServiceError> {
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

    /// Consumes until shutdown; failures are logged and retried.
    pub async fn run(mut self, shutdown: Shutdown) {
        let mut backoff = Duration::from_millis(200);
        while !shutdown.is_triggered() {
            let messages = match self.ensure().await {
                Ok(consumer) => consumer
                    .stream()
                    .max_messages_per_batch(BATCH_MAX)
                    .messages()
                    .await
                    .map_err(anyhow::Error::from),
                Err(err) => Err(err),
            };
            let mut messages = match messages {
                Ok(m) => m,
                Err(err) => {
                    tracing::warn!(consumer = %self.durable, error = %format!("{err:#}"), "Ingest not ready; retrying.");
                    tokio::select! {
                        () = tokio::time::sleep(backoff) => {}
                        () = shutdown.wait() => return,
                    }
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                    continue;
                }
            };
            backoff = Duration::from_millis(200);
            loop {
                let first = tokio::select! {
                    next = messages.next() => next,
                    () = shutdown.wait() => return,
                };
                let first = match first {
                    Some(Ok(m)) => m,
                    Some(Err(err)) => {
                        tracing::warn!(error = %err, "Telemetry stream error.");
                        continue;
                    }
                    None => break,
                };
                let mut batch = vec![first];
                let deadline = tokio::time::Instant::now() + BATCH_WAIT;
                let mut ended = false;
                while batch.len() < BATCH_MAX {
                    match tokio::time::timeout_at(deadline, messages.next()).await {
                        Ok(Some(Ok(m))) => batch.push(m),
                        Ok(Some(Err(err))) => {
                            tracing::warn!(error = %err, "Telemetry stream error.");
                        }
                        Ok(None) => {
                            ended = true;
                            break;
                        }
                        Err(_) => break,
                    }
                }
                self.settle(batch).await;
                if ended {
                    break;
                }
            }
        }
    }

    /// Applies a batch and acks it, or naks it for a retry.
    async fn settle(&mut self, batch: Vec<jetstream::Message>) {
        let payloads: Vec<&[u8]> = batch.iter().map(|m| m.payload.as_ref()).collect();
        match self.apply(&payloads).await {
            Ok(applied) => {
                tracing::debug!(
                    messages = batch.len(),
                    stored = applied.stored,
                    dropped = applied.dropped,
                    "Telemetry batch stored."
                );
                for message in &batch {
                    if let Err(err) = message.ack().await {
                        tracing::warn!(error = %err, "Telemetry ack failed; it will be redelivered.");
                    }
                }
            }
            Err(err) => {
                // A partition dropped under us: look them up again.
                self.days.clear();
                tracing::warn!(error = %err, messages = batch.len(), "Telemetry batch not stored; retrying.");
                for message in &batch {
                    let _ = message
                        .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                        .await;
                }
            }
        }
    }
}
