//! Shared data for pickers and labels: dictionaries, GB/T 2260 areas, and
//! the operator's regions and operating cities, and the organisations the
//! caller's data scope reaches.

use axum::extract::State;
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok};
use crate::extract::TrimmedQuery;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_dict))
        .routes(routes!(list_areas))
        .routes(routes!(list_regions))
        .routes(routes!(list_simple_orgs))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DictQuery {
    /// Dictionary type, e.g. `APPROVAL_STATUS`; every entry when absent.
    #[serde(rename = "type")]
    pub dict_type: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DictEntryBody {
    pub dict_type: String,
    pub value: String,
    pub label: String,
    pub sort: i32,
}

#[utoipa::path(
    get, path = "/dicts", tag = "shared",
    params(DictQuery),
    responses((status = 200, description = "Entries of one dictionary (getSimpleDictByType), in order", body = Envelope<Vec<DictEntryBody>>)),
    security(("token" = []))
)]
async fn list_dict(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<DictQuery>,
) -> ApiResult<Vec<DictEntryBody>> {
    let request = pb::GetSimpleDictByTypeRequest {
        r#type: query.dict_type.unwrap_or_default(),
    };
    let answer = state
        .org()
        .get_simple_dict_by_type(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .entries
        .into_iter()
        .map(|e| DictEntryBody {
            dict_type: e.r#type,
            value: e.value,
            label: e.label,
            sort: e.sort,
        })
        .collect()))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct AreaBody {
    pub code: String,
    pub parent_code: String,
    pub name: String,
    /// 1 province or region, 2 city, 3 district.
    pub level: i32,
}

impl From<pb::AreaNode> for AreaBody {
    fn from(a: pb::AreaNode) -> Self {
        AreaBody {
            code: a.code,
            parent_code: a.parent_code,
            name: a.name,
            level: a.level,
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct AreaQuery {
    /// GB/T 2260 code whose children are listed; 100000 (default) lists the provinces.
    pub parent_code: Option<String>,
}

#[utoipa::path(
    get, path = "/areas", tag = "shared",
    params(AreaQuery),
    responses((status = 200, description = "Provinces, the cities of a province, or the districts of a city (GB/T 2260)", body = Envelope<Vec<AreaBody>>)),
    security(("token" = []))
)]
async fn list_areas(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<AreaQuery>,
) -> ApiResult<Vec<AreaBody>> {
    let request = pb::ListAreasRequest {
        parent_code: query.parent_code.unwrap_or_default(),
        type_code: String::new(),
    };
    let answer = state
        .org()
        .list_areas(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.areas.into_iter().map(AreaBody::from).collect()))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct RegionQuery {
    /// REGIONAL_LIST (default): the regions; OPERATING_CITY: operating cities.
    pub type_code: Option<String>,
    /// With OPERATING_CITY: only the cities of this region.
    pub parent_code: Option<String>,
}

/// A region or operating city in the picker's shape (name, id, code).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct RegionBody {
    pub id: String,
    pub code: String,
    pub name: String,
    /// The region of an operating city; empty for a region.
    pub parent_code: String,
}

#[utoipa::path(
    get, path = "/regions", tag = "shared",
    params(RegionQuery),
    responses((status = 200, description = "Operating regions, or the operating cities (of a region)", body = Envelope<Vec<RegionBody>>)),
    security(("token" = []))
)]
async fn list_regions(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<RegionQuery>,
) -> ApiResult<Vec<RegionBody>> {
    let type_code = query
        .type_code
        .unwrap_or_else(|| "REGIONAL_LIST".to_owned());
    if !matches!(type_code.as_str(), "REGIONAL_LIST" | "OPERATING_CITY") {
        return Err(ApiError::invalid("typeCode", "区域类型无效"));
    }
    let request = pb::ListAreasRequest {
        parent_code: query.parent_code.unwrap_or_default(),
        type_code,
    };
    let answer = state
        .org()
        .list_areas(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .areas
        .into_iter()
        .map(|a| RegionBody {
            id: a.code.clone(),
            code: a.code,
            name: a.name,
            parent_code: a.parent_code,
        })
        .collect()))
}

/// An organisation entry of the pickers (getSimpleCurrentOrgs).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SimpleOrgBody {
    pub name: String,
    pub org_id: String,
    pub org_code: String,
    /// The parent organisation; empty for the enterprise root.
    pub parent_id: String,
    /// 1 for the enterprise root, one more per level below.
    pub level: i32,
}

#[utoipa::path(
    get, path = "/orgs/simple", tag = "shared",
    responses((status = 200, description = "The enabled organisations within the caller's data scope, flat, for pickers (getSimpleCurrentOrgs)", body = Envelope<Vec<SimpleOrgBody>>)),
    security(("token" = []))
)]
async fn list_simple_orgs(
    State(state): State<AppState>,
    principal: Principal,
) -> ApiResult<Vec<SimpleOrgBody>> {
    let answer = state
        .org()
        .list_simple_org_units(state.as_user(&principal, pb::ListSimpleOrgUnitsRequest {}))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .orgs
        .into_iter()
        .map(|o| SimpleOrgBody {
            name: o.name,
            org_id: o.id,
            org_code: o.org_code,
            parent_id: o.parent_id,
            level: o.level,
        })
        .collect()))
}
