//! The energy service: charging opening, the charging accounts of the
//! organisation tree with balance allocation, charging cards and their
//! amount changes — every balance an account of the double-entry
//! [`ledger`] — and charging on the operator's platform over OCPI
//! ([`ocpi`]): stations and tariffs synced from it, sessions held, stopped
//! and captured, plate recognitions — and the reports over them: monthly
//! [`statements`] reconciled with the ledger, the [`dashboard`] and the
//! charging behaviour [`analysis`].
//!
//! Layout: `grpc/` is the thin layer (one line per RPC); each subject is a
//! folder with `handlers` (validate → domain → store → response), `domain`
//! (pure rules, stored codes), `store` (its queries), `convert` (proto ↔
//! domain) and `export` (its list as an export kind).

pub mod accounts;
pub mod allocations;
pub mod analysis;
mod calendar;
pub mod card_changes;
pub mod cards;
mod codes;
pub mod dashboard;
pub mod exports;
mod filters;
mod grpc;
pub mod ledger;
pub mod ocpi;
pub mod opening;
mod org;
pub mod plate_scans;
mod reports;
pub mod seed;
pub mod sessions;
mod startup;
pub mod statements;
pub mod stations;
pub mod tariffs;
pub mod vehicles;

pub use grpc::{Actor, Context};
pub use startup::{Application, Config, MIGRATOR, SCHEMA, TargetConfig};
