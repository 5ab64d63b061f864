//! The thin gRPC layer: FinanceService, each method one line into its
//! subject's handlers (every RPC of the contract is built).

mod finance;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_proto::finance::v1::finance_service_server::FinanceServiceServer;
use tonic::{Response, Status};

use crate::context::Context;

/// Every service of the finance target, behind the internal-token check.
pub fn services(context: Context, verifier: TokenVerifier) -> Services {
    Services::new(FinanceServiceServer::with_interceptor(
        finance::FinanceApi(context),
        grpc::authenticate(verifier),
    ))
}

/// A handler's answer as a gRPC response.
fn respond<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}
