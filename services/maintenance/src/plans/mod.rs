//! Service plans (保养计划, carMaintenance's plans tab): what is serviced how
//! often, for the vehicles of an organisation subtree (a group, a branch,
//! the whole enterprise) and optionally only one model of them.
//!
//! Rules (`domain`): a plan has an interval in kilometres and/or months
//! (at least one) and its own due-soon window (kilometres before the due
//! reading, days before the due date or the date the vehicle's daily
//! mileage forecasts), so a truck doing 500 km a day gets weeks of warning
//! rather than 100 km; the kilometre window is shorter than the kilometre
//! interval; names are unique per enterprise. Saving a plan opens one
//! reminder for each vehicle it covers that has none (its cycle counting
//! from today and the vehicle's odometer by telemetry), closes the open
//! reminders of vehicles it no longer covers, and moves the due of the
//! others by the new interval from where their cycle counts (`store::sync`);
//! deleting it deletes its open reminders and keeps the services done.
//! The daily job (`job`) syncs every plan the same way, so vehicles added,
//! moved or remodelled later follow without anyone saving the plan.
//!
//! Reads fleetdesk-assets' vehicles and the organisation replica; writes
//! only this crate's tables.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod job;
pub mod store;

/// The permission of the maintenance-reminder pages (plans included).
pub const PERMISSION: &str = "as:maintain:remind";
