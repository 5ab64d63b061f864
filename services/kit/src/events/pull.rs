//! The one reconnecting JetStream pull-consumer loop every durable consumer
//! runs ([`crate::events::Consumer`], telemetry ingest, fence and
//! temperature evaluation, lock results).
//!
//! [`DurablePull::run`] makes sure the stream and the durable consumer exist,
//! gathers batches (up to `max` messages, waiting at most `wait` after the
//! first for more), hands each to a [`BatchHandler`], acks the batch after
//! the handler succeeded and naks it for a redelivery when it failed. When
//! NATS is away or the consumer was deleted it backs off and subscribes
//! again; it stops on shutdown. Unacked messages are redelivered after the
//! consumer's ack wait, so handlers must be idempotent.

use std::time::Duration;

use async_nats::jetstream::{self, AckKind, consumer::pull};
use futures::StreamExt as _;

use crate::shutdown::Shutdown;

/// First pause before subscribing again; doubles up to [`MAX_BACKOFF`].
const MIN_BACKOFF: Duration = Duration::from_millis(200);
const MAX_BACKOFF: Duration = Duration::from_secs(5);
/// A failed batch comes back after this long.
const NAK_DELAY: Duration = Duration::from_secs(1);
/// Messages requested ahead per pull when batches are smaller.
const PULL_AHEAD: usize = 200;
/// The server's idle heartbeat on pull requests: a silent server is noticed.
const HEARTBEAT: Duration = Duration::from_secs(15);
/// Consumers left without a client for this long are removed by the server.
/// As long as the event stream keeps a message: a service down over a long
/// weekend finds its consumer, and its place, again. A shorter threshold
/// lets the server drop the consumer while the stream still holds what it
/// missed, and a consumer recreated at `New` (telemetry's) skips it.
pub const INACTIVE: Duration = crate::events::EVENT_MAX_AGE;

/// What a [`DurablePull`] does with each batch it fetched.
pub trait BatchHandler: Send {
    /// Handles `messages` (in stream order). `Ok`: all are acked; `Err`: all
    /// are delivered again later, so the effect must be idempotent.
    fn handle(
        &mut self,
        messages: &[jetstream::Message],
    ) -> impl std::future::Future<Output = anyhow::Result<()>> + Send;
}

/// The name of a durable consumer of the deployment whose database is
/// `source`: `<name>-<hash>`, so stacks sharing a NATS server never share one.
pub fn durable_name(name: &str, source: &str) -> String {
    let digest = <sha2::Sha256 as sha2::Digest>::digest(source.as_bytes());
    let tag: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("{name}-{tag}")
}

/// A durable consumer's settings with the defaults every consumer shares:
/// explicit acks, new messages only, 30 s ack wait, removed after
/// [`INACTIVE`] without a client. Override fields with struct update syntax. New
/// messages only is what raw [`DurablePull`] users (telemetry) keep; an
/// event [`Consumer`](crate::events::Consumer) overrides it with
/// [`deliver_from_epoch`](crate::events::deliver_from_epoch).
pub fn consumer_config(durable: &str, filter_subject: &str) -> pull::Config {
    pull::Config {
        durable_name: Some(durable.to_owned()),
        filter_subject: filter_subject.to_owned(),
        deliver_policy: jetstream::consumer::DeliverPolicy::New,
        ack_policy: jetstream::consumer::AckPolicy::Explicit,
        ack_wait: Duration::from_secs(30),
        inactive_threshold: INACTIVE,
        ..Default::default()
    }
}

/// A durable pull consumer of one stream that survives NATS restarts.
#[derive(Clone)]
pub struct DurablePull {
    js: jetstream::Context,
    stream: jetstream::stream::Config,
    consumer: pull::Config,
    max: usize,
    wait: Duration,
}

impl std::fmt::Debug for DurablePull {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DurablePull")
            .field("durable", &self.durable())
            .field("max", &self.max)
            .field("wait", &self.wait)
            .finish_non_exhaustive()
    }
}

impl DurablePull {
    /// The consumer `consumer` (see [`consumer_config`]) of the stream
    /// `stream`, created with that config when missing. Batches hold one
    /// message until [`DurablePull::batches`] says otherwise.
    pub fn new(
        js: jetstream::Context,
        stream: jetstream::stream::Config,
        consumer: pull::Config,
    ) -> DurablePull {
        DurablePull {
            js,
            stream,
            consumer,
            max: 1,
            wait: Duration::ZERO,
        }
    }

