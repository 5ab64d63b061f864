//! Finance's double-entry ledger (`docs/ARCHITECTURE.md`, "Money"): every
//! payment, refund and coupon discount is a transfer of the
//! `fleetdesk-ledger` crate on finance's own tables (migration
//! `20261208000001_ledger.sql`); balances are sums of entries, and
//! `fleetdesk_ledger::run_daily`, started with the service, proves it.
//!
//! # Accounts (per enterprise)
//!
//! - MAIN: the prepaid balance with the operator (floor 0, or minus an
//!   overdraft granted on it). The enterprise's one account on the wire
//!   (`LEDGER_ACCOUNT_PREPAID_BALANCE`).
//! - BANK: the world outside, money in through the bank and back out; may
//!   go negative.
//! - REVENUE: the operator's income from the enterprise's bills — one
//!   account, not one per bill kind: a payment may cover bills of several
//!   kinds, and the allocations already say which bill took what.
//! - COUPON_FUNDING: the operator's coupon budget; may go negative.
//! - HOLD(refund): one per bank refund, two-phase.
//!
//! # Transfers (kind: legs, key)
//!
//! - TOP_UP: BANK → MAIN (key: the top-up's own key, or the payment id
//!   for the part of a bank payment its bills no longer needed).
//! - BALANCE_PAYMENT: MAIN → REVENUE; BANK_PAYMENT: BANK → REVENUE;
//!   COUPON_DISCOUNT: COUPON_FUNDING → REVENUE — each keyed by the payment id.
//! - BALANCE_REFUND: REVENUE → MAIN; REFUND_HOLD: REVENUE → HOLD at a bank
//!   refund's confirmation, then REFUND_PAYOUT HOLD → BANK when the bank
//!   paid it or REFUND_VOID HOLD → REVENUE when it refused — each keyed by
//!   the refund id; the crate's settle/void under the hold's row lock
//!   guarantee that a payout and a void never both post.
//! - ADJUSTMENT: an operator's correction (not built yet).
//!
//! Payment and refund ids are made once per idempotency key (kit's
//! idempotency claim), so keying transfers by them keeps each movement
//! unique however often a request or a callback repeats.

mod domain;
pub mod handlers;
mod store;

pub use domain::{AccountKind, Transfer, TransferError, TransferKind};
pub use fleetdesk_ledger::{Leg, Posted};

use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// The enterprise's accounts every payment and refund touches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Books {
    pub main: Uuid,
    pub bank: Uuid,
    pub revenue: Uuid,
    pub coupon_funding: Uuid,
}

/// The enterprise's accounts, opened (balance 0) when missing. Each is
/// looked up before it is opened: an insert meeting an existing row would
/// wait for whichever transfer holds it, a read does not.
pub async fn books(conn: &mut PgConnection, enterprise_id: Uuid) -> Result<Books, TransferError> {
    Ok(Books {
        main: account(conn, enterprise_id, AccountKind::Main, None).await?,
        bank: account(conn, enterprise_id, AccountKind::Bank, None).await?,
        revenue: account(conn, enterprise_id, AccountKind::Revenue, None).await?,
        coupon_funding: account(conn, enterprise_id, AccountKind::CouponFunding, None).await?,
    })
}

/// The account of (`kind`, `owner`), opened when missing.
pub async fn account(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: AccountKind,
    owner_id: Option<Uuid>,
) -> Result<Uuid, TransferError> {
    match fleetdesk_ledger::find_account(conn, enterprise_id, kind, owner_id).await? {
        Some(id) => Ok(id),
        None => fleetdesk_ledger::open_account(conn, enterprise_id, kind, owner_id).await,
    }
}

/// Posts `transfer` in the caller's transaction (the crate's guarantees).
pub async fn transfer(
    conn: &mut PgConnection,
    transfer: &Transfer,
) -> Result<Posted, TransferError> {
    fleetdesk_ledger::transfer(conn, transfer).await
}

/// `amount_fen` from BANK onto the prepaid balance under `key`.
pub async fn top_up(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    amount_fen: i64,
    key: &str,
    memo: &str,
) -> Result<Posted, TransferError> {
    let books = books(conn, enterprise_id).await?;
    let t = Transfer::between(
        enterprise_id,
        TransferKind::TopUp,
        key,
        books.bank,
        books.main,
        amount_fen,
    )
    .memo(memo);
    transfer(conn, &t).await
}

/// A bank refund's hold: paid out to BANK, or voided back to REVENUE.
fn refund_hold(
    enterprise_id: Uuid,
    books: &Books,
    hold: Uuid,
) -> fleetdesk_ledger::Pending<TransferKind> {
    fleetdesk_ledger::Pending {
        enterprise_id,
        hold_id: hold,
        source_id: books.revenue,
        post: TransferKind::RefundPayout,
        void: TransferKind::RefundVoid,
    }
}

/// Moves `amount_fen` of revenue onto the hold of bank refund `refund_id`
/// (opened now), keyed by the refund.
pub async fn hold_refund(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    refund_id: Uuid,
    amount_fen: i64,
    memo: &str,
) -> Result<Posted, TransferError> {
    let books = books(conn, enterprise_id).await?;
    let hold = account(conn, enterprise_id, AccountKind::Hold, Some(refund_id)).await?;
    let t = Transfer::between(
        enterprise_id,
        TransferKind::RefundHold,
        refund_id.to_string(),
        books.revenue,
        hold,
        amount_fen,
    )
    .memo(memo);
    transfer(conn, &t).await
}

/// How a bank refund's hold ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HoldEnd {
    /// Paid out to BANK.
    PaidOut,
    /// Returned to REVENUE.
    Voided,
}

/// The bank paid refund `refund_id`: everything held goes to BANK. If the
/// hold was voided before, that stands (a void and a payout never both
/// post); the answer says which happened.
pub async fn pay_out_refund(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    refund_id: Uuid,
    amount_fen: i64,
) -> Result<HoldEnd, TransferError> {
    let books = books(conn, enterprise_id).await?;
    let hold = account(conn, enterprise_id, AccountKind::Hold, Some(refund_id)).await?;
    let pending = refund_hold(enterprise_id, &books, hold);
    let settled = fleetdesk_ledger::settle(
        conn,
        &pending,
        &[Leg::credit(books.bank, amount_fen)],
        &refund_id.to_string(),
    )
    .await?;
    Ok(if settled.posted.is_some() {
        HoldEnd::PaidOut
    } else {
        HoldEnd::Voided
    })
}

/// The bank refused refund `refund_id`: everything still held goes back
/// to REVENUE. After a payout nothing is held and nothing moves.
pub async fn void_refund(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    refund_id: Uuid,
) -> Result<HoldEnd, TransferError> {
    let books = books(conn, enterprise_id).await?;
    let hold = account(conn, enterprise_id, AccountKind::Hold, Some(refund_id)).await?;
    let pending = refund_hold(enterprise_id, &books, hold);
    let key = refund_id.to_string();
    if fleetdesk_ledger::void(conn, &pending, &key)
        .await?
        .is_some()
    {
        return Ok(HoldEnd::Voided);
    }
    let paid =
        fleetdesk_ledger::find_transfer(conn, enterprise_id, TransferKind::RefundPayout, &key)
            .await?;
    Ok(if paid.is_some() {
        HoldEnd::PaidOut
    } else {
        HoldEnd::Voided
    })
}
