//! What a request runs with: who asks ([`Actor`], kit's: tenant, reach,
//! permission checked) and what every handler shares ([`Context`]: the pool
//! and the clients of the services energy reads), plus the key a money
//! write runs under. Subjects take these from here, not from the gRPC
//! layer, so that layer stays a thin one above them.

pub use fleetdesk_kit::actor::Actor;

use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::{ServiceError, idempotency};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use sqlx_postgres::PgPool;
use tonic::transport::Channel;

use crate::telemetry::Distances;
use crate::vehicles::Vehicles;

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct Context {
    pub pool: PgPool,
    /// Org, for enterprise names on applications (None: names stay empty).
    pub org: Option<(OrgServiceClient<Channel>, TokenSigner)>,
    /// The vehicle service, for the vehicles and drivers cards are bound to.
    pub vehicles: Option<Vehicles>,
    /// The vehicle service's telemetry, for the kilometres of the analysis.
    pub distances: Option<Distances>,
    /// The object store (statement workbooks).
    pub files: FileStore,
}

/// The key of a money write: the `Idempotency-Key` header, else the
/// request's own `idempotency_key` field; one of them is required, since
/// every money write must be safe to retry.
pub fn money_key(actor: &Actor, body_key: &str) -> Result<String, ServiceError> {
    match (&actor.idempotency_key, body_key.trim()) {
        (Some(key), _) => Ok(key.clone()),
        (None, "") => Err(ServiceError::invalid(
            idempotency::HEADER,
            "资金操作须携带幂等键（Idempotency-Key）",
        )),
        (None, key) if key.len() <= 128 && key.bytes().all(|b| b.is_ascii_graphic()) => {
            Ok(key.to_owned())
        }
        (None, _) => Err(ServiceError::invalid(
            "idempotencyKey",
            "幂等键须为 1 到 128 个可见 ASCII 字符",
        )),
    }
}
