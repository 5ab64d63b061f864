//! Who a signed-in person is in one enterprise: roles, effective permissions
//! (roles narrowed by the enterprise lists, spec §6), data scope and flags;
//! plus memberships, which cross tenants by nature (service callers only).

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ErrorCode, ServiceError, db, grpc, mask};
use fleetdesk_proto::org::v1 as pb;
use sqlx::PgPool;
use tonic::Request;

use crate::scope::DataScope;
use crate::store::{self, ENABLED, MembershipRow};
use crate::{lists, roles, rules};

fn membership_pb(row: MembershipRow) -> pb::Membership {
    pb::Membership {
        enterprise_id: row.enterprise_id.to_string(),
        enterprise_name: row.enterprise_name,
        user_id: row.member_id.to_string(),
        account_id: row.account_id.to_string(),
    }
}

/// Why a member of a disabled organisation is refused (shown at sign-in and on
/// every call until they are moved or the organisation is enabled again).
pub const ORG_DISABLED: &str =
    "您所在的组织已停用，暂时无法使用该企业，请联系管理员启用组织或调整您的所属组织";

/// The principal of an account in an enterprise; 1001 when the enterprise or
/// the member is missing or disabled, or the member's organisation is disabled.
pub async fn get(
    pool: &PgPool,
    request: Request<pb::GetPrincipalRequest>,
) -> Result<pb::GetPrincipalResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let account_id = convert::id(&req.account_id)?;
    let enterprise_id = convert::id(&req.enterprise_id)?;
    // Service scope: the lists are cross-tenant operator data.
    let mut tx = db::begin_service(pool).await?;
    let enterprise = store::enterprise(&mut tx, enterprise_id)
        .await?
        .filter(|e| e.status == ENABLED)
        .ok_or_else(ServiceError::unauthenticated)?;
    let member = store::member_of_account(&mut tx, enterprise_id, account_id)
        .await?
        .filter(|m| m.status == ENABLED)
        .ok_or_else(ServiceError::unauthenticated)?;
    if member.org_status != ENABLED {
        return Err(ServiceError::new(ErrorCode::Unauthenticated, ORG_DISABLED));
    }
    let role_rows = store::roles_of_member(&mut tx, enterprise_id, member.id).await?;
    let lists = lists::of_enterprise(&mut tx, enterprise_id).await?;
    let (member_org, scopes) = crate::scope::scopes_of_member(&mut tx, member.id).await?;
    tx.commit().await?;

    let granted = role_rows
        .iter()
        .flat_map(|r| r.permission_values.iter().map(String::as_str));
    let permission_values = rules::effective_permissions(granted, &lists.membership)
        .into_iter()
        .collect();
    let data_scope = scopes
        .iter()
        .max_by_key(|s| s.breadth())
        .cloned()
        .unwrap_or(DataScope {
            kind: crate::scope::SELF,
            org_ids: Vec::new(),
        });
    Ok(pb::GetPrincipalResponse {
        principal: Some(pb::Principal {
            user_id: member.id.to_string(),
            account_id: member.account_id.to_string(),
            enterprise_id: enterprise.id.to_string(),
            enterprise_name: enterprise.name,
            name: member.name,
            user_name: member.user_name,
            avatar_url: member.avatar_url,
            roles: role_rows.iter().map(roles::role_pb).collect(),
            permission_values,
            data_scope: Some(data_scope.to_pb()),
            flags: Some(lists.flags()),
            reach: Some(crate::scope::reach_claim(&scopes, member_org)),
        }),
    })
}

/// Enterprises an account belongs to (enabled member of an enabled enterprise).
pub async fn memberships(
    pool: &PgPool,
    request: Request<pb::ListMembershipsRequest>,
) -> Result<pb::ListMembershipsResponse, ServiceError> {
    grpc::require_service(&request)?;
    let account_id = convert::id(&request.get_ref().account_id)?;
    let mut tx = db::begin_service(pool).await?;
    let rows = store::memberships(&mut tx, account_id).await?;
    Ok(pb::ListMembershipsResponse {
        memberships: rows.into_iter().map(membership_pb).collect(),
    })
}

/// The member a WeCom identity maps to.
pub async fn by_wecom_id(
    pool: &PgPool,
    request: Request<pb::FindUserByWeComIdRequest>,
) -> Result<pb::FindUserByWeComIdResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let (corp_id, user_id) = (req.corp_id.trim(), req.wecom_user_id.trim());
    if corp_id.is_empty() || user_id.is_empty() {
        return Err(ServiceError::not_found());
    }
    let mut tx = db::begin_service(pool).await?;
    let row = store::membership_by_wecom_id(&mut tx, corp_id, user_id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    Ok(pb::FindUserByWeComIdResponse {
        membership: Some(membership_pb(row)),
    })
}

/// The caller's own enterprise and its flags; any other id is not found.
pub async fn enterprise(
    pool: &PgPool,
    request: Request<pb::GetEnterpriseRequest>,
) -> Result<pb::GetEnterpriseResponse, ServiceError> {
    let tenant = grpc::tenant(&request)?;
    if convert::id(&request.get_ref().enterprise_id)? != tenant {
        return Err(ServiceError::not_found());
    }
    let mut tx = db::begin_service(pool).await?;
    let row = store::enterprise(&mut tx, tenant)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    let lists = lists::of_enterprise(&mut tx, tenant).await?;
    Ok(pb::GetEnterpriseResponse {
        enterprise: Some(pb::Enterprise {
            id: row.id.to_string(),
            name: row.name,
            code: row.code,
            status: crate::roles::status_pb(row.status),
            credit_code: row.credit_code,
            contact_name: row.contact_name,
            contact_phone_masked: mask::centre(&row.contact_phone),
            wecom_corp_id: row.wecom_corp_id.unwrap_or_default(),
            create_time: Some(timestamp(row.created_at)),
        }),
        flags: Some(lists.flags()),
    })
}
