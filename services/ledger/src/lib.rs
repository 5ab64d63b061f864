//! The double-entry ledger core (`docs/ARCHITECTURE.md`, "Money") that every
//! service owning money posts through — energy's charging accounts and
//! cards, finance's bills and payments — each on its own tables in its own
//! schema: `ledger_account`, `ledger_transfer` and `ledger_entry`, created
//! by the service's migration (energy's `20261201000001_ledger.sql`,
//! finance's `20261208000001_ledger.sql`: one shape, which the queries here
//! rely on).
//!
//! A service names its account and transfer kinds as its own stored-code
//! enums and implements [`AccountCode`] / [`TransferCode`] for them; its
//! `ledger` module then fixes the types with aliases
//! (`type Transfer = fleetdesk_ledger::Transfer<TransferKind>`) and adds its
//! own movements on top (energy: top-ups, session holds and captures).
//!
//! # Guarantees
//!
//! - Money moves only through [`transfer`], in the caller's transaction: it
//!   locks the touched accounts in id order (`select … for update`), claims
//!   the key, refuses a debit that would take an account below its floor
//!   (zero, or minus the overdraft granted with [`set_overdraft`]; an
//!   account of a kind that [`AccountCode::may_go_negative`] has none) with
//!   [`TransferError::Insufficient`], and writes the transfer, one entry per
//!   leg (signed amount, balance after) and the new balances. All legs post
//!   or none does.
//! - At most one transfer per (enterprise, kind, key): the same key with the
//!   same legs answers the first [`Posted`] (`replayed = true`, nothing
//!   moves), other legs answer [`TransferError::KeyReused`] (4009). Errors
//!   convert into `ServiceError` with a Chinese message (`?` in a handler).
//! - Transfers and entries are immutable (a correction is a new transfer);
//!   the tables' triggers refuse update, delete and truncate, and, at commit,
//!   any transfer whose entries do not sum to zero.
//! - Two-phase movements run over a holding account: pending is a transfer
//!   source → hold, then [`settle`] posts part of it on (hold →
//!   destinations) and voids the rest (hold → source), or [`void`] returns
//!   all of it; energy's charging sessions hold and capture this way.
//! - Settlements onto hot accounts (every capture credits the enterprise's
//!   few revenue accounts) may go through a [`GroupCommit`]: those waiting
//!   at the same moment are posted in one transaction with one update of
//!   each account row, under exactly the rules above (see `group.rs`).
//! - Balances are sums of entries: [`verify`] proves it and the other
//!   invariants over every tenant, and [`run_daily`] does so once a day,
//!   logging each [`Difference`] and counting them for `/metrics`.

mod codes;
mod domain;
mod group;
mod pending;
mod store;
mod verify;

pub use codes::{AccountCode, TransferCode};
pub use domain::{
    Leg, Locked, MAX_KEY_LEN, Posted, PostedEntry, Transfer, TransferError, apply, ordered_legs,
};
pub use group::{GroupCommit, GroupStats};
pub use pending::{Pending, Settlement, settle, void};
pub use store::FIND_ACCOUNTS;
pub use verify::{Difference, run_daily, run_once, verify};

use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// The account of (`kind`, `owner`) in the enterprise, opened (balance 0)
/// when missing.
pub async fn open_account<A: AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: A,
    owner_id: Option<Uuid>,
) -> Result<Uuid, TransferError<A>> {
    Ok(store::open(
        conn,
        enterprise_id,
        kind.into(),
        kind.may_go_negative(),
        owner_id,
    )
    .await?)
}

/// The account of (`kind`, `owner`), if it was opened.
pub async fn find_account<A: AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: A,
    owner_id: Option<Uuid>,
) -> Result<Option<Uuid>, TransferError<A>> {
    Ok(store::find(conn, enterprise_id, kind.into(), owner_id).await?)
}

