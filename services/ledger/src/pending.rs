//! Two-phase movements (TigerBeetle's pending → post / void) as transfers
//! over a holding account: the pending amount is a transfer from its source
//! onto the hold (one or more, each under its own key); [`settle`] then
//! posts part of what is held to its destinations and voids the rest back
//! to the source, and [`void`] returns all of it. Both are idempotent under
//! their key: a replay answers what was posted first.

use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::codes::TransferCode;
use crate::domain::{Leg, Posted, Transfer, TransferError};
use crate::{find_transfer, lock_accounts, transfer};

/// Money held pending on `hold_id`, taken from `source_id`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pending<T> {
    pub enterprise_id: Uuid,
    pub hold_id: Uuid,
    /// Where a void returns what is held.
    pub source_id: Uuid,
    /// The kind of the transfer that posts (part of) it.
    pub post: T,
    /// The kind of the transfer that returns the rest.
    pub void: T,
}

/// What settling posted: the part moved on (None when nothing was) and the
/// rest returned (None when nothing was left).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settlement {
    pub posted: Option<Posted>,
    pub voided: Option<Posted>,
}

/// Ends the pending amount: `credits` (each > 0, one per destination
/// account) from the hold as one POST, and what is left back to the source
/// as one VOID, both under `key`. More than is held answers
/// [`TransferError::Insufficient`] naming the hold. A replay (either kind
/// already posted under `key`) answers the first settlement.
pub async fn settle<T: TransferCode>(
    conn: &mut PgConnection,
    pending: &Pending<T>,
    credits: &[Leg],
    key: &str,
) -> Result<Settlement, TransferError<T::Account>> {
    if credits.iter().any(|c| c.amount_fen <= 0) {
        return Err(TransferError::Invalid("扣款金额必须大于 0"));
    }
    let total = credits
        .iter()
        .try_fold(0i64, |sum, c| sum.checked_add(c.amount_fen))
        .ok_or(TransferError::Invalid("转账金额超出范围"))?;
    // Locked first, so a racing settlement of the same hold waits here and
    // then sees the first one's transfers.
    let hold = lock_hold(conn, pending).await?;
    if let Some(settled) = settled(conn, pending, key).await? {
        return Ok(settled);
    }
    if total > hold.balance_fen {
        return Err(TransferError::Insufficient {
            account_id: pending.hold_id,
            kind: hold.kind,
            available_fen: hold.balance_fen,
            needed_fen: total,
        });
    }
    // The rest back first and the destinations last: destinations are
    // often the few accounts every settlement credits (revenue), locked
    // from their transfer to the commit, so they are taken as late as
    // possible.
    let rest = hold.balance_fen - total;
    let voided = if rest > 0 {
        let back = Transfer::between(
            pending.enterprise_id,
            pending.void,
            key,
            pending.hold_id,
            pending.source_id,
            rest,
        );
        Some(transfer(conn, &back).await?)
    } else {
        None
    };
    let posted = if total > 0 {
        let mut legs = vec![Leg::debit(pending.hold_id, total)];
        legs.extend_from_slice(credits);
        let on = Transfer {
            legs,
            ..Transfer::between(
                pending.enterprise_id,
                pending.post,
                key,
                pending.hold_id,
                pending.source_id,
                total,
            )
        };
        Some(transfer(conn, &on).await?)
    } else {
        None
    };
    Ok(Settlement { posted, voided })
}

/// Returns everything held to the source (one VOID under `key`); None
/// when nothing is held. A replay answers the first void.
pub async fn void<T: TransferCode>(
    conn: &mut PgConnection,
    pending: &Pending<T>,
    key: &str,
) -> Result<Option<Posted>, TransferError<T::Account>> {
    let hold = lock_hold(conn, pending).await?;
    if let Some(earlier) = find_transfer(conn, pending.enterprise_id, pending.void, key).await? {
        return Ok(Some(earlier));
    }
    if hold.balance_fen == 0 {
        return Ok(None);
    }
    let back = Transfer::between(
        pending.enterprise_id,
        pending.void,
        key,
        pending.hold_id,
        pending.source_id,
        hold.balance_fen,
    );
    Ok(Some(transfer(conn, &back).await?))
}

/// The hold, locked until the transaction ends.
async fn lock_hold<T: TransferCode>(
    conn: &mut PgConnection,
    pending: &Pending<T>,
) -> Result<crate::Locked<T::Account>, TransferError<T::Account>> {
    lock_accounts(conn, pending.enterprise_id, &[pending.hold_id])
        .await?
        .pop()
        .ok_or(TransferError::UnknownAccount(pending.hold_id))
}

/// The post and void under `key`, if either was posted.
async fn settled<T: TransferCode>(
    conn: &mut PgConnection,
    pending: &Pending<T>,
    key: &str,
) -> Result<Option<Settlement>, TransferError<T::Account>> {
    let posted = find_transfer(conn, pending.enterprise_id, pending.post, key).await?;
    let voided = find_transfer(conn, pending.enterprise_id, pending.void, key).await?;
    Ok((posted.is_some() || voided.is_some()).then_some(Settlement { posted, voided }))
}
