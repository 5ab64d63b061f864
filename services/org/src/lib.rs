//! The org service: enterprises, organisation trees, roles, users, effective
//! permissions and the shared back-office data.

pub mod catalogue;
mod grpc;
pub mod rules;
pub mod seed;
mod startup;
mod store;

pub use fleetdesk_kit::config::ServiceConfig as Config;
pub use startup::{Application, MIGRATOR, SCHEMA};
