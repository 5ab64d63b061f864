//! MaintenanceService: each RPC one line into its subject's handlers in
//! fleetdesk-maintenance (service plans, maintenance reminders, traffic
//! violations, annual inspections, insurance policies, repair orders with
//! their configuration, records, statements and bills).

use fleetdesk_maintenance::context::Context;
use fleetdesk_maintenance::{inspections, insurance, plans, reminders, repairs, violations};
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_server::MaintenanceService;
use tonic::{Request, Response, Status};

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
        req: Request<pb::ListAnnualInspectionsRequest>,
    ) -> Answer<pb::ListAnnualInspectionsResponse> {
        respond(inspections::handlers::list(&self.0, req).await)
    }

    async fn record_annual_inspection(
        &self,
        req: Request<pb::RecordAnnualInspectionRequest>,
    ) -> Answer<pb::RecordAnnualInspectionResponse> {
        respond(inspections::handlers::record(&self.0, req).await)
    }

    async fn get_annual_inspection(
        &self,
        req: Request<pb::GetAnnualInspectionRequest>,
    ) -> Answer<pb::GetAnnualInspectionResponse> {
        respond(inspections::handlers::get(&self.0, req).await)
    }

    async fn export_annual_inspections(
        &self,
        req: Request<pb::ExportAnnualInspectionsRequest>,
    ) -> Answer<pb::ExportAnnualInspectionsResponse> {
        respond(inspections::handlers::export(&self.0, req).await)
    }

    async fn import_annual_inspections(
        &self,
        req: Request<pb::ImportAnnualInspectionsRequest>,
    ) -> Answer<pb::ImportAnnualInspectionsResponse> {
        respond(inspections::handlers::import(&self.0, req).await)
    }

    async fn get_annual_inspection_import_template(
        &self,
        req: Request<pb::GetAnnualInspectionImportTemplateRequest>,
    ) -> Answer<pb::GetAnnualInspectionImportTemplateResponse> {
        respond(inspections::handlers::template(&req))
    }

    async fn list_repair_orders(
        &self,
        req: Request<pb::ListRepairOrdersRequest>,
    ) -> Answer<pb::ListRepairOrdersResponse> {
        respond(repairs::handlers::list(&self.0, req).await)
    }

    async fn get_repair_order(
        &self,
        req: Request<pb::GetRepairOrderRequest>,
    ) -> Answer<pb::GetRepairOrderResponse> {
        respond(repairs::handlers::get(&self.0, req).await)
    }

    async fn create_repair_order(
        &self,
        req: Request<pb::CreateRepairOrderRequest>,
    ) -> Answer<pb::CreateRepairOrderResponse> {
        respond(repairs::handlers::create(&self.0, req).await)
    }

    async fn submit_repair_quote(
        &self,
        req: Request<pb::SubmitRepairQuoteRequest>,
    ) -> Answer<pb::SubmitRepairQuoteResponse> {
        respond(repairs::handlers::quote(&self.0, req).await)
    }

    async fn confirm_repair_price(
        &self,
        req: Request<pb::ConfirmRepairPriceRequest>,
    ) -> Answer<pb::ConfirmRepairPriceResponse> {
        respond(repairs::handlers::confirm_price(&self.0, req).await)
    }

    async fn cancel_repair_order(
        &self,
        req: Request<pb::CancelRepairOrderRequest>,
    ) -> Answer<pb::CancelRepairOrderResponse> {
        respond(repairs::handlers::cancel(&self.0, req).await)
    }

    async fn complete_repair_order(
        &self,
        req: Request<pb::CompleteRepairOrderRequest>,
    ) -> Answer<pb::CompleteRepairOrderResponse> {
        respond(repairs::handlers::complete(&self.0, req).await)
    }

    async fn export_repair_orders(
        &self,
        req: Request<pb::ExportRepairOrdersRequest>,
    ) -> Answer<pb::ExportRepairOrdersResponse> {
        respond(repairs::handlers::export(&self.0, req).await)
    }

    async fn list_repair_records(
        &self,
        req: Request<pb::ListRepairRecordsRequest>,
    ) -> Answer<pb::ListRepairRecordsResponse> {
        respond(repairs::handlers::list_records(&self.0, req).await)
    }

    async fn get_repair_record(
        &self,
        req: Request<pb::GetRepairRecordRequest>,
    ) -> Answer<pb::GetRepairRecordResponse> {
        respond(repairs::handlers::get_record(&self.0, req).await)
    }

    async fn export_repair_records(
        &self,
        req: Request<pb::ExportRepairRecordsRequest>,
    ) -> Answer<pb::ExportRepairRecordsResponse> {
        respond(repairs::handlers::export_records(&self.0, req).await)
    }

    async fn get_repair_config(
        &self,
        req: Request<pb::GetRepairConfigRequest>,
    ) -> Answer<pb::GetRepairConfigResponse> {
        respond(repairs::config::get(&self.0, req).await)
    }

    async fn update_repair_approval_threshold(
        &self,
        req: Request<pb::UpdateRepairApprovalThresholdRequest>,
    ) -> Answer<pb::UpdateRepairApprovalThresholdResponse> {
        respond(repairs::config::update_threshold(&self.0, req).await)
    }

    async fn save_repair_supplier(
        &self,
        req: Request<pb::SaveRepairSupplierRequest>,
    ) -> Answer<pb::SaveRepairSupplierResponse> {
        respond(repairs::config::save_supplier(&self.0, req).await)
    }

    async fn save_repair_catalogue_item(
        &self,
        req: Request<pb::SaveRepairCatalogueItemRequest>,
    ) -> Answer<pb::SaveRepairCatalogueItemResponse> {
        respond(repairs::config::save_item(&self.0, req).await)
    }

    async fn list_repair_statements(
        &self,
        req: Request<pb::ListRepairStatementsRequest>,
    ) -> Answer<pb::ListRepairStatementsResponse> {
        respond(repairs::statements::list(&self.0, req).await)
    }

    async fn get_repair_statement(
        &self,
        req: Request<pb::GetRepairStatementRequest>,
    ) -> Answer<pb::GetRepairStatementResponse> {
        respond(repairs::statements::get(&self.0, req).await)
    }

    async fn confirm_repair_statement(
        &self,
        req: Request<pb::ConfirmRepairStatementRequest>,
    ) -> Answer<pb::ConfirmRepairStatementResponse> {
        respond(repairs::statements::confirm(&self.0, req).await)
    }

    async fn export_repair_statements(
        &self,
        req: Request<pb::ExportRepairStatementsRequest>,
    ) -> Answer<pb::ExportRepairStatementsResponse> {
        respond(repairs::statements::export(&self.0, req).await)
    }

    async fn list_repair_bills(
        &self,
        req: Request<pb::ListRepairBillsRequest>,
    ) -> Answer<pb::ListRepairBillsResponse> {
        respond(repairs::statements::list_bills(&self.0, req).await)
    }

    async fn get_repair_bill(
        &self,
        req: Request<pb::GetRepairBillRequest>,
    ) -> Answer<pb::GetRepairBillResponse> {
        respond(repairs::statements::get_bill(&self.0, req).await)
    }

    async fn export_repair_bills(
        &self,
        req: Request<pb::ExportRepairBillsRequest>,
    ) -> Answer<pb::ExportRepairBillsResponse> {
        respond(repairs::statements::export_bills(&self.0, req).await)
    }

    async fn list_insurance_policies(
        &self,
        req: Request<pb::ListInsurancePoliciesRequest>,
    ) -> Answer<pb::ListInsurancePoliciesResponse> {
        respond(insurance::handlers::list(&self.0, req).await)
    }

    async fn get_insurance_policy(
        &self,
        req: Request<pb::GetInsurancePolicyRequest>,
    ) -> Answer<pb::GetInsurancePolicyResponse> {
        respond(insurance::handlers::get(&self.0, req).await)
    }

    async fn create_insurance_policy(
        &self,
        req: Request<pb::CreateInsurancePolicyRequest>,
    ) -> Answer<pb::CreateInsurancePolicyResponse> {
        respond(insurance::handlers::create(&self.0, req).await)
    }

    async fn update_insurance_policy(
        &self,
        req: Request<pb::UpdateInsurancePolicyRequest>,
    ) -> Answer<pb::UpdateInsurancePolicyResponse> {
        respond(insurance::handlers::update(&self.0, req).await)
    }

    async fn export_insurance_policies(
        &self,
        req: Request<pb::ExportInsurancePoliciesRequest>,
    ) -> Answer<pb::ExportInsurancePoliciesResponse> {
        respond(insurance::handlers::export(&self.0, req).await)
    }

    async fn import_insurance_policies(
        &self,
        req: Request<pb::ImportInsurancePoliciesRequest>,
    ) -> Answer<pb::ImportInsurancePoliciesResponse> {
        respond(insurance::handlers::import(&self.0, req).await)
    }

    async fn get_insurance_policy_document(
        &self,
        req: Request<pb::GetInsurancePolicyDocumentRequest>,
    ) -> Answer<pb::GetInsurancePolicyDocumentResponse> {
        respond(insurance::handlers::document(&self.0, req).await)
    }
}
