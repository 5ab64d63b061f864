//! The auth service: accounts, credentials, sessions, SMS codes, WeCom QR
//! sign-in, limits on guessing and the login log.
//!
//! Layout: `grpc/` is the thin layer (one line per RPC); each subject
//! (accounts, sessions, passwords, sign-in, SMS codes, WeCom, the guard on
//! guessing, the login log) is a folder with — where it has them — `handlers`,
//! `domain` (rules, stored codes), `store` (its queries) and `convert`
//! (proto ↔ domain). Subjects take what they share from `context`, never from
//! `grpc`.

pub mod accounts;
mod codes;
mod config;
mod context;
pub mod credentials;
mod grpc;
mod guard;
mod login_log;
mod password;
mod sessions;
mod sign_in;
mod sms;
mod startup;
mod validate;
mod wecom;

pub use config::{Config, SmsConfig, WeComConfig};
pub use startup::{Application, MIGRATOR, SCHEMA};
