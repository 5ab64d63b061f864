//! Domain events over NATS JetStream through a transactional outbox.
//!
//! A service writes the event row in the same transaction as the change it
//! announces ([`enqueue`]). The [`OutboxRelay`] publishes unsent rows with
//! `Nats-Msg-Id` = event id and marks them sent only after JetStream acks, so
//! a committed event is published even if NATS was down at write time, a
//! rolled-back one never is, and a re-publish after a crash is deduplicated by
//! the stream.
//!
//! Payloads are protobuf messages (`proto/fleetdesk/<domain>/v1/events.proto`),
//! subjects live in [`crate::subjects`]. A [`Consumer`] applies each event id
//! once: the `processed_event` row commits with the handler's effect.

use std::time::Duration;

use anyhow::Context as _;
use async_nats::jetstream;
use async_nats::jetstream::consumer::DeliverPolicy;
use chrono::{DateTime, Utc};
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use crate::shutdown::Shutdown;
use crate::wakeup::Wakeups;

pub mod pull;
pub use pull::{BatchHandler, DurablePull, consumer_config, durable_name};

/// The stream that keeps every domain event.
pub const EVENT_STREAM: &str = "FLEETDESK_EVENTS";
/// Subjects the stream captures: `fleetdesk.<domain>.<entity>.<verb>`.
pub const EVENT_SUBJECTS: &str = "fleetdesk.>";
/// Window in which JetStream drops a repeated `Nats-Msg-Id`.
pub const DEDUPE_WINDOW: Duration = Duration::from_secs(10 * 60);
/// How long the stream keeps an event, and so how long it can be
/// redelivered ([`crate::retention`] keeps processed ids longer).
pub const EVENT_MAX_AGE: Duration = Duration::from_secs(7 * 24 * 3600);
/// How far before the deployment's first migration a new [`Consumer`]
/// starts reading: room for a clock difference between PostgreSQL and NATS.
pub const EPOCH_MARGIN: Duration = Duration::from_secs(5);
/// Postgres channel that wakes relays when an event is written.
const WAKE_CHANNEL: &str = crate::wakeup::OUTBOX;
/// Header naming the database an event comes from. Deployments (and test
/// stacks) that share a NATS server ignore each other's events by it.
pub const SOURCE_HEADER: &str = "Fleetdesk-Source";
/// Header carrying the event id; JetStream deduplicates on it.
pub const ID_HEADER: &str = "Nats-Msg-Id";

/// The deployment a pool belongs to: its database's name.
pub async fn source_of(pool: &PgPool) -> sqlx::Result<String> {
    sqlx::query_scalar("select current_database()::text")
        .fetch_one(pool)
        .await
}

/// When the deployment (its database) began: its oldest migration, over
/// every service schema this pool may read. No event of the deployment is
/// older. `None` when no migration history is readable.
pub async fn deployment_epoch(pool: &PgPool) -> sqlx::Result<Option<DateTime<Utc>>> {
    let histories: Vec<String> = sqlx::query_scalar(
        "select format('select min(installed_on) from %I._sqlx_migrations', schemaname) \
         from pg_tables where tablename = '_sqlx_migrations' \
         and case when has_schema_privilege(schemaname, 'usage') \
             then has_table_privilege(format('%I._sqlx_migrations', schemaname), 'select') end",
    )
    .fetch_all(pool)
    .await?;
    if histories.is_empty() {
        return Ok(None);
    }
    let oldest = format!(
        "select min(installed_on) from ({}) as history(installed_on)",
        histories.join(" union all ")
    );
    sqlx::query_scalar(&oldest).fetch_one(pool).await
}

/// Where a new event consumer starts: at the deployment's beginning, so a
/// service deployed after events were published still applies them (safe:
/// [`Consumer`] applies each id once). Not at the stream's beginning: test
/// stacks share one NATS server and its stream, so that would replay every
/// other stack's events, only to ignore them by [`SOURCE_HEADER`]. A
/// deployment older than the stream's oldest event reads it all.
pub fn deliver_from_epoch(epoch: Option<DateTime<Utc>>) -> DeliverPolicy {
    let start = epoch.and_then(|epoch| {
        let margin = chrono::Duration::from_std(EPOCH_MARGIN).ok()?;
        let nanos = epoch.checked_sub_signed(margin)?.timestamp_nanos_opt()?;
        async_nats::datetime::from_nanos(i128::from(nanos)).ok()
    });
    match start {
        Some(start_time) => DeliverPolicy::ByStartTime { start_time },
        None => DeliverPolicy::All,
    }
}

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

