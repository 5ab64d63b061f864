//! The permission the charge management menu (chargeManagement) grants,
//! which five subjects check — cards, their amount changes, sessions,
//! plate scans and stations — so none of them owns it. Every other subject
//! has its own menu and its own `PERMISSION`.

/// The permission of the charge management menu.
pub const CHARGE_MANAGEMENT: &str = "as:charge:card";
