//! MaintenanceService: each RPC one line into its subject's handlers in
//! fleetdesk-maintenance (service plans, maintenance reminders, traffic
//! violations);
//! the RPCs of the subjects not built yet answer UNIMPLEMENTED through
//! [`not_built`] (listed there), since a service's RPCs share one impl.

use fleetdesk_maintenance::context::Context;
use fleetdesk_maintenance::{plans, reminders, violations};
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_server::MaintenanceService;
use tonic::{Request, Response, Status};

use super::not_built::maintenance_not_built as unbuilt;
use super::respond;

/// The vehicle-management handlers' context (fleetdesk-maintenance).
#[derive(Debug, Clone)]
pub struct MaintenanceApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl MaintenanceService for MaintenanceApi {
    async fn list_violations(
        &self,
        req: Request<pb::ListViolationsRequest>,
    ) -> Answer<pb::ListViolationsResponse> {
        respond(violations::handlers::list(&self.0, req).await)
    }

    async fn get_violation(
        &self,
        req: Request<pb::GetViolationRequest>,
    ) -> Answer<pb::GetViolationResponse> {
        respond(violations::handlers::get(&self.0, req).await)
    }

    async fn handle_violation(
        &self,
        req: Request<pb::HandleViolationRequest>,
    ) -> Answer<pb::HandleViolationResponse> {
        respond(violations::handlers::handle(&self.0, req).await)
    }

    async fn assign_violation(
        &self,
        req: Request<pb::AssignViolationRequest>,
    ) -> Answer<pb::AssignViolationResponse> {
        respond(violations::handlers::assign(&self.0, req).await)
    }

    async fn pay_violation(
        &self,
        req: Request<pb::PayViolationRequest>,
    ) -> Answer<pb::PayViolationResponse> {
        respond(violations::handlers::pay(&self.0, req).await)
    }

    async fn export_violations(
        &self,
        req: Request<pb::ExportViolationsRequest>,
    ) -> Answer<pb::ExportViolationsResponse> {
        respond(violations::handlers::export(&self.0, req).await)
    }

    async fn import_violations(
        &self,
        req: Request<pb::ImportViolationsRequest>,
    ) -> Answer<pb::ImportViolationsResponse> {
        respond(violations::handlers::import(&self.0, req).await)
    }

    async fn list_maintenance_reminders(
        &self,
        req: Request<pb::ListMaintenanceRemindersRequest>,
    ) -> Answer<pb::ListMaintenanceRemindersResponse> {
        respond(reminders::handlers::list(&self.0, req).await)
    }

    async fn complete_maintenance_reminder(
        &self,
        req: Request<pb::CompleteMaintenanceReminderRequest>,
    ) -> Answer<pb::CompleteMaintenanceReminderResponse> {
        respond(reminders::handlers::complete(&self.0, req).await)
    }

    async fn get_maintenance_reminder(
        &self,
        req: Request<pb::GetMaintenanceReminderRequest>,
    ) -> Answer<pb::GetMaintenanceReminderResponse> {
        respond(reminders::handlers::get(&self.0, req).await)
    }

    async fn export_maintenance_reminders(
        &self,
        req: Request<pb::ExportMaintenanceRemindersRequest>,
    ) -> Answer<pb::ExportMaintenanceRemindersResponse> {
        respond(reminders::handlers::export(&self.0, req).await)
    }

    async fn list_maintenance_plans(
        &self,
        req: Request<pb::ListMaintenancePlansRequest>,
    ) -> Answer<pb::ListMaintenancePlansResponse> {
        respond(plans::handlers::list(&self.0, req).await)
    }

    async fn create_maintenance_plan(
        &self,
        req: Request<pb::CreateMaintenancePlanRequest>,
    ) -> Answer<pb::CreateMaintenancePlanResponse> {
        respond(plans::handlers::create(&self.0, req).await)
    }

    async fn update_maintenance_plan(
        &self,
        req: Request<pb::UpdateMaintenancePlanRequest>,
    ) -> Answer<pb::UpdateMaintenancePlanResponse> {
        respond(plans::handlers::update(&self.0, req).await)
    }

