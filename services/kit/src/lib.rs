//! Shared plumbing of every Fleetdesk service and the gateway.

pub mod actor;
pub mod codes;
pub mod config;
pub mod convert;
pub mod db;
pub mod error;
pub mod events;
pub mod export;
pub mod files;
pub mod grpc;
pub mod idempotency;
pub mod ids;
pub mod import;
pub mod internal_token;
pub mod list;
pub mod mask;
pub mod org_replica;
pub mod reach;
pub mod retention;
pub mod service;
pub mod shutdown;
pub mod subjects;
pub mod telemetry;
pub mod wakeup;

pub use error::{ErrorCode, FieldError, ResultExt, ServiceError, on_constraint};
pub use shutdown::Shutdown;

/// A stable id for a named piece of demo data, the same in every service and run.
pub fn demo_id(name: &str) -> uuid::Uuid {
    uuid::Uuid::new_v5(
        &uuid::Uuid::NAMESPACE_URL,
        format!("fleetdesk:demo:{name}").as_bytes(),
    )
}
