//! Charging behaviour analysis (behaviorAnalyze, on the behaviour-analysis
//! white list): when vehicles charge (hour of day), their SOC at plug-in,
//! the off-peak (valley) share, cost per kWh and per 100 km — kWh from the
//! sessions, km from vehicle telemetry ([`distances`], over [`crate::telemetry`]) — overall, per
//! organisation and per vehicle, under the caller's reach.

pub mod convert;
pub mod distances;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

/// The permission of the behaviour analysis (granted only to enterprises
/// on its white list).
pub const PERMISSION: &str = "as:charge:behavior";
