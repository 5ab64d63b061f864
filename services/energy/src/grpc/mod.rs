//! The thin gRPC layer: EnergyService, each method one line into its
//! subject's handlers.

mod energy;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_proto::energy::v1::energy_service_server::EnergyServiceServer;
use tonic::{Response, Status};

use crate::context::Context;

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
