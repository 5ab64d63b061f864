//! Risk records, the RiskService subjects beside the alarms (which are
//! fleetdesk-telemetry's): accidents, customer-service records and
//! warnings. The vehicle target (fleetdesk-vehicle) serves them and owns
//! their schema and migrations.
//!
//! It reads the vehicle assets of fleetdesk-assets (an accident, a call or
//! a warning is about a vehicle, a driver or a usage record); assets never
//! read risk. Alarms are read only by id, through SQL (a service record
//! created from an alarm).
//!
//! Subjects depend one way, in this order: `lookup` (the vehicle, the
//! driver at a moment, document numbers) → `accidents` → `service_records`
//! → `warnings` (with its daily job); none reads a later one.
//!
//! Layout: each subject is a folder with `handlers` (validate → domain →
//! store → response), `domain` (pure rules, stored codes), `store` (its
//! queries) and `convert` (proto ↔ domain); handlers take their request
//! context from `context`.

pub mod accidents;
mod codes;
pub mod context;
pub mod lookup;
pub mod service_records;
pub mod warnings;
