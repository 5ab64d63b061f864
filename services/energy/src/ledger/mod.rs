//! The double-entry ledger every energy balance lives in
//! (`docs/ARCHITECTURE.md`, "Data and events"): the main account,
//! organisation sub-accounts, cards, session holds, the funding source of
//! top-ups and the platform's revenue are all `ledger_account` rows, and
//! money moves only through [`transfer`]. The rules and the tables' queries
//! are the `fleetdesk-ledger` crate's (finance posts through it too, on its
//! own tables); this module fixes them to energy's kinds and adds the
//! movements of charging.
//!
//! # API (stable; the sessions module holds and captures through it)
//!
//! - [`open_account`] / [`find_account`]: the account of (kind, owner) in an
//!   enterprise — MAIN and FUNDING/PLATFORM_REVENUE have no owner, an
//!   ORGANIZATION account is owned by its org unit, CARD by the card, HOLD
//!   by the charging session.
//! - [`transfer`]`(conn, &Transfer { enterprise_id, kind, key, legs, .. })`:
//!   in the caller's transaction (tenant- or service-scoped) it locks the
//!   touched accounts in id order (`select … for update`), claims the key,
//!   refuses a debit that would take an account below zero (below the
//!   overdraft the operator granted MAIN; only FUNDING may go negative) with
//!   [`TransferError::Insufficient`], and writes the transfer, one entry per
//!   leg (signed amount, balance after) and the new balances. The key is
//!   unique per enterprise and [`TransferKind`]: the same key with the same
//!   legs answers the first [`Posted`] (`replayed = true`, nothing moves),
//!   other legs answer [`TransferError::KeyReused`] (4009). Errors convert
//!   into `ServiceError` with a Chinese message (`?` in a handler).
//! - [`top_up`]: FUNDING → MAIN (paid top-up orders of finance, `top_ups`; the demo seed).
//! - Charging sessions: [`hold`] moves money CARD → HOLD(session) (call it
//!   again with a new key to extend a running session's hold); [`capture`]
//!   ends the session: the final amount (≤ held) HOLD → the revenue account
//!   of each part it paid for (electricity, service fee, time, parking,
//!   fixed, reservation: one leg each) as a CAPTURE and the rest HOLD → CARD
//!   as a RELEASE, both under the one key; [`release`] returns everything
//!   still held (a session that never started); [`reverse_capture`] takes a
//!   capture back onto the card as a CORRECTION (a credit CDR). A replayed
//!   capture, release or correction answers what was posted first.
//! - [`capture_grouped`]: the same capture posted through a
//!   [`CaptureGroup`], which writes the captures of an enterprise that
//!   arrive together in one transaction with one update of each revenue
//!   account (the hot rows every capture credits); committed when it
//!   answers, not in the caller's transaction. This is how a CDR settles a
//!   session (`sessions::charging::settle`, on the group the platform's
//!   link carries, with a pool of its own); [`capture`] in the caller's
//!   transaction is left for callers that post one capture alone.
//!
//! The database keeps the invariants too: a check constraint on the floor,
//! immutable entries and transfers (a trigger refuses update, delete and
//! truncate), and a deferred trigger that refuses, at commit, any transfer
//! whose entries do not sum to zero; `fleetdesk_ledger::run_daily`, started
//! with the service, proves them once a day and logs any difference.

mod domain;

pub use domain::{AccountKind, Transfer, TransferError, TransferKind};
pub use fleetdesk_ledger::{Leg, Posted, PostedEntry};

use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// The account of (`kind`, `owner`) in the enterprise, opened (balance 0)
/// when missing. MAIN, FUNDING and PLATFORM_REVENUE take no owner.
pub async fn open_account(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: AccountKind,
    owner_id: Option<Uuid>,
) -> Result<Uuid, TransferError> {
    fleetdesk_ledger::open_account(conn, enterprise_id, kind, owner_id).await
}

/// The account of (`kind`, `owner`), if it was opened.
pub async fn find_account(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: AccountKind,
    owner_id: Option<Uuid>,
) -> Result<Option<Uuid>, TransferError> {
    fleetdesk_ledger::find_account(conn, enterprise_id, kind, owner_id).await
}

/// Current balances of `account_ids` (unknown ids left out).
pub async fn balances(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_ids: &[Uuid],
) -> Result<Vec<(Uuid, i64)>, TransferError> {
    Ok(fleetdesk_ledger::balances(conn, enterprise_id, account_ids).await?)
}

/// The overdraft (credit) an account may use below zero; the operator's
/// grant on MAIN when charging is opened.
pub async fn set_overdraft(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_id: Uuid,
    overdraft_fen: i64,
) -> Result<(), TransferError> {
    fleetdesk_ledger::set_overdraft(conn, enterprise_id, account_id, overdraft_fen).await
}

