//! Every RPC the vehicle target hosts but has not built: RiskService's
//! video clips (the video issue's); MaintenanceService is built whole. A
//! service's RPCs share one impl, so each is answered from its impl
//! through [`not_built`], answering UNIMPLEMENTED naming itself, so a
//! caller knows what is missing rather than guessing.

use fleetdesk_kit::grpc;
use tonic::Status;

/// The answer of an unbuilt RPC `method` of `service` (e.g. "RiskService").
pub fn not_built(service: &str, method: &str) -> Status {
    grpc::not_built(&format!("fleetdesk.vehicle.v1.{service}/{method}"))
}
