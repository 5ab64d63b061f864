//! Temperature evaluation's own durable consumer of the telemetry stream
//! (same stream and payload as geofences::consumer). Messages are
//! acknowledged only after their batch committed; a failed batch is
//! redelivered, which changes nothing (see `evaluate`).

use std::time::Duration;

use async_nats::jetstream::{self, AckKind};
use fleetdesk_kit::Shutdown;
use futures::StreamExt as _;
use sqlx::PgPool;

use super::evaluate;
use crate::geofences::consumer::BATCH;
use crate::ingest::{FIX_SUBJECTS, ensure_stream};

const TRIM_EVERY: Duration = Duration::from_secs(600);

async fn ensure_consumer(
    pool: &PgPool,
    js: &jetstream::Context,
) -> anyhow::Result<jetstream::consumer::PullConsumer> {
    let source = fleetdesk_kit::events::source_of(pool).await?;
    let digest = <sha2::Sha256 as sha2::Digest>::digest(source.as_bytes());
    let tag: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    let durable = format!("vehicle-temperature-{tag}");
    let stream = ensure_stream(js).await?;
    stream
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
                tracing::warn!(error = %format!("{err:#}"), "Temperature consumer not ready; retrying.");
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
            let mut readings = Vec::new();
            for message in batch {
                match message {
                    Ok(message) => {
                        readings.extend(evaluate::readings_of(&message.payload));
                        delivered.push(message);
                    }
                    Err(err) => tracing::warn!(error = %err, "Telemetry consumer stream error."),
                }
            }
            match evaluate::evaluate_batch(&pool, &readings).await {
                Ok(summary) => {
                    tracing::debug!(
                        readings = summary.readings,
                        alarms = summary.alarms,
                        "Temperatures evaluated."
                    );
                    for message in delivered {
                        if let Err(err) = message.ack().await {
                            tracing::warn!(error = %err, "Fix ack failed; it will be redelivered.");
                        }
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %err, "Temperatures not evaluated; retrying later.");
                    for message in delivered {
                        let _ = message
                            .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                            .await;
                    }
                }
            }
            if last_trim.elapsed() >= TRIM_EVERY {
                last_trim = tokio::time::Instant::now();
                if let Err(err) = evaluate::trim_buffer(&pool).await {
                    tracing::warn!(error = %err, "Temperature buffer not trimmed.");
                }
            }
        }
    }
}
