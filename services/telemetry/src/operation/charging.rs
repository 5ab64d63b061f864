//! Charged energy and charge counts of the operation log, from energy's
//! settled sessions (`energy.v1.ChargingSessionSettled`): a durable
//! consumer adds each session's energy and one charge to its vehicle's day
//! (the Beijing day its charging ended) and month. Each event id is applied
//! once: `processed_event` commits with the addition (`events::Consumer`).
//! A session without a vehicle (a driver's card), or of a vehicle this
//! target does not know in that enterprise, adds nothing.

use fleetdesk_kit::{convert, db, events, subjects};
use fleetdesk_proto::energy::v1::ChargingSessionSettled;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::rollup::slot_of;
use super::store;

/// The consumer's name (with the schema and deployment, its durable name).
pub const CONSUMER: &str = "energy-sessions-settled";

/// Adds a settled session to its vehicle's day and month.
#[derive(Debug, Clone, Copy)]
pub struct SettledSessions;

impl events::Handler for SettledSessions {
    type Event = ChargingSessionSettled;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: ChargingSessionSettled,
    ) -> anyhow::Result<()> {
        let ChargingSessionSettled {
            session_id,
            enterprise_id,
            org_id: _,
            card_id: _,
            vehicle_id,
            energy_wh,
            total_fen: _,
            uncollected_fen: _,
            end_time,
        } = event;
        if vehicle_id.is_empty() {
            return Ok(());
        }
        let (Ok(enterprise), Ok(vehicle)) = (
            Uuid::parse_str(&enterprise_id),
            Uuid::parse_str(&vehicle_id),
        ) else {
            tracing::warn!(session = %session_id, "Settled session with a bad id ignored.");
            return Ok(());
        };
        let Some(ended) = end_time.as_ref().and_then(convert::datetime) else {
            tracing::warn!(session = %session_id, "Settled session without an end time ignored.");
            return Ok(());
        };
        let (day, _) = slot_of(ended);
        if !store::add_charge(tx, enterprise, vehicle, day, energy_wh.max(0)).await? {
            tracing::warn!(session = %session_id, vehicle = %vehicle, "Settled session of an unknown vehicle ignored.");
        }
        Ok(())
    }
}

/// The target's durable consumer of settled sessions; `ensure` it before
/// serving (a new consumer starts with the events published from then on).
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<SettledSessions>> {
    events::Consumer::new(
        pool,
        nats,
        CONSUMER,
        subjects::ENERGY_SESSION_SETTLED,
        SettledSessions,
    )
    .await
}

/// Applies events read from energy's outbox (id, payload) that the consumer
/// may not have seen (published before it existed), each once: an id
/// applied here is a duplicate when the consumer receives it, and the
/// reverse. Returns how many were applied now.
pub async fn catch_up(pool: &PgPool, events: &[(Uuid, Vec<u8>)]) -> anyhow::Result<usize> {
    let mut applied = 0;
    for (id, payload) in events {
        let event = <ChargingSessionSettled as prost::Message>::decode(payload.as_slice())?;
        let mut tx = db::begin_service(pool).await?;
        if !events::mark_processed(&mut tx, *id, subjects::ENERGY_SESSION_SETTLED).await? {
            continue;
        }
        events::Handler::handle(&SettledSessions, &mut tx, event).await?;
        tx.commit().await?;
        applied += 1;
    }
    Ok(applied)
}
