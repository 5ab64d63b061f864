//! Exports as org hosts them for every service: the export records a member
//! sees (what they asked to export, its status and live progress and, once
//! the file is there, where to download it) and the job events that keep
//! them ([`jobs`]). A subject's own export kind lives in its `export`
//! module (`users/export.rs`).
//!
//! A record is seen within the caller's data scope over the requesting
//! member: their own under a self scope, those of members in the reached
//! organisations, or all.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod jobs;
pub mod kinds;
pub mod store;

/// The domain whose events announce org's own jobs.
pub const DOMAIN: &str = "org";
