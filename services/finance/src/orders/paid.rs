//! An order becomes PAID when its ORDER bill is paid in full, in the
//! transaction that pays the bill (from the balance or by the bank's
//! callback: both go through `payments::store::apply_to_bills`). Only a
//! PENDING_PAYMENT order moves, so a second payment path or a replay finds
//! nothing to do. A paid CHARGING_TOP_UP order is announced to energy
//! (`ChargingTopUpPaid` through the outbox), which tops up the charging
//! main account keyed by the order id.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ServiceError, events, subjects};
use fleetdesk_proto::finance::v1::ChargingTopUpPaid;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{OrderKind, OrderStatus};
use crate::bills::domain::BillStatus;

/// Marks the PENDING_PAYMENT orders of `bill_ids` whose bill is PAID as
/// PAID, and announces the charging top-ups among them.
pub async fn bills_paid(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    bill_ids: &[Uuid],
) -> Result<(), ServiceError> {
    let paid: Vec<(Uuid, String, i16, i64, DateTime<Utc>)> = sqlx::query_as(
        "update enterprise_order o set status = $3, paid_fen = o.payable_fen, \
           paid_at = coalesce(b.paid_time, now()), updated_by_name = '系统' \
         from bill b \
         where b.enterprise_id = $1 and b.id = any($2) and b.status = $5 \
           and o.enterprise_id = $1 and o.id = b.order_id and o.status = $4 \
         returning o.id, o.order_no, o.kind, o.total_fen, o.paid_at",
    )
    .bind(enterprise_id)
    .bind(bill_ids)
    .bind(i16::from(OrderStatus::Paid))
    .bind(i16::from(OrderStatus::PendingPayment))
    .bind(i16::from(BillStatus::Paid))
    .fetch_all(&mut *conn)
    .await?;
    for (order_id, order_no, kind, total_fen, paid_at) in paid {
        if kind != i16::from(OrderKind::ChargingTopUp) {
            continue;
        }
        let event = ChargingTopUpPaid {
            order_id: order_id.to_string(),
            enterprise_id: enterprise_id.to_string(),
            order_no,
            amount_fen: total_fen,
            paid_time: Some(timestamp(paid_at)),
        };
        events::enqueue(conn, subjects::FINANCE_CHARGING_TOP_UP_PAID, &event).await?;
    }
    Ok(())
}
