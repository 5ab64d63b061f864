//! The permission catalogue: every permission value the product knows, with
//! its labels, the group it sits under, the console routes it opens and the
//! gateway operations (`GET /api/v1/system/roles`) it guards.
//! `src/permissions.json` is the one source (the console's tests read it
//! too); the `permission` table is kept in step with it, and a stack test
//! checks the operations against the gateway's route table.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

pub use domain::{PermissionEntry, entries};
pub use store::sync;
