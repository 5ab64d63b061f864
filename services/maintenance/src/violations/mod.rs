//! Traffic violations (违章管理, trafficViolations and its hidden detail):
//! what the traffic authority recorded against the enterprise's vehicles,
//! who is responsible, and how far it has been dealt with.
//!
//! Rules (`domain`):
//! - A violation is the authority's: plate, time, place (text and, when
//!   given, a point), act code and text, fine in fen, points and its
//!   decision number, **unique per enterprise**: fetched or imported twice
//!   it stays one row (an upsert on the number refreshes the authority's
//!   fields and keeps ours: state, driver, remarks).
//! - Its state goes UNHANDLED → HANDLED → PAID, each step recorded with who
//!   and when; any other move answers the conflict code (edge 4009) and
//!   changes nothing. Every change writes an operation-log row in the same
//!   transaction (business type VIOLATION, shown on the detail).
//! - **The responsible driver** is found when the violation is first
//!   stored: the driver whose binding to the vehicle (`vehicle_binding`,
//!   kind driver) was valid at the violation's time, while a usage record
//!   of the vehicle (`usage_record`, active or ended) was valid then too;
//!   nobody when there was none. An operator may hold another driver of the
//!   enterprise responsible (`AssignViolation`), in any state.
//! - The list filters by plates, VINs, driver, state, time range, city and
//!   organisation subtrees under the caller's reach, newest violation first
//!   (`traffic_violation_*_idx`, one per filter), with the fines and points
//!   totalled over the whole filter; the export walks the same filter.
//!
//! Where violations come from: `job` fetches them once a day per plate of
//! every enterprise's vehicles from the traffic authority (`authority`: a
//! signed HTTP API, paged, rate limited), never inside a request; `import`
//! takes an xlsx (all rows or none).
//!
//! Reads fleetdesk-assets' vehicles, drivers, bindings and usage records;
//! writes only its own table and the operation log.

pub mod authority;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod import;
pub mod job;
pub mod store;

/// The permission of the violation pages.
pub const PERMISSION: &str = "as:violation";
