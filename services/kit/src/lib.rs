//! Shared plumbing of every Fleetdesk service and the gateway.

pub mod config;
pub mod db;
pub mod error;
pub mod events;
pub mod grpc;
pub mod internal_token;
pub mod shutdown;
pub mod telemetry;

pub use error::{ErrorCode, FieldError, ResultExt, ServiceError};
pub use shutdown::Shutdown;
