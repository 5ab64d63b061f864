//! TelemetryService: each RPC one line into its subject's handlers
//! (positions, remote lock, geofences, temperatures, operation logs).

use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::telemetry_service_server::TelemetryService;
use fleetdesk_telemetry::context::Context;
use fleetdesk_telemetry::geofences::handlers as geofences;
use fleetdesk_telemetry::temperature::handlers as temperature;
use fleetdesk_telemetry::{cameras, lock, operation, positions, safety};
use tonic::{Request, Response, Status};

use super::respond;

#[derive(Debug, Clone)]
pub struct TelemetryApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;
type BoxStream<T> = std::pin::Pin<Box<dyn futures::Stream<Item = Result<T, Status>> + Send>>;

#[tonic::async_trait]
impl TelemetryService for TelemetryApi {
    type WatchPositionsStream = BoxStream<pb::WatchPositionsResponse>;

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

    async fn list_vehicle_distances(
        &self,
        req: Request<pb::ListVehicleDistancesRequest>,
    ) -> Answer<pb::ListVehicleDistancesResponse> {
        respond(positions::handlers::distances(&self.0, req).await)
    }

    async fn watch_positions(
        &self,
        req: Request<pb::WatchPositionsRequest>,
    ) -> Answer<Self::WatchPositionsStream> {
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

    // --- Temperature ---

    async fn list_temperature_readings(
        &self,
        req: Request<pb::ListTemperatureReadingsRequest>,
    ) -> Answer<pb::ListTemperatureReadingsResponse> {
        respond(temperature::readings(&self.0, req).await)
    }

    async fn set_temperature_threshold(
        &self,
        req: Request<pb::SetTemperatureThresholdRequest>,
    ) -> Answer<pb::SetTemperatureThresholdResponse> {
        respond(temperature::set_threshold(&self.0, req).await)
    }

    async fn list_temperature_thresholds(
        &self,
        req: Request<pb::ListTemperatureThresholdsRequest>,
    ) -> Answer<pb::ListTemperatureThresholdsResponse> {
        respond(temperature::thresholds(&self.0, req).await)
    }

    async fn list_temperature_alarms(
        &self,
        req: Request<pb::ListTemperatureAlarmsRequest>,
    ) -> Answer<pb::ListTemperatureAlarmsResponse> {
        respond(temperature::alarms(&self.0, req).await)
    }

    async fn export_temperature_alarms(
        &self,
        req: Request<pb::ExportTemperatureAlarmsRequest>,
    ) -> Answer<pb::ExportTemperatureAlarmsResponse> {
        respond(temperature::export_alarms(&self.0, req).await)
    }

    async fn create_temperature_share(
        &self,
        req: Request<pb::CreateTemperatureShareRequest>,
    ) -> Answer<pb::CreateTemperatureShareResponse> {
        respond(temperature::create_share(&self.0, req).await)
    }

    async fn list_temperature_shares(
        &self,
        req: Request<pb::ListTemperatureSharesRequest>,
    ) -> Answer<pb::ListTemperatureSharesResponse> {
        respond(temperature::shares(&self.0, req).await)
    }

    async fn revoke_temperature_share(
        &self,
        req: Request<pb::RevokeTemperatureShareRequest>,
    ) -> Answer<pb::RevokeTemperatureShareResponse> {
        respond(temperature::revoke_share(&self.0, req).await)
    }

    async fn get_shared_temperature(
        &self,
        req: Request<pb::GetSharedTemperatureRequest>,
    ) -> Answer<pb::GetSharedTemperatureResponse> {
        respond(temperature::shared(&self.0, req).await)
    }

    async fn list_temperature_vehicles(
        &self,
        req: Request<pb::ListTemperatureVehiclesRequest>,
    ) -> Answer<pb::ListTemperatureVehiclesResponse> {
        respond(temperature::vehicles(&self.0, req).await)
    }

    async fn list_temperature_series(
        &self,
        req: Request<pb::ListTemperatureSeriesRequest>,
    ) -> Answer<pb::ListTemperatureSeriesResponse> {
        respond(temperature::series(&self.0, req).await)
    }

    // --- Video: cameras and the viewing audit ---

    async fn list_camera_vehicles(
        &self,
        req: Request<pb::ListCameraVehiclesRequest>,
    ) -> Answer<pb::ListCameraVehiclesResponse> {
        respond(cameras::handlers::list(&self.0, req).await)
    }

    async fn get_camera_vehicle(
        &self,
        req: Request<pb::GetCameraVehicleRequest>,
    ) -> Answer<pb::GetCameraVehicleResponse> {
        respond(cameras::handlers::get(&self.0, req).await)
    }

    async fn start_video_view(
        &self,
        req: Request<pb::StartVideoViewRequest>,
    ) -> Answer<pb::StartVideoViewResponse> {
        respond(cameras::handlers::start_view(&self.0, req).await)
    }

    async fn end_video_view(
        &self,
        req: Request<pb::EndVideoViewRequest>,
    ) -> Answer<pb::EndVideoViewResponse> {
        respond(cameras::handlers::end_view(&self.0, req).await)
    }

    async fn list_video_views(
        &self,
        req: Request<pb::ListVideoViewsRequest>,
    ) -> Answer<pb::ListVideoViewsResponse> {
        respond(cameras::handlers::views(&self.0, req).await)
    }

    // --- Operation reports ---

    async fn list_daily_operation_reports(
        &self,
        req: Request<pb::ListDailyOperationReportsRequest>,
    ) -> Answer<pb::ListDailyOperationReportsResponse> {
        respond(operation::handlers::daily(&self.0, req).await)
    }

    async fn list_monthly_operation_reports(
        &self,
        req: Request<pb::ListMonthlyOperationReportsRequest>,
    ) -> Answer<pb::ListMonthlyOperationReportsResponse> {
        respond(operation::handlers::monthly(&self.0, req).await)
    }

    async fn export_daily_operation_reports(
        &self,
        req: Request<pb::ExportDailyOperationReportsRequest>,
    ) -> Answer<pb::ExportDailyOperationReportsResponse> {
        respond(operation::handlers::export_daily(&self.0, req).await)
    }

    async fn export_monthly_operation_reports(
        &self,
        req: Request<pb::ExportMonthlyOperationReportsRequest>,
    ) -> Answer<pb::ExportMonthlyOperationReportsResponse> {
        respond(operation::handlers::export_monthly(&self.0, req).await)
    }

    // --- Safety report ---

    async fn get_safety_summary(
        &self,
        req: Request<pb::GetSafetySummaryRequest>,
    ) -> Answer<pb::GetSafetySummaryResponse> {
        respond(safety::handlers::summary(&self.0, req).await)
    }

    async fn list_safety_ranking(
        &self,
        req: Request<pb::ListSafetyRankingRequest>,
    ) -> Answer<pb::ListSafetyRankingResponse> {
        respond(safety::handlers::ranking(&self.0, req).await)
    }

    async fn get_safety_trend(
        &self,
        req: Request<pb::GetSafetyTrendRequest>,
    ) -> Answer<pb::GetSafetyTrendResponse> {
        respond(safety::handlers::trend(&self.0, req).await)
    }

    async fn get_safety_weights(
        &self,
        req: Request<pb::GetSafetyWeightsRequest>,
    ) -> Answer<pb::GetSafetyWeightsResponse> {
        respond(safety::handlers::weights(&self.0, req).await)
    }

    async fn update_safety_weights(
        &self,
        req: Request<pb::UpdateSafetyWeightsRequest>,
    ) -> Answer<pb::UpdateSafetyWeightsResponse> {
        respond(safety::handlers::update_weights(&self.0, req).await)
    }

    async fn export_safety_ranking(
        &self,
        req: Request<pb::ExportSafetyRankingRequest>,
    ) -> Answer<pb::ExportSafetyRankingResponse> {
        respond(safety::handlers::export(&self.0, req).await)
    }
}
