//! The charging platform as the subjects meet it: energy's party id on
//! it, the registered platform's link ([`Platform`]) and the client of its
//! modules ([`client`]). The OCPI layer (`crate::ocpi`) registers a
//! platform and hands its link to the subject it calls; the subjects reach
//! the platform through this, never through that layer.

pub mod client;

use fleetdesk_ocpi::EMSP_BASE;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use self::client::Cpo;
use crate::ledger::CaptureGroup;

/// Energy's OCPI party id (country CN): the issuer of its tokens.
pub const EMSP_PARTY_ID: &str = "FDK";

/// A registered platform as the receiver and the subjects use it: the
/// pool, the platform's client, where the platform reaches the receiver,
/// and the group its sessions' captures are posted through.
#[derive(Clone)]
pub struct Platform {
    pub pool: PgPool,
    pub cpo: Cpo,
    public_url: String,
    /// Writes on a pool of its own, not `pool`: a settlement waits for
    /// its capture holding a connection of `pool`.
    pub captures: CaptureGroup,
}

impl std::fmt::Debug for Platform {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Platform")
            .field("cpo", &self.cpo)
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

impl Platform {
    pub fn new(pool: PgPool, cpo: Cpo, public_url: String, captures: CaptureGroup) -> Platform {
        Platform {
            pool,
            cpo,
            public_url,
            captures,
        }
    }

    /// The receiver's URL of `path` (under [`EMSP_BASE`]).
    pub fn url(&self, path: &str) -> String {
        format!("{}{EMSP_BASE}/{path}", self.public_url)
    }

    /// Where the platform posts the result of a STOP_SESSION for `session`.
    pub fn command_result_url(&self, session: Uuid) -> String {
        format!(
            "{}{EMSP_BASE}/commands/STOP_SESSION/{session}",
            self.public_url
        )
    }
}
