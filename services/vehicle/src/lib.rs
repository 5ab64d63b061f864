//! The vehicle service: vehicle assets (files, terminal bindings, private
//! cars, and — from their modules — drivers, usage records and operation
//! logs) and telematics (terminal directory, telemetry ingest, positions,
//! remote lock). The target hosts AssetService, TelemetryService,
//! TerminalDirectoryService, RiskService and MaintenanceService; the last
//! two answer UNIMPLEMENTED until their issues build them.
//!
//! Exports (every list) and imports (vehicles, drivers) run through
//! kit::export and kit::import: `exports` and `imports` hold what they
//! share, each subject its own `export` (and `import`) module.
//!
//! Layout: `grpc/` is the thin layer (one line per RPC); each subject is a
//! folder with `handlers` (validate → domain → store → response), `domain`
//! (pure rules, stored codes), `store` (its queries) and `convert` (proto ↔
//! domain).

mod bindings;
mod codes;
pub mod directory;
pub mod drivers;
pub mod exports;
pub mod geofences;
mod grpc;
mod imports;
pub mod ingest;
pub mod lock;
pub mod oplog;
pub mod positions;
mod private_cars;
pub mod seed;
mod startup;
pub mod temperature;
pub mod usage;
pub mod vehicles;

pub use startup::{Application, Config, MIGRATOR, SCHEMA};
