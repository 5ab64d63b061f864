//! The thin gRPC layer: EnergyService, each method one line into its
//! subject's handlers.

mod actor;
mod energy;

pub use actor::Actor;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::{TokenSigner, TokenVerifier};
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
