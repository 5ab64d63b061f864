//! Org's consumer of energy's charging states: keeps the newest version,
//! and tells the gateways when the flags changed.

use fleetdesk_kit::{events, subjects};
use fleetdesk_proto::energy::v1::ChargingOpenChanged;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use super::domain::ChargingState;
use super::store;
use crate::changes;

/// Applies energy's announcement (see [`consumer`]).
#[derive(Debug, Clone, Copy)]
pub struct ChargingStates;

impl events::Handler for ChargingStates {
    type Event = ChargingOpenChanged;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: ChargingOpenChanged,
    ) -> anyhow::Result<()> {
        let ChargingOpenChanged {
            enterprise_id,
            state,
            version,
        } = event;
        let Ok(enterprise) = Uuid::parse_str(&enterprise_id) else {
            tracing::warn!(enterprise = %enterprise_id, "Charging state of a bad enterprise id ignored.");
            return Ok(());
        };
        // An unspecified (or newer) state reads as never applied, as the flags always did.
        let state = ChargingState::from_pb(state).unwrap_or(ChargingState::NotOpened);
        if !store::enterprise_exists(&mut *tx, enterprise).await? {
            tracing::warn!(enterprise_id = %enterprise, "Charging state of an unknown enterprise ignored.");
            return Ok(());
        }
        if store::keep(&mut *tx, enterprise, state, version).await? {
            changes::principals_changed(tx, Some(enterprise), &[]).await?;
        }
        Ok(())
    }
}

/// Org's durable consumer of energy's charging states, created before org
/// serves (a new consumer starts with the events published from then on).
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<ChargingStates>> {
    events::Consumer::new(
        pool,
        nats,
        "energy-charging-states",
        subjects::ENERGY_OPENING_CHANGED,
        ChargingStates,
    )
    .await
}
