//! Every RPC the vehicle target hosts but has not built: MaintenanceService
//! whole (its issue replaces the list method by method with handlers), and
//! RiskService's video clips (the video issue's), answered from its impl
//! through [`not_built`] since a service's RPCs share one impl. Each answers
//! UNIMPLEMENTED naming itself, so a caller knows what is missing rather
//! than guessing.

use fleetdesk_kit::grpc;
use fleetdesk_proto::vehicle::v1 as pb;
use fleetdesk_proto::vehicle::v1::maintenance_service_server::MaintenanceService;
use tonic::Status;

/// A service whose issue has not been built.
#[derive(Debug, Clone, Copy)]
pub struct NotBuilt;

/// The answer of an unbuilt RPC `method` of `service` (e.g. "RiskService").
pub fn not_built(service: &str, method: &str) -> Status {
    grpc::not_built(&format!("fleetdesk.vehicle.v1.{service}/{method}"))
}

fleetdesk_kit::not_built! {
    MaintenanceService for NotBuilt, "fleetdesk.vehicle.v1.MaintenanceService" {
        list_violations(pb::ListViolationsRequest) -> pb::ListViolationsResponse;
        get_violation(pb::GetViolationRequest) -> pb::GetViolationResponse;
        handle_violation(pb::HandleViolationRequest) -> pb::HandleViolationResponse;
        list_maintenance_reminders(pb::ListMaintenanceRemindersRequest) -> pb::ListMaintenanceRemindersResponse;
        complete_maintenance_reminder(pb::CompleteMaintenanceReminderRequest) -> pb::CompleteMaintenanceReminderResponse;
        list_annual_inspections(pb::ListAnnualInspectionsRequest) -> pb::ListAnnualInspectionsResponse;
        record_annual_inspection(pb::RecordAnnualInspectionRequest) -> pb::RecordAnnualInspectionResponse;
        list_repair_orders(pb::ListRepairOrdersRequest) -> pb::ListRepairOrdersResponse;
        get_repair_order(pb::GetRepairOrderRequest) -> pb::GetRepairOrderResponse;
        create_repair_order(pb::CreateRepairOrderRequest) -> pb::CreateRepairOrderResponse;
        submit_repair_quote(pb::SubmitRepairQuoteRequest) -> pb::SubmitRepairQuoteResponse;
        confirm_repair_price(pb::ConfirmRepairPriceRequest) -> pb::ConfirmRepairPriceResponse;
        cancel_repair_order(pb::CancelRepairOrderRequest) -> pb::CancelRepairOrderResponse;
        complete_repair_order(pb::CompleteRepairOrderRequest) -> pb::CompleteRepairOrderResponse;
        list_repair_statements(pb::ListRepairStatementsRequest) -> pb::ListRepairStatementsResponse;
        get_repair_statement(pb::GetRepairStatementRequest) -> pb::GetRepairStatementResponse;
        confirm_repair_statement(pb::ConfirmRepairStatementRequest) -> pb::ConfirmRepairStatementResponse;
        list_repair_bills(pb::ListRepairBillsRequest) -> pb::ListRepairBillsResponse;
        get_repair_bill(pb::GetRepairBillRequest) -> pb::GetRepairBillResponse;
        list_insurance_policies(pb::ListInsurancePoliciesRequest) -> pb::ListInsurancePoliciesResponse;
    }
}
