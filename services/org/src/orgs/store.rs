//! Queries of the organisation tree (`org_unit`), each on the caller's
//! tenant transaction.

use chrono::{DateTime, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ResultExt as _, ServiceError};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::codes::Status;
use crate::scope::domain::sees_org;

#[derive(Debug, Clone, FromRow)]
pub struct OrgUnitRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub parent_id: Option<Uuid>,
    pub org_code: String,
    pub name: String,
    pub level: i32,
    pub sort: i32,
    pub status: i16,
    pub created_at: DateTime<Utc>,
    /// Marked a company of its own; the root is one whatever is stored.
    pub is_company: bool,
}

const SELECT: &str = "select id, enterprise_id, parent_id, org_code, name, level, sort, status, created_at, is_company from org_unit";
const RETURNING: &str = "returning id, enterprise_id, parent_id, org_code, name, level, sort, status, created_at, is_company";

/// Every organisation of the tenant (the enabled ones unless asked),
/// parents first.
pub async fn org_units(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    include_disabled: bool,
) -> sqlx::Result<Vec<OrgUnitRow>> {
    sqlx::query_as(&format!(
        "{SELECT} where enterprise_id = $1 and ($2 or status = 1) order by level, sort, org_code"
    ))
    .bind(enterprise_id)
    .bind(include_disabled)
    .fetch_all(conn)
    .await
}

