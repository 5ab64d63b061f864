//! The bank's word on a refund (its signed callback, verified by the
//! caller): applied once per event id with the refund locked. A success
//! pays the hold out to BANK, a failure voids it back to REVENUE; the
//! ledger's settle/void under the hold's row lock let only one of them
//! ever post, and the refund's status follows what the ledger did.

use fleetdesk_kit::{ServiceError, codes};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::RefundStatus;
use super::store;
use crate::bank::{BankRefund, Notification};
use crate::ledger::{self, HoldEnd};
use crate::payments::settle::Applied;

pub async fn apply(
    conn: &mut PgConnection,
    n: &Notification,
    bank_refund: &BankRefund,
    succeeded: bool,
) -> Result<Applied, ServiceError> {
    let Ok(id) = Uuid::parse_str(&bank_refund.merchant_refund_no) else {
        return Ok(Applied::Unknown);
    };
    let Some(refund) = store::lock_any(conn, id).await? else {
        return Ok(Applied::Unknown);
    };
    let enterprise_id = refund.enterprise_id;
    let event_type = if succeeded {
        "REFUND.SUCCESS"
    } else {
        "REFUND.FAILED"
    };
    if !crate::payments::store::first_time(conn, enterprise_id, &n.event_id, event_type, id).await?
    {
        return Ok(Applied::Nothing);
    }
    if codes::known::<RefundStatus>(refund.status)? != RefundStatus::Processing {
        return Ok(Applied::Nothing);
    }
    let end = if succeeded {
        ledger::pay_out_refund(conn, enterprise_id, id, refund.approved_fen).await?
    } else {
        ledger::void_refund(conn, enterprise_id, id).await?
    };
    match end {
        HoldEnd::PaidOut => {
            crate::payments::store::lock_bills(conn, enterprise_id, &[refund.bill_id]).await?;
            store::add_refunded(
                conn,
                enterprise_id,
                refund.bill_id,
                refund.approved_fen,
                "银行",
            )
            .await?;
            store::finish(conn, enterprise_id, id, RefundStatus::Completed, "").await?;
        }
        HoldEnd::Voided => {
            let reason = bank_refund.failure_reason.as_deref().unwrap_or("退款失败");
            store::finish(conn, enterprise_id, id, RefundStatus::Failed, reason).await?;
        }
    }
    Ok(Applied::Settled)
}
