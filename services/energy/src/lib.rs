//! The energy service: charging opening, the charging accounts of the
//! organisation tree with balance allocation, charging cards and their
//! amount changes — every balance an account of the double-entry
//! [`ledger`]. RPCs of subjects not built yet (sessions, plate scans,
//! statements, stations, dashboard) answer UNIMPLEMENTED.
//!
//! Layout: `grpc/` is the thin layer (one line per RPC); each subject is a
//! folder with `handlers` (validate → domain → store → response), `domain`
//! (pure rules, stored codes), `store` (its queries), `convert` (proto ↔
//! domain) and `export` (its list as an export kind).

pub mod accounts;
pub mod allocations;
pub mod card_changes;
pub mod cards;
mod codes;
pub mod exports;
mod filters;
mod grpc;
pub mod ledger;
pub mod opening;
mod org;
pub mod seed;
mod startup;
pub mod vehicles;

pub use grpc::{Actor, Context};
pub use startup::{Application, Config, MIGRATOR, SCHEMA, TargetConfig};
