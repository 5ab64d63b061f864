//! System settings: organisations, roles, the permission catalogue. Every
//! change evicts the enterprise's cached principals here at once (other
//! gateways hear org's principal-changed event).

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Empty, Envelope, Ok, Page};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::routes::system::forms::{StatusForm, data_scope_field, status_field};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_roles, create_role))
        .routes(routes!(get_role, update_role, delete_role))
        .routes(routes!(list_orgs, create_org))
        .routes(routes!(update_org, delete_org))
        .routes(routes!(move_org))
        .routes(routes!(set_org_status))
        .routes(routes!(list_permissions))
        .routes(routes!(permission_tree))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RoleBody {
    pub id: String,
    pub name: String,
    pub description: String,
    pub permission_values: Vec<String>,
    /// 1 self, 2 org, 3 org subtree, 4 custom, 5 whole enterprise.
    pub data_scope: i32,
    pub data_scope_org_ids: Vec<String>,
    /// 1 enabled, 2 disabled.
    pub status: i32,
    pub user_count: i32,
    pub create_time: String,
}

impl From<pb::Role> for RoleBody {
    fn from(r: pb::Role) -> Self {
        let scope = r.data_scope.unwrap_or_default();
        RoleBody {
            id: r.id,
            name: r.name,
            description: r.description,
            permission_values: r.permission_values,
            data_scope: scope.kind,
            data_scope_org_ids: scope.org_ids,
            status: r.status,
            user_count: r.user_count,
            create_time: rfc3339(r.create_time.as_ref()),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct RoleListQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// Part of the role name.
    pub name: Option<String>,
}

#[utoipa::path(
    get, path = "/system/roles", tag = "system",
    params(RoleListQuery),
    responses((status = 200, description = "Roles of the enterprise", body = Envelope<Page<RoleBody>>)),
    security(("token" = ["as:sys:role:getList"]))
)]
async fn list_roles(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<RoleListQuery>,
) -> ApiResult<Page<RoleBody>> {
    let request = pb::ListRolesRequest {
        page: Some(paging(query.page, query.size)?),
        name_contains: query.name.unwrap_or_default(),
        status: 0,
    };
    let answer = state
        .org()
        .list_roles(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.roles.into_iter().map(RoleBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/system/roles/{id}", tag = "system",
    params(("id" = String, Path, description = "Role id")),
    responses((status = 200, description = "One role", body = Envelope<RoleBody>)),
    security(("token" = ["as:sys:role:getList"]))
)]
async fn get_role(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<RoleBody> {
    let answer = state
        .org()
        .get_role(state.as_user(&principal, pb::GetRoleRequest { id }))
        .await?
        .into_inner();
    Result::Ok(Ok(RoleBody::from(answer.role.unwrap_or_default())))
}

/// A role as the role form sends it.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct RoleForm {
    pub name: String,
    pub description: String,
    /// Values of the permission catalogue.
    pub permission_values: Vec<String>,
    /// 1 self, 2 org, 3 org subtree, 4 custom, 5 whole enterprise.
    pub data_scope: Option<i32>,
    /// The organisation for 2/3 (empty: the user's own), the set for 4.
    pub data_scope_org_ids: Vec<String>,
    /// 1 enabled, 2 disabled (updates only; unchanged when absent).
    pub status: Option<i32>,
}

#[utoipa::path(
    post, path = "/system/roles", tag = "system",
    request_body = RoleForm,
    responses((status = 200, description = "The new role", body = Envelope<RoleBody>)),
    security(("token" = ["as:sys:role:edit"]))
)]
async fn create_role(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<RoleForm>,
) -> ApiResult<RoleBody> {
    let request = pb::CreateRoleRequest {
        name: form.name,
        description: form.description,
        permission_values: form.permission_values,
        data_scope: data_scope_field(form.data_scope, form.data_scope_org_ids)?,
    };
    let answer = state
        .org()
        .create_role(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(RoleBody::from(answer.role.unwrap_or_default())))
}

#[utoipa::path(
    put, path = "/system/roles/{id}", tag = "system",
    params(("id" = String, Path, description = "Role id")),
    request_body = RoleForm,
    responses((status = 200, description = "The changed role", body = Envelope<RoleBody>)),
    security(("token" = ["as:sys:role:edit"]))
)]
async fn update_role(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<RoleForm>,
) -> ApiResult<RoleBody> {
    let status = match form.status {
        None => 0,
        some => status_field(some)?,
    };
    let request = pb::UpdateRoleRequest {
        id,
        name: form.name,
        description: form.description,
        permission_values: form.permission_values,
        data_scope: data_scope_field(form.data_scope, form.data_scope_org_ids)?,
        status,
    };
    let answer = state
        .org()
        .update_role(state.as_user(&principal, request))
        .await?
        .into_inner();
    state.sessions.evict_enterprise(&principal.enterprise_id);
    Result::Ok(Ok(RoleBody::from(answer.role.unwrap_or_default())))
}

