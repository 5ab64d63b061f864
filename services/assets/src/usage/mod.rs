//! Usage records (carUsedRecord: carRentRecord, purchaseRecord,
//! carReplaceRecord, rentForSaleRecord): the contracts under which the
//! enterprise uses a vehicle. A vehicle has at most one open (pending or
//! active) record; the record's kind, state and dates are copied onto the
//! vehicle for its list. Every change (create, edit, end) announces the
//! record's whole state (`vehicle.v1.UsageRecordChanged`, outbox): finance
//! raises rent instalments from rentals by it.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// The permission of the usage-record pages (all four kinds).
pub const PERMISSION: &str = "as:sys:car:used";
