//! EnergyService: each RPC one line into its subject's handlers.

use fleetdesk_proto::energy::v1 as pb;
use fleetdesk_proto::energy::v1::energy_service_server::EnergyService;
use tonic::{Request, Response, Status};

use super::respond;
use crate::context::Context;
use crate::{
    accounts, allocations, analysis, card_changes, cards, dashboard, opening, plate_scans,
    sessions, statements, stations,
};

#[derive(Debug, Clone)]
pub struct EnergyApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl EnergyService for EnergyApi {
    async fn get_charging_open_status(
        &self,
        req: Request<pb::GetChargingOpenStatusRequest>,
    ) -> Answer<pb::GetChargingOpenStatusResponse> {
        respond(opening::handlers::status(&self.0, req).await)
    }

    async fn apply_charging_open(
        &self,
        req: Request<pb::ApplyChargingOpenRequest>,
    ) -> Answer<pb::ApplyChargingOpenResponse> {
        respond(opening::handlers::apply(&self.0, req).await)
    }

    async fn list_charging_open_applications(
        &self,
        req: Request<pb::ListChargingOpenApplicationsRequest>,
    ) -> Answer<pb::ListChargingOpenApplicationsResponse> {
        respond(opening::handlers::list(&self.0, req).await)
    }

    async fn approve_charging_open_application(
        &self,
        req: Request<pb::ApproveChargingOpenApplicationRequest>,
    ) -> Answer<pb::ApproveChargingOpenApplicationResponse> {
        respond(opening::handlers::approve(&self.0, req).await)
    }

    async fn reject_charging_open_application(
        &self,
        req: Request<pb::RejectChargingOpenApplicationRequest>,
    ) -> Answer<pb::RejectChargingOpenApplicationResponse> {
        respond(opening::handlers::reject(&self.0, req).await)
    }

    async fn export_charging_open_applications(
        &self,
        req: Request<pb::ExportChargingOpenApplicationsRequest>,
    ) -> Answer<pb::ExportChargingOpenApplicationsResponse> {
        respond(opening::handlers::export(&self.0, req).await)
    }

    async fn get_main_charging_account(
        &self,
        req: Request<pb::GetMainChargingAccountRequest>,
    ) -> Answer<pb::GetMainChargingAccountResponse> {
        respond(accounts::handlers::main(&self.0, req).await)
    }

    async fn list_charging_accounts(
        &self,
        req: Request<pb::ListChargingAccountsRequest>,
    ) -> Answer<pb::ListChargingAccountsResponse> {
        respond(accounts::handlers::list(&self.0, req).await)
    }

    async fn get_charging_account(
        &self,
        req: Request<pb::GetChargingAccountRequest>,
    ) -> Answer<pb::GetChargingAccountResponse> {
        respond(accounts::handlers::get(&self.0, req).await)
    }

    async fn update_charging_account(
        &self,
        req: Request<pb::UpdateChargingAccountRequest>,
    ) -> Answer<pb::UpdateChargingAccountResponse> {
        respond(accounts::handlers::update(&self.0, req).await)
    }

    async fn export_charging_accounts(
        &self,
        req: Request<pb::ExportChargingAccountsRequest>,
    ) -> Answer<pb::ExportChargingAccountsResponse> {
        respond(accounts::handlers::export(&self.0, req).await)
    }

    async fn allocate_balance(
        &self,
        req: Request<pb::AllocateBalanceRequest>,
    ) -> Answer<pb::AllocateBalanceResponse> {
        respond(allocations::handlers::allocate(&self.0, req).await)
    }

    async fn reclaim_balance(
        &self,
        req: Request<pb::ReclaimBalanceRequest>,
    ) -> Answer<pb::ReclaimBalanceResponse> {
        respond(allocations::handlers::reclaim(&self.0, req).await)
    }

    async fn list_balance_allocations(
        &self,
        req: Request<pb::ListBalanceAllocationsRequest>,
    ) -> Answer<pb::ListBalanceAllocationsResponse> {
        respond(allocations::handlers::list(&self.0, req).await)
    }

    async fn export_balance_allocations(
        &self,
        req: Request<pb::ExportBalanceAllocationsRequest>,
    ) -> Answer<pb::ExportBalanceAllocationsResponse> {
        respond(allocations::handlers::export(&self.0, req).await)
    }

    async fn list_charging_cards(
        &self,
        req: Request<pb::ListChargingCardsRequest>,
    ) -> Answer<pb::ListChargingCardsResponse> {
        respond(cards::handlers::list(&self.0, req).await)
    }

    async fn get_charging_card(
        &self,
        req: Request<pb::GetChargingCardRequest>,
    ) -> Answer<pb::GetChargingCardResponse> {
        respond(cards::handlers::get(&self.0, req).await)
    }

    async fn create_charging_card(
        &self,
        req: Request<pb::CreateChargingCardRequest>,
    ) -> Answer<pb::CreateChargingCardResponse> {
        respond(cards::handlers::create(&self.0, req).await)
    }

    async fn update_charging_card(
        &self,
        req: Request<pb::UpdateChargingCardRequest>,
    ) -> Answer<pb::UpdateChargingCardResponse> {
        respond(cards::handlers::update(&self.0, req).await)
    }

    async fn freeze_charging_card(
        &self,
        req: Request<pb::FreezeChargingCardRequest>,
    ) -> Answer<pb::FreezeChargingCardResponse> {
        respond(cards::handlers::freeze(&self.0, req).await)
    }

    async fn unfreeze_charging_card(
        &self,
        req: Request<pb::UnfreezeChargingCardRequest>,
    ) -> Answer<pb::UnfreezeChargingCardResponse> {
        respond(cards::handlers::unfreeze(&self.0, req).await)
    }

