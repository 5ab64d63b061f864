//! Plate recognitions of the stations' cameras (scanPlateRecord): pushed by
//! the platform (vendor module `x-plate-scans`), matched to the vehicle by
//! the plate its card carries, then to the authorisation that followed and
//! the session it started; listed and exported under the caller's reach.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod recognition;
pub mod store;

/// The permission of the plate-scan list (the charge management menu's).
pub use crate::permissions::CHARGE_MANAGEMENT as PERMISSION;
