//! The thin gRPC layer: EnergyService, each method one line into its
//! subject's handlers.

mod energy;

pub use fleetdesk_kit::actor::Actor;

use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::{TokenSigner, TokenVerifier};
use fleetdesk_kit::{ServiceError, idempotency};
use fleetdesk_proto::energy::v1::energy_service_server::EnergyServiceServer;
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use sqlx::PgPool;
use tonic::transport::Channel;
use tonic::{Response, Status};

use crate::analysis::distances::Distances;
use crate::vehicles::Vehicles;
use fleetdesk_kit::files::FileStore;

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

/// Every service of the energy target, behind the internal-token check.
pub fn services(context: Context, verifier: TokenVerifier) -> Services {
    Services::new(EnergyServiceServer::with_interceptor(
        energy::EnergyApi(context),
        grpc::authenticate(verifier),
    ))
}

/// A handler's answer as a gRPC response.
fn respond<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
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
