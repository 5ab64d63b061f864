//! The geofence evaluator's own durable consumer of the telemetry stream
//! (`FLEETDESK_TELEMETRY`, subjects `telemetry.<enterprise>.<vehicle>`,
//! payload `telematics.v1.Fix`). It takes whatever messages are ready (up
//! to [`BATCH`]), evaluates them in one call of
//! [`evaluate::evaluate_batch`], and acknowledges them only after that
//! committed; a failed batch is redelivered (evaluation drops fixes it
//! already buffered, so a redelivery changes nothing).

use std::time::Duration;

use async_nats::jetstream::{self, AckKind};
use chrono::DateTime;
use fleetdesk_kit::Shutdown;
use fleetdesk_proto::telematics::v1 as tpb;
use futures::StreamExt as _;
use prost::Message as _;
use sqlx::PgPool;
use uuid::Uuid;

use super::engine::Fix;
use super::evaluate::{self, FenceCache, FixIn};
use crate::ingest::{FIX_SUBJECTS, ensure_stream};

/// Most fixes evaluated in one batch.
pub const BATCH: usize = 1_000;
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

/// The durable consumer, named per deployment (stacks sharing a NATS server
/// never share it). A new one starts from what the stream still keeps, so
/// fixes published before the first start are evaluated too.
async fn ensure_consumer(
    pool: &PgPool,
    js: &jetstream::Context,
) -> anyhow::Result<jetstream::consumer::PullConsumer> {
    let source = fleetdesk_kit::events::source_of(pool).await?;
    let digest = <sha2::Sha256 as sha2::Digest>::digest(source.as_bytes());
    let tag: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    let durable = format!("vehicle-geofences-{tag}");
    ensure_stream(js)
        .await?
        .get_or_create_consumer(
            &durable,
            jetstream::consumer::pull::Config {
                durable_name: Some(durable.clone()),
                filter_subject: FIX_SUBJECTS.to_owned(),
                deliver_policy: jetstream::consumer::DeliverPolicy::All,
                ack_policy: jetstream::consumer::AckPolicy::Explicit,
                ack_wait: Duration::from_secs(60),
                max_ack_pending: 20_000,
                inactive_threshold: Duration::from_secs(24 * 3600),
                ..Default::default()
            },
        )
        .await
        .map_err(|e| anyhow::anyhow!("consumer {durable}: {e}"))
}

/// Consumes until shutdown; failures are logged and retried.
pub async fn run(pool: PgPool, nats: async_nats::Client, shutdown: Shutdown) {
    let js = fleetdesk_kit::events::jetstream(nats);
    let cache = FenceCache::default();
    let mut backoff = Duration::from_millis(200);
    let mut last_trim = tokio::time::Instant::now();
    while !shutdown.is_triggered() {
        let messages = match ensure_consumer(&pool, &js).await {
            Ok(consumer) => consumer.messages().await.map_err(anyhow::Error::from),
            Err(err) => Err(err),
        };
        let messages = match messages {
            Ok(m) => m,
            Err(err) => {
                tracing::warn!(error = %format!("{err:#}"), "Geofence consumer not ready; retrying.");
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = shutdown.wait() => return,
                }
                backoff = (backoff * 2).min(Duration::from_secs(5));
                continue;
            }
        };
        backoff = Duration::from_millis(200);
        let mut batches = messages.ready_chunks(BATCH);
        loop {
            let next = tokio::select! {
                next = batches.next() => next,
                () = shutdown.wait() => return,
            };
            let Some(batch) = next else { break };
            let mut delivered = Vec::with_capacity(batch.len());
            let mut fixes = Vec::with_capacity(batch.len());
            for message in batch {
                match message {
                    Ok(message) => {
                        match fix_of(&message.payload) {
                            Some(fix) => fixes.push(fix),
                            None => {
                                tracing::warn!(subject = %message.subject, "Unreadable fix skipped.")
                            }
                        }
                        delivered.push(message);
                    }
                    Err(err) => tracing::warn!(error = %err, "Telemetry consumer stream error."),
                }
            }
            match evaluate::evaluate_batch(&pool, &cache, &fixes).await {
                Ok(summary) => {
                    tracing::debug!(
                        fixes = summary.fixes,
                        crossings = summary.crossings,
                        replays = summary.replays,
                        "Fixes evaluated."
                    );
                    for message in delivered {
                        if let Err(err) = message.ack().await {
                            tracing::warn!(error = %err, "Fix ack failed; it will be redelivered.");
                        }
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "Fixes not evaluated; retrying later.");
                    for message in delivered {
                        let _ = message
                            .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                            .await;
                    }
                }
            }
            if last_trim.elapsed() >= TRIM_EVERY {
                last_trim = tokio::time::Instant::now();
                match evaluate::trim_buffer(&pool).await {
                    Ok(n) => tracing::debug!(dropped = n, "Replay buffer trimmed."),
                    Err(err) => tracing::warn!(error = %err, "Replay buffer not trimmed."),
                }
            }
        }
    }
}
