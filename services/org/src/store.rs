//! Queries of the org schema. Each runs on the caller's transaction: a
//! tenant transaction (db::begin_tenant) for tenant-owned rows, a
//! service-scoped one (db::begin_service) where a query must cross tenants.
//! Tenant-owned queries still name the enterprise: the policy is the second line.

use chrono::{DateTime, Utc};
use sqlx::{FromRow, PgConnection};
use uuid::Uuid;

pub const ENABLED: i16 = 1;
pub const DISABLED: i16 = 2;

/// A LIKE pattern matching `needle` anywhere, with its wildcards escaped.
pub fn like_pattern(needle: &str) -> String {
    format!(
        "%{}%",
        needle
            .replace('\\', "\\\\")
            .replace('%', "\\%")
            .replace('_', "\\_")
    )
}

#[derive(Debug, Clone, FromRow)]
pub struct EnterpriseRow {
    pub id: Uuid,
    pub name: String,
    pub code: String,
    pub status: i16,
    pub credit_code: String,
    pub contact_name: String,
    pub contact_phone: String,
    pub wecom_corp_id: Option<String>,
    pub created_at: DateTime<Utc>,
}

pub async fn enterprise(conn: &mut PgConnection, id: Uuid) -> sqlx::Result<Option<EnterpriseRow>> {
    sqlx::query_as(
        "select id, name, code, status, credit_code, contact_name, contact_phone, wecom_corp_id, created_at \
         from enterprise where id = $1",
    )
    .bind(id)
    .fetch_optional(conn)
    .await
}

#[derive(Debug, Clone, FromRow)]
pub struct MembershipRow {
    pub enterprise_id: Uuid,
    pub enterprise_name: String,
    pub member_id: Uuid,
    pub account_id: Uuid,
}

/// Enabled memberships of an account in enabled enterprises.
pub async fn memberships(
    conn: &mut PgConnection,
    account_id: Uuid,
) -> sqlx::Result<Vec<MembershipRow>> {
    sqlx::query_as(
        "select e.id as enterprise_id, e.name as enterprise_name, m.id as member_id, m.account_id \
         from member m join enterprise e on e.id = m.enterprise_id \
         where m.account_id = $1 and m.status = 1 and e.status = 1 order by e.name",
    )
    .bind(account_id)
    .fetch_all(conn)
    .await
}

/// The enabled member with this WeCom user id in the enabled enterprise that
/// owns the corp id.
pub async fn membership_by_wecom_id(
    conn: &mut PgConnection,
    corp_id: &str,
    wecom_user_id: &str,
) -> sqlx::Result<Option<MembershipRow>> {
    sqlx::query_as(
        "select e.id as enterprise_id, e.name as enterprise_name, m.id as member_id, m.account_id \
         from member m join enterprise e on e.id = m.enterprise_id \
         where e.wecom_corp_id = $1 and m.wecom_user_id = $2 and m.status = 1 and e.status = 1",
    )
    .bind(corp_id)
    .bind(wecom_user_id)
    .fetch_optional(conn)
    .await
}

#[derive(Debug, Clone, FromRow)]
pub struct MemberRow {
    pub id: Uuid,
    pub account_id: Uuid,
    pub name: String,
    pub user_name: String,
    pub avatar_url: String,
    pub status: i16,
    /// Status of the member's organisation (enabled when they have none).
    pub org_status: i16,
}

pub async fn member_of_account(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    account_id: Uuid,
) -> sqlx::Result<Option<MemberRow>> {
    sqlx::query_as(
        "select m.id, m.account_id, m.name, m.user_name, m.avatar_url, m.status, \
         coalesce(o.status, 1::smallint) as org_status \
         from member m left join org_unit o on o.id = m.org_id \
         where m.enterprise_id = $1 and m.account_id = $2",
    )
    .bind(enterprise_id)
    .bind(account_id)
    .fetch_optional(conn)
    .await
}

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
}

const ROLE_SELECT: &str = "select r.id, r.enterprise_id, r.name, r.description, r.data_scope_kind, \
     r.data_scope_org_ids, r.status, r.created_at, \
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

pub async fn list_roles(
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

pub async fn role(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> sqlx::Result<Option<RoleRow>> {
    sqlx::query_as(&format!(
        "{ROLE_SELECT} where r.enterprise_id = $1 and r.id = $2"
    ))
    .bind(enterprise_id)
    .bind(id)
    .fetch_optional(conn)
    .await
}

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
}

pub async fn org_units(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    include_disabled: bool,
) -> sqlx::Result<Vec<OrgUnitRow>> {
    sqlx::query_as(
        "select id, enterprise_id, parent_id, org_code, name, level, sort, status, created_at \
         from org_unit where enterprise_id = $1 and ($2 or status = 1) order by level, sort, org_code",
    )
    .bind(enterprise_id)
    .bind(include_disabled)
    .fetch_all(conn)
    .await
}

#[derive(Debug, Clone, FromRow)]
pub struct PermissionRow {
    pub value: String,
    pub label_zh: String,
    pub label_en: String,
    pub label_ja: String,
    pub parent_value: Option<String>,
}

pub async fn permissions(conn: &mut PgConnection) -> sqlx::Result<Vec<PermissionRow>> {
    sqlx::query_as("select value, label_zh, label_en, label_ja, parent_value from permission order by sort, value")
        .fetch_all(conn)
        .await
}
