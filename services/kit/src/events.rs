//! Domain events over NATS JetStream through a transactional outbox.
//!
//! A service writes the event row in the same transaction as the change it
//! announces ([`enqueue`]). The [`OutboxRelay`] publishes unsent rows with
//! `Nats-Msg-Id` = event id and marks them sent only after JetStream acks, so
//! a committed event is published even if NATS was down at write time, a
//! rolled-back one never is, and a re-publish after a crash is deduplicated by
//! the stream.

use std::time::Duration;

use anyhow::Context as _;
use async_nats::jetstream;
use sqlx::postgres::PgListener;
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::shutdown::Shutdown;

/// The stream that keeps every domain event.
pub const EVENT_STREAM: &str = "FLEETDESK_EVENTS";
/// Subjects the stream captures: `fleetdesk.<domain>.<entity>.<verb>`.
pub const EVENT_SUBJECTS: &str = "fleetdesk.>";
/// Window in which JetStream drops a repeated `Nats-Msg-Id`.
pub const DEDUPE_WINDOW: Duration = Duration::from_secs(10 * 60);
/// Postgres channel that wakes relays when an event is written.
const WAKE_CHANNEL: &str = "fleetdesk_outbox";

/// Connects to NATS, retrying in the background when it is not up yet.
pub async fn connect_nats(url: &str, name: &str) -> anyhow::Result<async_nats::Client> {
    async_nats::ConnectOptions::new()
        .name(name)
        .retry_on_initial_connect()
        .connect(url)
        .await
        .with_context(|| format!("connect to NATS at {url}"))
}

/// A JetStream context whose publish acks time out quickly, so the relay retries.
pub fn jetstream(client: async_nats::Client) -> jetstream::Context {
    jetstream::ContextBuilder::new()
        .timeout(Duration::from_secs(3))
        .build(client)
}

/// Creates the event stream if it is missing.
pub async fn ensure_event_stream(js: &jetstream::Context) -> anyhow::Result<()> {
    js.get_or_create_stream(jetstream::stream::Config {
        name: EVENT_STREAM.to_owned(),
        subjects: vec![EVENT_SUBJECTS.to_owned()],
        duplicate_window: DEDUPE_WINDOW,
        max_age: Duration::from_secs(7 * 24 * 3600),
        ..Default::default()
    })
    .await
    .map_err(|e| anyhow::anyhow!("ensure stream {EVENT_STREAM}: {e}"))?;
    Ok(())
}

/// Writes an event in the caller's transaction. Returns the event id.
pub async fn enqueue(
    tx: &mut PgConnection,
    subject: &str,
    payload: &impl serde::Serialize,
) -> Result<Uuid, sqlx::Error> {
    let id = Uuid::new_v4();
    let body = serde_json::to_vec(payload).map_err(|e| sqlx::Error::Encode(Box::new(e)))?;
    sqlx::query("insert into outbox (id, subject, payload) values ($1, $2, $3)")
        .bind(id)
        .bind(subject)
        .bind(body)
        .execute(&mut *tx)
        .await?;
    // Delivered at commit; dropped with a rollback.
    sqlx::query("select pg_notify($1, '')")
        .bind(WAKE_CHANNEL)
        .execute(&mut *tx)
        .await?;
    Ok(id)
}

/// Records that a consumer applied `event_id`, in the transaction of the effect.
/// Returns false when it was applied before (skip the effect).
pub async fn mark_processed(
    tx: &mut PgConnection,
    event_id: Uuid,
    subject: &str,
) -> Result<bool, sqlx::Error> {
    let inserted = sqlx::query(
        "insert into processed_event (event_id, subject) values ($1, $2) on conflict do nothing",
    )
    .bind(event_id)
    .bind(subject)
    .execute(&mut *tx)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// Publishes a service's outbox to JetStream until shutdown.
pub struct OutboxRelay {
    pool: PgPool,
    js: jetstream::Context,
    batch_size: i64,
    idle_poll: Duration,
}

impl std::fmt::Debug for OutboxRelay {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutboxRelay")
            .field("batch_size", &self.batch_size)
            .finish()
    }
}