/// Posts `transfer` in the caller's transaction (see the module's API notes).
pub async fn transfer(
    conn: &mut PgConnection,
    transfer: &Transfer,
) -> Result<Posted, TransferError> {
    fleetdesk_ledger::transfer(conn, transfer).await
}

/// The transfer posted under (`kind`, `key`), if any.
pub async fn find_transfer(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: TransferKind,
    key: &str,
) -> Result<Option<Posted>, TransferError> {
    fleetdesk_ledger::find_transfer(conn, enterprise_id, kind, key).await
}

/// `amount_fen` from the enterprise's FUNDING account onto `main_account`.
pub async fn top_up(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    main_account: Uuid,
    amount_fen: i64,
    key: &str,
    memo: &str,
) -> Result<Posted, TransferError> {
    let funding = open_account(conn, enterprise_id, AccountKind::Funding, None).await?;
    let t = Transfer::between(
        enterprise_id,
        TransferKind::TopUp,
        key,
        funding,
        main_account,
        amount_fen,
    )
    .memo(memo);
    transfer(conn, &t).await
}

/// Moves `amount_fen` from a card onto the hold of charging session
/// `session_id` (opened on first use). Each call needs its own key; a
/// card short of the amount answers [`TransferError::Insufficient`].
pub async fn hold(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_account: Uuid,
    session_id: Uuid,
    amount_fen: i64,
    key: &str,
) -> Result<Posted, TransferError> {
    let hold = open_account(conn, enterprise_id, AccountKind::Hold, Some(session_id)).await?;
    let t = Transfer::between(
        enterprise_id,
        TransferKind::Hold,
        key,
        card_account,
        hold,
        amount_fen,
    );
    transfer(conn, &t).await
}

/// What ending a session posted: the capture (None when it cost nothing)
/// and the release of the rest (None when nothing was left).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settled {
    pub captured: Option<Posted>,
    pub released: Option<Posted>,
}

/// Ends a session: its cost, part by part (`revenue`: each revenue
/// account kind and the fen it earns), goes from its hold to the
/// enterprise's revenue accounts of those kinds in one CAPTURE (one leg
/// each), and what is left back to the card (RELEASE), both under `key`.
/// More than is held answers [`TransferError::Insufficient`] naming the
/// hold: the session must not have cost more than was held. A replay
/// answers the first settlement.
pub async fn capture(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_account: Uuid,
    session_id: Uuid,
    revenue: &[(AccountKind, i64)],
    key: &str,
) -> Result<Settled, TransferError> {
    let Some(hold) = session_hold_of(conn, enterprise_id, session_id, revenue).await? else {
        return Ok(Settled {
            captured: None,
            released: None,
        });
    };
    let mut credits = Vec::new();
    for &(kind, fen) in revenue.iter().filter(|(_, fen)| *fen > 0) {
        credits.push(Leg::credit(
            revenue_account(conn, enterprise_id, kind).await?,
            fen,
        ));
    }
    let settled = fleetdesk_ledger::settle(
        conn,
        &session_hold(enterprise_id, card_account, hold),
        &credits,
        key,
    )
    .await?;
    Ok(Settled {
        captured: settled.posted,
        released: settled.voided,
    })
}

/// Settlements of charging sessions grouped per enterprise (their captures
/// all credit the enterprise's few revenue accounts): see
/// `fleetdesk_ledger::GroupCommit`. Give it a pool of its own.
pub type CaptureGroup = fleetdesk_ledger::GroupCommit<TransferKind>;

/// Most captures one group transaction posts: enough to take every
/// settlement a service's connections can have waiting at once.
pub const CAPTURE_GROUP_SIZE: usize = 64;

/// Connections of a [`CaptureGroup`]'s own pool: one writer per enterprise
/// at a time, plus the retries of a failed group.
pub const CAPTURE_POOL: u32 = 2;

