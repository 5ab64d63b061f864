//! OrgService (org.v1): each RPC one line into its subject's handlers.

use fleetdesk_proto::org::v1 as pb;
use fleetdesk_proto::org::v1::org_service_server::OrgService;
use tonic::{Request, Response, Status};

use super::respond;
use crate::context::Context;
use crate::{
    approvals, areas, catalogue, dict, exports, help, lists, notices, orgs, principal, replication,
    roles, sensitive, serve, users, virtual_orgs,
};

#[derive(Debug, Clone)]
pub struct OrgApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

#[tonic::async_trait]
impl OrgService for OrgApi {
    // --- Principals, enterprises and lists ---

    async fn get_principal(
        &self,
        req: Request<pb::GetPrincipalRequest>,
    ) -> Answer<pb::GetPrincipalResponse> {
        respond(principal::handlers::get(&self.0, req).await)
    }

    async fn list_memberships(
        &self,
        req: Request<pb::ListMembershipsRequest>,
    ) -> Answer<pb::ListMembershipsResponse> {
        respond(principal::handlers::memberships(&self.0, req).await)
    }

    async fn find_user_by_we_com_id(
        &self,
        req: Request<pb::FindUserByWeComIdRequest>,
    ) -> Answer<pb::FindUserByWeComIdResponse> {
        respond(principal::handlers::by_wecom_id(&self.0, req).await)
    }

    async fn get_enterprise(
        &self,
        req: Request<pb::GetEnterpriseRequest>,
    ) -> Answer<pb::GetEnterpriseResponse> {
        respond(principal::handlers::enterprise(&self.0, req).await)
    }

    async fn list_enterprise_list_entries(
        &self,
        req: Request<pb::ListEnterpriseListEntriesRequest>,
    ) -> Answer<pb::ListEnterpriseListEntriesResponse> {
        respond(lists::handlers::entries(&self.0, req).await)
    }

    async fn set_enterprise_list_membership(
        &self,
        req: Request<pb::SetEnterpriseListMembershipRequest>,
    ) -> Answer<pb::SetEnterpriseListMembershipResponse> {
        respond(lists::handlers::set(&self.0, req).await)
    }

    // --- Organisation tree ---

    async fn list_org_units(
        &self,
        req: Request<pb::ListOrgUnitsRequest>,
    ) -> Answer<pb::ListOrgUnitsResponse> {
        respond(orgs::handlers::list(&self.0, req).await)
    }

    async fn list_simple_org_units(
        &self,
        req: Request<pb::ListSimpleOrgUnitsRequest>,
    ) -> Answer<pb::ListSimpleOrgUnitsResponse> {
        respond(orgs::handlers::list_simple(&self.0, req).await)
    }

    async fn create_org_unit(
        &self,
        req: Request<pb::CreateOrgUnitRequest>,
    ) -> Answer<pb::CreateOrgUnitResponse> {
        respond(orgs::handlers::create(&self.0, req).await)
    }

    async fn update_org_unit(
        &self,
        req: Request<pb::UpdateOrgUnitRequest>,
    ) -> Answer<pb::UpdateOrgUnitResponse> {
        respond(orgs::handlers::update(&self.0, req).await)
    }

    async fn move_org_unit(
        &self,
        req: Request<pb::MoveOrgUnitRequest>,
    ) -> Answer<pb::MoveOrgUnitResponse> {
        respond(orgs::handlers::move_unit(&self.0, req).await)
    }

    async fn set_org_unit_status(
        &self,
        req: Request<pb::SetOrgUnitStatusRequest>,
    ) -> Answer<pb::SetOrgUnitStatusResponse> {
        respond(orgs::handlers::set_status(&self.0, req).await)
    }

    async fn delete_org_unit(
        &self,
        req: Request<pb::DeleteOrgUnitRequest>,
    ) -> Answer<pb::DeleteOrgUnitResponse> {
        respond(orgs::handlers::delete(&self.0, req).await)
    }

    // --- Permissions, roles and users ---

    async fn list_permissions(
        &self,
        req: Request<pb::ListPermissionsRequest>,
    ) -> Answer<pb::ListPermissionsResponse> {
        respond(catalogue::handlers::permissions(&self.0, req).await)
    }

    async fn list_roles(
        &self,
        req: Request<pb::ListRolesRequest>,
    ) -> Answer<pb::ListRolesResponse> {
        respond(roles::handlers::list(&self.0, req).await)
    }

    async fn get_role(&self, req: Request<pb::GetRoleRequest>) -> Answer<pb::GetRoleResponse> {
        respond(roles::handlers::get(&self.0, req).await)
    }

    async fn create_role(
        &self,
        req: Request<pb::CreateRoleRequest>,
    ) -> Answer<pb::CreateRoleResponse> {
        respond(roles::handlers::create(&self.0, req).await)
    }

