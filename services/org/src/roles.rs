//! Roles: function permissions (values of the catalogue) plus a data scope.
//! Changing or deleting a role announces the change for its members, so their
//! next request runs with what is left.

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ErrorCode, FieldError, ServiceError, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{PgConnection, PgPool};
use tonic::Request;
use uuid::Uuid;

use crate::changes;
use crate::scope::DataScope;
use crate::store::{self, DISABLED, ENABLED, RoleRow};

pub const PERM_ROLE_LIST: &str = "as:sys:role:getList";
pub const PERM_ROLE_EDIT: &str = "as:sys:role:edit";

pub fn status_pb(status: i16) -> i32 {
    if status == ENABLED {
        pb::EnabledStatus::Enabled as i32
    } else {
        pb::EnabledStatus::Disabled as i32
    }
}

/// A status from a request; `None` when unspecified.
pub fn status_from_pb(value: i32) -> Result<Option<i16>, ServiceError> {
    match pb::EnabledStatus::try_from(value) {
        Ok(pb::EnabledStatus::Unspecified) => Ok(None),
        Ok(pb::EnabledStatus::Enabled) => Ok(Some(ENABLED)),
        Ok(pb::EnabledStatus::Disabled) => Ok(Some(DISABLED)),
        Err(_) => Err(ServiceError::invalid("status", "状态无效")),
    }
}

pub fn role_pb(row: &RoleRow) -> pb::Role {
    pb::Role {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        name: row.name.clone(),
        description: row.description.clone(),
        permission_values: row.permission_values.clone(),
        data_scope: Some(
            DataScope {
                kind: row.data_scope_kind,
                org_ids: row.data_scope_org_ids.clone(),
            }
            .to_pb(),
        ),
        status: status_pb(row.status),
        user_count: i32::try_from(row.user_count).unwrap_or(i32::MAX),
        create_time: Some(timestamp(row.created_at)),
    }
}

/// A duplicate: 4009 naming the field.
pub fn conflict(field: &str, message: &str) -> ServiceError {
    let mut err = ServiceError::new(ErrorCode::Conflict, message);
    err.fields.push(FieldError {
        field: field.to_owned(),
        message: message.to_owned(),
    });
    err
}

/// Rejects text longer than `max` characters.
pub fn at_most(field: &str, value: &str, max: usize, label: &str) -> Result<(), ServiceError> {
    if value.chars().count() > max {
        Err(ServiceError::invalid(
            field,
            format!("{label}不能超过 {max} 个字符"),
        ))
    } else {
        Ok(())
    }
}

/// The caller's tenant and member (none for a service acting for the tenant).
pub fn caller<T>(request: &Request<T>) -> Result<(Uuid, Option<Uuid>), ServiceError> {
    let actor = crate::actor::of(request)?;
    Ok((actor.enterprise_id, actor.member_id))
}

struct RoleForm {
    name: String,
    description: String,
    permission_values: Vec<String>,
    data_scope: DataScope,
}

async fn check_form(
    conn: &mut PgConnection,
    name: &str,
    description: &str,
    values: &[String],
    data_scope: Option<&pb::DataScope>,
) -> Result<RoleForm, ServiceError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入角色名称"));
    }
    at_most("name", name, 30, "角色名称")?;
    let description = description.trim();
    at_most("description", description, 200, "角色描述")?;
    let mut values: Vec<String> = values
        .iter()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect();
    values.sort_unstable();
    values.dedup();
    // A role without any function permission would give its members nothing.
    if values.is_empty() {
        return Err(ServiceError::invalid(
            "permissionValues",
            "请至少选择一项功能权限",
        ));
    }
    let known: Vec<String> =
        sqlx::query_scalar("select value from permission where value = any($1)")
            .bind(&values)
            .fetch_all(&mut *conn)
            .await?;
    if let Some(unknown) = values.iter().find(|v| !known.contains(v)) {
        return Err(ServiceError::invalid(
            "permissionValues",
            format!("权限不存在：{unknown}"),
        ));
    }
    let data_scope = DataScope::from_pb(data_scope)?
        .ok_or_else(|| ServiceError::invalid("dataScope", "请选择数据权限"))?;
    check_scope_orgs(conn, &data_scope).await?;
    Ok(RoleForm {
        name: name.to_owned(),
        description: description.to_owned(),
        permission_values: values,
        data_scope,
    })
}

/// Every organisation a scope names must be one of the tenant's.
pub async fn check_scope_orgs(conn: &mut PgConnection, s: &DataScope) -> Result<(), ServiceError> {
    if s.org_ids.is_empty() {
        return Ok(());
    }
    let found: i64 = sqlx::query_scalar("select count(*) from org_unit where id = any($1)")
        .bind(&s.org_ids)
        .fetch_one(conn)
        .await?;
    if usize::try_from(found).unwrap_or(0) != s.org_ids.len() {
        return Err(ServiceError::invalid("dataScopeOrgIds", "组织不存在"));
    }
    Ok(())
}

async fn write_permissions(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    role_id: Uuid,
    values: &[String],
) -> sqlx::Result<()> {
    sqlx::query("delete from role_permission where role_id = $1")
        .bind(role_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "insert into role_permission (enterprise_id, role_id, permission_value) \
         select $1, $2, unnest($3::text[])",
    )
    .bind(enterprise_id)
    .bind(role_id)
    .bind(values)
    .execute(conn)
    .await?;
    Ok(())
}

