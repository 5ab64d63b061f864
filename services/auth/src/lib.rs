//! The auth service: accounts, credentials, sessions and the login log.

mod config;
mod credentials;
mod grpc;
pub mod seed;
mod startup;
mod store;

pub use config::Config;
pub use startup::{Application, MIGRATOR, SCHEMA};
