//! The auth service: accounts, credentials, sessions, SMS codes, WeCom QR
//! sign-in, limits on guessing and the login log.

mod config;
mod credentials;
mod grpc;
mod guard;
pub mod seed;
mod sms;
mod sms_sender;
mod startup;
mod store;
mod wecom;

pub use config::{Config, SmsConfig, WeComConfig};
pub use startup::{Application, MIGRATOR, SCHEMA};
