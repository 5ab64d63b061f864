//! Serve-organisation RPCs. The lookups, for any member, each read the
//! enabled units the caller reaches and the cities they serve, in one tenant
//! transaction; organisation settings read and replace the cities of one
//! unit the caller reaches (enabled or not).

use std::collections::{HashMap, HashSet};

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, City};
use super::{convert, store};
use crate::context::{self, Context};
use crate::orgs::store::{self as orgs_store, OrgUnitRow};
use crate::orgs::{PERM_ORG_EDIT, PERM_ORG_LIST};
use crate::scope::domain::sees_org;

/// The enabled units the caller reaches (parents first) and the cities of
/// those that serve any.
async fn reached<T>(
    ctx: &Context,
    request: &Request<T>,
) -> Result<(Vec<OrgUnitRow>, HashMap<Uuid, Vec<City>>), ServiceError> {
    let mut actor = context::actor(request)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let rows: Vec<OrgUnitRow> = orgs_store::org_units(&mut tx, actor.enterprise_id, false)
        .await?
        .into_iter()
        .filter(|r| sees_org(&actor.reach, Some(r.id)))
        .collect();
    let ids: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
    let areas = store::areas_of(&mut tx, actor.enterprise_id, &ids).await?;
    tx.commit().await?;
    let mut cities: HashMap<Uuid, Vec<City>> = HashMap::new();
    for (org, code) in areas {
        match City::of_code(&code) {
            Some(city) => cities.entry(org).or_default().push(city),
            None => tracing::warn!(%org, %code, "Serve area code unknown to GB/T 2260, skipped."),
        }
    }
    Ok((rows, cities))
}

/// Serve organisations of one level (every level for 0), flat.
pub async fn list(
    ctx: &Context,
    request: Request<pb::ListServeOrgUnitsRequest>,
) -> Result<pb::ListServeOrgUnitsResponse, ServiceError> {
    let pb::ListServeOrgUnitsRequest { level } = *request.get_ref();
    if level < 0 {
        return Err(ServiceError::invalid("level", "组织层级无效"));
    }
    let (rows, cities) = reached(ctx, &request).await?;
    Ok(pb::ListServeOrgUnitsResponse {
        orgs: rows
            .iter()
            .filter(|r| level == 0 || r.level == level)
            .filter_map(|r| cities.get(&r.id).map(|c| convert::unit(r, c, Vec::new())))
            .collect(),
    })
}

/// Serve organisations as a tree, with their reached ancestors.
pub async fn tree(
    ctx: &Context,
    request: Request<pb::GetServeOrgTreeRequest>,
) -> Result<pb::GetServeOrgTreeResponse, ServiceError> {
    let (rows, cities) = reached(ctx, &request).await?;
    let units: Vec<(Uuid, Option<Uuid>)> = rows.iter().map(|r| (r.id, r.parent_id)).collect();
    let serving: HashSet<Uuid> = cities.keys().copied().collect();
    let keep = domain::with_ancestors(&units, &serving);
    let rows: Vec<OrgUnitRow> = rows.into_iter().filter(|r| keep.contains(&r.id)).collect();
    Ok(pb::GetServeOrgTreeResponse {
        roots: convert::tree(&rows, &cities),
    })
}

/// The cities the caller's serve organisations serve, each once.
pub async fn areas(
    ctx: &Context,
    request: Request<pb::ListServeAreasRequest>,
) -> Result<pb::ListServeAreasResponse, ServiceError> {
    let (_, cities) = reached(ctx, &request).await?;
    Ok(pb::ListServeAreasResponse {
        areas: domain::distinct(cities.values().flatten())
            .iter()
            .map(convert::area)
            .collect(),
    })
}

/// The cities one organisation serves itself, in the order set.
pub async fn unit_areas(
    ctx: &Context,
    request: Request<pb::GetOrgUnitServeAreasRequest>,
) -> Result<pb::GetOrgUnitServeAreasResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_LIST)?;
    let mut actor = context::actor(&request)?;
    let org_id = kit_convert::id(&request.get_ref().org_id)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    orgs_store::visible(&mut tx, &actor.reach, org_id).await?;
    let codes = store::areas_of(&mut tx, actor.enterprise_id, &[org_id]).await?;
    tx.commit().await?;
    Ok(pb::GetOrgUnitServeAreasResponse {
        areas: codes
            .iter()
            .filter_map(|(_, code)| City::of_code(code))
            .map(|c| convert::area(&c))
            .collect(),
    })
}

/// Replaces the cities one organisation serves; none makes it serve nothing.
pub async fn set_unit_areas(
    ctx: &Context,
    request: Request<pb::SetOrgUnitServeAreasRequest>,
) -> Result<pb::SetOrgUnitServeAreasResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::SetOrgUnitServeAreasRequest { org_id, city_codes } = request.into_inner();
    let org_id = kit_convert::id(&org_id)?;
    let cities = domain::serve_cities(&city_codes)
        .map_err(|code| ServiceError::invalid("cityCodes", format!("无效的城市编码：{code}")))?;
    if cities.len() > domain::MAX_SERVE_CITIES {
        return Err(ServiceError::invalid(
            "cityCodes",
            format!("服务区域最多 {} 个城市", domain::MAX_SERVE_CITIES),
        ));
    }
    let codes: Vec<String> = cities.iter().map(|c| c.code.clone()).collect();
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    orgs_store::visible(&mut tx, &actor.reach, org_id).await?;
    store::replace_areas(&mut tx, actor.enterprise_id, org_id, &codes).await?;
    tx.commit().await?;
    tracing::info!(%org_id, cities = codes.len(), "Serve areas set.");
    Ok(pb::SetOrgUnitServeAreasResponse {
        areas: cities.iter().map(convert::area).collect(),
    })
}
