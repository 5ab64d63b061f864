//! Queries of users (`member` with their roles), each on the caller's
//! tenant transaction.

use chrono::{DateTime, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ResultExt as _, ServiceError};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::codes::Status;
use crate::scope::domain::{DataScope, sees_org};

#[derive(Debug, Clone, FromRow)]
pub struct UserRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub account_id: Uuid,
    pub name: String,
    pub user_name: String,
    pub phone: String,
    pub org_id: Option<Uuid>,
    pub org_name: String,
    pub data_scope_kind: Option<i16>,
    pub data_scope_org_ids: Vec<Uuid>,
    pub status: i16,
    pub avatar_url: String,
    pub created_at: DateTime<Utc>,
    pub role_ids: Vec<Uuid>,
    pub role_names: Vec<String>,
}

pub const SELECT: &str = "select m.id, m.enterprise_id, m.account_id, m.name, m.user_name, m.phone, m.org_id, \
     coalesce((select o.name from org_unit o where o.id = m.org_id), '') as org_name, m.data_scope_kind, m.data_scope_org_ids, m.status, m.avatar_url, \
     m.created_at, \
     coalesce((select array_agg(r.id order by r.name, r.id) from member_role mr join role r on r.id = mr.role_id \
               where mr.member_id = m.id), '{}') as role_ids, \
     coalesce((select array_agg(r.name order by r.name, r.id) from member_role mr join role r on r.id = mr.role_id \
               where mr.member_id = m.id), '{}') as role_names \
     from member m";

/// One member of the tenant within `reach`, else 4004.
pub async fn visible(
    conn: &mut PgConnection,
    reach: &ResolvedReach,
    id: Uuid,
) -> Result<UserRow, ServiceError> {
    let row: Option<UserRow> = sqlx::query_as(&format!("{SELECT} where m.id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.filter(|r| reach.sees(r.org_id, Some(r.id)))
        .ok_or_else(ServiceError::not_found)
}

/// The users list's conditions: the tenant, the reach and only the filters
/// given (no `like '%%'` without a name), so each plan is served by an index
/// (see list_plans.rs).
pub struct ListFilter {
    pub tenant: Uuid,
    pub pattern: Option<String>,
    pub orgs: Option<Vec<Uuid>>,
    pub role: Option<Uuid>,
    pub status: Option<Status>,
    pub reach: ResolvedReach,
}

impl ListFilter {
    fn push(&self, query: &mut sqlx::QueryBuilder<'_, sqlx_postgres::Postgres>) {
        query.push(" where m.enterprise_id = ");
        query.push_bind(self.tenant);
        if let Some(pattern) = &self.pattern {
            query.push(" and (m.name like ");
            query.push_bind(pattern.clone());
            query.push(" or m.user_name like ");
            query.push_bind(pattern.clone());
            query.push(")");
        }
        if let Some(orgs) = &self.orgs {
            query.push(" and m.org_id = any(");
            query.push_bind(orgs.clone());
            query.push(")");
        }
        if let Some(role) = self.role {
            query.push(
                " and exists(select 1 from member_role x where x.member_id = m.id and x.role_id = ",
            );
            query.push_bind(role);
            query.push(")");
        }
        if let Some(status) = self.status {
            query.push(" and m.status = ");
            query.push_bind(i16::from(status));
        }
        query.push(" and ");
        self.reach.push_condition(query, "m.org_id", "m.id");
    }

    /// One page of rows; `head` goes first (`explain ` in the plan test).
    pub fn page_query(
        &self,
        head: &str,
        page: i64,
        size: i64,
    ) -> sqlx::QueryBuilder<'_, sqlx_postgres::Postgres> {
        let mut query = sqlx::QueryBuilder::new(format!("{head}{SELECT}"));
        self.push(&mut query);
        // Newest first; the (enterprise_id, created_at, id) index is read backwards.
        query.push(" order by m.created_at desc, m.id desc limit ");
        query.push_bind(size);
        query.push(" offset ");
        query.push_bind((page - 1) * size);
        query
    }

    /// The total of the filter: the kept per-enterprise count when nothing
    /// narrows the list, else a count over the filter's indexes.
    pub fn count_query(&self, head: &str) -> sqlx::QueryBuilder<'_, sqlx_postgres::Postgres> {
        let unfiltered = self.pattern.is_none()
            && self.orgs.is_none()
            && self.role.is_none()
            && self.status.is_none()
            && self.reach.all;
        if unfiltered {
            let mut query = sqlx::QueryBuilder::new(format!(
                "{head}select coalesce((select n from member_count where enterprise_id = "
            ));
            query.push_bind(self.tenant);
            query.push("), 0)::bigint");
            return query;
        }
        let mut query = sqlx::QueryBuilder::new(format!("{head}select count(*) from member m"));
        self.push(&mut query);
        query
    }
}

/// One page of the list and its total.
pub async fn list(
    conn: &mut PgConnection,
    filter: &ListFilter,
    page: i64,
    size: i64,
) -> sqlx::Result<(Vec<UserRow>, i64)> {
    let rows: Vec<UserRow> = filter
        .page_query("", page, size)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let total: i64 = filter
        .count_query("")
        .build_query_scalar()
        .fetch_one(&mut *conn)
        .await?;
    Ok((rows, total))
}

/// The organisation a user belongs to: required, the tenant's, in the caller's reach.
pub async fn check_org(
    conn: &mut PgConnection,
    reach: &ResolvedReach,
    org_id: &str,
) -> Result<Uuid, ServiceError> {
    let org = match org_id.trim() {
        "" => return Err(ServiceError::invalid("orgId", "请选择所属组织")),
        v => Uuid::parse_str(v).map_err(|_| ServiceError::invalid("orgId", "组织不存在"))?,
    };
    let exists: bool = sqlx::query_scalar("select exists(select 1 from org_unit where id = $1)")
        .bind(org)
        .fetch_one(conn)
        .await?;
    if !exists || !sees_org(reach, Some(org)) {
        return Err(ServiceError::invalid("orgId", "组织不存在"));
    }
    Ok(org)
}

