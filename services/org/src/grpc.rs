//! The OrgService gRPC handlers: one thin method per RPC, delegating to the
//! module of its subject. Tenant-owned calls take the enterprise from the
//! verified caller, never from the request, so another tenant's id is simply
//! not found.

use fleetdesk_proto::org::v1::{self as pb, org_service_server::OrgService};
use sqlx::PgPool;
use tonic::{Request, Response, Status};

use crate::config::CustomerServiceConfig;
use crate::users::AuthLink;
use crate::{lists, orgs, principal, roles, users};

#[derive(Clone, Debug)]
pub struct OrgApi {
    pub pool: PgPool,
    /// For creating sign-in accounts when users are added.
    pub auth: AuthLink,
    /// The customer-service settings the help centre shows.
    pub customer_service: CustomerServiceConfig,
}

#[tonic::async_trait]
impl OrgService for OrgApi {
    // --- Principals, enterprises and lists ---

    async fn get_principal(
        &self,
        request: Request<pb::GetPrincipalRequest>,
    ) -> Result<Response<pb::GetPrincipalResponse>, Status> {
        Ok(Response::new(principal::get(&self.pool, request).await?))
    }

    async fn list_memberships(
        &self,
        request: Request<pb::ListMembershipsRequest>,
    ) -> Result<Response<pb::ListMembershipsResponse>, Status> {
        Ok(Response::new(
            principal::memberships(&self.pool, request).await?,
        ))
    }

    async fn find_user_by_we_com_id(
        &self,
        request: Request<pb::FindUserByWeComIdRequest>,
    ) -> Result<Response<pb::FindUserByWeComIdResponse>, Status> {
        Ok(Response::new(
            principal::by_wecom_id(&self.pool, request).await?,
        ))
    }

    async fn get_enterprise(
        &self,
        request: Request<pb::GetEnterpriseRequest>,
    ) -> Result<Response<pb::GetEnterpriseResponse>, Status> {
        Ok(Response::new(
            principal::enterprise(&self.pool, request).await?,
        ))
    }

    async fn list_enterprise_list_entries(
        &self,
        request: Request<pb::ListEnterpriseListEntriesRequest>,
    ) -> Result<Response<pb::ListEnterpriseListEntriesResponse>, Status> {
        Ok(Response::new(lists::entries(&self.pool, request).await?))
    }

    async fn set_enterprise_list_membership(
        &self,
        request: Request<pb::SetEnterpriseListMembershipRequest>,
    ) -> Result<Response<pb::SetEnterpriseListMembershipResponse>, Status> {
        Ok(Response::new(lists::set(&self.pool, request).await?))
    }

    // --- Organisation tree ---

    async fn list_org_units(
        &self,
        request: Request<pb::ListOrgUnitsRequest>,
    ) -> Result<Response<pb::ListOrgUnitsResponse>, Status> {
        Ok(Response::new(orgs::list(&self.pool, request).await?))
    }

    async fn list_simple_org_units(
        &self,
        request: Request<pb::ListSimpleOrgUnitsRequest>,
    ) -> Result<Response<pb::ListSimpleOrgUnitsResponse>, Status> {
        Ok(Response::new(orgs::list_simple(&self.pool, request).await?))
    }

    async fn create_org_unit(
        &self,
        request: Request<pb::CreateOrgUnitRequest>,
    ) -> Result<Response<pb::CreateOrgUnitResponse>, Status> {
        Ok(Response::new(orgs::create(&self.pool, request).await?))
    }

    async fn update_org_unit(
        &self,
        request: Request<pb::UpdateOrgUnitRequest>,
    ) -> Result<Response<pb::UpdateOrgUnitResponse>, Status> {
        Ok(Response::new(orgs::update(&self.pool, request).await?))
    }

    async fn move_org_unit(
        &self,
        request: Request<pb::MoveOrgUnitRequest>,
    ) -> Result<Response<pb::MoveOrgUnitResponse>, Status> {
        Ok(Response::new(orgs::move_unit(&self.pool, request).await?))
    }

    async fn set_org_unit_status(
        &self,
        request: Request<pb::SetOrgUnitStatusRequest>,
    ) -> Result<Response<pb::SetOrgUnitStatusResponse>, Status> {
        Ok(Response::new(orgs::set_status(&self.pool, request).await?))
    }

    async fn delete_org_unit(
        &self,
        request: Request<pb::DeleteOrgUnitRequest>,
    ) -> Result<Response<pb::DeleteOrgUnitResponse>, Status> {
        Ok(Response::new(orgs::delete(&self.pool, request).await?))
    }

    // --- Permissions, roles and users ---