    async fn delete_maintenance_plan(
        &self,
        req: Request<pb::DeleteMaintenancePlanRequest>,
    ) -> Answer<pb::DeleteMaintenancePlanResponse> {
        respond(plans::handlers::delete(&self.0, req).await)
    }

    async fn list_annual_inspections(
        &self,
        _req: Request<pb::ListAnnualInspectionsRequest>,
    ) -> Answer<pb::ListAnnualInspectionsResponse> {
        Err(unbuilt("ListAnnualInspections"))
    }

    async fn record_annual_inspection(
        &self,
        _req: Request<pb::RecordAnnualInspectionRequest>,
    ) -> Answer<pb::RecordAnnualInspectionResponse> {
        Err(unbuilt("RecordAnnualInspection"))
    }

    async fn list_repair_orders(
        &self,
        _req: Request<pb::ListRepairOrdersRequest>,
    ) -> Answer<pb::ListRepairOrdersResponse> {
        Err(unbuilt("ListRepairOrders"))
    }

    async fn get_repair_order(
        &self,
        _req: Request<pb::GetRepairOrderRequest>,
    ) -> Answer<pb::GetRepairOrderResponse> {
        Err(unbuilt("GetRepairOrder"))
    }

    async fn create_repair_order(
        &self,
        _req: Request<pb::CreateRepairOrderRequest>,
    ) -> Answer<pb::CreateRepairOrderResponse> {
        Err(unbuilt("CreateRepairOrder"))
    }

    async fn submit_repair_quote(
        &self,
        _req: Request<pb::SubmitRepairQuoteRequest>,
    ) -> Answer<pb::SubmitRepairQuoteResponse> {
        Err(unbuilt("SubmitRepairQuote"))
    }

    async fn confirm_repair_price(
        &self,
        _req: Request<pb::ConfirmRepairPriceRequest>,
    ) -> Answer<pb::ConfirmRepairPriceResponse> {
        Err(unbuilt("ConfirmRepairPrice"))
    }

    async fn cancel_repair_order(
        &self,
        _req: Request<pb::CancelRepairOrderRequest>,
    ) -> Answer<pb::CancelRepairOrderResponse> {
        Err(unbuilt("CancelRepairOrder"))
    }

    async fn complete_repair_order(
        &self,
        _req: Request<pb::CompleteRepairOrderRequest>,
    ) -> Answer<pb::CompleteRepairOrderResponse> {
        Err(unbuilt("CompleteRepairOrder"))
    }

    async fn list_repair_statements(
        &self,
        _req: Request<pb::ListRepairStatementsRequest>,
    ) -> Answer<pb::ListRepairStatementsResponse> {
        Err(unbuilt("ListRepairStatements"))
    }

    async fn get_repair_statement(
        &self,
        _req: Request<pb::GetRepairStatementRequest>,
    ) -> Answer<pb::GetRepairStatementResponse> {
        Err(unbuilt("GetRepairStatement"))
    }

    async fn confirm_repair_statement(
        &self,
        _req: Request<pb::ConfirmRepairStatementRequest>,
    ) -> Answer<pb::ConfirmRepairStatementResponse> {
        Err(unbuilt("ConfirmRepairStatement"))
    }

    async fn list_repair_bills(
        &self,
        _req: Request<pb::ListRepairBillsRequest>,
    ) -> Answer<pb::ListRepairBillsResponse> {
        Err(unbuilt("ListRepairBills"))
    }

    async fn get_repair_bill(
        &self,
        _req: Request<pb::GetRepairBillRequest>,
    ) -> Answer<pb::GetRepairBillResponse> {
        Err(unbuilt("GetRepairBill"))
    }

    async fn list_insurance_policies(
        &self,
        _req: Request<pb::ListInsurancePoliciesRequest>,
    ) -> Answer<pb::ListInsurancePoliciesResponse> {
        Err(unbuilt("ListInsurancePolicies"))
    }
}