    async fn cancel_charging_card(
        &self,
        req: Request<pb::CancelChargingCardRequest>,
    ) -> Answer<pb::CancelChargingCardResponse> {
        respond(cards::handlers::cancel(&self.0, req).await)
    }

    async fn change_charging_card_amount(
        &self,
        req: Request<pb::ChangeChargingCardAmountRequest>,
    ) -> Answer<pb::ChangeChargingCardAmountResponse> {
        respond(cards::handlers::change_amount(&self.0, req).await)
    }

    async fn list_card_amount_changes(
        &self,
        req: Request<pb::ListCardAmountChangesRequest>,
    ) -> Answer<pb::ListCardAmountChangesResponse> {
        respond(card_changes::handlers::list(&self.0, req).await)
    }

    async fn export_charging_cards(
        &self,
        req: Request<pb::ExportChargingCardsRequest>,
    ) -> Answer<pb::ExportChargingCardsResponse> {
        respond(cards::handlers::export(&self.0, req).await)
    }

    async fn export_card_amount_changes(
        &self,
        req: Request<pb::ExportCardAmountChangesRequest>,
    ) -> Answer<pb::ExportCardAmountChangesResponse> {
        respond(card_changes::handlers::export(&self.0, req).await)
    }

    async fn list_charging_sessions(
        &self,
        req: Request<pb::ListChargingSessionsRequest>,
    ) -> Answer<pb::ListChargingSessionsResponse> {
        respond(sessions::handlers::list(&self.0, req).await)
    }

    async fn get_charging_session(
        &self,
        req: Request<pb::GetChargingSessionRequest>,
    ) -> Answer<pb::GetChargingSessionResponse> {
        respond(sessions::handlers::get(&self.0, req).await)
    }

    async fn export_charging_sessions(
        &self,
        req: Request<pb::ExportChargingSessionsRequest>,
    ) -> Answer<pb::ExportChargingSessionsResponse> {
        respond(sessions::handlers::export(&self.0, req).await)
    }

    async fn list_plate_scan_records(
        &self,
        req: Request<pb::ListPlateScanRecordsRequest>,
    ) -> Answer<pb::ListPlateScanRecordsResponse> {
        respond(plate_scans::handlers::list(&self.0, req).await)
    }

    async fn export_plate_scan_records(
        &self,
        req: Request<pb::ExportPlateScanRecordsRequest>,
    ) -> Answer<pb::ExportPlateScanRecordsResponse> {
        respond(plate_scans::handlers::export(&self.0, req).await)
    }

    async fn list_stations(
        &self,
        req: Request<pb::ListStationsRequest>,
    ) -> Answer<pb::ListStationsResponse> {
        respond(stations::handlers::list(&self.0, req).await)
    }

    async fn get_station(
        &self,
        req: Request<pb::GetStationRequest>,
    ) -> Answer<pb::GetStationResponse> {
        respond(stations::handlers::get(&self.0, req).await)
    }

    async fn list_reconciliation_statements(
        &self,
        req: Request<pb::ListReconciliationStatementsRequest>,
    ) -> Answer<pb::ListReconciliationStatementsResponse> {
        respond(statements::handlers::list(&self.0, req).await)
    }

    async fn get_reconciliation_statement(
        &self,
        req: Request<pb::GetReconciliationStatementRequest>,
    ) -> Answer<pb::GetReconciliationStatementResponse> {
        respond(statements::handlers::get(&self.0, req).await)
    }

    async fn confirm_reconciliation_statement(
        &self,
        req: Request<pb::ConfirmReconciliationStatementRequest>,
    ) -> Answer<pb::ConfirmReconciliationStatementResponse> {
        respond(statements::handlers::confirm(&self.0, req).await)
    }

    async fn generate_reconciliation_statement(
        &self,
        req: Request<pb::GenerateReconciliationStatementRequest>,
    ) -> Answer<pb::GenerateReconciliationStatementResponse> {
        respond(statements::handlers::generate(&self.0, req).await)
    }

    async fn list_reconciliation_card_lines(
        &self,
        req: Request<pb::ListReconciliationCardLinesRequest>,
    ) -> Answer<pb::ListReconciliationCardLinesResponse> {
        respond(statements::handlers::card_lines(&self.0, req).await)
    }

    async fn export_reconciliation_statements(
        &self,
        req: Request<pb::ExportReconciliationStatementsRequest>,
    ) -> Answer<pb::ExportReconciliationStatementsResponse> {
        respond(statements::handlers::export(&self.0, req).await)
    }

    async fn get_charging_dashboard(
        &self,
        req: Request<pb::GetChargingDashboardRequest>,
    ) -> Answer<pb::GetChargingDashboardResponse> {
        respond(dashboard::handlers::get(&self.0, req).await)
    }

    async fn get_charging_behavior_analysis(
        &self,
        req: Request<pb::GetChargingBehaviorAnalysisRequest>,
    ) -> Answer<pb::GetChargingBehaviorAnalysisResponse> {
        respond(analysis::handlers::analyze(&self.0, req).await)
    }

    async fn list_vehicle_charging_behaviors(
        &self,
        req: Request<pb::ListVehicleChargingBehaviorsRequest>,
    ) -> Answer<pb::ListVehicleChargingBehaviorsResponse> {
        respond(analysis::handlers::vehicles(&self.0, req).await)
    }

    async fn export_vehicle_charging_behaviors(
        &self,
        req: Request<pb::ExportVehicleChargingBehaviorsRequest>,
    ) -> Answer<pb::ExportVehicleChargingBehaviorsResponse> {
        respond(analysis::handlers::export(&self.0, req).await)
    }
}
