//! The org service: enterprises, organisation trees, roles, users, effective
//! permissions and the shared back-office data.
//!
//! Layout: `grpc/` is the thin layer (one line per RPC); each subject is a
//! folder with `handlers` (validate → domain → store → response), `domain`
//! (pure rules, stored codes), `store` (its queries) and `convert` (proto ↔
//! domain). Subjects take what they share from `context` (the service's
//! context and the caller), never from `grpc`. `exports` holds the export
//! records and job events org keeps for every service; a subject's own
//! export kind is its `export` module.

pub mod approvals;
pub mod areas;
mod auth_link;
pub mod catalogue;
mod changes;
pub mod charging;
mod codes;
mod config;
mod context;
pub mod dict;
pub mod exports;
mod grpc;
pub mod help;
pub mod lists;
pub mod notices;
pub mod orgs;
pub mod principal;
pub mod replication;
pub mod roles;
pub mod scope;
pub mod sensitive;
pub mod serve;
mod sql;
mod startup;
pub mod users;
mod validate;
pub mod virtual_orgs;
pub mod workflow;

pub use config::{Config, CustomerServiceConfig};
pub use startup::{Application, MIGRATOR, SCHEMA};
