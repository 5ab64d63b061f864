//! Rules of the ledger that need no database: account and transfer kinds,
//! a transfer's legs (checked and put in account order), and the refusals
//! a transfer can end in.

use chrono::{DateTime, Utc};
use fleetdesk_kit::export::scope::yuan;
use fleetdesk_kit::{ErrorCode, ServiceError, idempotency};
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// What a ledger account holds.
    AccountKind {
        /// The enterprise's main charging account.
        Main = 1,
        /// An organisation's sub-account (owner: the organisation).
        Organization = 2,
        /// A charging card's balance (owner: the card).
        Card = 3,
        /// Money held for one charging session (owner: the session).
        Hold = 4,
        /// Where seeded and topped-up money comes from; may go negative.
        Funding = 5,
        /// What the charging operator earned for electricity (before the
        /// parts below had accounts of their own: every capture).
        PlatformRevenue = 6,
        /// Earned for the charging service (the per-kWh service fee).
        ServiceFeeRevenue = 7,
        /// Earned for charging time (OCPI TIME prices).
        TimeFeeRevenue = 8,
        /// Earned for parking time (OCPI PARKING_TIME prices).
        ParkingFeeRevenue = 9,
        /// Earned for starting sessions (OCPI FLAT prices).
        FixedFeeRevenue = 10,
        /// Earned for reservations.
        ReservationFeeRevenue = 11,
    }
);

impl AccountKind {
    /// Only the funding account may go below zero (it owes the money it issued).
    pub fn may_go_negative(self) -> bool {
        match self {
            AccountKind::Funding => true,
            AccountKind::Main
            | AccountKind::Organization
            | AccountKind::Card
            | AccountKind::Hold
            | AccountKind::PlatformRevenue
            | AccountKind::ServiceFeeRevenue
            | AccountKind::TimeFeeRevenue
            | AccountKind::ParkingFeeRevenue
            | AccountKind::FixedFeeRevenue
            | AccountKind::ReservationFeeRevenue => false,
        }
    }

    /// Whether a capture may credit it: the operator's revenue accounts.
    pub fn is_revenue(self) -> bool {
        match self {
            AccountKind::PlatformRevenue
            | AccountKind::ServiceFeeRevenue
            | AccountKind::TimeFeeRevenue
            | AccountKind::ParkingFeeRevenue
            | AccountKind::FixedFeeRevenue
            | AccountKind::ReservationFeeRevenue => true,
            AccountKind::Main
            | AccountKind::Organization
            | AccountKind::Card
            | AccountKind::Hold
            | AccountKind::Funding => false,
        }
    }

    /// As a refusal names it.
    pub fn label(self) -> &'static str {
        match self {
            AccountKind::Main => "主账户",
            AccountKind::Organization => "组织账户",
            AccountKind::Card => "充电卡",
            AccountKind::Hold => "充电预授权",
            AccountKind::Funding => "资金来源账户",
            AccountKind::PlatformRevenue => "平台电费收入账户",
            AccountKind::ServiceFeeRevenue => "平台服务费收入账户",
            AccountKind::TimeFeeRevenue => "平台时长费收入账户",
            AccountKind::ParkingFeeRevenue => "平台停车费收入账户",
            AccountKind::FixedFeeRevenue => "平台启动费收入账户",
            AccountKind::ReservationFeeRevenue => "平台预约费收入账户",
        }
    }
}

stored_code!(
    /// Why money moved.
    TransferKind {
        /// FUNDING → MAIN: a top-up (seeded now, finance later).
        TopUp = 1,
        /// Parent account → direct child.
        Allocate = 2,
        /// Child account → its parent.
        Reclaim = 3,
        /// Organisation account ↔ card (top-up, withdrawal, cancel return).
        CardChange = 4,
        /// CARD → HOLD of a session.
        Hold = 5,
        /// HOLD → PLATFORM_REVENUE: what the session cost.
        Capture = 6,
        /// HOLD → CARD: what the session did not use.
        Release = 7,
        /// Any accounts: a correction of an earlier transfer.
        Correction = 8,
    }
);

/// One side of a transfer: an account and its signed amount
/// (credit > 0, debit < 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Leg {
    pub account_id: Uuid,
    pub amount_fen: i64,
}

impl Leg {
    pub fn credit(account_id: Uuid, fen: i64) -> Leg {
        Leg {
            account_id,
            amount_fen: fen,
        }
    }

    pub fn debit(account_id: Uuid, fen: i64) -> Leg {
        Leg {
            account_id,
            amount_fen: -fen,
        }
    }
}

/// A money movement to post with [`crate::ledger::transfer`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer {
    pub enterprise_id: Uuid,
    pub kind: TransferKind,
    /// Unique per enterprise and kind: the same key with the same legs
    /// answers the first transfer again; with other legs it is refused (4009).
    pub key: String,
    pub legs: Vec<Leg>,
    /// Who moved it (None: the system).
    pub actor_id: Option<Uuid>,
    pub actor_name: String,
    pub memo: String,
}