    async fn update_role(
        &self,
        req: Request<pb::UpdateRoleRequest>,
    ) -> Answer<pb::UpdateRoleResponse> {
        respond(roles::handlers::update(&self.0, req).await)
    }

    async fn delete_role(
        &self,
        req: Request<pb::DeleteRoleRequest>,
    ) -> Answer<pb::DeleteRoleResponse> {
        respond(roles::handlers::delete(&self.0, req).await)
    }

    async fn list_users(
        &self,
        req: Request<pb::ListUsersRequest>,
    ) -> Answer<pb::ListUsersResponse> {
        respond(users::handlers::list(&self.0, req).await)
    }

    async fn get_user(&self, req: Request<pb::GetUserRequest>) -> Answer<pb::GetUserResponse> {
        respond(users::handlers::get(&self.0, req).await)
    }

    async fn create_user(
        &self,
        req: Request<pb::CreateUserRequest>,
    ) -> Answer<pb::CreateUserResponse> {
        respond(users::handlers::create(&self.0, req).await)
    }

    async fn update_user(
        &self,
        req: Request<pb::UpdateUserRequest>,
    ) -> Answer<pb::UpdateUserResponse> {
        respond(users::handlers::update(&self.0, req).await)
    }

    async fn set_user_status(
        &self,
        req: Request<pb::SetUserStatusRequest>,
    ) -> Answer<pb::SetUserStatusResponse> {
        respond(users::handlers::set_status(&self.0, req).await)
    }

    async fn export_users(
        &self,
        req: Request<pb::ExportUsersRequest>,
    ) -> Answer<pb::ExportUsersResponse> {
        respond(users::handlers::export(&self.0, req).await)
    }

    // --- Shared data, notices, approvals, exports, help, sensitive data ---

    async fn get_simple_dict_by_type(
        &self,
        req: Request<pb::GetSimpleDictByTypeRequest>,
    ) -> Answer<pb::GetSimpleDictByTypeResponse> {
        respond(dict::handlers::by_type(&self.0, req).await)
    }

    async fn list_areas(
        &self,
        req: Request<pb::ListAreasRequest>,
    ) -> Answer<pb::ListAreasResponse> {
        respond(areas::handlers::list(&self.0, req).await)
    }

    // --- Shared lookups ---

    async fn get_org_unit_serve_areas(
        &self,
        req: Request<pb::GetOrgUnitServeAreasRequest>,
    ) -> Answer<pb::GetOrgUnitServeAreasResponse> {
        respond(serve::handlers::unit_areas(&self.0, req).await)
    }

    async fn set_org_unit_serve_areas(
        &self,
        req: Request<pb::SetOrgUnitServeAreasRequest>,
    ) -> Answer<pb::SetOrgUnitServeAreasResponse> {
        respond(serve::handlers::set_unit_areas(&self.0, req).await)
    }

    async fn list_serve_org_units(
        &self,
        req: Request<pb::ListServeOrgUnitsRequest>,
    ) -> Answer<pb::ListServeOrgUnitsResponse> {
        respond(serve::handlers::list(&self.0, req).await)
    }

    async fn get_serve_org_tree(
        &self,
        req: Request<pb::GetServeOrgTreeRequest>,
    ) -> Answer<pb::GetServeOrgTreeResponse> {
        respond(serve::handlers::tree(&self.0, req).await)
    }

    async fn list_serve_areas(
        &self,
        req: Request<pb::ListServeAreasRequest>,
    ) -> Answer<pb::ListServeAreasResponse> {
        respond(serve::handlers::areas(&self.0, req).await)
    }

    async fn list_simple_companies(
        &self,
        req: Request<pb::ListSimpleCompaniesRequest>,
    ) -> Answer<pb::ListSimpleCompaniesResponse> {
        respond(orgs::handlers::list_companies(&self.0, req).await)
    }

    async fn list_virtual_orgs(
        &self,
        req: Request<pb::ListVirtualOrgsRequest>,
    ) -> Answer<pb::ListVirtualOrgsResponse> {
        respond(virtual_orgs::handlers::list(&self.0, req).await)
    }

    async fn list_portal_apps(
        &self,
        req: Request<pb::ListPortalAppsRequest>,
    ) -> Answer<pb::ListPortalAppsResponse> {
        respond(catalogue::handlers::portal_apps(&self.0, req).await)
    }

    async fn count_unread_notices(
        &self,
        req: Request<pb::CountUnreadNoticesRequest>,
    ) -> Answer<pb::CountUnreadNoticesResponse> {
        respond(notices::handlers::count_unread(&self.0, req).await)
    }

    async fn list_notices(
        &self,
        req: Request<pb::ListNoticesRequest>,
    ) -> Answer<pb::ListNoticesResponse> {
        respond(notices::handlers::list(&self.0, req).await)
    }