    /// Batches of up to `max` messages: what arrives within `wait` of the
    /// first (`Duration::ZERO`: what is ready at once).
    pub fn batches(mut self, max: usize, wait: Duration) -> DurablePull {
        self.max = max.max(1);
        self.wait = wait;
        self
    }

    pub fn durable(&self) -> &str {
        self.consumer.durable_name.as_deref().unwrap_or_default()
    }

    /// Creates the stream and the durable consumer if missing.
    pub async fn ensure(&self) -> anyhow::Result<jetstream::consumer::PullConsumer> {
        let stream = super::ensure_stream(&self.js, self.stream.clone()).await?;
        stream
            .get_or_create_consumer(self.durable(), self.consumer.clone())
            .await
            .map_err(|e| anyhow::anyhow!("consumer {}: {e}", self.durable()))
    }

    async fn subscribe(&self) -> anyhow::Result<pull::Stream> {
        self.ensure()
            .await?
            .stream()
            .max_messages_per_batch(self.max.max(PULL_AHEAD))
            .heartbeat(HEARTBEAT)
            .messages()
            .await
            .map_err(|e| anyhow::anyhow!("subscribe {}: {e}", self.durable()))
    }

    /// Consumes until `shutdown` fires; every failure is logged and retried.
    pub async fn run<H: BatchHandler>(self, shutdown: Shutdown, mut handler: H) {
        let mut backoff = MIN_BACKOFF;
        let mut first = true;
        while !shutdown.is_triggered() {
            if !first {
                tokio::select! {
                    () = tokio::time::sleep(backoff) => {}
                    () = shutdown.wait() => return,
                }
                backoff = (backoff * 2).min(MAX_BACKOFF);
            }
            first = false;
            let mut messages = match self.subscribe().await {
                Ok(messages) => messages,
                Err(err) => {
                    tracing::warn!(consumer = self.durable(), error = %format!("{err:#}"), "Consumer not ready; retrying.");
                    continue;
                }
            };
            loop {
                let (batch, ended) = tokio::select! {
                    gathered = self.gather(&mut messages) => gathered,
                    () = shutdown.wait() => return,
                };
                if !batch.is_empty() && self.settle(&mut handler, &batch).await {
                    backoff = MIN_BACKOFF;
                }
                if ended {
                    tracing::info!(
                        consumer = self.durable(),
                        "Consumer stream ended; subscribing again."
                    );
                    break;
                }
            }
        }
    }

    /// The next batch, and whether the stream ended after it.
    async fn gather(&self, messages: &mut pull::Stream) -> (Vec<jetstream::Message>, bool) {
        let mut batch = Vec::new();
        // The first message: as long as it takes.
        while batch.is_empty() {
            match messages.next().await {
                Some(Ok(message)) => batch.push(message),
                Some(Err(err)) => self.stream_error(&err),
                None => return (batch, true),
            }
        }
        let deadline = tokio::time::Instant::now() + self.wait;
        while batch.len() < self.max {
            // A timeout polls the stream once before looking at the clock,
            // so a zero wait still takes what is ready.
            match tokio::time::timeout_at(deadline, messages.next()).await {
                Ok(Some(Ok(message))) => batch.push(message),
                Ok(Some(Err(err))) => self.stream_error(&err),
                Ok(None) => return (batch, true),
                Err(_) => break,
            }
        }
        (batch, false)
    }

    fn stream_error(&self, err: &pull::MessagesError) {
        tracing::warn!(consumer = self.durable(), error = %err, "Consumer stream error.");
    }

    /// Hands the batch over; acks it after success, naks it after a failure.
    /// Returns whether the handler succeeded.
    async fn settle<H: BatchHandler>(&self, handler: &mut H, batch: &[jetstream::Message]) -> bool {
        match handler.handle(batch).await {
            Ok(()) => {
                for message in batch {
                    if let Err(err) = message.ack().await {
                        tracing::warn!(consumer = self.durable(), error = %err, "Ack failed; the message will be redelivered.");
                    }
                }
                true
            }
            Err(err) => {
                tracing::warn!(consumer = self.durable(), messages = batch.len(), error = %format!("{err:#}"), "Batch not handled; retrying later.");
                for message in batch {
                    let _ = message.ack_with(AckKind::Nak(Some(NAK_DELAY))).await;
                }
                false
            }
        }
    }
}
