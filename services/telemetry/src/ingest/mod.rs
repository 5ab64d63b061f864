//! Telemetry ingest: a durable JetStream pull consumer of the telemetry
//! stream (`telemetry.<enterprise>.<vehicle>`, Fix messages the device edge
//! publishes) that stores fixes in batches — up to 2,000 messages or 200 ms
//! — in one transaction each: day-partitioned position history and
//! temperature readings (`on conflict do nothing`: a redelivered or
//! re-uploaded fix is stored once), the latest position, which only moves
//! forward in fix time, and the fence and temperature evaluation of the
//! fixes new to the history. Messages are acked after the commit, so a
//! crash redelivers them and nothing is lost. Each message is decoded once.
//!
//! A fix whose time cannot be right (older than retention, more than 10
//! minutes ahead: GPS week rollover, an unset clock) is stored at its
//! receive time with the terminal's time in `device_time`, counted
//! (`telemetry_fixes_time_suspect_total`) and logged; an unreadable one is
//! counted (`telemetry_fixes_dropped_total`) and logged. Nothing the edge
//! acknowledged is dropped for its time.
//!
//! Fixes are applied in fix-time order per vehicle (the batch is sorted
//! before it is written). The partition job creates coming days ahead and
//! drops days past retention.

pub mod consumer;
pub mod dead_letter;
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
// The ingest consumer outlives what the stream holds for it (see
// `fleetdesk_kit::events::pull::INACTIVE`): a build fails, not a fix.
const _: () = assert!(fleetdesk_kit::events::pull::INACTIVE.as_secs() >= MAX_AGE.as_secs());

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
    events::ensure_stream(js, telemetry_stream()).await
}

/// Fence and temperature evaluation once had durable consumers of their
/// own; they now run in ingest's transaction. A deployment that ran them
/// drops them, or the server would keep counting fixes nobody reads.
pub async fn drop_retired_consumers(
    pool: &sqlx_postgres::PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<()> {
    let source = events::source_of(pool).await?;
    let stream = ensure_stream(&events::jetstream(nats)).await?;
    for name in ["geofences", "temperature"] {
        let durable = events::durable_name(&format!("vehicle-{name}"), &source);
        if stream.consumer_info(&durable).await.is_ok() {
            stream
                .delete_consumer(&durable)
                .await
                .map_err(|e| anyhow::anyhow!("drop consumer {durable}: {e}"))?;
            tracing::info!(%durable, "Retired telemetry consumer dropped.");
        }
    }
    Ok(())
}
