//! Temperature evaluation's own durable consumer of the telemetry stream
//! (same stream, payload and settings as geofences::consumer, see
//! [`crate::ingest::evaluator_pull`]). Messages are acknowledged only after
//! their batch committed; a failed batch is redelivered, which changes
//! nothing (see `evaluate`).

use std::time::Duration;

use async_nats::jetstream;
use fleetdesk_kit::events::BatchHandler;
use sqlx::PgPool;

use super::evaluate;

const TRIM_EVERY: Duration = Duration::from_secs(600);

/// Evaluates batches of fixes.
#[derive(Debug)]
pub struct Evaluator {
    pool: PgPool,
    last_trim: tokio::time::Instant,
}

impl BatchHandler for Evaluator {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        let readings: Vec<_> = messages
            .iter()
            .flat_map(|message| evaluate::readings_of(&message.payload))
            .collect();
        let summary = evaluate::evaluate_batch(&self.pool, &readings).await?;
        tracing::debug!(
            readings = summary.readings,
            alarms = summary.alarms,
            "Temperatures evaluated."
        );
        if self.last_trim.elapsed() >= TRIM_EVERY {
            self.last_trim = tokio::time::Instant::now();
            if let Err(err) = evaluate::trim_buffer(&self.pool).await {
                tracing::warn!(error = %err, "Temperature buffer not trimmed.");
            }
        }
        Ok(())
    }
}

impl Evaluator {
    /// The handler of the evaluator's consumer (`ingest::evaluator_pull(.., "temperature")`).
    pub fn new(pool: PgPool) -> Evaluator {
        Evaluator {
            pool,
            last_trim: tokio::time::Instant::now(),
        }
    }
}
