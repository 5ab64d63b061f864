//! Role RPCs: validate → domain → store → response, each in one tenant
//! transaction; a change announces the principals of the role's members.
//! An edit or delete locks the role first, so a member added meanwhile is
//! seen (or waits) and the built-in role's rules hold under concurrency.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, RoleForm};
use super::{PERM_ROLE_EDIT, PERM_ROLE_LIST, convert, store};
use crate::changes;
use crate::codes::Status;
use crate::context::Context;
use crate::scope;

/// Checks a role's form against the catalogue and the tenant's organisations.
async fn check_form(
    conn: &mut PgConnection,
    name: &str,
    description: &str,
    values: &[String],
    data_scope: Option<&pb::DataScope>,
) -> Result<RoleForm, ServiceError> {
    let (name, description) = domain::check_text(name, description)?;
    let values = domain::permission_values(values)?;
    let known = store::known_permissions(conn, &values).await?;
    if let Some(unknown) = values.iter().find(|v| !known.contains(v)) {
        return Err(ServiceError::invalid(
            "permissionValues",
            format!("权限不存在：{unknown}"),
        ));
    }
    let data_scope = scope::convert::data_scope(data_scope)?
        .ok_or_else(|| ServiceError::invalid("dataScope", "请选择数据权限"))?;
    scope::store::check_orgs(conn, &data_scope).await?;
    Ok(RoleForm {
        name,
        description,
        permission_values: values,
        data_scope,
    })
}

pub async fn list(
    ctx: &Context,
    request: Request<pb::ListRolesRequest>,
) -> Result<pb::ListRolesResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_LIST)?;
    let tenant = grpc::tenant(&request)?;
    let pb::ListRolesRequest {
        page,
        name_contains,
        // Not a filter of this list (it never was): every status is listed.
        status: _,
    } = request.into_inner();
    let (page, size) = kit_convert::page(page.as_ref());
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    let (rows, total) = store::list(&mut tx, tenant, name_contains.trim(), page, size).await?;
    Ok(pb::ListRolesResponse {
        roles: rows.iter().map(convert::role).collect(),
        page: Some(kit_convert::page_info(page, size, total)),
    })
}

pub async fn get(
    ctx: &Context,
    request: Request<pb::GetRoleRequest>,
) -> Result<pb::GetRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_LIST)?;
    let tenant = grpc::tenant(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    let row = store::get(&mut tx, tenant, id).await?;
    Ok(pb::GetRoleResponse {
        role: Some(convert::role(&row)),
    })
}

pub async fn create(
    ctx: &Context,
    request: Request<pb::CreateRoleRequest>,
) -> Result<pb::CreateRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_EDIT)?;
    let tenant = grpc::tenant(&request)?;
    let pb::CreateRoleRequest {
        name,
        description,
        permission_values,
        data_scope,
    } = request.into_inner();
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    let form = check_form(
        &mut tx,
        &name,
        &description,
        &permission_values,
        data_scope.as_ref(),
    )
    .await?;
    let id = Uuid::new_v4();
    store::insert(&mut tx, tenant, id, &form).await?;
    let row = store::get(&mut tx, tenant, id).await?;
    tx.commit().await?;
    tracing::info!(role_id = %id, "Role created.");
    Ok(pb::CreateRoleResponse {
        role: Some(convert::role(&row)),
    })
}

pub async fn update(
    ctx: &Context,
    request: Request<pb::UpdateRoleRequest>,
) -> Result<pb::UpdateRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_EDIT)?;
    let tenant = grpc::tenant(&request)?;
    let pb::UpdateRoleRequest {
        id,
        name,
        description,
        permission_values,
        data_scope,
        status,
    } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    store::lock(&mut tx, tenant, id).await?;
    let current = store::get(&mut tx, tenant, id).await?;
    let form = check_form(
        &mut tx,
        &name,
        &description,
        &permission_values,
        data_scope.as_ref(),
    )
    .await?;
    let status = domain::kept_status(Status::from_request(status)?, current.status);
    if current.builtin {
        domain::check_builtin_edit(&current.permission_values, &form, status)?;
    }
    store::update(&mut tx, tenant, id, &form, status).await?;
    let members = store::members_of(&mut tx, id).await?;
    changes::principals_changed(&mut tx, Some(tenant), &members).await?;
    let row = store::get(&mut tx, tenant, id).await?;
    tx.commit().await?;
    tracing::info!(role_id = %id, members = members.len(), "Role updated.");
    Ok(pb::UpdateRoleResponse {
        role: Some(convert::role(&row)),
    })
}

pub async fn delete(
    ctx: &Context,
    request: Request<pb::DeleteRoleRequest>,
) -> Result<pb::DeleteRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_EDIT)?;
    let tenant = grpc::tenant(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    store::lock(&mut tx, tenant, id).await?;
    let role = store::get(&mut tx, tenant, id).await?;
    let members = store::members_of(&mut tx, id).await?;
    domain::check_delete(role.builtin, members.len())?;
    store::delete(&mut tx, tenant, id).await?;
    changes::principals_changed(&mut tx, Some(tenant), &members).await?;
    tx.commit().await?;
    tracing::info!(role_id = %id, members = members.len(), "Role deleted.");
    Ok(pb::DeleteRoleResponse {})
}
