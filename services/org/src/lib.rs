//! The org service: enterprises, organisation trees, roles, users, effective
//! permissions and the shared back-office data.

mod actor;
pub mod approvals;
pub mod areas;
pub mod catalogue;
mod changes;
mod config;
mod dict;
pub mod exports;
mod grpc;
mod help;
pub mod lists;
mod notices;
mod orgs;
mod principal;
mod roles;
pub mod rules;
pub mod scope;
pub mod seed;
pub mod seed_shared;
pub mod sensitive;
mod startup;
pub mod store;
mod users;

pub use changes::PRINCIPAL_CHANGED_SUBJECT;
pub use config::Config;
pub use startup::{Application, MIGRATOR, SCHEMA};
