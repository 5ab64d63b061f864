//! Card amount changes (countChangeRecord): every change of a card's
//! balance — top-ups from and withdrawals to its account, the balance
//! returned when it was cancelled, and (written by the charging sessions
//! through [`store::record`]) what sessions consumed and refunded — with
//! the balance before and after, copied names, and the ledger transfer.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// The permission of the change list (the charge management menu's).
pub use crate::permissions::CHARGE_MANAGEMENT as PERMISSION;
