//! Getting commands to terminals and their answers back.
//!
//! - [`deliver`]: claims due queued commands (one right after it was
//!   asked for, or every due one on a sweep) and sends each as a
//!   `VehicleCommand` request on `telematics.command.<phone>`. The edge
//!   holding the terminal answers `CommandDelivery`; "no responders" means
//!   the terminal is offline and the command stays queued until it expires.
//! - [`Results`]: a durable consumer of `telemetry.*.*.command`
//!   (`CommandResult`) moving commands to acknowledged, succeeded or failed.
//! - [`sweep`]: every [`SWEEP_EVERY`], retries queued commands, expires old
//!   ones and times out sent ones the terminal did not answer.

use std::time::Duration;

use async_nats::jetstream::{self, AckKind};
use chrono::Utc;
use fleetdesk_kit::{ServiceError, Shutdown, db, events};
use fleetdesk_proto::telematics::v1 as tpb;
use futures::StreamExt as _;
use prost::Message as _;
use sqlx::PgPool;
use uuid::Uuid;

use super::domain::{ANSWER_WITHIN, CommandState, LockAction};
use super::store;
use crate::codes::optional;
use crate::ingest::ensure_stream;

/// The subject the edge holding a terminal answers on.
pub fn command_subject(phone: &str) -> String {
    format!("telematics.command.{phone}")
}
/// Command results in the telemetry stream.
pub const RESULT_SUBJECTS: &str = fleetdesk_kit::subjects::TELEMETRY_COMMAND_RESULTS;
/// How long a delivery request waits for the edge.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);
/// A queued command is tried again after this long.
const RETRY_AFTER: chrono::Duration = chrono::Duration::seconds(5);
/// How often the sweep runs.
pub const SWEEP_EVERY: Duration = Duration::from_secs(2);

/// Delivers `id` (or, with `None`, every due queued command). Failures are
/// logged: the command stays queued and the sweep tries again.
pub async fn deliver(pool: &PgPool, nats: &async_nats::Client, id: Option<Uuid>) {
    if let Err(err) = try_deliver(pool, nats, id).await {
        tracing::warn!(error = %err, "Lock command delivery failed; retrying later.");
    }
}

async fn try_deliver(
    pool: &PgPool,
    nats: &async_nats::Client,
    id: Option<Uuid>,
) -> Result<(), ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let claimed = store::claim(&mut tx, id, Utc::now() + RETRY_AFTER, 100).await?;
    tx.commit().await?;
    for (command_id, phone, action) in claimed {
        let Some(action) = optional::<LockAction>(Some(action)) else {
            continue;
        };
        let request = tpb::VehicleCommand {
            command_id: command_id.to_string(),
            phone: phone.clone(),
            action: Some(tpb::vehicle_command::Action::LockDoors(
                action == LockAction::Lock,
            )),
        };
        let reply = tokio::time::timeout(
            REQUEST_TIMEOUT,
            nats.request(command_subject(&phone), request.encode_to_vec().into()),
        )
        .await;
        let mut conn = db::begin_service(pool).await?;
        match reply {
            Ok(Ok(message)) => match tpb::CommandDelivery::decode(message.payload.as_ref()) {
                Ok(delivery) if delivery.sent => {
                    store::mark_sent(&mut conn, command_id, delivery.serial).await?;
                    tracing::info!(command = %command_id, serial = delivery.serial, "Lock command sent.");
                }
                Ok(delivery) => {
                    store::note_undelivered(&mut conn, command_id, &delivery.detail).await?;
                }
                Err(err) => {
                    tracing::warn!(command = %command_id, error = %err, "Unreadable command delivery.");
                }
            },
            Ok(Err(err)) if err.kind() == async_nats::RequestErrorKind::NoResponders => {
                store::note_undelivered(&mut conn, command_id, "车辆不在线，等待上线后下发")
                    .await?;
            }
            Ok(Err(err)) => {
                tracing::warn!(command = %command_id, error = %err, "Lock command request failed.");
            }
            Err(_) => {
                tracing::warn!(command = %command_id, "Lock command request timed out.");
            }
        }
        conn.commit().await?;
    }
    Ok(())
}

/// One sweep: expiries, timeouts, then due deliveries.
pub async fn sweep(pool: &PgPool, nats: &async_nats::Client) -> Result<(), ServiceError> {
    let mut tx = db::begin_service(pool).await?;
    let answered_before = Utc::now() - ANSWER_WITHIN;
    let (expired, timed_out) = store::sweep(&mut tx, answered_before).await?;
    tx.commit().await?;
    if expired + timed_out > 0 {
        tracing::info!(expired, timed_out, "Lock commands swept.");
    }
    try_deliver(pool, nats, None).await
}