    async fn list_permissions(
        &self,
        request: Request<pb::ListPermissionsRequest>,
    ) -> Result<Response<pb::ListPermissionsResponse>, Status> {
        Ok(Response::new(
            roles::permissions(&self.pool, request).await?,
        ))
    }

    async fn list_roles(
        &self,
        request: Request<pb::ListRolesRequest>,
    ) -> Result<Response<pb::ListRolesResponse>, Status> {
        Ok(Response::new(roles::list(&self.pool, request).await?))
    }

    async fn get_role(
        &self,
        request: Request<pb::GetRoleRequest>,
    ) -> Result<Response<pb::GetRoleResponse>, Status> {
        Ok(Response::new(roles::get(&self.pool, request).await?))
    }

    async fn create_role(
        &self,
        request: Request<pb::CreateRoleRequest>,
    ) -> Result<Response<pb::CreateRoleResponse>, Status> {
        Ok(Response::new(roles::create(&self.pool, request).await?))
    }

    async fn update_role(
        &self,
        request: Request<pb::UpdateRoleRequest>,
    ) -> Result<Response<pb::UpdateRoleResponse>, Status> {
        Ok(Response::new(roles::update(&self.pool, request).await?))
    }

    async fn delete_role(
        &self,
        request: Request<pb::DeleteRoleRequest>,
    ) -> Result<Response<pb::DeleteRoleResponse>, Status> {
        Ok(Response::new(roles::delete(&self.pool, request).await?))
    }

    async fn list_users(
        &self,
        request: Request<pb::ListUsersRequest>,
    ) -> Result<Response<pb::ListUsersResponse>, Status> {
        Ok(Response::new(users::list(&self.pool, request).await?))
    }

    async fn get_user(
        &self,
        request: Request<pb::GetUserRequest>,
    ) -> Result<Response<pb::GetUserResponse>, Status> {
        Ok(Response::new(users::get(&self.pool, request).await?))
    }

    async fn create_user(
        &self,
        request: Request<pb::CreateUserRequest>,
    ) -> Result<Response<pb::CreateUserResponse>, Status> {
        Ok(Response::new(
            users::create(&self.pool, &self.auth, request).await?,
        ))
    }

    async fn update_user(
        &self,
        request: Request<pb::UpdateUserRequest>,
    ) -> Result<Response<pb::UpdateUserResponse>, Status> {
        Ok(Response::new(
            users::update(&self.pool, &self.auth, request).await?,
        ))
    }

    async fn set_user_status(
        &self,
        request: Request<pb::SetUserStatusRequest>,
    ) -> Result<Response<pb::SetUserStatusResponse>, Status> {
        Ok(Response::new(users::set_status(&self.pool, request).await?))
    }

    // --- Shared data, notices, approvals, exports, help, sensitive data ---

    async fn get_simple_dict_by_type(
        &self,
        request: Request<pb::GetSimpleDictByTypeRequest>,
    ) -> Result<Response<pb::GetSimpleDictByTypeResponse>, Status> {
        Ok(crate::dict::get_simple_dict_by_type(&self.pool, request).await?)
    }

    async fn list_areas(
        &self,
        request: Request<pb::ListAreasRequest>,
    ) -> Result<Response<pb::ListAreasResponse>, Status> {
        Ok(crate::areas::list_areas(&self.pool, request).await?)
    }

    async fn count_unread_notices(
        &self,
        request: Request<pb::CountUnreadNoticesRequest>,
    ) -> Result<Response<pb::CountUnreadNoticesResponse>, Status> {
        Ok(crate::notices::count_unread(&self.pool, request).await?)
    }

    async fn list_notices(
        &self,
        request: Request<pb::ListNoticesRequest>,
    ) -> Result<Response<pb::ListNoticesResponse>, Status> {
        Ok(crate::notices::list(&self.pool, request).await?)
    }

    async fn get_notice(
        &self,
        request: Request<pb::GetNoticeRequest>,
    ) -> Result<Response<pb::GetNoticeResponse>, Status> {
        Ok(crate::notices::get(&self.pool, request).await?)
    }

    async fn mark_notices_read(
        &self,
        request: Request<pb::MarkNoticesReadRequest>,
    ) -> Result<Response<pb::MarkNoticesReadResponse>, Status> {
        Ok(crate::notices::mark_read(&self.pool, request).await?)
    }

    async fn count_pending_approvals(
        &self,
        request: Request<pb::CountPendingApprovalsRequest>,
    ) -> Result<Response<pb::CountPendingApprovalsResponse>, Status> {
        Ok(crate::approvals::count_pending(&self.pool, request).await?)
    }