/// Role ids of the tenant, deduplicated; at least one (a member without a role sees nothing).
pub async fn check_roles(
    conn: &mut PgConnection,
    ids: &[String],
) -> Result<Vec<Uuid>, ServiceError> {
    if ids.iter().all(|id| id.trim().is_empty()) {
        return Err(ServiceError::invalid("roleIds", "请至少选择一个角色"));
    }
    let mut roles = Vec::with_capacity(ids.len());
    for id in ids {
        roles.push(
            Uuid::parse_str(id.trim())
                .map_err(|_| ServiceError::invalid("roleIds", "角色不存在"))?,
        );
    }
    roles.sort_unstable();
    roles.dedup();
    let found: i64 = sqlx::query_scalar("select count(*) from role where id = any($1)")
        .bind(&roles)
        .fetch_one(conn)
        .await?;
    if usize::try_from(found).unwrap_or(0) != roles.len() {
        return Err(ServiceError::invalid("roleIds", "角色不存在"));
    }
    Ok(roles)
}

async fn write_roles(
    conn: &mut PgConnection,
    tenant: Uuid,
    member_id: Uuid,
    roles: &[Uuid],
) -> sqlx::Result<()> {
    sqlx::query("delete from member_role where member_id = $1")
        .bind(member_id)
        .execute(&mut *conn)
        .await?;
    sqlx::query(
        "insert into member_role (enterprise_id, member_id, role_id) select $1, $2, unnest($3::uuid[])",
    )
    .bind(tenant)
    .bind(member_id)
    .bind(roles)
    .execute(conn)
    .await?;
    Ok(())
}

/// The account is already a member here (linked by name or phone).
async fn check_not_member(
    conn: &mut PgConnection,
    tenant: Uuid,
    account_id: Uuid,
) -> Result<(), ServiceError> {
    let taken: bool = sqlx::query_scalar(
        "select exists(select 1 from member where enterprise_id = $1 and account_id = $2)",
    )
    .bind(tenant)
    .bind(account_id)
    .fetch_one(conn)
    .await?;
    if taken {
        return Err(ServiceError::taken("phone", "该人员已是本企业成员"));
    }
    Ok(())
}

/// A member to add: who they are and what they may do.
pub struct NewMember<'a> {
    pub tenant: Uuid,
    pub account_id: Uuid,
    pub name: &'a str,
    pub user_name: &'a str,
    pub phone: &'a str,
    pub org: Uuid,
    pub own_scope: Option<&'a DataScope>,
    pub roles: &'a [Uuid],
}

/// Writes the member and their roles in the caller's transaction.
pub async fn add_member(tx: &mut PgConnection, new: NewMember<'_>) -> Result<Uuid, ServiceError> {
    let NewMember {
        tenant,
        account_id,
        name,
        user_name,
        phone,
        org,
        own_scope,
        roles,
    } = new;
    check_not_member(tx, tenant, account_id).await?;
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into member (id, enterprise_id, account_id, name, user_name, phone, org_id, \
         data_scope_kind, data_scope_org_ids) values ($1, $2, $3, $4, $5, $6, $7, $8, $9)",
    )
    .bind(id)
    .bind(tenant)
    .bind(account_id)
    .bind(name)
    .bind(user_name)
    .bind(phone)
    .bind(org)
    .bind(own_scope.map(|s| i16::from(s.kind)))
    .bind(own_scope.map(|s| s.org_ids.clone()).unwrap_or_default())
    .execute(&mut *tx)
    .await
    .on_constraint(|name| {
        (name == "member_user_name_key").then(|| ServiceError::taken("userName", "账号已存在"))
    })?;
    write_roles(tx, tenant, id, roles).await?;
    Ok(id)
}

pub async fn set_phone(conn: &mut PgConnection, id: Uuid, phone: &str) -> sqlx::Result<()> {
    sqlx::query("update member set phone = $2 where id = $1")
        .bind(id)
        .bind(phone)
        .execute(conn)
        .await?;
    Ok(())
}

/// What an edit changes besides the phone.
pub struct MemberEdit<'a> {
    pub name: &'a str,
    pub org: Uuid,
    pub own_scope: Option<&'a DataScope>,
    pub roles: &'a [Uuid],
}

pub async fn update_member(
    conn: &mut PgConnection,
    tenant: Uuid,
    id: Uuid,
    edit: MemberEdit<'_>,
) -> sqlx::Result<()> {
    let MemberEdit {
        name,
        org,
        own_scope,
        roles,
    } = edit;
    sqlx::query(
        "update member set name = $2, org_id = $3, data_scope_kind = $4, data_scope_org_ids = $5, \
         updated_at = now() where id = $1",
    )
    .bind(id)
    .bind(name)
    .bind(org)
    .bind(own_scope.map(|s| i16::from(s.kind)))
    .bind(own_scope.map(|s| s.org_ids.clone()).unwrap_or_default())
    .execute(&mut *conn)
    .await?;
    write_roles(conn, tenant, id, roles).await
}

pub async fn set_status(conn: &mut PgConnection, id: Uuid, status: Status) -> sqlx::Result<()> {
    sqlx::query("update member set status = $2, updated_at = now() where id = $1")
        .bind(id)
        .bind(i16::from(status))
        .execute(conn)
        .await?;
    Ok(())
}
