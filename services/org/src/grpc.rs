//! The OrgService gRPC handlers. Tenant-owned reads take the enterprise from
//! the verified caller, never from the request, so another tenant's id is
//! simply not found.

use std::collections::HashMap;

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ServiceError, grpc, mask};
use fleetdesk_proto::org::v1::{self as pb, org_service_server::OrgService};
use sqlx::PgPool;
use tonic::{Request, Response, Status};
use uuid::Uuid;

use crate::store::{self, ENABLED, MembershipRow, OrgUnitRow, RoleRow};

pub const PERM_ROLE_LIST: &str = "as:sys:role:getList";
pub const PERM_ORG_LIST: &str = "as:sys:org:getList";

#[derive(Clone, Debug)]
pub struct OrgApi {
    pub pool: PgPool,
}

fn status_pb(status: i16) -> i32 {
    if status == ENABLED {
        pb::EnabledStatus::Enabled as i32
    } else {
        pb::EnabledStatus::Disabled as i32
    }
}

fn data_scope_pb(kind: i16, org_ids: &[Uuid]) -> pb::DataScope {
    pb::DataScope {
        kind: i32::from(kind),
        org_ids: org_ids.iter().map(Uuid::to_string).collect(),
    }
}

fn role_pb(row: &RoleRow) -> pb::Role {
    pb::Role {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        name: row.name.clone(),
        description: row.description.clone(),
        permission_values: row.permission_values.clone(),
        data_scope: Some(data_scope_pb(row.data_scope_kind, &row.data_scope_org_ids)),
        status: status_pb(row.status),
        user_count: i32::try_from(row.user_count).unwrap_or(i32::MAX),
        create_time: Some(timestamp(row.created_at)),
    }
}

fn membership_pb(row: MembershipRow) -> pb::Membership {
    pb::Membership {
        enterprise_id: row.enterprise_id.to_string(),
        enterprise_name: row.enterprise_name,
        user_id: row.member_id.to_string(),
        account_id: row.account_id.to_string(),
    }
}

/// How much a data scope reaches, to pick the broadest of a user's roles.
fn scope_breadth(kind: i16) -> u8 {
    match pb::DataScopeKind::try_from(i32::from(kind)) {
        Ok(pb::DataScopeKind::Enterprise) => 5,
        Ok(pb::DataScopeKind::OrgSubtree) => 4,
        Ok(pb::DataScopeKind::Custom) => 3,
        Ok(pb::DataScopeKind::Org) => 2,
        Ok(pb::DataScopeKind::Self_) => 1,
        Ok(pb::DataScopeKind::Unspecified) | Err(_) => 0,
    }
}

/// Nests flat rows (ordered parents first) into trees.
fn org_tree(rows: Vec<OrgUnitRow>) -> Vec<pb::OrgUnit> {
    let mut children: HashMap<Option<Uuid>, Vec<OrgUnitRow>> = HashMap::new();
    let ids: std::collections::HashSet<Uuid> = rows.iter().map(|r| r.id).collect();
    for row in rows {
        // A node whose parent is filtered out (disabled) becomes a root.
        let parent = row.parent_id.filter(|p| ids.contains(p));
        children.entry(parent).or_default().push(row);
    }
    fn build(
        parent: Option<Uuid>,
        children: &mut HashMap<Option<Uuid>, Vec<OrgUnitRow>>,
    ) -> Vec<pb::OrgUnit> {
        let rows = children.remove(&parent).unwrap_or_default();
        rows.into_iter()
            .map(|row| pb::OrgUnit {
                id: row.id.to_string(),
                enterprise_id: row.enterprise_id.to_string(),
                parent_id: row.parent_id.map(|p| p.to_string()).unwrap_or_default(),
                org_code: row.org_code.clone(),
                name: row.name.clone(),
                level: row.level,
                sort: row.sort,
                status: status_pb(row.status),
                children: build(Some(row.id), children),
                create_time: Some(timestamp(row.created_at)),
            })
            .collect()
    }
    build(None, &mut children)
}