async fn members_of(conn: &mut PgConnection, role_id: Uuid) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select member_id from member_role where role_id = $1")
        .bind(role_id)
        .fetch_all(conn)
        .await
}

async fn load(conn: &mut PgConnection, tenant: Uuid, id: Uuid) -> Result<RoleRow, ServiceError> {
    store::role(conn, tenant, id)
        .await?
        .ok_or_else(ServiceError::not_found)
}

pub async fn list(
    pool: &PgPool,
    request: Request<pb::ListRolesRequest>,
) -> Result<pb::ListRolesResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_LIST)?;
    let tenant = grpc::tenant(&request)?;
    let req = request.into_inner();
    let (page, size) = convert::page(req.page.as_ref());
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let (rows, total) =
        store::list_roles(&mut tx, tenant, req.name_contains.trim(), page, size).await?;
    Ok(pb::ListRolesResponse {
        roles: rows.iter().map(role_pb).collect(),
        page: Some(convert::page_info(page, size, total)),
    })
}

pub async fn get(
    pool: &PgPool,
    request: Request<pb::GetRoleRequest>,
) -> Result<pb::GetRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_LIST)?;
    let tenant = grpc::tenant(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let row = load(&mut tx, tenant, id).await?;
    Ok(pb::GetRoleResponse {
        role: Some(role_pb(&row)),
    })
}

pub async fn create(
    pool: &PgPool,
    request: Request<pb::CreateRoleRequest>,
) -> Result<pb::CreateRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_EDIT)?;
    let tenant = grpc::tenant(&request)?;
    let req = request.into_inner();
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let form = check_form(
        &mut tx,
        &req.name,
        &req.description,
        &req.permission_values,
        req.data_scope.as_ref(),
    )
    .await?;
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into role (id, enterprise_id, name, description, data_scope_kind, data_scope_org_ids) \
         values ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(tenant)
    .bind(&form.name)
    .bind(&form.description)
    .bind(form.data_scope.kind)
    .bind(&form.data_scope.org_ids)
    .execute(&mut *tx)
    .await
    .map_err(name_taken)?;
    write_permissions(&mut tx, tenant, id, &form.permission_values).await?;
    let row = load(&mut tx, tenant, id).await?;
    tx.commit().await?;
    tracing::info!(role_id = %id, "Role created.");
    Ok(pb::CreateRoleResponse {
        role: Some(role_pb(&row)),
    })
}

fn name_taken(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| {
        (name == "role_name_key").then(|| conflict("name", "角色名称已存在"))
    })
}

pub async fn update(
    pool: &PgPool,
    request: Request<pb::UpdateRoleRequest>,
) -> Result<pb::UpdateRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_EDIT)?;
    let tenant = grpc::tenant(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let current = load(&mut tx, tenant, id).await?;
    let form = check_form(
        &mut tx,
        &req.name,
        &req.description,
        &req.permission_values,
        req.data_scope.as_ref(),
    )
    .await?;
    let status = status_from_pb(req.status)?.unwrap_or(current.status);
    sqlx::query(
        "update role set name = $3, description = $4, data_scope_kind = $5, data_scope_org_ids = $6, \
         status = $7, updated_at = now() where enterprise_id = $1 and id = $2",
    )
    .bind(tenant)
    .bind(id)
    .bind(&form.name)
    .bind(&form.description)
    .bind(form.data_scope.kind)
    .bind(&form.data_scope.org_ids)
    .bind(status)
    .execute(&mut *tx)
    .await
    .map_err(name_taken)?;
    write_permissions(&mut tx, tenant, id, &form.permission_values).await?;
    let members = members_of(&mut tx, id).await?;
    changes::principals_changed(&mut tx, Some(tenant), &members).await?;
    let row = load(&mut tx, tenant, id).await?;
    tx.commit().await?;
    tracing::info!(role_id = %id, members = members.len(), "Role updated.");
    Ok(pb::UpdateRoleResponse {
        role: Some(role_pb(&row)),
    })
}

pub async fn delete(
    pool: &PgPool,
    request: Request<pb::DeleteRoleRequest>,
) -> Result<pb::DeleteRoleResponse, ServiceError> {
    grpc::require_permission(&request, PERM_ROLE_EDIT)?;
    let tenant = grpc::tenant(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    load(&mut tx, tenant, id).await?;
    let members = members_of(&mut tx, id).await?;
    sqlx::query("delete from role where enterprise_id = $1 and id = $2")
        .bind(tenant)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    changes::principals_changed(&mut tx, Some(tenant), &members).await?;
    tx.commit().await?;
    tracing::info!(role_id = %id, members = members.len(), "Role deleted.");
    Ok(pb::DeleteRoleResponse {})
}

/// The catalogue, each value with the group it sits under.
pub async fn permissions(
    pool: &PgPool,
    request: Request<pb::ListPermissionsRequest>,
) -> Result<pb::ListPermissionsResponse, ServiceError> {
    grpc::caller(&request)?;
    let mut tx = db::begin_service(pool).await?;
    let rows = store::permissions(&mut tx).await?;
    Ok(pb::ListPermissionsResponse {
        permissions: rows
            .into_iter()
            .map(|r| pb::Permission {
                value: r.value,
                label_zh: r.label_zh,
                label_en: r.label_en,
                label_ja: r.label_ja,
                parent_value: r.parent_value.unwrap_or_default(),
            })
            .collect(),
    })
}
