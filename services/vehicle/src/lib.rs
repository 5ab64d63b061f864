//! The vehicle target: one process serving vehicle assets (AssetService,
//! from fleetdesk-assets), telematics (TelemetryService and the terminal
//! directory, from fleetdesk-telemetry) and risk control (RiskService:
//! alarms from fleetdesk-telemetry, accidents, service records and warnings
//! from fleetdesk-risk) and vehicle management (MaintenanceService: service
//! plans and maintenance reminders from fleetdesk-maintenance; its other
//! subjects answer UNIMPLEMENTED until built, `grpc::not_built` listing
//! every such RPC).
//!
//! The target owns what the hosted crates share: start-up and config, the
//! gRPC wiring of every hosted service, the export worker, and one `vehicle`
//! schema with one migrator. One schema, not one per crate, because the
//! telemetry tables are about vehicles: their SQL joins assets' tables
//! (`vehicle`, `usage_record`) and their foreign keys point at `vehicle`,
//! so the crates' tables cannot be migrated or scoped apart.
//!
//! Demo and scale data for the hosted crates are the seeding crate's
//! (`fleetdesk-seed`), not the service's.

mod exports;
mod grpc;
mod startup;

pub use startup::{Application, Config, MIGRATOR, SCHEMA};

/// Paths other packages (bench, the root tests, the energy and simulator
/// tests) name under this crate; the modules are fleetdesk-assets' and
/// fleetdesk-telemetry's.
pub use fleetdesk_assets::vehicles;
/// Where the traffic authority the violation fetch job asks is
/// ([`Application::use_traffic_authority`]).
pub use fleetdesk_maintenance::violations::authority::AuthorityConfig as TrafficAuthorityConfig;
pub use fleetdesk_telemetry::{ingest, lock};
