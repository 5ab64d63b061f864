//! Repair and maintenance orders (维修保养, maintainment): a vehicle sent to
//! a supplier, priced, approved, repaired, recorded, put on the supplier's
//! monthly statement and billed.
//!
//! Rules (`domain`):
//! - An order goes AWAITING_QUOTE → QUOTED (the shop's lines, each
//!   quantity × unit price in fen, the total computed here; warranty lines
//!   are listed, not charged) → price confirmation: at or below the
//!   enterprise's threshold (`config`) straight to IN_REPAIR, above it to
//!   AWAITING_APPROVAL with an org approval requested through the outbox
//!   (`approval`); org's `ApprovalDecided` moves it to IN_REPAIR (approved)
//!   or back to AWAITING_QUOTE (rejected: the shop quotes again). IN_REPAIR
//!   → COMPLETED records the service (`repair_record`, maintainRecord) and
//!   puts the order on its supplier's statement of the month. It may be
//!   cancelled before IN_REPAIR. Any other move answers the conflict code
//!   (edge 4009) and changes nothing; every change writes an
//!   operation-log row in its transaction. Create is idempotent by key.
//! - A statement (`settle`) is per supplier and month (Beijing time) and
//!   takes every order completed in it; confirming it (pending or disputed)
//!   raises the repair bill, settles its orders and emits
//!   `vehicle.v1.RepairBillIssued` through the outbox (finance bills from
//!   it); disputing it (pending only) keeps it open for a correction.
//! - Orders and records are reached by the vehicle's organisation (and
//!   their creator); suppliers, statements and bills by the supplier's.
//!
//! Reads fleetdesk-assets' vehicles and drivers; writes only its tables,
//! the operation log and the outbox.

pub mod approval;
pub mod config;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod settle;
pub mod statements;
pub mod store;

/// The permission of the repair pages.
pub const PERMISSION: &str = "as:maintain";
