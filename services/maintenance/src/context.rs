//! What a request's handler is given: the shared [`Context`] and the
//! [`Actor`] it acts for. Subjects take these from here, never from the
//! target's gRPC layer, so a subject does not depend on who serves it.

pub use fleetdesk_kit::actor::Actor;

use fleetdesk_kit::files::FileStore;
use sqlx_postgres::PgPool;

/// What every vehicle-management handler shares.
#[derive(Debug, Clone)]
pub struct Context {
    pub pool: PgPool,
    /// The object store (import files the gateway stored).
    pub files: FileStore,
}
