//! Charging cards (electricCard, juniorElectricCard): a card belongs to an
//! organisation, is funded from that organisation's charging account and
//! holds its own balance as a CARD ledger account; it is bound to a
//! vehicle (plate-scan starts charge it) or a driver, may be limited to
//! some stations, and is frozen, unfrozen, reported lost or cancelled
//! (its balance then goes back to its account). Amount changes
//! (countChangeRecord) live in `card_changes`; [`authorize`] is what the
//! charging sessions ask before a session starts.

pub mod authorize;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// The permission of chargeManagement (cards and their amount changes).
pub const PERMISSION: &str = "as:charge:card";
