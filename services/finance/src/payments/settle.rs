//! The bank's word on a payment (its signed callback, verified by the
//! caller): applied once per event id, in one service-scoped transaction
//! with the payment locked, so repeats and racing deliveries change
//! nothing twice.

use chrono::Utc;
use fleetdesk_kit::{ServiceError, codes};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, Allocation, Owed, PaymentStatus};
use super::handlers::memo;
use super::store;
use crate::bank::{Notification, PaymentOrder};
use crate::bills::domain::{BillStatus, Channel};
use crate::ledger;

/// What a callback did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Applied {
    /// It moved the payment on.
    Settled,
    /// Its event was applied before, or the payment had already ended.
    Nothing,
    /// No such payment (yet): the bank should call again.
    Unknown,
}

/// Applies the bank's payment event `n` about `order`.
pub async fn apply(
    conn: &mut PgConnection,
    n: &Notification,
    order: &PaymentOrder,
    succeeded: bool,
) -> Result<Applied, ServiceError> {
    let Ok(id) = Uuid::parse_str(&order.merchant_order_no) else {
        return Ok(Applied::Unknown);
    };
    let Some(payment) = store::lock_any(conn, id).await? else {
        return Ok(Applied::Unknown);
    };
    let enterprise_id = payment.enterprise_id;
    let event_type = if succeeded {
        "PAYMENT.SUCCESS"
    } else {
        "PAYMENT.FAILED"
    };
    if !store::first_time(conn, enterprise_id, &n.event_id, event_type, id).await? {
        return Ok(Applied::Nothing);
    }
    if codes::known::<PaymentStatus>(payment.status)? != PaymentStatus::Pending {
        return Ok(Applied::Nothing);
    }
    if order.amount_fen != payment.amount_fen {
        tracing::error!(payment = %id, bank = order.amount_fen, ours = payment.amount_fen,
            "The bank settled another amount than the payment's.");
        return Err(ServiceError::invalid(
            "amountFen",
            "银行通知的金额与支付金额不符",
        ));
    }
    if !succeeded {
        let reason = order.failure_reason.as_deref().unwrap_or("支付失败");
        store::finish(conn, enterprise_id, id, PaymentStatus::Failed, None, reason).await?;
        return Ok(Applied::Settled);
    }
    let planned: Vec<Allocation> = store::allocations(conn, enterprise_id, &[id])
        .await?
        .into_iter()
        .map(|a| Allocation {
            bill_id: a.bill_id,
            bill_no: a.bill_no,
            amount_fen: a.amount_fen,
        })
        .collect();
    let bill_ids: Vec<Uuid> = planned.iter().map(|a| a.bill_id).collect();
    store::lock_bills(conn, enterprise_id, &bill_ids).await?;
    let owed = store::owed(conn, enterprise_id, &bill_ids)
        .await?
        .into_iter()
        .map(|(bill_id, bill_no, channel, status, outstanding_fen)| {
            Ok(Owed {
                bill_id,
                bill_no,
                channel: codes::known::<Channel>(channel)?,
                status: codes::known::<BillStatus>(status)?,
                outstanding_fen,
            })
        })
        .collect::<Result<Vec<_>, ServiceError>>()?;
    let (applied, rest) = domain::applicable(&planned, &owed);
    let books = ledger::books(conn, enterprise_id).await?;
    let key = id.to_string();
    if !applied.is_empty() {
        let paid = ledger::Transfer::between(
            enterprise_id,
            ledger::TransferKind::BankPayment,
            key.clone(),
            books.bank,
            books.revenue,
            domain::total(&applied),
        )
        .by(None, "银行")
        .memo(&memo(&applied));
        ledger::transfer(conn, &paid).await?;
        store::apply_to_bills(conn, enterprise_id, &applied, "银行").await?;
    }
    if rest > 0 {
        ledger::top_up(
            conn,
            enterprise_id,
            rest,
            &key,
            &format!("支付 {} 的账单已结清，余款转入预付余额", payment.payment_no),
        )
        .await?;
    }
    if rest > 0 {
        store::reallocate(conn, enterprise_id, id, &applied).await?;
    }
    let paid_time = order.paid_at.unwrap_or_else(Utc::now);
    store::finish(
        conn,
        enterprise_id,
        id,
        PaymentStatus::Succeeded,
        Some(paid_time),
        "",
    )
    .await?;
    Ok(Applied::Settled)
}
