//! The org service: enterprises, organisation trees, roles, users, effective
//! permissions and the shared back-office data.

mod actor;
pub mod approvals;
pub mod areas;
pub mod catalogue;
mod changes;
pub mod charging;
mod config;
mod dict;
pub mod export_jobs;
pub mod exports;
mod grpc;
mod help;
#[cfg(test)]
mod list_plans;
pub mod lists;
mod notices;
mod orgs;
mod principal;
mod roles;
pub mod rules;
pub mod scope;
pub mod seed;
pub mod seed_scale;
pub mod seed_shared;
pub mod sensitive;
mod startup;
pub mod store;
pub mod unit_events;
mod users;
pub mod users_export;

pub use config::{Config, CustomerServiceConfig};
pub use startup::{Application, MIGRATOR, SCHEMA};