    async fn list_approvals(
        &self,
        request: Request<pb::ListApprovalsRequest>,
    ) -> Result<Response<pb::ListApprovalsResponse>, Status> {
        Ok(crate::approvals::list(&self.pool, request).await?)
    }

    async fn get_approval(
        &self,
        request: Request<pb::GetApprovalRequest>,
    ) -> Result<Response<pb::GetApprovalResponse>, Status> {
        Ok(crate::approvals::get(&self.pool, request).await?)
    }

    async fn decide_approval(
        &self,
        request: Request<pb::DecideApprovalRequest>,
    ) -> Result<Response<pb::DecideApprovalResponse>, Status> {
        Ok(crate::approvals::decide(&self.pool, request).await?)
    }

    async fn list_vehicle_allotment_approvals(
        &self,
        request: Request<pb::ListVehicleAllotmentApprovalsRequest>,
    ) -> Result<Response<pb::ListVehicleAllotmentApprovalsResponse>, Status> {
        Ok(crate::approvals::list_vehicle_allotments(&self.pool, request).await?)
    }

    async fn list_export_records(
        &self,
        request: Request<pb::ListExportRecordsRequest>,
    ) -> Result<Response<pb::ListExportRecordsResponse>, Status> {
        Ok(crate::exports::list(&self.pool, request).await?)
    }

    async fn get_export_record(
        &self,
        request: Request<pb::GetExportRecordRequest>,
    ) -> Result<Response<pb::GetExportRecordResponse>, Status> {
        Ok(crate::exports::get(&self.pool, request).await?)
    }

    async fn create_export_record(
        &self,
        request: Request<pb::CreateExportRecordRequest>,
    ) -> Result<Response<pb::CreateExportRecordResponse>, Status> {
        Ok(crate::exports::create(&self.pool, request).await?)
    }

    async fn export_users(
        &self,
        request: Request<pb::ExportUsersRequest>,
    ) -> Result<Response<pb::ExportUsersResponse>, Status> {
        Ok(Response::new(
            crate::users_export::start(&self.pool, request).await?,
        ))
    }

    async fn list_help_articles(
        &self,
        request: Request<pb::ListHelpArticlesRequest>,
    ) -> Result<Response<pb::ListHelpArticlesResponse>, Status> {
        Ok(crate::help::list_articles(&self.pool, request).await?)
    }

    async fn get_help_article(
        &self,
        request: Request<pb::GetHelpArticleRequest>,
    ) -> Result<Response<pb::GetHelpArticleResponse>, Status> {
        Ok(crate::help::get_article(&self.pool, request).await?)
    }

    async fn submit_feedback(
        &self,
        request: Request<pb::SubmitFeedbackRequest>,
    ) -> Result<Response<pb::SubmitFeedbackResponse>, Status> {
        Ok(crate::help::submit_feedback(&self.pool, request).await?)
    }

    async fn list_feedback(
        &self,
        request: Request<pb::ListFeedbackRequest>,
    ) -> Result<Response<pb::ListFeedbackResponse>, Status> {
        Ok(crate::help::list_feedback(&self.pool, request).await?)
    }

    async fn get_customer_service(
        &self,
        request: Request<pb::GetCustomerServiceRequest>,
    ) -> Result<Response<pb::GetCustomerServiceResponse>, Status> {
        Ok(Response::new(crate::help::customer_service(
            &self.customer_service,
            &request,
        )?))
    }

    async fn reveal_sensitive(
        &self,
        request: Request<pb::RevealSensitiveRequest>,
    ) -> Result<Response<pb::RevealSensitiveResponse>, Status> {
        Ok(crate::sensitive::reveal(&self.pool, request).await?)
    }

    async fn list_sensitive_view_logs(
        &self,
        request: Request<pb::ListSensitiveViewLogsRequest>,
    ) -> Result<Response<pb::ListSensitiveViewLogsResponse>, Status> {
        Ok(crate::sensitive::list_logs(&self.pool, request).await?)
    }

    async fn record_sensitive_view(
        &self,
        request: Request<pb::RecordSensitiveViewRequest>,
    ) -> Result<Response<pb::RecordSensitiveViewResponse>, Status> {
        Ok(crate::sensitive::record(&self.pool, request).await?)
    }

    // --- Replication ---

    async fn list_org_unit_snapshot(
        &self,
        request: Request<pb::ListOrgUnitSnapshotRequest>,
    ) -> Result<Response<pb::ListOrgUnitSnapshotResponse>, Status> {
        Ok(Response::new(
            crate::unit_events::snapshot(&self.pool, request).await?,
        ))
    }
}
