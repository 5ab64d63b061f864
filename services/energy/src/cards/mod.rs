//! Charging cards (electricCard, juniorElectricCard): a card belongs to an
//! organisation, is funded from that organisation's charging account and
//! holds its own balance as a CARD ledger account; it is bound to a
//! vehicle (plate-scan starts charge it) or a driver, may be limited to
//! some stations, and is frozen, unfrozen, reported lost or cancelled
//! (its balance then goes back to its account). Amount changes
//! (countChangeRecord) live in `card_changes`; [`authorize`] is what the
//! charging sessions ask before a session starts, and [`tokens`] the cards
//! and plates as the platform's token list.

pub mod authorize;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;
pub mod tokens;

/// The permission of the cards (the charge management menu's).
pub use crate::permissions::CHARGE_MANAGEMENT as PERMISSION;