#[utoipa::path(
    delete, path = "/system/roles/{id}", tag = "system",
    params(("id" = String, Path, description = "Role id")),
    responses((status = 200, description = "Deleted; its members lose it at once", body = Envelope<Empty>)),
    security(("token" = ["as:sys:role:edit"]))
)]
async fn delete_role(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<Empty> {
    state
        .org()
        .delete_role(state.as_user(&principal, pb::DeleteRoleRequest { id }))
        .await?;
    state.sessions.evict_enterprise(&principal.enterprise_id);
    Result::Ok(Ok(Empty {}))
}

/// An organisation node in the console's shape; `childs` is left out when empty.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgNodeBody {
    pub id: String,
    pub org_code: String,
    pub name: String,
    pub parent_id: String,
    pub level: i32,
    /// Order among siblings.
    pub sort: i32,
    /// 1 enabled, 2 disabled.
    pub status: i32,
    /// A company of its own (listed among the companies); always true for the root.
    pub is_company: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    #[serde(rename = "childs")]
    pub children: Vec<OrgNodeBody>,
}

impl From<pb::OrgUnit> for OrgNodeBody {
    fn from(u: pb::OrgUnit) -> Self {
        OrgNodeBody {
            id: u.id,
            org_code: u.org_code,
            name: u.name,
            parent_id: u.parent_id,
            level: u.level,
            sort: u.sort,
            status: u.status,
            is_company: u.is_company,
            children: u.children.into_iter().map(OrgNodeBody::from).collect(),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OrgListQuery {
    /// Part of an organisation name; matches keep their ancestors.
    pub name: Option<String>,
    /// Include disabled organisations.
    pub include_disabled: Option<bool>,
}

#[utoipa::path(
    get, path = "/system/orgs", tag = "system",
    params(OrgListQuery),
    responses((status = 200, description = "Organisation tree", body = Envelope<Vec<OrgNodeBody>>)),
    security(("token" = ["as:sys:org:getList"]))
)]
async fn list_orgs(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<OrgListQuery>,
) -> ApiResult<Vec<OrgNodeBody>> {
    let request = pb::ListOrgUnitsRequest {
        include_disabled: query.include_disabled.unwrap_or(false),
        name_contains: query.name.unwrap_or_default(),
    };
    let answer = state
        .org()
        .list_org_units(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .roots
        .into_iter()
        .map(OrgNodeBody::from)
        .collect()))
}

/// A new organisation.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct OrgCreateForm {
    /// The parent; empty for a top node.
    pub parent_id: String,
    pub org_code: String,
    pub name: String,
    pub sort: i32,
    /// A company of its own (a subsidiary, a legal entity).
    pub is_company: bool,
}

#[utoipa::path(
    post, path = "/system/orgs", tag = "system",
    request_body = OrgCreateForm,
    responses((status = 200, description = "The new organisation", body = Envelope<OrgNodeBody>)),
    security(("token" = ["as:sys:org:edit"]))
)]
async fn create_org(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<OrgCreateForm>,
) -> ApiResult<OrgNodeBody> {
    let request = pb::CreateOrgUnitRequest {
        parent_id: form.parent_id,
        org_code: form.org_code,
        name: form.name,
        sort: form.sort,
        is_company: form.is_company,
    };
    let answer = state
        .org()
        .create_org_unit(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(OrgNodeBody::from(answer.org_unit.unwrap_or_default())))
}

/// An organisation's code, name, place among its siblings and company flag.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct OrgUpdateForm {
    pub org_code: String,
    pub name: String,
    pub sort: i32,
    /// A company of its own; unchanged when absent (the root is always one).
    pub is_company: Option<bool>,
}

#[utoipa::path(
    put, path = "/system/orgs/{id}", tag = "system",
    params(("id" = String, Path, description = "Organisation id")),
    request_body = OrgUpdateForm,
    responses((status = 200, description = "The changed organisation", body = Envelope<OrgNodeBody>)),
    security(("token" = ["as:sys:org:edit"]))
)]
async fn update_org(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<OrgUpdateForm>,
) -> ApiResult<OrgNodeBody> {
    let request = pb::UpdateOrgUnitRequest {
        id,
        name: form.name,
        org_code: form.org_code,
        sort: form.sort,
        is_company: form.is_company,
    };
    let answer = state
        .org()
        .update_org_unit(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(OrgNodeBody::from(answer.org_unit.unwrap_or_default())))
}

/// Where an organisation (with its subtree) moves. The parent is required:
/// a missing one must not read as "to the top".
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgMoveForm {
    /// The new parent; empty for the top. Never the node itself or below it.
    pub parent_id: String,
}

#[utoipa::path(
    post, path = "/system/orgs/{id}/move", tag = "system",
    params(("id" = String, Path, description = "Organisation id")),
    request_body = OrgMoveForm,
    responses((status = 200, description = "The moved organisation", body = Envelope<OrgNodeBody>)),
    security(("token" = ["as:sys:org:edit"]))
)]
async fn move_org(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<OrgMoveForm>,
) -> ApiResult<OrgNodeBody> {
    let request = pb::MoveOrgUnitRequest {
        id,
        new_parent_id: form.parent_id,
    };
    let answer = state
        .org()
        .move_org_unit(state.as_user(&principal, request))
        .await?
        .into_inner();
    state.sessions.evict_enterprise(&principal.enterprise_id);
    Result::Ok(Ok(OrgNodeBody::from(answer.org_unit.unwrap_or_default())))
}

