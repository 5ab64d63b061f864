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

use async_nats::jetstream;
use chrono::Utc;
use fleetdesk_kit::events::{BatchHandler, DurablePull};
use fleetdesk_kit::{ServiceError, Shutdown, db, events};
use fleetdesk_proto::telematics::v1 as tpb;
use prost::Message as _;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use super::domain::{ANSWER_WITHIN, CommandState, LockAction};
use super::store;
use crate::codes::optional;
use crate::ingest::telemetry_stream;

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
    events::durable_name("vehicle-lock-results", source)
}

/// The consumer of command results, one at a time.
#[derive(Debug)]
pub struct Results {
    pool: PgPool,
    pull: DurablePull,
}

impl Results {
    pub async fn new(pool: PgPool, nats: async_nats::Client) -> anyhow::Result<Results> {
        let source = events::source_of(&pool).await?;
        let consumer = events::consumer_config(&durable_name(&source), RESULT_SUBJECTS);
        Ok(Results {
            pool,
            pull: DurablePull::new(events::jetstream(nats), telemetry_stream(), consumer),
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
        self.pull.clone().run(shutdown, &self).await;
    }
}

impl BatchHandler for &Results {
    async fn handle(&mut self, messages: &[jetstream::Message]) -> anyhow::Result<()> {
        for message in messages {
            self.apply(&message.payload).await?;
        }
        Ok(())
    }
}
