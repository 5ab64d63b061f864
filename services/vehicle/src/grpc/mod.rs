//! The thin gRPC layer: the services the vehicle target hosts. Each method
//! is one line into its subject's handlers; AssetService, TelemetryService
//! (positions, remote lock) and the terminal directory are built, the
//! others answer UNIMPLEMENTED until their issues build them.

mod asset;
mod directory;
mod telemetry;

pub use fleetdesk_kit::actor::Actor;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_proto::telematics::v1::terminal_directory_service_server::TerminalDirectoryServiceServer;
use fleetdesk_proto::vehicle::v1::asset_service_server::AssetServiceServer;
use fleetdesk_proto::vehicle::v1::maintenance_service_server::{
    MaintenanceService, MaintenanceServiceServer,
};
use fleetdesk_proto::vehicle::v1::risk_service_server::{RiskService, RiskServiceServer};
use fleetdesk_proto::vehicle::v1::telemetry_service_server::TelemetryServiceServer;
use sqlx::PgPool;
use tonic::{Response, Status};

/// What every handler shares.
#[derive(Debug, Clone)]
pub struct Context {
    pub pool: PgPool,
    /// The object store (import files the gateway stored).
    pub files: FileStore,
    /// NATS: lock commands to the device edge.
    pub nats: async_nats::Client,
    /// The live position feed (WatchPositions).
    pub live: crate::positions::live::Live,
}

/// Every service of the vehicle target, behind the internal-token check.
pub fn services(context: Context, verifier: TokenVerifier) -> Services {
    let check = grpc::authenticate(verifier);
    Services::new(AssetServiceServer::with_interceptor(
        asset::AssetApi(context.clone()),
        check.clone(),
    ))
    .with(TelemetryServiceServer::with_interceptor(
        telemetry::TelemetryApi(context.clone()),
        check.clone(),
    ))
    .with(TerminalDirectoryServiceServer::with_interceptor(
        directory::DirectoryApi(context),
        check.clone(),
    ))
    .with(RiskServiceServer::with_interceptor(NotBuilt, check.clone()))
    .with(MaintenanceServiceServer::with_interceptor(NotBuilt, check))
}

/// A service whose issue has not been built: every RPC answers UNIMPLEMENTED.
#[derive(Debug, Clone, Copy)]
struct NotBuilt;

impl RiskService for NotBuilt {}
impl MaintenanceService for NotBuilt {}

/// A handler's answer as a gRPC response.
fn respond<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}
