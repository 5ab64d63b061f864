//! TelemetryService: each RPC one line into its subject's handlers.
//! Positions and remote lock are built here; the geofence RPCs come with
//! the geofences module (until then the trait's UNIMPLEMENTED answers).

use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::telemetry_service_server::TelemetryService;
use tonic::{Request, Response, Status};

use super::{Context, respond};
use crate::{lock, positions};

#[derive(Debug, Clone)]
pub struct TelemetryApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;
type BoxStream<T> = std::pin::Pin<Box<dyn futures::Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl TelemetryService for TelemetryApi {
    // --- Positions ---

    async fn list_latest_positions(
        &self,
        req: Request<pb::ListLatestPositionsRequest>,
    ) -> Answer<pb::ListLatestPositionsResponse> {
        respond(positions::handlers::list_latest(&self.0, req).await)
    }

    async fn list_position_history(
        &self,
        req: Request<pb::ListPositionHistoryRequest>,
    ) -> Answer<pb::ListPositionHistoryResponse> {
        respond(positions::handlers::history(&self.0, req).await)
    }

    async fn export_position_history(
        &self,
        req: Request<pb::ExportPositionHistoryRequest>,
    ) -> Answer<pb::ExportPositionHistoryResponse> {
        respond(positions::handlers::export(&self.0, req).await)
    }

    async fn watch_positions(
        &self,
        req: Request<pb::WatchPositionsRequest>,
    ) -> Answer<BoxStream<pb::WatchPositionsResponse>> {
        respond(
            positions::handlers::watch(&self.0, req)
                .await
                .map(|s| Box::pin(s) as BoxStream<_>),
        )
    }

    // --- Remote lock ---

    async fn list_lock_commands(
        &self,
        req: Request<pb::ListLockCommandsRequest>,
    ) -> Answer<pb::ListLockCommandsResponse> {
        respond(lock::handlers::list(&self.0, req).await)
    }

    async fn lock_vehicle(
        &self,
        req: Request<pb::LockVehicleRequest>,
    ) -> Answer<pb::LockVehicleResponse> {
        respond(lock::handlers::lock(&self.0, req).await)
    }

    async fn unlock_vehicle(
        &self,
        req: Request<pb::UnlockVehicleRequest>,
    ) -> Answer<pb::UnlockVehicleResponse> {
        respond(lock::handlers::unlock(&self.0, req).await)
    }

    async fn list_lock_vehicles(
        &self,
        req: Request<pb::ListLockVehiclesRequest>,
    ) -> Answer<pb::ListLockVehiclesResponse> {
        respond(lock::handlers::vehicles(&self.0, req).await)
    }
}
