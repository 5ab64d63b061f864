//! Energy's charging state of each enterprise, kept from energy's
//! `ChargingOpenChanged` events, so the enterprise flags (isChargeAccount,
//! isChargeApplying) travel with the principal the gateway caches and
//! `/me` stays a read of it. A change announces the enterprise's
//! principals as changed, so gateways drop their cached copies at once.

use fleetdesk_kit::{events, subjects};
use fleetdesk_proto::energy::v1::{ChargingOpenChanged, ChargingOpenState};
use sqlx::{PgConnection, PgPool};
use uuid::Uuid;

use crate::changes;

/// Energy's state of an enterprise, as the flags read it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Charging {
    /// A charging account exists (isChargeAccount).
    pub opened: bool,
    /// An application is pending (isChargeApplying).
    pub applying: bool,
}

impl Charging {
    fn of(state: ChargingOpenState) -> Charging {
        match state {
            ChargingOpenState::Opened => Charging {
                opened: true,
                applying: false,
            },
            ChargingOpenState::Applying => Charging {
                opened: false,
                applying: true,
            },
            ChargingOpenState::NotOpened | ChargingOpenState::Unspecified => Charging::default(),
        }
    }
}

/// The enterprise's charging state (never applied: neither flag).
pub async fn of_enterprise(conn: &mut PgConnection, enterprise_id: Uuid) -> sqlx::Result<Charging> {
    let state: Option<i16> =
        sqlx::query_scalar("select state from enterprise_charging where enterprise_id = $1")
            .bind(enterprise_id)
            .fetch_optional(conn)
            .await?;
    Ok(state
        .and_then(|s| ChargingOpenState::try_from(i32::from(s)).ok())
        .map(Charging::of)
        .unwrap_or_default())
}

/// Applies energy's announcement: keeps the newest version, and tells the
/// gateways when the flags changed.
#[derive(Debug, Clone, Copy)]
pub struct ChargingStates;

impl events::Handler for ChargingStates {
    type Event = ChargingOpenChanged;

    async fn handle(
        &self,
        tx: &mut PgConnection,
        event: ChargingOpenChanged,
    ) -> anyhow::Result<()> {
        let Ok(enterprise_id) = Uuid::parse_str(&event.enterprise_id) else {
            tracing::warn!(enterprise = %event.enterprise_id, "Charging state of a bad enterprise id ignored.");
            return Ok(());
        };
        let state = ChargingOpenState::try_from(event.state).unwrap_or_default();
        let known: bool =
            sqlx::query_scalar("select exists(select 1 from enterprise where id = $1)")
                .bind(enterprise_id)
                .fetch_one(&mut *tx)
                .await?;
        if !known {
            tracing::warn!(%enterprise_id, "Charging state of an unknown enterprise ignored.");
            return Ok(());
        }
        let written = sqlx::query(
            "insert into enterprise_charging (enterprise_id, state, version) values ($1, $2, $3) \
             on conflict (enterprise_id) do update set state = excluded.state, \
             version = excluded.version, updated_at = now() \
             where enterprise_charging.version < excluded.version",
        )
        .bind(enterprise_id)
        .bind(state as i16)
        .bind(event.version)
        .execute(&mut *tx)
        .await?
        .rows_affected();
        if written == 1 {
            changes::principals_changed(tx, Some(enterprise_id), &[]).await?;
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
