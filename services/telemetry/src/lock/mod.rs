//! Remote lock (lockCarManagement, lockAndUnlockCar): lock and unlock
//! commands with a required reason and an Idempotency-Key, interlocks for
//! locking (a fresh fix, standing, not charging), a state machine per
//! command, delivery to the device edge by a NATS request on
//! `telematics.command.<phone>` (`delivery`), results from the telemetry
//! stream (`telemetry.*.*.command`), a sweep that retries queued commands
//! and times out unanswered ones, and the list of rent and rent-to-own
//! vehicles operators lock.

pub mod convert;
pub mod delivery;
pub mod domain;
pub mod handlers;
pub mod store;

/// The permission of the lock pages.
pub const PERMISSION: &str = "as:lockcar";
