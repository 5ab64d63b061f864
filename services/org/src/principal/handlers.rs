//! Principal RPCs: the principal behind a session, memberships, the WeCom
//! lookup (service callers only) and the caller's own enterprise.

use fleetdesk_kit::{ErrorCode, ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::domain::{self, ORG_DISABLED};
use super::{convert, store};
use crate::codes::Status;
use crate::context::Context;
use crate::lists::{self, rules};
use crate::{roles, scope};

/// The principal of an account in an enterprise; 1001 when the enterprise or
/// the member is missing or disabled, or the member's organisation is disabled.
pub async fn get(
    ctx: &Context,
    request: Request<pb::GetPrincipalRequest>,
) -> Result<pb::GetPrincipalResponse, ServiceError> {
    grpc::require_service(&request)?;
    let pb::GetPrincipalRequest {
        account_id,
        enterprise_id,
    } = request.into_inner();
    let account_id = kit_convert::id(&account_id)?;
    let enterprise_id = kit_convert::id(&enterprise_id)?;
    // Service scope: the lists are cross-tenant operator data.
    let mut tx = db::begin_service(&ctx.pool).await?;
    let enterprise = store::enterprise(&mut tx, enterprise_id)
        .await?
        .filter(|e| Status::of_column(e.status) == Status::Enabled)
        .ok_or_else(ServiceError::unauthenticated)?;
    let member = store::member_of_account(&mut tx, enterprise_id, account_id)
        .await?
        .filter(|m| Status::of_column(m.status) == Status::Enabled)
        .ok_or_else(ServiceError::unauthenticated)?;
    if Status::of_column(member.org_status) != Status::Enabled {
        return Err(ServiceError::new(ErrorCode::Unauthenticated, ORG_DISABLED));
    }
    let role_rows = roles::store::roles_of_member(&mut tx, enterprise_id, member.id).await?;
    let lists = lists::store::of_enterprise(&mut tx, enterprise_id).await?;
    let (member_org, scopes) = scope::store::scopes_of_member(&mut tx, member.id).await?;
    tx.commit().await?;

    let granted = role_rows
        .iter()
        .flat_map(|r| r.permission_values.iter().map(String::as_str));
    let permission_values = rules::effective_permissions(granted, &lists.membership)
        .into_iter()
        .collect();
    Ok(pb::GetPrincipalResponse {
        principal: Some(pb::Principal {
            user_id: member.id.to_string(),
            account_id: member.account_id.to_string(),
            enterprise_id: enterprise.id.to_string(),
            enterprise_name: enterprise.name,
            name: member.name,
            user_name: member.user_name,
            avatar_url: member.avatar_url,
            roles: role_rows.iter().map(roles::convert::role).collect(),
            permission_values,
            data_scope: Some(scope::convert::data_scope_pb(&domain::shown_scope(&scopes))),
            flags: Some(lists::convert::flags(&lists)),
            reach: Some(scope::convert::reach_claim(&scopes, member_org)),
        }),
    })
}

/// Enterprises an account belongs to (enabled member of an enabled enterprise).
pub async fn memberships(
    ctx: &Context,
    request: Request<pb::ListMembershipsRequest>,
) -> Result<pb::ListMembershipsResponse, ServiceError> {
    grpc::require_service(&request)?;
    let account_id = kit_convert::id(&request.get_ref().account_id)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    let rows = store::memberships(&mut tx, account_id).await?;
    Ok(pb::ListMembershipsResponse {
        memberships: rows.into_iter().map(convert::membership).collect(),
    })
}

/// The member a WeCom identity maps to.
pub async fn by_wecom_id(
    ctx: &Context,
    request: Request<pb::FindUserByWeComIdRequest>,
) -> Result<pb::FindUserByWeComIdResponse, ServiceError> {
    grpc::require_service(&request)?;
    let pb::FindUserByWeComIdRequest {
        corp_id,
        wecom_user_id,
    } = request.into_inner();
    let (corp_id, user_id) = (corp_id.trim(), wecom_user_id.trim());
    if corp_id.is_empty() || user_id.is_empty() {
        return Err(ServiceError::not_found());
    }
    let mut tx = db::begin_service(&ctx.pool).await?;
    let row = store::membership_by_wecom_id(&mut tx, corp_id, user_id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    Ok(pb::FindUserByWeComIdResponse {
        membership: Some(convert::membership(row)),
    })
}

/// The caller's own enterprise and its flags; any other id is not found.
pub async fn enterprise(
    ctx: &Context,
    request: Request<pb::GetEnterpriseRequest>,
) -> Result<pb::GetEnterpriseResponse, ServiceError> {
    let tenant = grpc::tenant(&request)?;
    if kit_convert::id(&request.get_ref().enterprise_id)? != tenant {
        return Err(ServiceError::not_found());
    }
    let mut tx = db::begin_service(&ctx.pool).await?;
    let row = store::enterprise(&mut tx, tenant)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    let lists = lists::store::of_enterprise(&mut tx, tenant).await?;
    Ok(pb::GetEnterpriseResponse {
        enterprise: Some(convert::enterprise(row)),
        flags: Some(lists::convert::flags(&lists)),
    })
}
