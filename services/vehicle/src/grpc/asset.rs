//! AssetService: each RPC one line into its subject's handlers.

use fleetdesk_assets::context::Context;
use fleetdesk_assets::{bindings, drivers, oplog_list, private_cars, templates, usage, vehicles};
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::asset_service_server::AssetService;
use tonic::{Request, Response, Status};

use super::respond;

#[derive(Debug, Clone)]
pub struct AssetApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl AssetService for AssetApi {
    async fn list_vehicles(
        &self,
        req: Request<pb::ListVehiclesRequest>,
    ) -> Answer<pb::ListVehiclesResponse> {
        respond(vehicles::handlers::list(&self.0, req).await)
    }

    async fn get_vehicle(
        &self,
        req: Request<pb::GetVehicleRequest>,
    ) -> Answer<pb::GetVehicleResponse> {
        respond(vehicles::handlers::get(&self.0, req).await)
    }

    async fn create_vehicle(
        &self,
        req: Request<pb::CreateVehicleRequest>,
    ) -> Answer<pb::CreateVehicleResponse> {
        respond(vehicles::handlers::create(&self.0, req).await)
    }

    async fn update_vehicle(
        &self,
        req: Request<pb::UpdateVehicleRequest>,
    ) -> Answer<pb::UpdateVehicleResponse> {
        respond(vehicles::handlers::update(&self.0, req).await)
    }

    async fn export_vehicles(
        &self,
        req: Request<pb::ExportVehiclesRequest>,
    ) -> Answer<pb::ExportVehiclesResponse> {
        respond(vehicles::handlers::export(&self.0, req).await)
    }

    async fn import_vehicles(
        &self,
        req: Request<pb::ImportVehiclesRequest>,
    ) -> Answer<pb::ImportVehiclesResponse> {
        respond(vehicles::handlers::import(&self.0, req).await)
    }

    async fn list_vehicle_brand_types(
        &self,
        req: Request<pb::ListVehicleBrandTypesRequest>,
    ) -> Answer<pb::ListVehicleBrandTypesResponse> {
        respond(vehicles::handlers::brand_types(&self.0, req).await)
    }

    async fn pick_vehicles(
        &self,
        req: Request<pb::PickVehiclesRequest>,
    ) -> Answer<pb::PickVehiclesResponse> {
        respond(vehicles::handlers::pick(&self.0, req).await)
    }

    async fn pick_drivers(
        &self,
        req: Request<pb::PickDriversRequest>,
    ) -> Answer<pb::PickDriversResponse> {
        respond(drivers::handlers::pick(&self.0, req).await)
    }

    async fn list_vehicle_bindings(
        &self,
        req: Request<pb::ListVehicleBindingsRequest>,
    ) -> Answer<pb::ListVehicleBindingsResponse> {
        respond(bindings::handlers::list(&self.0, req).await)
    }

    async fn bind_vehicle(
        &self,
        req: Request<pb::BindVehicleRequest>,
    ) -> Answer<pb::BindVehicleResponse> {
        respond(bindings::handlers::bind(&self.0, req).await)
    }

    async fn unbind_vehicle(
        &self,
        req: Request<pb::UnbindVehicleRequest>,
    ) -> Answer<pb::UnbindVehicleResponse> {
        respond(bindings::handlers::unbind(&self.0, req).await)
    }

    async fn export_vehicle_bindings(
        &self,
        req: Request<pb::ExportVehicleBindingsRequest>,
    ) -> Answer<pb::ExportVehicleBindingsResponse> {
        respond(bindings::handlers::export(&self.0, req).await)
    }

    async fn list_private_cars(
        &self,
        req: Request<pb::ListPrivateCarsRequest>,
    ) -> Answer<pb::ListPrivateCarsResponse> {
        respond(private_cars::handlers::list(&self.0, req).await)
    }

    async fn create_private_car(
        &self,
        req: Request<pb::CreatePrivateCarRequest>,
    ) -> Answer<pb::CreatePrivateCarResponse> {
        respond(private_cars::handlers::create(&self.0, req).await)
    }