#[tonic::async_trait]
impl OrgService for OrgApi {
    async fn get_principal(
        &self,
        request: Request<pb::GetPrincipalRequest>,
    ) -> Result<Response<pb::GetPrincipalResponse>, Status> {
        grpc::require_service(&request)?;
        let req = request.into_inner();
        let account_id = convert::id(&req.account_id)?;
        let enterprise_id = convert::id(&req.enterprise_id)?;
        let enterprise = store::enterprise(&self.pool, enterprise_id)
            .await
            .map_err(ServiceError::from)?
            .filter(|e| e.status == ENABLED)
            .ok_or_else(ServiceError::unauthenticated)?;
        let member = store::member_of_account(&self.pool, enterprise_id, account_id)
            .await
            .map_err(ServiceError::from)?
            .filter(|m| m.status == ENABLED)
            .ok_or_else(ServiceError::unauthenticated)?;
        let roles = store::roles_of_member(&self.pool, enterprise_id, member.id)
            .await
            .map_err(ServiceError::from)?;
        let mut permission_values: Vec<String> = roles
            .iter()
            .flat_map(|r| r.permission_values.iter().cloned())
            .collect();
        permission_values.sort_unstable();
        permission_values.dedup();
        let data_scope = roles
            .iter()
            .max_by_key(|r| scope_breadth(r.data_scope_kind))
            .map(|r| data_scope_pb(r.data_scope_kind, &r.data_scope_org_ids));
        let principal = pb::Principal {
            user_id: member.id.to_string(),
            account_id: member.account_id.to_string(),
            enterprise_id: enterprise.id.to_string(),
            enterprise_name: enterprise.name,
            name: member.name,
            user_name: member.user_name,
            avatar_url: member.avatar_url,
            roles: roles.iter().map(role_pb).collect(),
            permission_values,
            data_scope,
            flags: Some(pb::EnterpriseFlags::default()),
        };
        Ok(Response::new(pb::GetPrincipalResponse {
            principal: Some(principal),
        }))
    }

    async fn list_memberships(
        &self,
        request: Request<pb::ListMembershipsRequest>,
    ) -> Result<Response<pb::ListMembershipsResponse>, Status> {
        grpc::require_service(&request)?;
        let account_id = convert::id(&request.get_ref().account_id)?;
        let rows = store::memberships(&self.pool, account_id)
            .await
            .map_err(ServiceError::from)?;
        let memberships = rows.into_iter().map(membership_pb).collect();
        Ok(Response::new(pb::ListMembershipsResponse { memberships }))
    }

    async fn find_user_by_we_com_id(
        &self,
        request: Request<pb::FindUserByWeComIdRequest>,
    ) -> Result<Response<pb::FindUserByWeComIdResponse>, Status> {
        grpc::require_service(&request)?;
        let req = request.into_inner();
        let (corp_id, user_id) = (req.corp_id.trim(), req.wecom_user_id.trim());
        if corp_id.is_empty() || user_id.is_empty() {
            return Err(ServiceError::not_found().into());
        }
        let row = store::membership_by_wecom_id(&self.pool, corp_id, user_id)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(ServiceError::not_found)?;
        Ok(Response::new(pb::FindUserByWeComIdResponse {
            membership: Some(membership_pb(row)),
        }))
    }

    async fn get_enterprise(
        &self,
        request: Request<pb::GetEnterpriseRequest>,
    ) -> Result<Response<pb::GetEnterpriseResponse>, Status> {
        let tenant = grpc::tenant(&request)?;
        // Only one's own enterprise; any other id is not found.
        if convert::id(&request.get_ref().enterprise_id)? != tenant {
            return Err(ServiceError::not_found().into());
        }
        let row = store::enterprise(&self.pool, tenant)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(ServiceError::not_found)?;
        let enterprise = pb::Enterprise {
            id: row.id.to_string(),
            name: row.name,
            code: row.code,
            status: status_pb(row.status),
            credit_code: row.credit_code,
            contact_name: row.contact_name,
            contact_phone_masked: mask::centre(&row.contact_phone),
            wecom_corp_id: row.wecom_corp_id.unwrap_or_default(),
            create_time: Some(timestamp(row.created_at)),
        };
        Ok(Response::new(pb::GetEnterpriseResponse {
            enterprise: Some(enterprise),
            flags: Some(pb::EnterpriseFlags::default()),
        }))
    }

    async fn list_org_units(
        &self,
        request: Request<pb::ListOrgUnitsRequest>,
    ) -> Result<Response<pb::ListOrgUnitsResponse>, Status> {
        grpc::require_permission(&request, PERM_ORG_LIST)?;
        let tenant = grpc::tenant(&request)?;
        let req = request.into_inner();
        let rows = store::org_units(&self.pool, tenant, req.include_disabled)
            .await
            .map_err(ServiceError::from)?;
        let needle = req.name_contains.trim();
        let rows = if needle.is_empty() {
            rows
        } else {
            keep_matches_with_ancestors(rows, needle)
        };
        Ok(Response::new(pb::ListOrgUnitsResponse {
            roots: org_tree(rows),
        }))
    }

