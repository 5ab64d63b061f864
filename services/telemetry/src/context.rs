//! What a request's handler is given: the shared [`Context`] and the
//! [`Actor`] it acts for. Subjects take these from here, never from the
//! target's gRPC layer, so a subject does not depend on who serves it.

pub use fleetdesk_kit::actor::Actor;

use sqlx_postgres::PgPool;

/// What every TelemetryService and terminal directory handler shares.
#[derive(Debug, Clone)]
pub struct Context {
    pub pool: PgPool,
    /// NATS: lock commands to the device edge.
    pub nats: async_nats::Client,
    /// The live position feed (WatchPositions).
    pub live: crate::positions::live::Live,
}
