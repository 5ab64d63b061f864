//! Customer-service records (customerServiceRecord): each contact with the
//! operator's customer service about a vehicle, made by hand or from a risk
//! alarm (`alarm_id`; the alarm's vehicle is taken).
//!
//! Rules (`domain`): a ticket number KF + yyyymmdd + the day's sequence per
//! enterprise; the driver is the one the input names, else the one bound
//! to the vehicle at the contact's start; the caller's phone is stored and
//! shown masked; a follow-up date may be set; a record reaching RESOLVED or
//! CLOSED gets its close time, and CLOSED is final.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// The permission of the customer-service pages.
pub const PERMISSION: &str = "as:risk:service";
