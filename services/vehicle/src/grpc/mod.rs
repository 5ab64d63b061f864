//! The thin gRPC layer: the services the vehicle target hosts. Each method
//! is one line into its subject's handlers (fleetdesk-assets for
//! AssetService, fleetdesk-telemetry for TelemetryService, the terminal
//! directory and RiskService's alarms, fleetdesk-risk for RiskService's
//! accidents, service records and warnings, fleetdesk-maintenance for
//! MaintenanceService's plans and reminders); RPCs not built yet are listed
//! in `not_built`.

mod asset;
mod directory;
mod maintenance;
mod not_built;
mod risk;
mod telemetry;

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::grpc::{self, Services};
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_proto::telematics::v1::terminal_directory_service_server::TerminalDirectoryServiceServer;
use fleetdesk_proto::vehicle::v1::asset_service_server::AssetServiceServer;
use fleetdesk_proto::vehicle::v1::maintenance_service_server::MaintenanceServiceServer;
use fleetdesk_proto::vehicle::v1::risk_service_server::RiskServiceServer;
use fleetdesk_proto::vehicle::v1::telemetry_service_server::TelemetryServiceServer;
use tonic::{Response, Status};

/// Every service of the vehicle target, behind the internal-token check.
pub fn services(
    assets: fleetdesk_assets::context::Context,
    telemetry: fleetdesk_telemetry::context::Context,
    risk: fleetdesk_risk::context::Context,
    maintenance: fleetdesk_maintenance::context::Context,
    verifier: TokenVerifier,
) -> Services {
    let check = grpc::authenticate(verifier);
    Services::new(AssetServiceServer::with_interceptor(
        asset::AssetApi(assets),
        check.clone(),
    ))
    .with(TelemetryServiceServer::with_interceptor(
        telemetry::TelemetryApi(telemetry.clone()),
        check.clone(),
    ))
    .with(TerminalDirectoryServiceServer::with_interceptor(
        directory::DirectoryApi(telemetry.clone()),
        check.clone(),
    ))
    .with(RiskServiceServer::with_interceptor(
        risk::RiskApi(telemetry, risk),
        check.clone(),
    ))
    .with(MaintenanceServiceServer::with_interceptor(
        maintenance::MaintenanceApi(maintenance),
        check,
    ))
}

/// A handler's answer as a gRPC response.
fn respond<T>(result: Result<T, ServiceError>) -> Result<Response<T>, Status> {
    result.map(Response::new).map_err(Status::from)
}
