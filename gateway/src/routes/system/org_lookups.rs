//! Organisation lookups for the forms and pickers of console spec §7, for
//! any signed-in member and within their data scope: serve organisations
//! (the units that serve cities) by level and as a tree, the caller's serve
//! areas, the enterprise's companies, virtual organisations (list and the
//! map of the units below each) and the portal's apps. Organisation settings
//! read and replace the cities one organisation serves here too, with the
//! permissions of the organisation tree.

use std::collections::BTreeMap;

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiResult, Envelope, Ok};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_serve_orgs))
        .routes(routes!(serve_org_tree))
        .routes(routes!(list_serve_areas))
        .routes(routes!(get_org_serve_areas, set_org_serve_areas))
        .routes(routes!(list_companies))
        .routes(routes!(list_virtual_orgs))
        .routes(routes!(virtual_org_map))
        .routes(routes!(list_portal_apps))
}

/// A city an organisation serves (GB/T 2260), with its province.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServeAreaBody {
    pub province_code: String,
    pub province_name: String,
    pub city_code: String,
    pub city_name: String,
}

impl From<pb::ServeArea> for ServeAreaBody {
    fn from(a: pb::ServeArea) -> Self {
        let pb::ServeArea {
            province_code,
            province_name,
            city_code,
            city_name,
        } = a;
        ServeAreaBody {
            province_code,
            province_name,
            city_code,
            city_name,
        }
    }
}

/// A serve organisation; `childs` only in the tree, and left out when empty.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServeOrgBody {
    pub id: String,
    pub org_code: String,
    pub name: String,
    /// The parent organisation; empty for the enterprise root.
    pub parent_id: String,
    /// 1 for the enterprise root, one more per level below.
    pub level: i32,
    /// The cities it serves itself; empty for an ancestor kept for the tree's shape.
    pub areas: Vec<ServeAreaBody>,
    #[serde(skip_serializing_if = "Vec::is_empty", rename = "childs")]
    #[schema(no_recursion)]
    pub children: Vec<ServeOrgBody>,
}

impl From<pb::ServeOrgUnit> for ServeOrgBody {
    fn from(u: pb::ServeOrgUnit) -> Self {
        let pb::ServeOrgUnit {
            id,
            parent_id,
            org_code,
            name,
            level,
            areas,
            children,
        } = u;
        ServeOrgBody {
            id,
            org_code,
            name,
            parent_id,
            level,
            areas: areas.into_iter().map(ServeAreaBody::from).collect(),
            children: children.into_iter().map(ServeOrgBody::from).collect(),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ServeOrgQuery {
    /// Only this level (1 = the enterprise root); every level when absent.
    pub level: Option<i32>,
}

#[utoipa::path(
    get, path = "/serve-orgs", tag = "shared",
    params(ServeOrgQuery),
    responses((status = 200, description = "The serve organisations (units serving at least one city) the caller reaches, of one level or all, flat, with their cities (getServeOrgByLevel)", body = Envelope<Vec<ServeOrgBody>>)),
    security(("token" = []))
)]
async fn list_serve_orgs(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<ServeOrgQuery>,
) -> ApiResult<Vec<ServeOrgBody>> {
    let request = pb::ListServeOrgUnitsRequest {
        level: query.level.unwrap_or(0),
    };
    let answer = state
        .org()
        .list_serve_org_units(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .orgs
        .into_iter()
        .map(ServeOrgBody::from)
        .collect()))
}

#[utoipa::path(
    get, path = "/serve-orgs/tree", tag = "shared",
    responses((status = 200, description = "The serve organisations the caller reaches as a tree, kept whole by their reached ancestors (getServeOrgTree)", body = Envelope<Vec<ServeOrgBody>>)),
    security(("token" = []))
)]
async fn serve_org_tree(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<ServeOrgBody>> {
    let answer = state
        .org()
        .get_serve_org_tree(state.as_user(&principal, pb::GetServeOrgTreeRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .roots
        .into_iter()
        .map(ServeOrgBody::from)
        .collect()))
}

#[utoipa::path(
    get, path = "/serve-areas", tag = "shared",
    responses((status = 200, description = "The cities the caller's reachable organisations serve, each once, by province and city code (getCurrentUserServeOrgArea)", body = Envelope<Vec<ServeAreaBody>>)),
    security(("token" = []))
)]
async fn list_serve_areas(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<ServeAreaBody>> {
    let answer = state
        .org()
        .list_serve_areas(state.as_user(&principal, pb::ListServeAreasRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .areas
        .into_iter()
        .map(ServeAreaBody::from)
        .collect()))
}

#[utoipa::path(
    get, path = "/system/orgs/{id}/serve-areas", tag = "system",
    params(("id" = String, Path, description = "Organisation id")),
    responses((status = 200, description = "The cities the organisation serves itself (服务区域), in the order set", body = Envelope<Vec<ServeAreaBody>>)),
    security(("token" = ["as:sys:org:getList"]))
)]
async fn get_org_serve_areas(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<Vec<ServeAreaBody>> {
    let answer = state
        .org()
        .get_org_unit_serve_areas(
            state.as_user(&principal, pb::GetOrgUnitServeAreasRequest { org_id: id }),
        )
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .areas
        .into_iter()
        .map(ServeAreaBody::from)
        .collect()))
}

