//! Organisation tree RPCs: validate → domain → store → response, each in
//! one tenant transaction under the caller's reach; every change announces
//! the units it touched to the replicas.

use fleetdesk_kit::{ErrorCode, ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::store::{self, NewUnit, OrgUnitRow};
use super::{PERM_ORG_EDIT, PERM_ORG_LIST, convert, domain};
use crate::changes;
use crate::codes::Status;
use crate::context::{self, Context};
use crate::replication;
use crate::scope::domain::sees_org;

pub async fn list(
    ctx: &Context,
    request: Request<pb::ListOrgUnitsRequest>,
) -> Result<pb::ListOrgUnitsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_LIST)?;
    let mut actor = context::actor(&request)?;
    let pb::ListOrgUnitsRequest {
        name_contains,
        include_disabled,
    } = request.into_inner();
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let rows = store::org_units(&mut tx, actor.enterprise_id, include_disabled).await?;
    let rows: Vec<OrgUnitRow> = rows
        .into_iter()
        .filter(|r| sees_org(&actor.reach, Some(r.id)))
        .collect();
    let needle = name_contains.trim();
    let rows = if needle.is_empty() {
        rows
    } else {
        domain::keep_matches_with_ancestors(rows, needle)
    };
    Ok(pb::ListOrgUnitsResponse {
        roots: convert::org_tree(rows),
    })
}

/// The enabled organisations the caller reaches, flat, for pickers
/// (getSimpleCurrentOrgs). Any member may ask: it shows no more than their
/// data scope already lets them filter by.
pub async fn list_simple(
    ctx: &Context,
    request: Request<pb::ListSimpleOrgUnitsRequest>,
) -> Result<pb::ListSimpleOrgUnitsResponse, ServiceError> {
    let mut actor = context::actor(&request)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let rows = store::org_units(&mut tx, actor.enterprise_id, false).await?;
    tx.commit().await?;
    Ok(pb::ListSimpleOrgUnitsResponse {
        orgs: rows
            .iter()
            .filter(|r| sees_org(&actor.reach, Some(r.id)))
            .map(|r| convert::node(r, Vec::new()))
            .collect(),
    })
}

/// The enterprise's companies the caller reaches: the root (the enterprise
/// itself) and the enabled units marked as companies (getSimpleCompanyList).
/// Any member may ask, like [`list_simple`].
pub async fn list_companies(
    ctx: &Context,
    request: Request<pb::ListSimpleCompaniesRequest>,
) -> Result<pb::ListSimpleCompaniesResponse, ServiceError> {
    let mut actor = context::actor(&request)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let rows = store::companies(&mut tx, actor.enterprise_id).await?;
    tx.commit().await?;
    Ok(pb::ListSimpleCompaniesResponse {
        companies: rows
            .iter()
            .filter(|r| sees_org(&actor.reach, Some(r.id)))
            .map(convert::org_ref)
            .collect(),
    })
}

pub async fn create(
    ctx: &Context,
    request: Request<pb::CreateOrgUnitRequest>,
) -> Result<pb::CreateOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::CreateOrgUnitRequest {
        parent_id,
        org_code,
        name,
        sort,
        is_company,
    } = request.into_inner();
    let (name, code) = (name.trim(), org_code.trim());
    domain::check_name_code(name, code)?;
    let parent_id = convert::parent_field(&parent_id)?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    // Without a parent it goes under the root; only a fresh enterprise gets a new root.
    let parent_id = match parent_id {
        Some(p) => Some(p),
        None => store::root_of(&mut tx, tenant).await?.map(|r| r.id),
    };
    let level = match parent_id {
        Some(p) => {
            let parent = store::visible(&mut tx, &actor.reach, p).await?;
            if Status::of_column(parent.status) != Status::Enabled {
                return Err(ServiceError::new(ErrorCode::Conflict, "上级组织已停用"));
            }
            parent.level + 1
        }
        // Only a member who reaches the whole enterprise may add the root.
        None if actor.reach.all => 1,
        None => return Err(ServiceError::invalid("parentId", "请选择上级组织")),
    };
    let id = Uuid::new_v4();
    let row = store::insert(
        &mut tx,
        NewUnit {
            id,
            tenant,
            parent_id,
            code,
            name,
            level,
            sort,
            is_company,
        },
    )
    .await?;
    replication::store::announce(&mut tx, &[id]).await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, "Organisation created.");
    Ok(pb::CreateOrgUnitResponse {
        org_unit: Some(convert::node(&row, Vec::new())),
    })
}

