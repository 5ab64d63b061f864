//! System settings: organisations, roles, the permission catalogue.

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedQuery;
use crate::routes::{paging, rfc3339};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_roles))
        .routes(routes!(get_role))
        .routes(routes!(list_orgs))
        .routes(routes!(list_permissions))
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

/// An organisation node in the console's shape; `childs` is left out when empty.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgNodeBody {
    pub id: String,
    pub org_code: String,
    pub name: String,
    pub parent_id: String,
    pub level: i32,
    /// 1 enabled, 2 disabled.
    pub status: i32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    #[schema(no_recursion)]
    pub childs: Vec<OrgNodeBody>,
}

impl From<pb::OrgUnit> for OrgNodeBody {
    fn from(u: pb::OrgUnit) -> Self {
        OrgNodeBody {
            id: u.id,
            org_code: u.org_code,
            name: u.name,
            parent_id: u.parent_id,
            level: u.level,
            status: u.status,
            childs: u.children.into_iter().map(OrgNodeBody::from).collect(),
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

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PermissionBody {
    pub value: String,
    pub label_zh: String,
    pub label_en: String,
    pub label_ja: String,
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
        })
        .collect()))
}
