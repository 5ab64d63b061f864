//! Vehicle media: the photos and clips terminals upload, as the device edge
//! announces them once they are in the object store (telematics
//! `MediaStored` on `telemetry.<enterprise>.<vehicle>.media`: 0x0800/0x0801
//! photos, and active-safety evidence uploaded after 0x9208 with its
//! `alarm_key`). A durable consumer (`consumer`) stores each file once in
//! `vehicle_media` (idempotent on its object key), with the vehicle's
//! organisation and the time it was taken (the position's fix time, else
//! its arrival). Announcements of unknown vehicles, of another tenant's
//! vehicle, or naming another tenant's object are dropped.
//!
//! Nothing here serves files: risk alarms read them back as evidence
//! (`alarms::evidence`), and the gateway signs their links.

pub mod consumer;
pub mod domain;
pub mod store;

pub use consumer::Media;

/// Media announcements of every vehicle in the telemetry stream.
pub const MEDIA_SUBJECTS: &str = "telemetry.*.*.media";
