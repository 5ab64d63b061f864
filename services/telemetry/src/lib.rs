//! Vehicle telemetry, the subjects of TelemetryService and of the terminal
//! directory (TerminalDirectoryService, which the device edge in
//! fleetdesk-telematics asks): telemetry ingest (which evaluates fences and
//! temperatures too), positions, remote lock, geofences, temperatures and
//! the vehicles' photos and clips (`media`, the risk alarms' evidence).
//! The vehicle target (fleetdesk-vehicle) serves them and owns their schema
//! and migrations.
//!
//! It reads the vehicle assets of fleetdesk-assets (a position, a fence or
//! a lock is about a vehicle); assets never read telemetry.
//!
//! Layout: each subject is a folder with `handlers` (validate → domain →
//! store → response), `domain` (pure rules, stored codes), `store` (its
//! queries) and `convert` (proto ↔ domain); handlers take their request
//! context from `context`.

pub mod alarms;
pub mod cameras;
mod codes;
pub mod context;
pub mod directory;
pub mod exports;
pub mod geofences;
pub mod ingest;
pub mod lock;
pub mod media;
pub mod operation;
pub mod positions;
pub mod safety;
pub mod temperature;