    async fn list_permissions(
        &self,
        request: Request<pb::ListPermissionsRequest>,
    ) -> Result<Response<pb::ListPermissionsResponse>, Status> {
        grpc::caller(&request)?;
        let rows = store::permissions(&self.pool)
            .await
            .map_err(ServiceError::from)?;
        let permissions = rows
            .into_iter()
            .map(|r| pb::Permission {
                value: r.value,
                label_zh: r.label_zh,
                label_en: r.label_en,
                label_ja: r.label_ja,
            })
            .collect();
        Ok(Response::new(pb::ListPermissionsResponse { permissions }))
    }

    async fn list_roles(
        &self,
        request: Request<pb::ListRolesRequest>,
    ) -> Result<Response<pb::ListRolesResponse>, Status> {
        grpc::require_permission(&request, PERM_ROLE_LIST)?;
        let tenant = grpc::tenant(&request)?;
        let req = request.into_inner();
        let (page, size) = convert::page(req.page.as_ref());
        let (rows, total) =
            store::list_roles(&self.pool, tenant, req.name_contains.trim(), page, size)
                .await
                .map_err(ServiceError::from)?;
        Ok(Response::new(pb::ListRolesResponse {
            roles: rows.iter().map(role_pb).collect(),
            page: Some(convert::page_info(page, size, total)),
        }))
    }

    async fn get_role(
        &self,
        request: Request<pb::GetRoleRequest>,
    ) -> Result<Response<pb::GetRoleResponse>, Status> {
        grpc::require_permission(&request, PERM_ROLE_LIST)?;
        let tenant = grpc::tenant(&request)?;
        let id = convert::id(&request.get_ref().id)?;
        let row = store::role(&self.pool, tenant, id)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(ServiceError::not_found)?;
        Ok(Response::new(pb::GetRoleResponse {
            role: Some(role_pb(&row)),
        }))
    }
}

/// Nodes whose name contains `needle`, with their ancestors so the tree stays whole.
fn keep_matches_with_ancestors(rows: Vec<OrgUnitRow>, needle: &str) -> Vec<OrgUnitRow> {
    let parent: HashMap<Uuid, Option<Uuid>> = rows.iter().map(|r| (r.id, r.parent_id)).collect();
    let mut keep = std::collections::HashSet::new();
    for row in rows.iter().filter(|r| r.name.contains(needle)) {
        let mut at = Some(row.id);
        while let Some(id) = at {
            if !keep.insert(id) {
                break;
            }
            at = parent.get(&id).copied().flatten();
        }
    }
    rows.into_iter().filter(|r| keep.contains(&r.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn unit(id: u128, parent: Option<u128>, name: &str, level: i32) -> OrgUnitRow {
        OrgUnitRow {
            id: Uuid::from_u128(id),
            enterprise_id: Uuid::nil(),
            parent_id: parent.map(Uuid::from_u128),
            org_code: format!("C{id}"),
            name: name.into(),
            level,
            sort: 0,
            status: ENABLED,
            created_at: chrono::Utc::now(),
        }
    }

    fn names(tree: &[pb::OrgUnit]) -> Vec<String> {
        tree.iter()
            .flat_map(|n| std::iter::once(n.name.clone()).chain(names(&n.children)))
            .collect()
    }

    #[test]
    fn flat_rows_nest_into_a_tree() {
        let tree = org_tree(vec![
            unit(1, None, "总部", 1),
            unit(2, Some(1), "华东", 2),
            unit(3, Some(2), "上海", 3),
        ]);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].children[0].children[0].name, "上海");
    }

    #[test]
    fn a_name_search_keeps_the_path_to_each_match() {
        let rows = vec![
            unit(1, None, "总部", 1),
            unit(2, Some(1), "华东", 2),
            unit(3, Some(2), "上海", 3),
            unit(4, Some(1), "华南", 2),
        ];
        let tree = org_tree(keep_matches_with_ancestors(rows, "上海"));
        assert_eq!(names(&tree), vec!["总部", "华东", "上海"]);
    }
}
