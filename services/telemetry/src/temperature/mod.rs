//! Temperature monitoring (temperatureMonitor, authorizationRecord): bands
//! per vehicle (optionally per probe) with a minimum out-of-range duration,
//! alarms for excursions that last that long, the readings, and consignee
//! share links to one vehicle's temperatures.
//!
//! Evaluation runs in telemetry ingest's transaction (`crate::ingest`), on
//! the fixes new to the history. `evaluate` buffers each
//! probe's readings and recomputes the window a batch touches (from the last
//! in-band reading before it), so late, duplicated or reordered fixes leave
//! the same alarms; `domain::excursions` is the pure rule.
//!
//! RPCs: `handlers` (validate → domain → store → response), `store`,
//! `convert`, `share` (link tokens); `export` runs the alarm list as an
//! export kind.

pub mod convert;
pub mod domain;
pub mod evaluate;
pub mod export;
pub mod handlers;
pub mod share;
pub mod store;

/// The permission of every temperature page and operation.
pub const PERMISSION: &str = "as:temperature";
