//! The energy service: charging opening, the charging accounts of the
//! organisation tree with balance allocation, charging cards and their
//! amount changes — every balance an account of the double-entry
//! [`ledger`] — and charging on the operator's platform over OCPI
//! ([`ocpi`]): stations and tariffs synced from it, sessions held, stopped
//! and captured, plate recognitions — and the reports over them: monthly
//! [`statements`] reconciled with the ledger, the [`dashboard`] and the
//! charging behaviour [`analysis`].
//!
//! Layout: two layers on top — `grpc/` (thin: one line per RPC into a
//! subject's handlers) and [`ocpi`] (the platform's registration, and its
//! calls, each one call into a subject) — with start-up (`startup`: wiring,
//! the export worker) beside them; demo data is the seeding crate's. Each subject is a folder with `handlers`
//! (validate → domain → store → response), `domain` (pure rules, stored
//! codes), `store` (its queries), `convert` (proto ↔ domain) and `export`
//! (its list as an export kind). Subjects never import a layer.
//!
//! Which subjects each subject uses (one way: none uses one that uses it
//! back; only the layers above use all of them):
//!
//! - ledger, tariffs → none
//! - top_ups → ledger
//! - accounts → ledger
//! - opening, card_changes → accounts
//! - allocations, statements → accounts, ledger
//! - cards → accounts, card_changes, ledger
//! - stations → tariffs
//! - plate_scans → stations
//! - sessions → cards, card_changes, ledger, plate_scans, stations
//! - dashboard → accounts, sessions
//! - analysis → accounts
//!
//! Shared pieces, each with one job; all but `reports` use no subject:
//!
//! - `context`: what a request runs with — [`Actor`], [`Context`], the key
//!   of a money write.
//! - `codes`: stored codes (kit's `stored_code!`).
//! - `filters`: parsing of list filters (ids, codes, organisation
//!   subtrees, the sessions' and plate scans' required time range).
//! - `permissions`: the charge management menu's permission, which five
//!   subjects check.
//! - [`exports`]: the export domain, queueing and cell labels.
//! - `calendar`: the operator's calendar (days and statement months).
//! - `reports`: what the statements, the dashboard and the analysis share
//!   (settled sessions, report ranges, the sessions' scope, prices); it
//!   reads the sessions' statuses.
//! - [`platform`]: the registered charging platform's link and client.
//! - [`vehicles`]: the vehicle service as cards see it (bound vehicles and
//!   drivers).
//! - [`telemetry`]: the vehicle service's kilometres, for the analysis.

pub mod accounts;
pub mod allocations;
pub mod analysis;
mod calendar;
pub mod card_changes;
pub mod cards;
mod codes;
mod context;
pub mod dashboard;
pub mod exports;
mod filters;
mod grpc;
pub mod ledger;
pub mod ocpi;
pub mod opening;
mod permissions;
pub mod plate_scans;
pub mod platform;
mod reports;
pub mod sessions;
mod startup;
pub mod statements;
pub mod stations;
pub mod tariffs;
pub mod telemetry;
pub mod top_ups;
pub mod vehicles;

pub use context::{Actor, Context};
pub use startup::{Application, Config, MIGRATOR, SCHEMA, TargetConfig};