/// Runs [`sweep`] until shutdown.
pub async fn run_sweeper(pool: PgPool, nats: async_nats::Client, shutdown: Shutdown) {
    loop {
        if let Err(err) = sweep(&pool, &nats).await {
            tracing::warn!(error = %err, "Lock command sweep failed.");
        }
        tokio::select! {
            () = tokio::time::sleep(SWEEP_EVERY) => {}
            () = shutdown.wait() => return,
        }
    }
}

/// The durable results consumer of the deployment whose database is `source`.
pub fn durable_name(source: &str) -> String {
    let digest = <sha2::Sha256 as sha2::Digest>::digest(source.as_bytes());
    let tag: String = digest[..6].iter().map(|b| format!("{b:02x}")).collect();
    format!("vehicle-lock-results-{tag}")
}

/// The consumer of command results.
pub struct Results {
    pool: PgPool,
    js: jetstream::Context,
    durable: String,
}

impl std::fmt::Debug for Results {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Results")
            .field("durable", &self.durable)
            .finish_non_exhaustive()
    }
}

impl Results {
    pub async fn new(pool: PgPool, nats: async_nats::Client) -> anyhow::Result<Results> {
        let source = events::source_of(&pool).await?;
        Ok(Results {
            pool,
            js: events::jetstream(nats),
            durable: durable_name(&source),
        })
    }

    /// Applies one result; false when it moved nothing (unknown command,
    /// another tenant's, or already finished).
    pub async fn apply(&self, payload: &[u8]) -> Result<bool, ServiceError> {
        let Ok(result) = tpb::CommandResult::decode(payload) else {
            return Ok(false);
        };
        let ids = (
            Uuid::parse_str(&result.command_id),
            Uuid::parse_str(&result.enterprise_id),
            Uuid::parse_str(&result.vehicle_id),
        );
        let (Ok(command), Ok(enterprise), Ok(vehicle)) = ids else {
            return Ok(false);
        };
        let to = match tpb::CommandOutcome::try_from(result.outcome) {
            Ok(tpb::CommandOutcome::Acknowledged) => CommandState::Acknowledged,
            Ok(tpb::CommandOutcome::Succeeded) => CommandState::Succeeded,
            Ok(tpb::CommandOutcome::Failed) => CommandState::Failed,
            Ok(tpb::CommandOutcome::Unspecified) | Err(_) => return Ok(false),
        };
        let detail = if to == CommandState::Failed && result.detail.is_empty() {
            "终端执行失败".to_owned()
        } else if to == CommandState::Failed {
            result.detail
        } else {
            String::new()
        };
        let mut tx = db::begin_service(&self.pool).await?;
        let moved = store::answer(&mut tx, command, enterprise, vehicle, to, &detail).await?;
        tx.commit().await?;
        if moved {
            tracing::info!(%command, state = ?to, "Lock command answered.");
        }
        Ok(moved)
    }

    /// Consumes until shutdown; failures are retried.
    pub async fn run(self, shutdown: Shutdown) {
        let mut backoff = Duration::from_millis(200);
        while !shutdown.is_triggered() {
            let messages = async {
                let stream = ensure_stream(&self.js).await?;
                let consumer = stream
                    .get_or_create_consumer(
                        &self.durable,
                        jetstream::consumer::pull::Config {
                            durable_name: Some(self.durable.clone()),
                            filter_subject: RESULT_SUBJECTS.to_owned(),
                            deliver_policy: jetstream::consumer::DeliverPolicy::New,
                            ack_policy: jetstream::consumer::AckPolicy::Explicit,
                            ack_wait: Duration::from_secs(30),
                            inactive_threshold: Duration::from_secs(24 * 3600),
                            ..Default::default()
                        },
                    )
                    .await
                    .map_err(|e| anyhow::anyhow!("consumer {}: {e}", self.durable))?;
                consumer.messages().await.map_err(anyhow::Error::from)
            }
            .await;
            let mut messages = match messages {
                Ok(m) => m,
                Err(err) => {
                    tracing::warn!(error = %format!("{err:#}"), "Lock results not ready; retrying.");
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
                let next = tokio::select! {
                    next = messages.next() => next,
                    () = shutdown.wait() => return,
                };
                let message = match next {
                    Some(Ok(m)) => m,
                    Some(Err(err)) => {
                        tracing::warn!(error = %err, "Lock results stream error.");
                        continue;
                    }
                    None => break,
                };
                match self.apply(&message.payload).await {
                    Ok(_) => {
                        let _ = message.ack().await;
                    }
                    Err(err) => {
                        tracing::warn!(error = %err, "Lock result not applied; retrying.");
                        let _ = message
                            .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                            .await;
                    }
                }
            }
        }
    }
}
