//! Drivers (driverManagement): list, detail, create, edit, and the reveal of
//! their masked personal data (phone, ID number, address, licence and ID
//! images) for the audited sensitive-view flow.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod import;
pub mod store;

/// The permission of the driver pages.
pub const PERMISSION: &str = "as:sys:driver";