/// [`capture`] posted through `group`, committed in the group's own
/// transaction (not the caller's) by the time it answers. `conn` only
/// reads the session's hold and the revenue accounts; a revenue account
/// not opened yet is opened and committed on the group's pool first, so
/// the group's writer sees it.
pub async fn capture_grouped(
    group: &CaptureGroup,
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_account: Uuid,
    session_id: Uuid,
    revenue: &[(AccountKind, i64)],
    key: &str,
) -> Result<Settled, TransferError> {
    let final_fen = capture_total(revenue)?;
    let earning: Vec<(AccountKind, i64)> = revenue
        .iter()
        .copied()
        .filter(|(_, fen)| *fen > 0)
        .collect();
    // The hold and the revenue accounts in one read: fewer round trips
    // for the one path every session ends on.
    let mut wanted = vec![(AccountKind::Hold, Some(session_id))];
    wanted.extend(earning.iter().map(|&(kind, _)| (kind, None)));
    let found = fleetdesk_ledger::find_accounts(conn, enterprise_id, &wanted).await?;
    let hold = match found[0] {
        Some(hold) => hold,
        None if final_fen == 0 => {
            return Ok(Settled {
                captured: None,
                released: None,
            });
        }
        None => return Err(TransferError::Invalid("该充电订单没有预授权")),
    };
    let mut credits = Vec::new();
    for (&(kind, fen), found) in earning.iter().zip(&found[1..]) {
        let account = match found {
            Some(id) => *id,
            None => {
                let mut tx = fleetdesk_kit::db::begin_tenant(group.pool(), enterprise_id).await?;
                let id = open_account(&mut tx, enterprise_id, kind, None).await?;
                tx.commit().await?;
                id
            }
        };
        credits.push(Leg::credit(account, fen));
    }
    let settled = group
        .settle(
            session_hold(enterprise_id, card_account, hold),
            credits,
            key,
        )
        .await?;
    Ok(Settled {
        captured: settled.posted,
        released: settled.voided,
    })
}

/// The session's hold account after checking what a capture books:
/// None when the session never held anything and costs nothing (the
/// platform charged without asking: nothing to capture or release).
async fn session_hold_of(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    session_id: Uuid,
    revenue: &[(AccountKind, i64)],
) -> Result<Option<Uuid>, TransferError> {
    let final_fen = capture_total(revenue)?;
    match find_account(conn, enterprise_id, AccountKind::Hold, Some(session_id)).await? {
        Some(hold) => Ok(Some(hold)),
        None if final_fen == 0 => Ok(None),
        None => Err(TransferError::Invalid("该充电订单没有预授权")),
    }
}

/// Takes back what `capture` credited to revenue accounts: each of them
/// debited its part and `card_account` credited the sum, in one CORRECTION
/// under `key` (a replay answers the first). The capture itself is never
/// changed.
pub async fn reverse_capture(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_account: Uuid,
    capture: &Posted,
    key: &str,
    memo: &str,
) -> Result<Posted, TransferError> {
    let credited: Vec<&PostedEntry> = capture
        .entries
        .iter()
        .filter(|e| e.amount_fen > 0)
        .collect();
    let total = credited.iter().map(|e| e.amount_fen).sum::<i64>();
    let mut legs: Vec<Leg> = credited
        .iter()
        .map(|e| Leg::debit(e.account_id, e.amount_fen))
        .collect();
    legs.push(Leg::credit(card_account, total));
    let t = Transfer {
        enterprise_id,
        kind: TransferKind::Correction,
        key: key.to_owned(),
        legs,
        actor_id: None,
        actor_name: String::new(),
        memo: memo.to_owned(),
    };
    transfer(conn, &t).await
}

/// What a capture books in all, after checking each part: never
/// negative, only onto revenue accounts.
fn capture_total(revenue: &[(AccountKind, i64)]) -> Result<i64, TransferError> {
    if revenue
        .iter()
        .any(|&(kind, fen)| fen < 0 || !kind.is_revenue())
    {
        return Err(TransferError::Invalid("扣款金额不能为负数"));
    }
    revenue
        .iter()
        .try_fold(0i64, |sum, &(_, fen)| sum.checked_add(fen))
        .ok_or(TransferError::Invalid("转账金额超出范围"))
}

/// The enterprise's revenue account of `kind`, opened on first use. Looked
/// up before it is opened: an insert that meets the existing row waits for
/// whichever settlement is crediting it to commit, a plain read does not.
async fn revenue_account(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    kind: AccountKind,
) -> Result<Uuid, TransferError> {
    match find_account(conn, enterprise_id, kind, None).await? {
        Some(id) => Ok(id),
        None => open_account(conn, enterprise_id, kind, None).await,
    }
}

/// Returns everything still held for the session to the card (RELEASE under
/// `key`); None when nothing is held. A replay answers the first release.
pub async fn release(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    card_account: Uuid,
    session_id: Uuid,
    key: &str,
) -> Result<Option<Posted>, TransferError> {
    let Some(hold) = find_account(conn, enterprise_id, AccountKind::Hold, Some(session_id)).await?
    else {
        return Ok(None);
    };
    fleetdesk_ledger::void(conn, &session_hold(enterprise_id, card_account, hold), key).await
}

/// A session's hold as the ledger settles it: captured onto revenue,
/// released back to the card.
fn session_hold(
    enterprise_id: Uuid,
    card_account: Uuid,
    hold: Uuid,
) -> fleetdesk_ledger::Pending<TransferKind> {
    fleetdesk_ledger::Pending {
        enterprise_id,
        hold_id: hold,
        source_id: card_account,
        post: TransferKind::Capture,
        void: TransferKind::Release,
    }
}