/// The cities an organisation serves, replacing those it served.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ServeAreasForm {
    /// GB/T 2260 city codes (a municipality by its province-level code), at
    /// most 400; empty: it serves none.
    pub city_codes: Vec<String>,
}

#[utoipa::path(
    put, path = "/system/orgs/{id}/serve-areas", tag = "system",
    params(("id" = String, Path, description = "Organisation id")),
    request_body = ServeAreasForm,
    responses((status = 200, description = "The cities it serves now; a code GB/T 2260 does not know as a city is 4000 naming cityCodes", body = Envelope<Vec<ServeAreaBody>>)),
    security(("token" = ["as:sys:org:edit"]))
)]
async fn set_org_serve_areas(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<ServeAreasForm>,
) -> ApiResult<Vec<ServeAreaBody>> {
    let request = pb::SetOrgUnitServeAreasRequest {
        org_id: id,
        city_codes: form.city_codes,
    };
    let answer = state
        .org()
        .set_org_unit_serve_areas(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .areas
        .into_iter()
        .map(ServeAreaBody::from)
        .collect()))
}

/// An organisation named for pickers.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OrgRefBody {
    pub id: String,
    pub org_code: String,
    pub name: String,
}

impl From<pb::OrgRef> for OrgRefBody {
    fn from(o: pb::OrgRef) -> Self {
        let pb::OrgRef { id, org_code, name } = o;
        OrgRefBody { id, org_code, name }
    }
}

#[utoipa::path(
    get, path = "/orgs/companies", tag = "shared",
    responses((status = 200, description = "The enterprise's companies the caller reaches: the root (the enterprise itself) and the units marked as companies (getSimpleCompanyList)", body = Envelope<Vec<OrgRefBody>>)),
    security(("token" = []))
)]
async fn list_companies(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<OrgRefBody>> {
    let answer = state
        .org()
        .list_simple_companies(state.as_user(&principal, pb::ListSimpleCompaniesRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .companies
        .into_iter()
        .map(OrgRefBody::from)
        .collect()))
}

/// A virtual organisation: a named grouping of organisation units.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VirtualOrgBody {
    pub id: String,
    pub code: String,
    pub name: String,
    /// The grouped units the caller reaches.
    pub orgs: Vec<OrgRefBody>,
}

async fn virtual_orgs(
    state: &AppState,
    principal: &Principal,
) -> Result<Vec<pb::VirtualOrg>, crate::envelope::ApiError> {
    Result::Ok(
        state
            .org()
            .list_virtual_orgs(state.as_user(principal, pb::ListVirtualOrgsRequest {}))
            .await?
            .into_inner()
            .virtual_orgs,
    )
}

#[utoipa::path(
    get, path = "/virtual-orgs", tag = "shared",
    responses((status = 200, description = "Virtual organisations with the grouped units the caller reaches; one the caller reaches none of is left out (orgvirtual getList)", body = Envelope<Vec<VirtualOrgBody>>)),
    security(("token" = []))
)]
async fn list_virtual_orgs(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<VirtualOrgBody>> {
    let list = virtual_orgs(&state, &principal).await?;
    Result::Ok(Ok(list
        .into_iter()
        .map(|v| {
            let pb::VirtualOrg {
                id,
                code,
                name,
                orgs,
                down_org_ids: _,
            } = v;
            VirtualOrgBody {
                id,
                code,
                name,
                orgs: orgs.into_iter().map(OrgRefBody::from).collect(),
            }
        })
        .collect()))
}

/// Each virtual organisation's id with the units it groups and every
/// enabled unit below them, as far as the caller reaches.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct VirtualOrgMapBody {
    pub down_org_ids: BTreeMap<String, Vec<String>>,
}

#[utoipa::path(
    get, path = "/virtual-orgs/org-map", tag = "shared",
    responses((status = 200, description = "Virtual organisation id → the organisation ids below it (orgvirtual getDownOrgMap)", body = Envelope<VirtualOrgMapBody>)),
    security(("token" = []))
)]
async fn virtual_org_map(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<VirtualOrgMapBody> {
    let list = virtual_orgs(&state, &principal).await?;
    Result::Ok(Ok(VirtualOrgMapBody {
        down_org_ids: list.into_iter().map(|v| (v.id, v.down_org_ids)).collect(),
    }))
}

/// An app of the portal: a top-level group of the console.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct PortalAppBody {
    /// Its permission value, e.g. `oss:pc:vehicle:management`.
    pub value: String,
    pub label_zh: String,
    pub label_en: String,
    pub label_ja: String,
    /// The console path it opens.
    pub path: String,
}

#[utoipa::path(
    get, path = "/portal-apps", tag = "shared",
    responses((status = 200, description = "The apps (the navbar's top-level groups) the caller's permissions open, in menu order (portal app list)", body = Envelope<Vec<PortalAppBody>>)),
    security(("token" = []))
)]
async fn list_portal_apps(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<PortalAppBody>> {
    let answer = state
        .org()
        .list_portal_apps(state.as_user(&principal, pb::ListPortalAppsRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .apps
        .into_iter()
        .map(|a| {
            let pb::PortalApp {
                value,
                label_zh,
                label_en,
                label_ja,
                path,
            } = a;
            PortalAppBody {
                value,
                label_zh,
                label_en,
                label_ja,
                path,
            }
        })
        .collect()))
}
