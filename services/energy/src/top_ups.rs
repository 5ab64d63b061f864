//! Charging top-ups paid in finance (`ChargingTopUpPaid`): a durable
//! JetStream consumer applying each event id once (kit's
//! `processed_event`) that moves the amount FUNDING → MAIN under the
//! order id as the transfer key, so a second event of the same order
//! replays the first transfer instead of paying twice.
//!
//! An enterprise whose charging is not opened yet still gets its money:
//! the ledger's MAIN account is opened (balance only; no charging_account
//! row, so nothing shows) and opening later adopts it with the balance
//! (`accounts::store::open_main` opens MAIN idempotently). Parking the
//! event instead would stall every later top-up behind it and lose it
//! when the stream's retention drops it.

use fleetdesk_kit::{db, events, subjects};
use fleetdesk_proto::finance::v1::ChargingTopUpPaid;
use sqlx_postgres::{PgConnection, PgPool};
use uuid::Uuid;

use crate::ledger::{self, AccountKind, TransferError};

/// The consumer's name (with the schema and deployment, its durable name).
pub const CONSUMER: &str = "charging-top-ups";

/// The ledger's transfer key of an order's top-up.
pub fn key(order_id: Uuid) -> String {
    format!("finance-order:{order_id}")
}

/// Tops up the charging main account of paid top-up orders.
#[derive(Debug, Clone, Copy)]
pub struct PaidTopUps;

impl events::Handler for PaidTopUps {
    type Event = ChargingTopUpPaid;

    async fn handle(&self, tx: &mut PgConnection, event: ChargingTopUpPaid) -> anyhow::Result<()> {
        let ChargingTopUpPaid {
            order_id,
            enterprise_id,
            order_no,
            amount_fen,
            paid_time: _,
        } = event;
        let (Ok(enterprise_id), Ok(order)) =
            (Uuid::parse_str(&enterprise_id), Uuid::parse_str(&order_id))
        else {
            tracing::warn!(order = %order_id, "Top-up without its enterprise or order ignored.");
            return Ok(());
        };
        if amount_fen <= 0 {
            tracing::warn!(order = %order_id, amount_fen, "Top-up without an amount ignored.");
            return Ok(());
        }
        db::enter_tenant(tx, enterprise_id).await?;
        let main = ledger::open_account(tx, enterprise_id, AccountKind::Main, None).await?;
        let memo = format!("充电充值 订单 {order_no}");
        match ledger::top_up(tx, enterprise_id, main, amount_fen, &key(order), &memo).await {
            Ok(posted) => {
                if posted.replayed {
                    tracing::info!(order = %order_id, "Top-up of the order was posted before.");
                }
                Ok(())
            }
            // Redelivering cannot change the answer: log it for the operator.
            Err(TransferError::KeyReused) => {
                tracing::error!(order = %order_id, amount_fen,
                    "The order was topped up before with another amount; event dropped.");
                Ok(())
            }
            Err(err) => Err(anyhow::anyhow!("top up order {order_id}: {err}")),
        }
    }
}

/// The target's consumer of paid charging top-ups.
pub async fn consumer(
    pool: PgPool,
    nats: async_nats::Client,
) -> anyhow::Result<events::Consumer<PaidTopUps>> {
    events::Consumer::new(
        pool,
        nats,
        CONSUMER,
        subjects::FINANCE_CHARGING_TOP_UP_PAID,
        PaidTopUps,
    )
    .await
}
