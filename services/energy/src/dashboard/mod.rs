//! The energy dashboard (charge/dashboard): balances, sessions in progress,
//! spend and energy over a range, the daily trend and the top stations,
//! organisations and vehicles — cheap reads backed by indexes.

pub mod domain;
pub mod handlers;
pub mod store;

/// The permission of the dashboard page.
pub const PERMISSION: &str = "as:charge:index";
