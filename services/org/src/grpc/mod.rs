//! The thin gRPC layer: the one service org hosts (OrgService), each method
//! one line into its subject's handlers. Tenant-owned calls take the
//! enterprise from the verified caller, never from the request, so another
//! tenant's id is simply not found.

mod org;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_proto::org::v1::org_service_server::OrgServiceServer;
use tonic::{Response, Status};

use crate::context::Context;

/// Every service of the org target, behind the internal-token check.
pub fn services(context: Context, verifier: TokenVerifier) -> Services {
    Services::new(OrgServiceServer::with_interceptor(
        org::OrgApi(context),
        grpc::authenticate(verifier),
    ))
}

/// A handler's answer as a gRPC response.
fn respond<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}