impl OutboxRelay {
    pub fn new(pool: PgPool, js: jetstream::Context) -> OutboxRelay {
        OutboxRelay {
            pool,
            js,
            batch_size: 256,
            idle_poll: Duration::from_secs(1),
        }
    }

    /// Runs until `shutdown` fires. Failures are logged and retried with backoff.
    pub async fn run(self, shutdown: Shutdown) {
        let mut listener = self.listen().await;
        let mut stream_ready = false;
        let mut backoff = Duration::from_millis(200);
        while !shutdown.is_triggered() {
            if !stream_ready {
                match ensure_event_stream(&self.js).await {
                    Ok(()) => stream_ready = true,
                    Err(err) => {
                        tracing::warn!(error = %err, "Event stream not ready; retrying.");
                        self.pause(backoff, &shutdown, None).await;
                        backoff = (backoff * 2).min(Duration::from_secs(5));
                        continue;
                    }
                }
            }
            match self.publish_batch().await {
                Ok(published) => {
                    backoff = Duration::from_millis(200);
                    if published == 0 {
                        self.pause(self.idle_poll, &shutdown, listener.as_mut())
                            .await;
                    }
                }
                Err(err) => {
                    tracing::warn!(error = %format!("{err:#}"), "Outbox publish failed; retrying.");
                    self.pause(backoff, &shutdown, None).await;
                    backoff = (backoff * 2).min(Duration::from_secs(5));
                }
            }
        }
    }

    async fn listen(&self) -> Option<PgListener> {
        let mut listener = PgListener::connect_with(&self.pool).await.ok()?;
        listener.listen(WAKE_CHANNEL).await.ok()?;
        Some(listener)
    }

    /// Sleeps for `dur`, waking early on shutdown or an outbox notification.
    async fn pause(&self, dur: Duration, shutdown: &Shutdown, listener: Option<&mut PgListener>) {
        let notified = async {
            match listener {
                Some(l) => {
                    let _ = l.recv().await;
                }
                None => std::future::pending::<()>().await,
            }
        };
        tokio::select! {
            () = tokio::time::sleep(dur) => {}
            () = shutdown.wait() => {}
            () = notified => {}
        }
    }

    /// Publishes one batch of unsent events; returns how many were sent.
    pub async fn publish_batch(&self) -> anyhow::Result<usize> {
        let mut tx = self.pool.begin().await?;
        // SKIP LOCKED lets several replicas relay the same outbox without
        // publishing a row twice at the same time.
        let rows: Vec<(Uuid, String, Vec<u8>)> = sqlx::query_as(
            "select id, subject, payload from outbox where sent_at is null \
             order by created_at, id limit $1 for update skip locked",
        )
        .bind(self.batch_size)
        .fetch_all(&mut *tx)
        .await?;
        if rows.is_empty() {
            return Ok(0);
        }
        let ids: Vec<Uuid> = rows.iter().map(|(id, _, _)| *id).collect();
        if let Err(err) = self.publish_all(rows).await {
            drop(tx);
            sqlx::query(
                "update outbox set attempts = attempts + 1, last_error = $2 where id = any($1)",
            )
            .bind(&ids)
            .bind(format!("{err:#}"))
            .execute(&self.pool)
            .await
            .ok();
            return Err(err);
        }
        sqlx::query("update outbox set sent_at = now() where id = any($1)")
            .bind(&ids)
            .execute(&mut *tx)
            .await?;
        tx.commit().await?;
        tracing::debug!(count = ids.len(), "Outbox events published.");
        Ok(ids.len())
    }

    /// Sends every row, keeping acks in flight, then waits for all of them.
    async fn publish_all(&self, rows: Vec<(Uuid, String, Vec<u8>)>) -> anyhow::Result<()> {
        let mut acks = Vec::with_capacity(rows.len());
        for (id, subject, payload) in rows {
            let mut headers = async_nats::HeaderMap::new();
            headers.insert("Nats-Msg-Id", id.to_string().as_str());
            let ack = self
                .js
                .publish_with_headers(subject, headers, payload.into())
                .await
                .map_err(|e| anyhow::anyhow!("publish {id}: {e}"))?;
            acks.push((id, ack));
        }
        for (id, ack) in acks {
            ack.await.map_err(|e| anyhow::anyhow!("ack {id}: {e}"))?;
        }
        Ok(())
    }
}
