//! The vehicle service's tests over its real gRPC server, one module per
//! subject, in one binary (CONTRIBUTING §2): each file directly under `tests/`
//! would be a binary of its own, linked with the whole crate.

mod support;

mod alarm_evidence;
mod brand_types;
mod cameras;
mod dead_letter;
mod drivers;
mod fix_times;
mod geofences;
mod inspections;
mod insurance;
mod maintenance;
mod operation_energy;
mod repairs;
mod risk;
mod risk_notify;
mod risk_records;
mod risk_rule_kinds;
mod safety_report;
mod telemetry;
mod temperature;
mod usage_events;
mod vehicle_camera;
mod violations;