impl Transfer {
    /// `amount_fen` (> 0) from one account to another.
    pub fn between(
        enterprise_id: Uuid,
        kind: TransferKind,
        key: impl Into<String>,
        from: Uuid,
        to: Uuid,
        amount_fen: i64,
    ) -> Transfer {
        Transfer {
            enterprise_id,
            kind,
            key: key.into(),
            legs: vec![Leg::debit(from, amount_fen), Leg::credit(to, amount_fen)],
            actor_id: None,
            actor_name: String::new(),
            memo: String::new(),
        }
    }

    /// The same transfer done by `actor` (id and display name).
    pub fn by(mut self, actor_id: Option<Uuid>, actor_name: &str) -> Transfer {
        self.actor_id = actor_id;
        self.actor_name = actor_name.to_owned();
        self
    }

    /// The same transfer with a note.
    pub fn memo(mut self, memo: &str) -> Transfer {
        self.memo = memo.to_owned();
        self
    }
}

/// Longest idempotency key a transfer takes (derived keys add a prefix to a
/// client's 128-character key).
pub const MAX_KEY_LEN: usize = 200;

/// The legs in account order (the lock order), after checking that there
/// are at least two, each on its own account, none zero, summing to zero.
pub fn ordered_legs(transfer: &Transfer) -> Result<Vec<Leg>, TransferError> {
    let key = transfer.key.trim();
    if key.is_empty() || key.len() > MAX_KEY_LEN {
        return Err(TransferError::Invalid("转账的幂等键无效"));
    }
    if transfer.legs.len() < 2 {
        return Err(TransferError::Invalid("一笔转账至少涉及两个账户"));
    }
    let mut legs = transfer.legs.clone();
    legs.sort_by_key(|l| l.account_id);
    if legs.windows(2).any(|w| w[0].account_id == w[1].account_id) {
        return Err(TransferError::Invalid("同一账户在一笔转账中只能出现一次"));
    }
    if legs.iter().any(|l| l.amount_fen == 0) {
        return Err(TransferError::Invalid("转账金额不能为 0"));
    }
    let sum = legs
        .iter()
        .try_fold(0i64, |sum, l| sum.checked_add(l.amount_fen))
        .ok_or(TransferError::Invalid("转账金额超出范围"))?;
    if sum != 0 {
        return Err(TransferError::Invalid("转账借贷不平衡"));
    }
    Ok(legs)
}

/// A locked account as a transfer checks it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Locked {
    pub id: Uuid,
    pub kind: AccountKind,
    pub balance_fen: i64,
    pub may_go_negative: bool,
    pub overdraft_fen: i64,
}

/// The balance of each account after the legs (same order), or the first
/// account that would go below its floor.
pub fn apply(accounts: &[Locked], legs: &[Leg]) -> Result<Vec<i64>, TransferError> {
    accounts
        .iter()
        .zip(legs)
        .map(|(account, leg)| {
            let after = account
                .balance_fen
                .checked_add(leg.amount_fen)
                .ok_or(TransferError::Invalid("转账金额超出范围"))?;
            if leg.amount_fen < 0 && !account.may_go_negative && after < -account.overdraft_fen {
                return Err(TransferError::Insufficient {
                    account_id: account.id,
                    kind: account.kind,
                    available_fen: account.balance_fen + account.overdraft_fen,
                    needed_fen: -leg.amount_fen,
                });
            }
            Ok(after)
        })
        .collect()
}

/// One account's line of a posted transfer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
pub struct PostedEntry {
    pub account_id: Uuid,
    pub amount_fen: i64,
    pub balance_after_fen: i64,
}

/// A transfer as written (or as first written, for a replay).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posted {
    pub transfer_id: Uuid,
    pub created_at: DateTime<Utc>,
    /// The key was used before with the same legs: nothing moved this time.
    pub replayed: bool,
    /// In account order.
    pub entries: Vec<PostedEntry>,
}

impl Posted {
    /// The account's line, if the transfer touched it.
    pub fn entry(&self, account_id: Uuid) -> Option<&PostedEntry> {
        self.entries.iter().find(|e| e.account_id == account_id)
    }

    /// The account's balance right after this transfer.
    pub fn balance_after(&self, account_id: Uuid) -> Option<i64> {
        self.entry(account_id).map(|e| e.balance_after_fen)
    }

    /// Whether the stored entries are the requested legs (a true replay).
    pub fn matches(&self, legs: &[Leg]) -> bool {
        self.entries.len() == legs.len()
            && self
                .entries
                .iter()
                .zip(legs)
                .all(|(e, l)| e.account_id == l.account_id && e.amount_fen == l.amount_fen)
    }
}

