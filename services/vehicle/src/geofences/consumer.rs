//! The geofence evaluator's own durable consumer of the telemetry stream
//! (`FLEETDESK_TELEMETRY`, subjects `telemetry.<enterprise>.<vehicle>`,
//! payload `telematics.v1.Fix`; see [`crate::ingest::evaluator_pull`]). It
//! evaluates the fixes that are ready in one call of
//! [`evaluate::evaluate_batch`], and they are acknowledged only after that
//! committed; a failed batch is redelivered (evaluation drops fixes it
//! already buffered, so a redelivery changes nothing).

use std::time::Duration;

use async_nats::jetstream;
use chrono::DateTime;
use fleetdesk_kit::events::BatchHandler;
use fleetdesk_proto::telematics::v1 as tpb;
use prost::Message as _;
use sqlx::PgPool;
use uuid::Uuid;

use super::engine::Fix;
use super::evaluate::{self, FenceCache, FixIn};

/// How often the replay buffer drops fixes past its age.
const TRIM_EVERY: Duration = Duration::from_secs(600);
/// A fix as evaluation reads it; `None` for a payload it cannot use.
pub fn fix_of(payload: &[u8]) -> Option<FixIn> {
    let fix = tpb::Fix::decode(payload).ok()?;
    let time = fix.fix_time.as_ref()?;
    let time = DateTime::from_timestamp(time.seconds, u32::try_from(time.nanos).ok()?)?;
    Some(FixIn {
        enterprise_id: Uuid::parse_str(&fix.enterprise_id).ok()?,
        vehicle_id: Uuid::parse_str(&fix.vehicle_id).ok()?,
        fix: Fix {
            time,
            lat: fix.latitude,
            lng: fix.longitude,
            speed_dkmh: fix.speed_dkmh,
        },
    })
}

/// Evaluates batches of fixes.
#[derive(Debug)]
pub struct Evaluator {
    pool: PgPool,
    cache: FenceCache,
    last_trim: tokio::time::Instant,
}

impl BatchHandler for Evaluator {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        let mut fixes = Vec::with_capacity(messages.len());
        for message in messages {
            match fix_of(&message.payload) {
                Some(fix) => fixes.push(fix),
                None => tracing::warn!(subject = %message.subject, "Unreadable fix skipped."),
            }
        }
        let summary = evaluate::evaluate_batch(&self.pool, &self.cache, &fixes).await?;
        tracing::debug!(
            fixes = summary.fixes,
            crossings = summary.crossings,
            replays = summary.replays,
            "Fixes evaluated."
        );
        if self.last_trim.elapsed() >= TRIM_EVERY {
            self.last_trim = tokio::time::Instant::now();
            match evaluate::trim_buffer(&self.pool).await {
                Ok(n) => tracing::debug!(dropped = n, "Replay buffer trimmed."),
                Err(err) => tracing::warn!(error = %err, "Replay buffer not trimmed."),
            }
        }
        Ok(())
    }
}

impl Evaluator {
    /// The handler of the evaluator's consumer (`ingest::evaluator_pull(.., "geofences")`).
    pub fn new(pool: PgPool) -> Evaluator {
        Evaluator {
            pool,
            cache: FenceCache::default(),
            last_trim: tokio::time::Instant::now(),
        }
    }
}
