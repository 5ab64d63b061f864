//! Positions (quicklyFindCar, track playback): the latest position of every
//! vehicle in reach with counts by status, one vehicle's track with its
//! stops and speeding derived from every fix, the track's export, and the
//! live feed (`live`) behind the monitoring map's SSE stream.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod live;
pub mod store;

/// The permission of vehicle monitoring and track playback.
pub const PERMISSION: &str = "as:mancar";