/// Why a transfer did not post.
#[derive(Debug, thiserror::Error)]
pub enum TransferError {
    /// The caller built a transfer the ledger refuses (a bug or bad input).
    #[error("invalid transfer: {0}")]
    Invalid(&'static str),
    /// An account is not in the enterprise's ledger.
    #[error("unknown ledger account {0}")]
    UnknownAccount(Uuid),
    /// The debit would take the account below zero (below its overdraft).
    #[error("account {account_id} has {available_fen} fen, needs {needed_fen}")]
    Insufficient {
        account_id: Uuid,
        kind: AccountKind,
        available_fen: i64,
        needed_fen: i64,
    },
    /// The key was used for a transfer with other legs.
    #[error("idempotency key reused for another transfer")]
    KeyReused,
    #[error(transparent)]
    Db(#[from] sqlx::Error),
}

impl From<TransferError> for ServiceError {
    fn from(err: TransferError) -> ServiceError {
        match err {
            TransferError::Invalid(message) => ServiceError::invalid("amountFen", message),
            TransferError::UnknownAccount(_) => {
                ServiceError::new(ErrorCode::NotFound, "账户不存在")
            }
            TransferError::Insufficient {
                kind,
                available_fen,
                needed_fen,
                ..
            } => ServiceError::new(
                ErrorCode::Conflict,
                format!(
                    "{}余额不足：可用 {} 元，本次需要 {} 元",
                    kind.label(),
                    yuan(available_fen),
                    yuan(needed_fen)
                ),
            ),
            TransferError::KeyReused => {
                ServiceError::new(ErrorCode::Conflict, idempotency::REUSED_MESSAGE)
            }
            TransferError::Db(err) => ServiceError::from(err),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn transfer(legs: Vec<Leg>) -> Transfer {
        Transfer {
            legs,
            ..Transfer::between(
                Uuid::nil(),
                TransferKind::Allocate,
                "k",
                Uuid::nil(),
                Uuid::nil(),
                1,
            )
        }
    }

    #[test]
    fn legs_come_back_in_account_order_and_must_balance() {
        let (a, b, c) = (Uuid::from_u128(3), Uuid::from_u128(1), Uuid::from_u128(2));
        let legs = ordered_legs(&transfer(vec![
            Leg::debit(a, 300),
            Leg::credit(b, 100),
            Leg::credit(c, 200),
        ]))
        .unwrap();
        assert_eq!(
            legs.iter().map(|l| l.account_id).collect::<Vec<_>>(),
            vec![b, c, a]
        );
        for bad in [
            vec![Leg::debit(a, 100), Leg::credit(b, 99)],
            vec![Leg::debit(a, 100)],
            vec![Leg::debit(a, 100), Leg::credit(a, 100)],
            vec![Leg::debit(a, 0), Leg::credit(b, 0)],
            vec![
                Leg::credit(a, i64::MAX),
                Leg::credit(b, 1),
                Leg::debit(c, 1),
            ],
        ] {
            assert!(
                matches!(
                    ordered_legs(&transfer(bad.clone())),
                    Err(TransferError::Invalid(_))
                ),
                "{bad:?}"
            );
        }
        let mut blank = transfer(vec![Leg::debit(a, 1), Leg::credit(b, 1)]);
        blank.key = " ".into();
        assert!(ordered_legs(&blank).is_err());
    }

    fn locked(kind: AccountKind, balance_fen: i64, overdraft_fen: i64) -> Locked {
        Locked {
            id: Uuid::from_u128(balance_fen as u128),
            kind,
            balance_fen,
            may_go_negative: kind.may_go_negative(),
            overdraft_fen,
        }
    }

    #[test]
    fn a_debit_stops_at_the_floor_except_on_funding() {
        let card = locked(AccountKind::Card, 500, 0);
        let hold = locked(AccountKind::Hold, 0, 0);
        let ok = apply(
            &[card, hold],
            &[Leg::debit(card.id, 500), Leg::credit(hold.id, 500)],
        );
        assert_eq!(ok.unwrap(), vec![0, 500]);
        let short = apply(
            &[card, hold],
            &[Leg::debit(card.id, 501), Leg::credit(hold.id, 501)],
        );
        assert!(matches!(
            short,
            Err(TransferError::Insufficient {
                available_fen: 500,
                needed_fen: 501,
                ..
            })
        ));
        let main = locked(AccountKind::Main, 100, 1000);
        assert_eq!(
            apply(
                &[main, hold],
                &[Leg::debit(main.id, 1100), Leg::credit(hold.id, 1100)]
            )
            .unwrap(),
            vec![-1000, 1100]
        );
        let funding = locked(AccountKind::Funding, 0, 0);
        assert_eq!(
            apply(
                &[funding, main],
                &[Leg::debit(funding.id, 9), Leg::credit(main.id, 9)]
            )
            .unwrap(),
            vec![-9, 109]
        );
    }

    #[test]
    fn a_refusal_reads_as_chinese_with_yuan() {
        let err = ServiceError::from(TransferError::Insufficient {
            account_id: Uuid::nil(),
            kind: AccountKind::Organization,
            available_fen: 1234,
            needed_fen: 5000,
        });
        assert_eq!(err.code, ErrorCode::Conflict);
        assert_eq!(
            err.message,
            "组织账户余额不足：可用 12.34 元，本次需要 50.00 元"
        );
        assert_eq!(
            ServiceError::from(TransferError::KeyReused)
                .code
                .edge_code(),
            4009
        );
    }
}