/// The event stream's settings.
pub fn event_stream() -> jetstream::stream::Config {
    jetstream::stream::Config {
        name: EVENT_STREAM.to_owned(),
        subjects: vec![EVENT_SUBJECTS.to_owned()],
        duplicate_window: DEDUPE_WINDOW,
        max_age: EVENT_MAX_AGE,
        ..Default::default()
    }
}

/// Creates the event stream if it is missing.
pub async fn ensure_event_stream(js: &jetstream::Context) -> anyhow::Result<()> {
    ensure_stream(js, event_stream()).await?;
    Ok(())
}

/// Creates a stream if it is missing. Two processes creating the same new
/// stream at once can have the server refuse the slower one ("subjects
/// overlap"), though the stream they both want now exists: the slower one
/// then finds it.
pub async fn ensure_stream(
    js: &jetstream::Context,
    config: jetstream::stream::Config,
) -> anyhow::Result<jetstream::stream::Stream> {
    let name = config.name.clone();
    let mut last = None;
    for attempt in 0..3u32 {
        match js.get_or_create_stream(config.clone()).await {
            Ok(stream) => return Ok(stream),
            Err(e) => {
                if let Ok(stream) = js.get_stream(&name).await {
                    return Ok(stream);
                }
                last = Some(e);
                tokio::time::sleep(Duration::from_millis(50 * u64::from(attempt + 1))).await;
            }
        }
    }
    Err(anyhow::anyhow!(
        "ensure stream {name}: {}",
        last.map(|e| e.to_string()).unwrap_or_default()
    ))
}

