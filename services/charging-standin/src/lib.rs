//! A local stand-in for the charging platform: a CPO speaking OCPI 2.2.1
//! (see `fleetdesk-ocpi` for the modules and vendor extensions) to energy,
//! the eMSP, over HTTP, so sessions, holds and captures run end to end
//! without the operator's platform.
//!
//! - [`network`]: stations in several cities with DC and AC piles, priced
//!   by provincial time-of-use tariffs ([`tariff`]: peak, flat and valley
//!   electricity prices and service fees in fen per MWh).
//! - [`platform`]: sessions started by card or by plate (the camera's
//!   recognition pushed first), authorised in real time by the eMSP,
//!   updated with energy and cost so far ([`meter`]), stopped locally or by
//!   the eMSP's STOP_SESSION, and accounted for by a CDR.
//! - [`emsp`]: the platform's calls to the eMSP, after it registered
//!   itself through the credentials handshake: given only the eMSP's
//!   versions URL and bootstrap token A, it posts its credentials (its
//!   token B, its versions URL) and presents the token C answered.
//! - `routes`: the platform's versions, version details, credentials and
//!   OCPI modules (locations, tariffs, commands) behind its token B, and
//!   an admin API (`/admin/locations` to
//!   pick a station, `/admin/sessions`: start, advance, stop, resend the
//!   CDR) mirroring [`StandIn`]'s methods, which
//!   tests call directly.
//! - [`generator`]: a development stack's steady trickle of sessions for
//!   the fleet the eMSP's token list names.

pub mod emsp;
pub mod generator;
pub mod meter;
pub mod network;
pub mod platform;
mod routes;
pub mod tariff;

use std::future::{Future, IntoFuture as _};

use tokio::net::TcpListener;

pub use generator::Generation;
pub use platform::{
    SessionView, Settings, StandIn, StandInError, StartOutcome, StartRequest, StopCause,
};

/// The party id the stand-in publishes under (country CN).
pub const PARTY_ID: &str = "SDC";

/// Serves the platform on `listener` and registers it with the eMSP
/// (retrying until the eMSP answers) until `shutdown` completes, starting
/// sessions by itself when `generation` is given.
pub async fn serve(
    listener: TcpListener,
    standin: StandIn,
    generation: Option<Generation>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "Charging platform stand-in listening.");
    let server = axum::serve(listener, standin.router())
        .with_graceful_shutdown(shutdown)
        .into_future();
    // The listener is bound: the eMSP's calls back during the registration
    // wait in its backlog until the server takes them.
    let registering = {
        let standin = standin.clone();
        tokio::spawn(async move { standin.register().await })
    };
    let served = match generation {
        Some(g) => {
            tracing::info!(
                sessions_per_minute = g.sessions_per_minute,
                "Generating charging sessions."
            );
            // The generator never ends by itself: it stops with the server.
            tokio::select! {
                served = server => served,
                () = generator::run(standin, g) => Ok(()),
            }
        }
        None => server.await,
    };
    registering.abort();
    served
}
