//! Telemetry ingest: a durable JetStream pull consumer of the telemetry
//! stream (`telemetry.<enterprise>.<vehicle>`, Fix messages the device edge
//! publishes) that stores fixes in batches — up to 2,000 messages or 200 ms
//! — in one transaction each: day-partitioned position history and
//! temperature readings (`on conflict do nothing`: a redelivered or
//! re-uploaded fix is stored once), and the latest position, which only
//! moves forward in fix time. Messages are acked after the commit, so a
//! crash redelivers them and nothing is lost.
//!
//! Fixes are applied in fix-time order per vehicle (the batch is sorted
//! before it is written). The partition job creates coming days ahead and
//! drops days past retention.

pub mod consumer;
pub mod domain;
pub mod partitions;
pub mod store;

pub use consumer::Ingest;

use std::time::Duration;

use async_nats::jetstream;
use fleetdesk_kit::events;

pub use fleetdesk_kit::subjects::{
    TELEMETRY_ALL as TELEMETRY_SUBJECTS, TELEMETRY_FIXES as FIX_SUBJECTS, TELEMETRY_STREAM,
};
/// A fix sent again within this window is dropped by the stream.
pub const DEDUPE_WINDOW: Duration = Duration::from_secs(10 * 60);
/// How long the stream keeps telemetry (Postgres is the history).
pub const MAX_AGE: Duration = Duration::from_secs(72 * 3600);

/// The telemetry stream's settings (the edge creates it too, with the same
/// settings); every telemetry consumer of this service creates it if missing.
pub fn telemetry_stream() -> jetstream::stream::Config {
    jetstream::stream::Config {
        name: TELEMETRY_STREAM.to_owned(),
        subjects: vec![TELEMETRY_SUBJECTS.to_owned()],
        duplicate_window: DEDUPE_WINDOW,
        max_age: MAX_AGE,
        ..Default::default()
    }
}

/// Creates the telemetry stream if it is missing.
pub async fn ensure_stream(js: &jetstream::Context) -> anyhow::Result<jetstream::stream::Stream> {
    js.get_or_create_stream(telemetry_stream())
        .await
        .map_err(|e| anyhow::anyhow!("ensure stream {TELEMETRY_STREAM}: {e}"))
}

/// The durable consumer `vehicle-<name>` of every fix, for an evaluator
/// (fences, temperatures) that reads fixes apart from ingest. A new one
/// starts from what the stream still keeps, so fixes published before the
/// first start are evaluated too; it takes whatever is ready, up to
/// [`EVALUATE_BATCH`] fixes.
pub async fn evaluator_pull(
    pool: &sqlx::PgPool,
    nats: async_nats::Client,
    name: &str,
) -> anyhow::Result<events::DurablePull> {
    let source = events::source_of(pool).await?;
    let durable = events::durable_name(&format!("vehicle-{name}"), &source);
    let consumer = jetstream::consumer::pull::Config {
        deliver_policy: jetstream::consumer::DeliverPolicy::All,
        ack_wait: Duration::from_secs(60),
        max_ack_pending: 20_000,
        ..events::consumer_config(&durable, FIX_SUBJECTS)
    };
    Ok(
        events::DurablePull::new(events::jetstream(nats), telemetry_stream(), consumer)
            .batches(EVALUATE_BATCH, Duration::ZERO),
    )
}

/// Most fixes an evaluator takes in one batch (one tenant transaction per
/// enterprise in it: with a backlog, fewer and larger ones).
pub const EVALUATE_BATCH: usize = 2_000;
