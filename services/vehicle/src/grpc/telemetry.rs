//! TelemetryService: each RPC one line into its subject's handlers. The
//! geofence RPCs are built; the others (positions, temperatures, lock,
//! operation reports) answer UNIMPLEMENTED until their modules land here.

use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::telemetry_service_server::TelemetryService;
use tonic::{Request, Response, Status};

use super::{Context, respond};
use crate::geofences::handlers as geofences;

#[derive(Debug, Clone)]
pub struct TelemetryApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl TelemetryService for TelemetryApi {
    // --- Geofences ---

    async fn list_geofences(
        &self,
        req: Request<pb::ListGeofencesRequest>,
    ) -> Answer<pb::ListGeofencesResponse> {
        respond(geofences::list(&self.0, req).await)
    }

    async fn get_geofence(
        &self,
        req: Request<pb::GetGeofenceRequest>,
    ) -> Answer<pb::GetGeofenceResponse> {
        respond(geofences::get(&self.0, req).await)
    }

    async fn create_geofence(
        &self,
        req: Request<pb::CreateGeofenceRequest>,
    ) -> Answer<pb::CreateGeofenceResponse> {
        respond(geofences::create(&self.0, req).await)
    }

    async fn update_geofence(
        &self,
        req: Request<pb::UpdateGeofenceRequest>,
    ) -> Answer<pb::UpdateGeofenceResponse> {
        respond(geofences::update(&self.0, req).await)
    }

    async fn delete_geofence(
        &self,
        req: Request<pb::DeleteGeofenceRequest>,
    ) -> Answer<pb::DeleteGeofenceResponse> {
        respond(geofences::delete(&self.0, req).await)
    }

    async fn get_geofence_dashboard(
        &self,
        req: Request<pb::GetGeofenceDashboardRequest>,
    ) -> Answer<pb::GetGeofenceDashboardResponse> {
        respond(geofences::dashboard(&self.0, req).await)
    }

    async fn list_geofence_crossings(
        &self,
        req: Request<pb::ListGeofenceCrossingsRequest>,
    ) -> Answer<pb::ListGeofenceCrossingsResponse> {
        respond(geofences::crossings(&self.0, req).await)
    }

    async fn export_geofence_crossings(
        &self,
        req: Request<pb::ExportGeofenceCrossingsRequest>,
    ) -> Answer<pb::ExportGeofenceCrossingsResponse> {
        respond(geofences::export_crossings(&self.0, req).await)
    }

    async fn list_vehicles_in_geofence(
        &self,
        req: Request<pb::ListVehiclesInGeofenceRequest>,
    ) -> Answer<pb::ListVehiclesInGeofenceResponse> {
        respond(geofences::inside(&self.0, req).await)
    }

    async fn list_geofence_sign_ins(
        &self,
        req: Request<pb::ListGeofenceSignInsRequest>,
    ) -> Answer<pb::ListGeofenceSignInsResponse> {
        respond(geofences::sign_ins(&self.0, req).await)
    }

    async fn list_geofence_alarms(
        &self,
        req: Request<pb::ListGeofenceAlarmsRequest>,
    ) -> Answer<pb::ListGeofenceAlarmsResponse> {
        respond(geofences::alarms(&self.0, req).await)
    }
}