/// The accounts of each (`kind`, `owner`) in one read: the id of each,
/// None where none was opened (same order).
pub async fn find_accounts<A: AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    wanted: &[(A, Option<Uuid>)],
) -> Result<Vec<Option<Uuid>>, TransferError<A>> {
    let kinds: Vec<i16> = wanted.iter().map(|(k, _)| (*k).into()).collect();
    let owners: Vec<Option<Uuid>> = wanted.iter().map(|(_, o)| *o).collect();
    let found = store::find_many(conn, enterprise_id, &kinds, &owners).await?;
    Ok(kinds
        .iter()
        .zip(&owners)
        .map(|(kind, owner)| {
            found
                .iter()
                .find(|(_, k, o)| k == kind && o == owner)
                .map(|(id, _, _)| *id)
        })
        .collect())
}

/// Current balances of `account_ids` (unknown ids left out).
pub async fn balances(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_ids: &[Uuid],
) -> Result<Vec<(Uuid, i64)>, sqlx::Error> {
    store::balances(conn, enterprise_id, account_ids).await
}

/// The overdraft (credit) an account may use below zero.
pub async fn set_overdraft<A: AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_id: Uuid,
    overdraft_fen: i64,
) -> Result<(), TransferError<A>> {
    if overdraft_fen < 0 {
        return Err(TransferError::Invalid("授信额度不能为负数"));
    }
    Ok(store::set_overdraft(conn, enterprise_id, account_id, overdraft_fen).await?)
}

/// Locks accounts (`ordered_ids` in id order, as every transfer takes
/// them) until the caller's transaction ends, and reads them: a movement
/// that decides from a balance (a capture of what is held) takes its lock
/// first, so a racing one waits and then sees the first one's transfers.
pub async fn lock_accounts<A: AccountCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ordered_ids: &[Uuid],
) -> Result<Vec<Locked<A>>, TransferError<A>> {
    store::lock(conn, enterprise_id, ordered_ids).await
}

/// Posts `transfer` in the caller's transaction (see the crate's guarantees).
pub async fn transfer<T: TransferCode>(
    conn: &mut PgConnection,
    transfer: &Transfer<T>,
) -> Result<Posted, TransferError<T::Account>> {
    let legs = ordered_legs(transfer)?;
    let ids: Vec<Uuid> = legs.iter().map(|l| l.account_id).collect();
    // Locked before the key is claimed: a refused transfer leaves nothing
    // behind, and a racing replay waits here and then finds the first one.
    let accounts = store::lock(conn, transfer.enterprise_id, &ids).await?;
    let after = match apply(&accounts, &legs) {
        Ok(after) => after,
        Err(refused) => {
            return match replay(conn, transfer, &legs).await? {
                Some(earlier) => Ok(earlier),
                None => Err(refused),
            };
        }
    };
    let Some((transfer_id, created_at)) = store::claim(conn, transfer).await? else {
        return replay(conn, transfer, &legs)
            .await?
            .ok_or(TransferError::KeyReused);
    };
    store::post(conn, transfer.enterprise_id, transfer_id, &legs, &after).await?;
    Ok(Posted {
        transfer_id,
        created_at,
        replayed: false,
        entries: legs
            .iter()
            .zip(after)
            .map(|(l, balance_after_fen)| PostedEntry {
                account_id: l.account_id,
                amount_fen: l.amount_fen,
                balance_after_fen,
            })
            .collect(),
    })
}

/// The transfer already posted under the key: itself when its legs are the
/// same, [`TransferError::KeyReused`] when not, None when the key is new.
async fn replay<T: TransferCode>(
    conn: &mut PgConnection,
    transfer: &Transfer<T>,
    legs: &[Leg],
) -> Result<Option<Posted>, TransferError<T::Account>> {
    match find_transfer(conn, transfer.enterprise_id, transfer.kind, &transfer.key).await? {
        Some(earlier) if earlier.matches(legs) => Ok(Some(earlier)),
        Some(_) => Err(TransferError::KeyReused),
        None => Ok(None),
    }
}

/// The transfer posted under (`kind`, `key`), if any (`replayed = true`).
pub async fn find_transfer<T: TransferCode>(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: T,
    key: &str,
) -> Result<Option<Posted>, TransferError<T::Account>> {
    Ok(store::posted(conn, enterprise_id, kind.into(), key).await?)
}
