//! Rules of the ledger that need no database: a transfer's legs (checked
//! and put in account order), the floor a debit stops at, and the refusals
//! a transfer can end in.

use chrono::{DateTime, Utc};
use fleetdesk_kit::export::scope::yuan;
use fleetdesk_kit::{ErrorCode, ServiceError, idempotency};
use uuid::Uuid;

use crate::codes::{AccountCode, TransferCode};

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

/// A money movement to post with [`crate::transfer`]. All its legs post
/// together or none does (what TigerBeetle calls linked transfers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transfer<T> {
    pub enterprise_id: Uuid,
    pub kind: T,
    /// Unique per enterprise and kind: the same key with the same legs
    /// answers the first transfer again; with other legs it is refused (4009).
    pub key: String,
    pub legs: Vec<Leg>,
    /// Who moved it (None: the system).
    pub actor_id: Option<Uuid>,
    pub actor_name: String,
    pub memo: String,
}

impl<T: TransferCode> Transfer<T> {
    /// `amount_fen` (> 0) from one account to another.
    pub fn between(
        enterprise_id: Uuid,
        kind: T,
        key: impl Into<String>,
        from: Uuid,
        to: Uuid,
        amount_fen: i64,
    ) -> Transfer<T> {
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
    pub fn by(mut self, actor_id: Option<Uuid>, actor_name: &str) -> Transfer<T> {
        self.actor_id = actor_id;
        self.actor_name = actor_name.to_owned();
        self
    }

    /// The same transfer with a note.
    pub fn memo(mut self, memo: &str) -> Transfer<T> {
        self.memo = memo.to_owned();
        self
    }
}

/// Longest idempotency key a transfer takes (derived keys add a prefix to a
/// client's 128-character key).
pub const MAX_KEY_LEN: usize = 200;

/// The legs in account order (the lock order), after checking that there
/// are at least two, each on its own account, none zero, summing to zero.
pub fn ordered_legs<T: TransferCode>(
    transfer: &Transfer<T>,
) -> Result<Vec<Leg>, TransferError<T::Account>> {
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
pub struct Locked<A> {
    pub id: Uuid,
    pub kind: A,
    pub balance_fen: i64,
    pub may_go_negative: bool,
    pub overdraft_fen: i64,
}

/// The balance of each account after the legs (same order), or the first
/// account that would go below its floor.
pub fn apply<A: AccountCode>(
    accounts: &[Locked<A>],
    legs: &[Leg],
) -> Result<Vec<i64>, TransferError<A>> {
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

    /// Whether the stored entries are the requested legs (a true replay;
    /// `legs` in account order, as [`ordered_legs`] gives them).
    pub fn matches(&self, legs: &[Leg]) -> bool {
        self.entries.len() == legs.len()
            && self
                .entries
                .iter()
                .zip(legs)
                .all(|(e, l)| e.account_id == l.account_id && e.amount_fen == l.amount_fen)
    }
}

/// Why a transfer did not post; `A` is the service's account kind.
#[derive(Debug, thiserror::Error)]
pub enum TransferError<A> {
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
        kind: A,
        available_fen: i64,
        needed_fen: i64,
    },
    /// The key was used for a transfer with other legs.
    #[error("idempotency key reused for another transfer")]
    KeyReused,
    #[error(transparent)]
    Db(#[from] sqlx::Error),
}

impl<A: AccountCode> From<TransferError<A>> for ServiceError {
    fn from(err: TransferError<A>) -> ServiceError {
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

    fleetdesk_kit::stored_code!(
        /// Account kinds of a made-up service: one with a floor, one without.
        Account {
            Wallet = 1,
            Source = 2,
        }
    );

    impl AccountCode for Account {
        fn may_go_negative(self) -> bool {
            match self {
                Account::Source => true,
                Account::Wallet => false,
            }
        }

        fn label(self) -> &'static str {
            match self {
                Account::Wallet => "钱包",
                Account::Source => "资金来源",
            }
        }
    }

    fleetdesk_kit::stored_code!(
        /// Its one transfer kind.
        Move { Move = 1 }
    );

    impl TransferCode for Move {
        type Account = Account;
    }

    fn transfer(legs: Vec<Leg>) -> Transfer<Move> {
        Transfer {
            legs,
            ..Transfer::between(Uuid::nil(), Move::Move, "k", Uuid::nil(), Uuid::nil(), 1)
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
        for key in [" ", &"k".repeat(MAX_KEY_LEN + 1)] {
            let mut bad_key = transfer(vec![Leg::debit(a, 1), Leg::credit(b, 1)]);
            bad_key.key = key.to_owned();
            assert!(
                ordered_legs(&bad_key).is_err(),
                "key of {} bytes",
                key.len()
            );
        }
    }

    fn locked(id: u128, kind: Account, balance_fen: i64, overdraft_fen: i64) -> Locked<Account> {
        Locked {
            id: Uuid::from_u128(id),
            kind,
            balance_fen,
            may_go_negative: kind.may_go_negative(),
            overdraft_fen,
        }
    }

    #[test]
    fn a_debit_stops_at_the_floor_and_the_overdraft_lowers_it() {
        let wallet = locked(1, Account::Wallet, 500, 0);
        let other = locked(2, Account::Wallet, 0, 0);
        let ok = apply(
            &[wallet, other],
            &[Leg::debit(wallet.id, 500), Leg::credit(other.id, 500)],
        );
        assert_eq!(ok.unwrap(), vec![0, 500]);
        let short = apply(
            &[wallet, other],
            &[Leg::debit(wallet.id, 501), Leg::credit(other.id, 501)],
        );
        assert!(matches!(
            short,
            Err(TransferError::Insufficient {
                account_id,
                kind: Account::Wallet,
                available_fen: 500,
                needed_fen: 501,
            }) if account_id == wallet.id
        ));
        // An overdraft of 1000 lets the balance reach -1000 and no further.
        let granted = locked(3, Account::Wallet, 100, 1000);
        assert_eq!(
            apply(
                &[granted, other],
                &[Leg::debit(granted.id, 1100), Leg::credit(other.id, 1100)]
            )
            .unwrap(),
            vec![-1000, 1100]
        );
        assert!(matches!(
            apply(
                &[granted, other],
                &[Leg::debit(granted.id, 1101), Leg::credit(other.id, 1101)]
            ),
            Err(TransferError::Insufficient {
                available_fen: 1100,
                ..
            })
        ));
        // A source account has no floor at all.
        let source = locked(5, Account::Source, 0, 0);
        // A credit never stops, even on an account below its floor.
        let below = locked(4, Account::Wallet, -5, 0);
        assert_eq!(
            apply(
                &[source, below],
                &[Leg::debit(source.id, 1), Leg::credit(below.id, 1)]
            )
            .unwrap(),
            vec![-1, -4]
        );
        assert_eq!(
            apply(
                &[source, wallet],
                &[Leg::debit(source.id, 9), Leg::credit(wallet.id, 9)]
            )
            .unwrap(),
            vec![-9, 509]
        );
    }

    #[test]
    fn a_replay_matches_only_the_same_legs_on_the_same_accounts() {
        let (a, b, c) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        let posted = Posted {
            transfer_id: Uuid::nil(),
            created_at: Utc::now(),
            replayed: true,
            entries: vec![
                PostedEntry {
                    account_id: a,
                    amount_fen: -300,
                    balance_after_fen: 0,
                },
                PostedEntry {
                    account_id: b,
                    amount_fen: 300,
                    balance_after_fen: 300,
                },
            ],
        };
        assert!(posted.matches(&[Leg::debit(a, 300), Leg::credit(b, 300)]));
        assert!(!posted.matches(&[Leg::debit(a, 200), Leg::credit(b, 200)]));
        assert!(!posted.matches(&[Leg::debit(a, 300), Leg::credit(c, 300)]));
        assert!(!posted.matches(&[Leg::credit(b, 300)]));
        assert_eq!(posted.balance_after(b), Some(300));
        assert_eq!(posted.entry(c), None);
    }

    #[test]
    fn a_refusal_reads_as_chinese_with_yuan_and_a_reused_key_is_4009() {
        let err = ServiceError::from(TransferError::Insufficient {
            account_id: Uuid::nil(),
            kind: Account::Wallet,
            available_fen: -1234,
            needed_fen: 5000,
        });
        assert_eq!(err.code, ErrorCode::Conflict);
        assert_eq!(
            err.message,
            "钱包余额不足：可用 -12.34 元，本次需要 50.00 元"
        );
        assert_eq!(
            ServiceError::from(TransferError::<Account>::KeyReused)
                .code
                .edge_code(),
            4009
        );
        assert_eq!(
            ServiceError::from(TransferError::<Account>::UnknownAccount(Uuid::nil())).code,
            ErrorCode::NotFound
        );
    }
}