/// The tenant's enabled companies: its root and the units marked as
/// companies, in the tree's order.
pub async fn companies(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> sqlx::Result<Vec<OrgUnitRow>> {
    sqlx::query_as(&format!(
        "{SELECT} where enterprise_id = $1 and status = 1 and (parent_id is null or is_company) \
         order by level, sort, org_code"
    ))
    .bind(enterprise_id)
    .fetch_all(conn)
    .await
}

/// One node of the tenant within the caller's reach, else 4004.
pub async fn visible(
    conn: &mut PgConnection,
    reach: &ResolvedReach,
    id: Uuid,
) -> Result<OrgUnitRow, ServiceError> {
    let row: Option<OrgUnitRow> = sqlx::query_as(&format!("{SELECT} where id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.filter(|r| sees_org(reach, Some(r.id)))
        .ok_or_else(ServiceError::not_found)
}

pub async fn get(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<OrgUnitRow> {
    sqlx::query_as(&format!("{SELECT} where id = $1"))
        .bind(id)
        .fetch_one(conn)
        .await
}

/// Unique violations of the code or of the name among siblings, as 4009 naming the field.
fn code_taken(name: &str) -> Option<ServiceError> {
    match name {
        "org_unit_code_key" => Some(ServiceError::taken("orgCode", "组织编码已存在")),
        "org_unit_sibling_name_key" => {
            Some(ServiceError::taken("name", "同一上级组织下已有同名组织"))
        }
        _ => None,
    }
}

/// The enterprise's root organisation (its first top node), if it has one yet.
pub async fn root_of(conn: &mut PgConnection, tenant: Uuid) -> sqlx::Result<Option<OrgUnitRow>> {
    sqlx::query_as(&format!(
        "{SELECT} where enterprise_id = $1 and parent_id is null order by created_at, id limit 1"
    ))
    .bind(tenant)
    .fetch_optional(conn)
    .await
}

/// A new organisation.
pub struct NewUnit<'a> {
    pub id: Uuid,
    pub tenant: Uuid,
    pub parent_id: Option<Uuid>,
    pub code: &'a str,
    pub name: &'a str,
    pub level: i32,
    pub sort: i32,
    pub is_company: bool,
}

pub async fn insert(conn: &mut PgConnection, new: NewUnit<'_>) -> Result<OrgUnitRow, ServiceError> {
    let NewUnit {
        id,
        tenant,
        parent_id,
        code,
        name,
        level,
        sort,
        is_company,
    } = new;
    let row = sqlx::query_as(&format!(
        "insert into org_unit (id, enterprise_id, parent_id, org_code, name, level, sort, is_company) \
         values ($1, $2, $3, $4, $5, $6, $7, $8) {RETURNING}"
    ))
    .bind(id)
    .bind(tenant)
    .bind(parent_id)
    .bind(code)
    .bind(name)
    .bind(level)
    .bind(sort)
    .bind(is_company)
    .fetch_one(conn)
    .await
    .on_constraint(code_taken)?;
    Ok(row)
}

pub async fn rename(
    conn: &mut PgConnection,
    tenant: Uuid,
    id: Uuid,
    (name, code, sort): (&str, &str, i32),
    is_company: Option<bool>,
) -> Result<OrgUnitRow, ServiceError> {
    let row = sqlx::query_as(&format!(
        "update org_unit set name = $3, org_code = $4, sort = $5, \
         is_company = coalesce($6, is_company), updated_at = now() \
         where enterprise_id = $1 and id = $2 {RETURNING}"
    ))
    .bind(tenant)
    .bind(id)
    .bind(name)
    .bind(code)
    .bind(sort)
    .bind(is_company)
    .fetch_one(conn)
    .await
    .on_constraint(code_taken)?;
    Ok(row)
}

/// Ids of `id` and everything below it.
pub async fn subtree_ids(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar(
        "with recursive sub as (select id from org_unit where id = $1 \
         union all select c.id from org_unit c join sub s on c.parent_id = s.id) select id from sub",
    )
    .bind(id)
    .fetch_all(conn)
    .await
}

/// Serialises moves of one tenant, so two concurrent moves cannot make a cycle.
pub async fn lock_moves(conn: &mut PgConnection, tenant: Uuid) -> sqlx::Result<()> {
    sqlx::query("select pg_advisory_xact_lock(hashtext($1::text))")
        .bind(tenant)
        .execute(conn)
        .await?;
    Ok(())
}

/// Hangs `id` under `parent` at `level`, its subtree's levels following.
pub async fn move_under(
    conn: &mut PgConnection,
    id: Uuid,
    parent: Option<Uuid>,
    level: i32,
) -> Result<(), ServiceError> {
    sqlx::query("update org_unit set parent_id = $2, updated_at = now() where id = $1")
        .bind(id)
        .bind(parent)
        .execute(&mut *conn)
        .await
        .on_constraint(code_taken)?;
    sqlx::query(
        "with recursive sub as (select id, $2::int as lvl from org_unit where id = $1 \
         union all select c.id, s.lvl + 1 from org_unit c join sub s on c.parent_id = s.id) \
         update org_unit o set level = sub.lvl from sub where o.id = sub.id",
    )
    .bind(id)
    .bind(level)
    .execute(conn)
    .await?;
    Ok(())
}

/// The stored status of one organisation.
pub async fn status_of(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Status> {
    let code: i16 = sqlx::query_scalar("select status from org_unit where id = $1")
        .bind(id)
        .fetch_one(conn)
        .await?;
    Ok(Status::of_column(code))
}

pub async fn set_status(conn: &mut PgConnection, ids: &[Uuid], status: Status) -> sqlx::Result<()> {
    sqlx::query("update org_unit set status = $2, updated_at = now() where id = any($1)")
        .bind(ids)
        .bind(i16::from(status))
        .execute(conn)
        .await?;
    Ok(())
}

/// Members whose organisation is one of `org_ids`.
pub async fn members_of(conn: &mut PgConnection, org_ids: &[Uuid]) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from member where org_id = any($1)")
        .bind(org_ids)
        .fetch_all(conn)
        .await
}

pub async fn children_count(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<i64> {
    sqlx::query_scalar("select count(*) from org_unit where parent_id = $1")
        .bind(id)
        .fetch_one(conn)
        .await
}

pub async fn delete(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<()> {
    sqlx::query("delete from org_unit where id = $1")
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}
