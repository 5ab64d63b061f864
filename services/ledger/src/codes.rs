//! What a service tells the ledger about its own kinds. Each service keeps
//! its account and transfer kinds as its own stored-code enums (kit's
//! `stored_code!`: `smallint` both ways); the ledger stores only their codes
//! and asks the account kind the two things a transfer needs.

use std::fmt::Debug;

/// A service's account kind (energy: MAIN, CARD, HOLD, …).
pub trait AccountCode:
    Copy + Eq + Debug + Send + Sync + Into<i16> + TryFrom<i16> + 'static
{
    /// Whether an account of this kind has no floor at all (a funding
    /// source that owes what it issued). Stored on the account when opened.
    fn may_go_negative(self) -> bool;

    /// The account as a refusal names it to users ("组织账户").
    fn label(self) -> &'static str;
}

/// A service's transfer kind (why money moved). Naming the service's
/// account kind ties a transfer's refusals to it, so a caller's types are
/// inferred from the transfer alone.
pub trait TransferCode: Copy + Eq + Debug + Send + Sync + Into<i16> + 'static {
    type Account: AccountCode;
}