    async fn review_private_car(
        &self,
        req: Request<pb::ReviewPrivateCarRequest>,
    ) -> Answer<pb::ReviewPrivateCarResponse> {
        respond(private_cars::handlers::review(&self.0, req).await)
    }

    async fn export_private_cars(
        &self,
        req: Request<pb::ExportPrivateCarsRequest>,
    ) -> Answer<pb::ExportPrivateCarsResponse> {
        respond(private_cars::handlers::export(&self.0, req).await)
    }

    async fn list_usage_records(
        &self,
        req: Request<pb::ListUsageRecordsRequest>,
    ) -> Answer<pb::ListUsageRecordsResponse> {
        respond(usage::handlers::list(&self.0, req).await)
    }

    async fn get_usage_record(
        &self,
        req: Request<pb::GetUsageRecordRequest>,
    ) -> Answer<pb::GetUsageRecordResponse> {
        respond(usage::handlers::get(&self.0, req).await)
    }

    async fn create_usage_record(
        &self,
        req: Request<pb::CreateUsageRecordRequest>,
    ) -> Answer<pb::CreateUsageRecordResponse> {
        respond(usage::handlers::create(&self.0, req).await)
    }

    async fn update_usage_record(
        &self,
        req: Request<pb::UpdateUsageRecordRequest>,
    ) -> Answer<pb::UpdateUsageRecordResponse> {
        respond(usage::handlers::update(&self.0, req).await)
    }

    async fn end_usage_record(
        &self,
        req: Request<pb::EndUsageRecordRequest>,
    ) -> Answer<pb::EndUsageRecordResponse> {
        respond(usage::handlers::end(&self.0, req).await)
    }

    async fn export_usage_records(
        &self,
        req: Request<pb::ExportUsageRecordsRequest>,
    ) -> Answer<pb::ExportUsageRecordsResponse> {
        respond(usage::handlers::export(&self.0, req).await)
    }

    async fn list_drivers(
        &self,
        req: Request<pb::ListDriversRequest>,
    ) -> Answer<pb::ListDriversResponse> {
        respond(drivers::handlers::list(&self.0, req).await)
    }

    async fn get_driver(
        &self,
        req: Request<pb::GetDriverRequest>,
    ) -> Answer<pb::GetDriverResponse> {
        respond(drivers::handlers::get(&self.0, req).await)
    }

    async fn create_driver(
        &self,
        req: Request<pb::CreateDriverRequest>,
    ) -> Answer<pb::CreateDriverResponse> {
        respond(drivers::handlers::create(&self.0, req).await)
    }

    async fn update_driver(
        &self,
        req: Request<pb::UpdateDriverRequest>,
    ) -> Answer<pb::UpdateDriverResponse> {
        respond(drivers::handlers::update(&self.0, req).await)
    }

    async fn reveal_driver_sensitive(
        &self,
        req: Request<pb::RevealDriverSensitiveRequest>,
    ) -> Answer<pb::RevealDriverSensitiveResponse> {
        respond(drivers::handlers::reveal(&self.0, req).await)
    }

    async fn export_drivers(
        &self,
        req: Request<pb::ExportDriversRequest>,
    ) -> Answer<pb::ExportDriversResponse> {
        respond(drivers::handlers::export(&self.0, req).await)
    }

    async fn import_drivers(
        &self,
        req: Request<pb::ImportDriversRequest>,
    ) -> Answer<pb::ImportDriversResponse> {
        respond(drivers::handlers::import(&self.0, req).await)
    }

    async fn get_import_template(
        &self,
        req: Request<pb::GetImportTemplateRequest>,
    ) -> Answer<pb::GetImportTemplateResponse> {
        respond(templates::template(&req))
    }

    async fn list_operation_logs(
        &self,
        req: Request<pb::ListOperationLogsRequest>,
    ) -> Answer<pb::ListOperationLogsResponse> {
        respond(oplog_list::list(&self.0, req).await)
    }
}
