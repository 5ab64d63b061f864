//! Charging sessions (consumeRecord): started, updated and settled by the
//! charging platform through the OCPI receiver (`charging`), with a hold on
//! the card while they run and a capture of at most what was held when they
//! end (`costs`: what a CDR says it cost, part by part); listed with a
//! totals row, shown and exported under the caller's reach.

pub mod charging;
pub mod convert;
pub mod costs;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// The permission of the session list (the charge management menu's).
pub use crate::permissions::CHARGE_MANAGEMENT as PERMISSION;
