//! Geofences (fenceDashboard, addFence, managePage, crossRailPage,
//! singInSetPage, operateMonitor): circle, polygon and route-corridor fences
//! with speed limits, weekly active windows and a dwell delay; who is inside
//! now; crossings (list and export), sign-ins, alarms and the dashboard.
//!
//! Evaluation runs in telemetry ingest's transaction (`crate::ingest`), on
//! the fixes new to the history:
//! - `engine` (pure): an R-tree of fence bounding boxes per enterprise, the
//!   exact test after a box hit (haversine for circles, even-odd for
//!   polygons, distance to the polyline for corridors), the per-(vehicle,
//!   fence) state machine (confirmed side + a pending transition that counts
//!   only after the dwell delay) and speeding;
//! - `evaluate`: one enterprise's new fixes against the database. Fixes are
//!   applied in fix-time order per vehicle. A fix not after the vehicle's
//!   latest position before the batch (late, or a blind-zone backfill)
//!   replays that vehicle from the last crossing *confirmed* before it, per
//!   affected fence, over its stored history, and reconciles what follows —
//!   crossings, their alarms and sign-ins keep ids derived from their natural
//!   keys, so the same fixes in any order and batching leave the same rows.
//!
//! RPCs: `handlers` (validate → domain → store → response), `store`,
//! `convert`, `export` (crossings).

pub mod convert;
pub mod domain;
pub mod engine;
pub mod evaluate;
pub mod export;
pub mod geometry;
pub mod handlers;
pub mod store;

/// The permission of every geofence page and operation.
pub const PERMISSION: &str = "as:fence";
