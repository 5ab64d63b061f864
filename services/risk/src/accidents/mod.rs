//! Accidents (carAccidentRecord): road accidents of the enterprise's
//! vehicles, from the report to the closed claim.
//!
//! Rules (`domain`): a case number SG + yyyymmdd + the day's sequence per
//! enterprise; the driver is the one the input names, else the one bound
//! to the vehicle at the accident time (`crate::lookup::driver_at`); money
//! in fen and counts are never negative; the status only moves forward
//! (REPORTED → LOSS_ASSESSMENT → REPAIRING → CLAIMING → CLOSED, steps may
//! be skipped), CLOSED is final and sets the close time. Every create and
//! change writes an operation-log row (business type ACCIDENT) in its
//! transaction, which GetAccident answers with the accident.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// The permission of the accident pages.
pub const PERMISSION: &str = "as:accident";
