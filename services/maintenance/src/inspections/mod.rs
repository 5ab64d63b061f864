//! Annual inspections (年检管理, drivingLicense): when each vehicle's
//! inspection falls due, what the inspections found, and which vehicles are
//! overdue or due soon.
//!
//! Rules (`domain`):
//! - Each vehicle follows one legal schedule (道路交通安全法实施条例 第十六条,
//!   2022 reform), its class: goods vehicles (our fleet) and large/medium
//!   non-operating passenger vehicles yearly within 10 years of registration,
//!   every 6 months after; operating passenger vehicles yearly within 5
//!   years, every 6 months after; small non-operating passenger cars first at
//!   year 6, every 2 years to 10, yearly to 15, every 6 months after.
//! - The vehicle row has no use nature (营运/非营运): a vehicle opens as a
//!   small passenger car when its body is a passenger car, else as a goods
//!   vehicle, and a record may name another class; the class lives on our
//!   state row, not on the vehicle.
//! - With nothing recorded the due date is the licence's stamp
//!   (`vehicle.inspection_expire_time`) or the schedule's next date from
//!   registration. A passed inspection sets the next due date from its date
//!   (or the new stamp when given); a failed one keeps it, so the vehicle
//!   stays due. A record older than the last one is history only.
//! - Due soon is within 30 days; overdue is after the due day. Neither is
//!   stored: each is a range of due dates around today, so the list's state
//!   filters and order (soonest due first) are range scans of
//!   `annual_inspection_*due_idx`.
//! - Every record writes its history row and an operation-log row (business
//!   type ANNUAL_INSPECTION) in the same transaction.
//!
//! A vehicle's state row is opened the first time a list, detail, record or
//! import needs it (`store::open`), since assets never call this crate.
//! `import` takes an xlsx of inspections (all rows or none).
//!
//! Reads fleetdesk-assets' vehicles; writes only its own tables and the
//! operation log.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod import;
pub mod store;

/// The permission of the inspection pages.
pub const PERMISSION: &str = "as:inspection";