pub async fn update(
    ctx: &Context,
    request: Request<pb::UpdateOrgUnitRequest>,
) -> Result<pb::UpdateOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::UpdateOrgUnitRequest {
        id,
        org_code,
        name,
        sort,
        is_company,
    } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    store::visible(&mut tx, &actor.reach, id).await?;
    let (name, code) = (name.trim(), org_code.trim());
    domain::check_name_code(name, code)?;
    let row = store::rename(&mut tx, tenant, id, (name, code, sort), is_company).await?;
    replication::store::announce(&mut tx, &[id]).await?;
    tx.commit().await?;
    Ok(pb::UpdateOrgUnitResponse {
        org_unit: Some(convert::node(&row, Vec::new())),
    })
}

pub async fn move_unit(
    ctx: &Context,
    request: Request<pb::MoveOrgUnitRequest>,
) -> Result<pb::MoveOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::MoveOrgUnitRequest { id, new_parent_id } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let new_parent = convert::parent_field(&new_parent_id)?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let row = store::visible(&mut tx, &actor.reach, id).await?;
    if row.parent_id.is_none() {
        return Err(ServiceError::invalid("id", "根组织即企业本身，不能移动"));
    }
    // Moving to the top means under the root.
    let new_parent = match new_parent {
        Some(p) => Some(p),
        None => store::root_of(&mut tx, tenant).await?.map(|r| r.id),
    };
    store::lock_moves(&mut tx, tenant).await?;
    let level = match new_parent {
        Some(p) => {
            let parent = store::visible(&mut tx, &actor.reach, p).await?;
            if store::subtree_ids(&mut tx, id).await?.contains(&p) {
                return Err(ServiceError::invalid(
                    "newParentId",
                    "不能移动到自身或下级组织",
                ));
            }
            parent.level + 1
        }
        None if actor.reach.all => 1,
        None => return Err(ServiceError::invalid("newParentId", "请选择上级组织")),
    };
    store::move_under(&mut tx, id, new_parent, level).await?;
    let row = store::get(&mut tx, id).await?;
    // Every unit below the moved one has a new path too.
    let moved = store::subtree_ids(&mut tx, id).await?;
    replication::store::announce(&mut tx, &moved).await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, "Organisation moved.");
    Ok(pb::MoveOrgUnitResponse {
        org_unit: Some(convert::node(&row, Vec::new())),
    })
}

pub async fn set_status(
    ctx: &Context,
    request: Request<pb::SetOrgUnitStatusRequest>,
) -> Result<pb::SetOrgUnitStatusResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::SetOrgUnitStatusRequest { id, status } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let status = Status::from_request(status)?
        .ok_or_else(|| ServiceError::invalid("status", "请选择状态"))?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let row = store::visible(&mut tx, &actor.reach, id).await?;
    match status {
        Status::Disabled => {
            if row.parent_id.is_none() {
                return Err(ServiceError::new(
                    ErrorCode::Conflict,
                    "根组织即企业本身，不能停用",
                ));
            }
        }
        Status::Enabled => {
            if let Some(p) = row.parent_id
                && store::status_of(&mut tx, p).await? != Status::Enabled
            {
                return Err(ServiceError::new(
                    ErrorCode::Conflict,
                    "上级组织已停用，请先启用上级组织",
                ));
            }
        }
    }
    // The subtree follows: disabled together, enabled together.
    let ids = store::subtree_ids(&mut tx, id).await?;
    store::set_status(&mut tx, &ids, status).await?;
    replication::store::announce(&mut tx, &ids).await?;
    // Their members' sessions are re-resolved: refused while disabled.
    let members = store::members_of(&mut tx, &ids).await?;
    changes::principals_changed(&mut tx, Some(tenant), &members).await?;
    let row = store::get(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, status = i16::from(status), units = ids.len(), members = members.len(), "Organisation status changed.");
    Ok(pb::SetOrgUnitStatusResponse {
        org_unit: Some(convert::node(&row, Vec::new())),
    })
}

/// Deletes an empty organisation: not the root, no children, no members.
pub async fn delete(
    ctx: &Context,
    request: Request<pb::DeleteOrgUnitRequest>,
) -> Result<pb::DeleteOrgUnitResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ORG_EDIT)?;
    let mut actor = context::actor(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let row = store::visible(&mut tx, &actor.reach, id).await?;
    if row.parent_id.is_none() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "根组织即企业本身，不能删除",
        ));
    }
    if store::children_count(&mut tx, id).await? > 0 {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "该组织下还有下级组织，请先删除或移走下级组织",
        ));
    }
    let members = store::members_of(&mut tx, &[id]).await?;
    if !members.is_empty() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            format!(
                "该组织下还有 {} 名成员，请先调整成员的所属组织",
                members.len()
            ),
        ));
    }
    store::delete(&mut tx, id).await?;
    tx.commit().await?;
    tracing::info!(org_id = %id, "Organisation deleted.");
    Ok(pb::DeleteOrgUnitResponse {})
}