    async fn get_notice(
        &self,
        req: Request<pb::GetNoticeRequest>,
    ) -> Answer<pb::GetNoticeResponse> {
        respond(notices::handlers::get(&self.0, req).await)
    }

    async fn mark_notices_read(
        &self,
        req: Request<pb::MarkNoticesReadRequest>,
    ) -> Answer<pb::MarkNoticesReadResponse> {
        respond(notices::handlers::mark_read(&self.0, req).await)
    }

    async fn count_pending_approvals(
        &self,
        req: Request<pb::CountPendingApprovalsRequest>,
    ) -> Answer<pb::CountPendingApprovalsResponse> {
        respond(approvals::handlers::count_pending(&self.0, req).await)
    }

    async fn list_approvals(
        &self,
        req: Request<pb::ListApprovalsRequest>,
    ) -> Answer<pb::ListApprovalsResponse> {
        respond(approvals::handlers::list(&self.0, req).await)
    }

    async fn get_approval(
        &self,
        req: Request<pb::GetApprovalRequest>,
    ) -> Answer<pb::GetApprovalResponse> {
        respond(approvals::handlers::get(&self.0, req).await)
    }

    async fn decide_approval(
        &self,
        req: Request<pb::DecideApprovalRequest>,
    ) -> Answer<pb::DecideApprovalResponse> {
        respond(approvals::handlers::decide(&self.0, req).await)
    }

    async fn list_vehicle_allotment_approvals(
        &self,
        req: Request<pb::ListVehicleAllotmentApprovalsRequest>,
    ) -> Answer<pb::ListVehicleAllotmentApprovalsResponse> {
        respond(approvals::handlers::list_vehicle_allotments(&self.0, req).await)
    }

    async fn export_approvals(
        &self,
        req: Request<pb::ExportApprovalsRequest>,
    ) -> Answer<pb::ExportApprovalsResponse> {
        respond(approvals::handlers::export(&self.0, req).await)
    }

    async fn list_export_records(
        &self,
        req: Request<pb::ListExportRecordsRequest>,
    ) -> Answer<pb::ListExportRecordsResponse> {
        respond(exports::handlers::list(&self.0, req).await)
    }

    async fn get_export_record(
        &self,
        req: Request<pb::GetExportRecordRequest>,
    ) -> Answer<pb::GetExportRecordResponse> {
        respond(exports::handlers::get(&self.0, req).await)
    }

    async fn create_export_record(
        &self,
        req: Request<pb::CreateExportRecordRequest>,
    ) -> Answer<pb::CreateExportRecordResponse> {
        respond(exports::handlers::create(&self.0, req).await)
    }

    async fn list_help_articles(
        &self,
        req: Request<pb::ListHelpArticlesRequest>,
    ) -> Answer<pb::ListHelpArticlesResponse> {
        respond(help::handlers::list_articles(&self.0, req).await)
    }

    async fn get_help_article(
        &self,
        req: Request<pb::GetHelpArticleRequest>,
    ) -> Answer<pb::GetHelpArticleResponse> {
        respond(help::handlers::get_article(&self.0, req).await)
    }

    async fn submit_feedback(
        &self,
        req: Request<pb::SubmitFeedbackRequest>,
    ) -> Answer<pb::SubmitFeedbackResponse> {
        respond(help::handlers::submit_feedback(&self.0, req).await)
    }

    async fn list_feedback(
        &self,
        req: Request<pb::ListFeedbackRequest>,
    ) -> Answer<pb::ListFeedbackResponse> {
        respond(help::handlers::list_feedback(&self.0, req).await)
    }

    async fn get_customer_service(
        &self,
        req: Request<pb::GetCustomerServiceRequest>,
    ) -> Answer<pb::GetCustomerServiceResponse> {
        respond(help::handlers::customer_service(&self.0, req).await)
    }

    async fn reveal_sensitive(
        &self,
        req: Request<pb::RevealSensitiveRequest>,
    ) -> Answer<pb::RevealSensitiveResponse> {
        respond(sensitive::handlers::reveal(&self.0, req).await)
    }

    async fn list_sensitive_view_logs(
        &self,
        req: Request<pb::ListSensitiveViewLogsRequest>,
    ) -> Answer<pb::ListSensitiveViewLogsResponse> {
        respond(sensitive::handlers::list_logs(&self.0, req).await)
    }

    async fn record_sensitive_view(
        &self,
        req: Request<pb::RecordSensitiveViewRequest>,
    ) -> Answer<pb::RecordSensitiveViewResponse> {
        respond(sensitive::handlers::record(&self.0, req).await)
    }

    // --- Replication ---

    async fn list_org_unit_snapshot(
        &self,
        req: Request<pb::ListOrgUnitSnapshotRequest>,
    ) -> Answer<pb::ListOrgUnitSnapshotResponse> {
        respond(replication::handlers::snapshot(&self.0, req).await)
    }
}