#[utoipa::path(
    post, path = "/system/orgs/{id}/status", tag = "system",
    params(("id" = String, Path, description = "Organisation id")),
    request_body = StatusForm,
    responses((status = 200, description = "Disabling refuses the root (the enterprise itself) and takes the subtree along; members of a disabled organisation cannot use the enterprise. Enabling needs an enabled parent and brings the subtree back", body = Envelope<OrgNodeBody>)),
    security(("token" = ["as:sys:org:edit"]))
)]
async fn set_org_status(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<StatusForm>,
) -> ApiResult<OrgNodeBody> {
    let request = pb::SetOrgUnitStatusRequest {
        id,
        status: status_field(form.status)?,
    };
    let answer = state
        .org()
        .set_org_unit_status(state.as_user(&principal, request))
        .await?
        .into_inner();
    // Members of the subtree are refused (or let in again) from their next request.
    state.sessions.evict_enterprise(&principal.enterprise_id);
    Result::Ok(Ok(OrgNodeBody::from(answer.org_unit.unwrap_or_default())))
}

#[utoipa::path(
    delete, path = "/system/orgs/{id}", tag = "system",
    params(("id" = String, Path, description = "Organisation id")),
    responses((status = 200, description = "Deleted; only an organisation without children and members, never the root", body = Envelope<Empty>)),
    security(("token" = ["as:sys:org:edit"]))
)]
async fn delete_org(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<Empty> {
    state
        .org()
        .delete_org_unit(state.as_user(&principal, pb::DeleteOrgUnitRequest { id }))
        .await?;
    Result::Ok(Ok(Empty {}))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionBody {
    pub value: String,
    pub label_zh: String,
    pub label_en: String,
    pub label_ja: String,
    /// The value it is grouped under; empty at the top.
    pub parent_value: String,
}

#[utoipa::path(
    get, path = "/system/permissions", tag = "system",
    responses((status = 200, description = "The permission catalogue", body = Envelope<Vec<PermissionBody>>)),
    security(("token" = ["as:sys:role:getList"]))
)]
async fn list_permissions(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<PermissionBody>> {
    let answer = state
        .org()
        .list_permissions(state.as_user(&principal, pb::ListPermissionsRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .permissions
        .into_iter()
        .map(|p| PermissionBody {
            value: p.value,
            label_zh: p.label_zh,
            label_en: p.label_en,
            label_ja: p.label_ja,
            parent_value: p.parent_value,
        })
        .collect()))
}

/// One node of the catalogue tree (the role form's function permissions).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionNode {
    pub value: String,
    pub label_zh: String,
    pub label_en: String,
    pub label_ja: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub children: Vec<PermissionNode>,
}

/// Nests catalogue entries (in catalogue order) under their parents; an
/// entry whose parent is unknown sits at the top.
pub fn permission_tree_of(list: Vec<pb::Permission>) -> Vec<PermissionNode> {
    use std::collections::{HashMap, HashSet};
    let known: HashSet<String> = list.iter().map(|p| p.value.clone()).collect();
    let mut children: HashMap<String, Vec<pb::Permission>> = HashMap::new();
    for p in list {
        let parent = if known.contains(&p.parent_value) && p.parent_value != p.value {
            p.parent_value.clone()
        } else {
            String::new()
        };
        children.entry(parent).or_default().push(p);
    }
    fn build(
        parent: &str,
        children: &mut HashMap<String, Vec<pb::Permission>>,
    ) -> Vec<PermissionNode> {
        children
            .remove(parent)
            .unwrap_or_default()
            .into_iter()
            .map(|p| PermissionNode {
                children: build(&p.value, children),
                value: p.value,
                label_zh: p.label_zh,
                label_en: p.label_en,
                label_ja: p.label_ja,
            })
            .collect()
    }
    build("", &mut children)
}

#[utoipa::path(
    get, path = "/system/permissions/tree", tag = "system",
    responses((status = 200, description = "The permission catalogue as a tree of groups", body = Envelope<Vec<PermissionNode>>)),
    security(("token" = ["as:sys:role:getList"]))
)]
async fn permission_tree(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<PermissionNode>> {
    let answer = state
        .org()
        .list_permissions(state.as_user(&principal, pb::ListPermissionsRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(permission_tree_of(answer.permissions)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn perm(value: &str, parent: &str) -> pb::Permission {
        pb::Permission {
            value: value.into(),
            parent_value: parent.into(),
            ..Default::default()
        }
    }

    #[test]
    fn the_catalogue_nests_under_its_groups_in_order() {
        let tree = permission_tree_of(vec![
            perm("sys", ""),
            perm("sys:org", "sys"),
            perm("sys:role", "sys"),
            perm("orphan", "gone"),
        ]);
        assert_eq!(tree.len(), 2);
        assert_eq!(tree[0].children[1].value, "sys:role");
        assert_eq!(tree[1].value, "orphan");
    }
}