/// Writes an event (a protobuf message) in the caller's transaction.
/// Returns the event id.
pub async fn enqueue(
    tx: &mut PgConnection,
    subject: &str,
    payload: &impl prost::Message,
) -> Result<Uuid, sqlx::Error> {
    let id = Uuid::new_v4();
    let body = payload.encode_to_vec();
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

/// The relay's read of one batch, oldest first (`$1` rows). The unsent rows'
/// partial index covers its whole order: rows written in one transaction
/// share `created_at`, and a tie left to a sort made each poll sort the whole
/// backlog.
pub const UNSENT_BATCH: &str = "select id, subject, payload from outbox where sent_at is null \
     order by created_at, id limit $1 for update skip locked";

/// Publishes a service's outbox to JetStream until shutdown.
pub struct OutboxRelay {
    pool: PgPool,
    /// This deployment's name ([`SOURCE_HEADER`]), read once.
    source: tokio::sync::OnceCell<String>,
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
            source: tokio::sync::OnceCell::new(),
            js,
            batch_size: 256,
            idle_poll: Duration::from_secs(1),
        }
    }

    /// Runs until `shutdown` fires. Failures are logged and retried with backoff.
    pub async fn run(self, shutdown: Shutdown) {
        let mut wakeups = crate::wakeup::subscribe(&self.pool, WAKE_CHANNEL).await;
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
                        self.pause(self.idle_poll, &shutdown, Some(&mut wakeups))
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

    /// Sleeps for `dur`, waking early on shutdown or an outbox notification.
    async fn pause(&self, dur: Duration, shutdown: &Shutdown, wakeups: Option<&mut Wakeups>) {
        let notified = async {
            match wakeups {
                Some(w) => w.notified().await,
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
        let rows: Vec<(Uuid, String, Vec<u8>)> = sqlx::query_as(UNSENT_BATCH)
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
        let source = self
            .source
            .get_or_try_init(|| source_of(&self.pool))
            .await?;
        let mut acks = Vec::with_capacity(rows.len());
        for (id, subject, payload) in rows {
            let mut headers = async_nats::HeaderMap::new();
            headers.insert(ID_HEADER, id.to_string().as_str());
            headers.insert(SOURCE_HEADER, source.as_str());
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

/// What a [`Consumer`] does with each event: its effect, written in the
/// transaction that also records the event id as processed.
pub trait Handler: Send + Sync + 'static {
    /// The protobuf payload of the subject.
    type Event: prost::Message + Default + Send;

    /// Applies one event inside `tx` (a service-scoped transaction). An
    /// error rolls the effect back; the event is delivered again later.
    fn handle(
        &self,
        tx: &mut PgConnection,
        event: Self::Event,
    ) -> impl std::future::Future<Output = anyhow::Result<()>> + Send;
}

/// What became of one delivered event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The effect was applied and committed.
    Applied,
    /// The id was applied before (a redelivery): nothing done again.
    Duplicate,
    /// Another deployment's event, or one without a readable id or payload.
    Ignored,
}

/// A durable JetStream pull consumer of one subject that applies each event
/// id once: for each message it begins a transaction, records the id in
/// `processed_event`, runs the [`Handler`], commits and only then acks. A
/// redelivered id is acked without a second effect. Created late (a new
/// service, or one whose consumer was removed after a day without a
/// client), it still receives the deployment's history.
pub struct Consumer<H: Handler> {
    pool: PgPool,
    pull: DurablePull,
    subject: &'static str,
    source: String,
    handler: H,
}

impl<H: Handler> std::fmt::Debug for Consumer<H> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Consumer")
            .field("subject", &self.subject)
            .field("durable", &self.pull.durable())
            .finish_non_exhaustive()
    }
}

impl<H: Handler> Consumer<H> {
    /// A consumer named `name` (unique per service and purpose) of `subject`.
    /// The durable name also names the deployment, so stacks sharing a NATS
    /// server never share a consumer.
    pub async fn new(
        pool: PgPool,
        nats: async_nats::Client,
        name: &str,
        subject: &'static str,
        handler: H,
    ) -> anyhow::Result<Consumer<H>> {
        let source = source_of(&pool).await?;
        let schema: String = sqlx::query_scalar("select current_schema()::text")
            .fetch_one(&pool)
            .await?;
        let durable = durable_name(&format!("{schema}-{name}"), &source);
        let config = jetstream::consumer::pull::Config {
            deliver_policy: deliver_from_epoch(deployment_epoch(&pool).await?),
            ..consumer_config(&durable, subject)
        };
        Ok(Consumer {
            pool,
            pull: DurablePull::new(jetstream(nats), event_stream(), config),
            subject,
            source,
            handler,
        })
    }

    /// Creates the durable consumer if missing. A new one starts at the
    /// deployment's beginning ([`deliver_from_epoch`]): every event of this
    /// deployment the stream still keeps is delivered, each applied once. A
    /// consumer that already exists keeps its position.
    pub async fn ensure(&self) -> anyhow::Result<jetstream::consumer::PullConsumer> {
        self.pull.ensure().await
    }

    /// Applies one delivered event once (see [`Outcome`]).
    pub async fn apply(
        &self,
        headers: Option<&async_nats::HeaderMap>,
        payload: &[u8],
    ) -> anyhow::Result<Outcome> {
        let header = |name: &str| {
            headers
                .and_then(|h| h.get(name))
                .map(|v| v.as_str().to_owned())
        };
        if header(SOURCE_HEADER).is_some_and(|s| s != self.source) {
            return Ok(Outcome::Ignored);
        }
        let Some(id) = header(ID_HEADER).and_then(|v| Uuid::parse_str(&v).ok()) else {
            tracing::warn!(subject = self.subject, "Event without an id ignored.");
            return Ok(Outcome::Ignored);
        };
        let event = match <H::Event as prost::Message>::decode(payload) {
            Ok(event) => event,
            Err(err) => {
                tracing::warn!(subject = self.subject, %id, error = %err, "Unreadable event ignored.");
                return Ok(Outcome::Ignored);
            }
        };
        let mut tx = crate::db::begin_service(&self.pool).await?;
        if !mark_processed(&mut tx, id, self.subject).await? {
            return Ok(Outcome::Duplicate);
        }
        self.handler.handle(&mut tx, event).await?;
        tx.commit().await?;
        Ok(Outcome::Applied)
    }

    /// Consumes until shutdown, one event at a time; failures are retried.
    pub async fn run(self, shutdown: Shutdown) {
        self.pull.clone().run(shutdown, &self).await;
    }
}

impl<H: Handler> BatchHandler for &Consumer<H> {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        for message in messages {
            self.apply(message.headers.as_ref(), &message.payload)
                .await?;
        }
        Ok(())
    }
}
