//! Queries of roles, their permission values and their members, each on
//! the caller's tenant transaction.

use chrono::{DateTime, Utc};
use fleetdesk_kit::{ResultExt as _, ServiceError};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::RoleForm;
use crate::sql::like_pattern;

#[derive(Debug, Clone, FromRow)]
pub struct RoleRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub name: String,
    pub description: String,
    pub data_scope_kind: i16,
    pub data_scope_org_ids: Vec<Uuid>,
    pub status: i16,
    pub created_at: DateTime<Utc>,
    pub permission_values: Vec<String>,
    pub user_count: i64,
    /// The enterprise's built-in administrator role.
    pub builtin: bool,
}

const ROLE_SELECT: &str = "select r.id, r.enterprise_id, r.name, r.description, r.data_scope_kind, \
     r.data_scope_org_ids, r.status, r.created_at, r.builtin, \
     coalesce((select array_agg(rp.permission_value order by rp.permission_value) \
               from role_permission rp where rp.role_id = r.id), '{}') as permission_values, \
     (select count(*) from member_role mr where mr.role_id = r.id) as user_count \
     from role r";

/// Enabled roles of a member.
pub async fn roles_of_member(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    member_id: Uuid,
) -> sqlx::Result<Vec<RoleRow>> {
    sqlx::query_as(&format!(
        "{ROLE_SELECT} join member_role mr0 on mr0.role_id = r.id \
         where r.enterprise_id = $1 and mr0.member_id = $2 and r.status = 1 order by r.name"
    ))
    .bind(enterprise_id)
    .bind(member_id)
    .fetch_all(conn)
    .await
}

pub async fn list(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    name_contains: &str,
    page: i64,
    size: i64,
) -> sqlx::Result<(Vec<RoleRow>, i64)> {
    // No name, no `like '%%'`: the order index alone serves the page.
    let (by_name, pattern) = match name_contains {
        "" => ("($2::text is null)", None),
        n => ("r.name like $2", Some(like_pattern(n))),
    };
    let rows = sqlx::query_as(&format!(
        "{ROLE_SELECT} where r.enterprise_id = $1 and {by_name} \
         order by r.created_at, r.id limit $3 offset $4"
    ))
    .bind(enterprise_id)
    .bind(&pattern)
    .bind(size)
    .bind((page - 1) * size)
    .fetch_all(&mut *conn)
    .await?;
    let total = sqlx::query_scalar(&format!(
        "select count(*) from role r where r.enterprise_id = $1 and {by_name}"
    ))
    .bind(enterprise_id)
    .bind(&pattern)
    .fetch_one(conn)
    .await?;
    Ok((rows, total))
}

/// One role of the tenant, else 4004.
pub async fn get(conn: &mut PgConnection, tenant: Uuid, id: Uuid) -> Result<RoleRow, ServiceError> {
    let row: Option<RoleRow> = sqlx::query_as(&format!(
        "{ROLE_SELECT} where r.enterprise_id = $1 and r.id = $2"
    ))
    .bind(tenant)
    .bind(id)
    .fetch_optional(conn)
    .await?;
    row.ok_or_else(ServiceError::not_found)
}

/// The values of `values` the catalogue knows.
pub async fn known_permissions(
    conn: &mut PgConnection,
    values: &[String],
) -> sqlx::Result<Vec<String>> {
    sqlx::query_scalar("select value from permission where value = any($1)")
        .bind(values)
        .fetch_all(conn)
        .await
}

/// A duplicate name among the tenant's roles, as 4009 naming the field.
fn name_taken(name: &str) -> Option<ServiceError> {
    (name == "role_name_key").then(|| ServiceError::taken("name", "角色名称已存在"))
}

pub async fn insert(
    conn: &mut PgConnection,
    tenant: Uuid,
    id: Uuid,
    form: &RoleForm,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into role (id, enterprise_id, name, description, data_scope_kind, data_scope_org_ids) \
         values ($1, $2, $3, $4, $5, $6)",
    )
    .bind(id)
    .bind(tenant)
    .bind(&form.name)
    .bind(&form.description)
    .bind(i16::from(form.data_scope.kind))
    .bind(&form.data_scope.org_ids)
    .execute(&mut *conn)
    .await
    .on_constraint(name_taken)?;
    write_permissions(conn, tenant, id, &form.permission_values).await?;
    Ok(())
}

/// Rewrites a role: its form (the status only when given) and permissions.
pub async fn update(
    conn: &mut PgConnection,
    tenant: Uuid,
    id: Uuid,
    form: &RoleForm,
    status: i16,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update role set name = $3, description = $4, data_scope_kind = $5, data_scope_org_ids = $6, \
         status = $7, updated_at = now() where enterprise_id = $1 and id = $2",
    )
    .bind(tenant)
    .bind(id)
    .bind(&form.name)
    .bind(&form.description)
    .bind(i16::from(form.data_scope.kind))
    .bind(&form.data_scope.org_ids)
    .bind(status)
    .execute(&mut *conn)
    .await
    .on_constraint(name_taken)?;
    write_permissions(conn, tenant, id, &form.permission_values).await?;
    Ok(())
}

pub async fn delete(conn: &mut PgConnection, tenant: Uuid, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("delete from role where enterprise_id = $1 and id = $2")
        .bind(tenant)
        .bind(id)
        .execute(conn)
        .await?;
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

/// Locks a role of the tenant against concurrent edits and new members
/// (adding a member takes a key-share lock on it); else 4004.
pub async fn lock(conn: &mut PgConnection, tenant: Uuid, id: Uuid) -> Result<(), ServiceError> {
    let found: Option<Uuid> =
        sqlx::query_scalar("select id from role where enterprise_id = $1 and id = $2 for update")
            .bind(tenant)
            .bind(id)
            .fetch_optional(conn)
            .await?;
    found.map(|_| ()).ok_or_else(ServiceError::not_found)
}

/// The tenant's built-in administrator role, locked so that two edits of
/// its holders cannot each leave the other as the last one.
pub async fn lock_builtin(conn: &mut PgConnection, tenant: Uuid) -> sqlx::Result<Option<Uuid>> {
    sqlx::query_scalar("select id from role where enterprise_id = $1 and builtin for update")
        .bind(tenant)
        .fetch_optional(conn)
        .await
}

/// Enabled members holding `role`, `except` one of them.
pub async fn enabled_holders_except(
    conn: &mut PgConnection,
    role: Uuid,
    except: Uuid,
) -> sqlx::Result<i64> {
    sqlx::query_scalar(
        "select count(*) from member_role mr join member m on m.id = mr.member_id \
         where mr.role_id = $1 and m.id <> $2 and m.status = 1",
    )
    .bind(role)
    .bind(except)
    .fetch_one(conn)
    .await
}

pub async fn members_of(conn: &mut PgConnection, role_id: Uuid) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select member_id from member_role where role_id = $1")
        .bind(role_id)
        .fetch_all(conn)
        .await
}
