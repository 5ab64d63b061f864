//! Users: the members of an enterprise, newest first. Lists and reads are
//! limited to the caller's data scope (another organisation's member answers
//! 4004 like a missing one); phones leave the service masked. Every user has at
//! least one role. Adding a user creates the sign-in account through auth, or
//! links the person who already has one (same account name or phone: they then
//! choose the enterprise on /selectNet); an account created for a member that
//! could not be added is taken back. Disabling a user or changing their roles,
//! scope or phone announces the change, so the next request runs with it.

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{ResultExt as _, ServiceError, db, grpc, mask};
use fleetdesk_proto::auth::v1::auth_service_client::AuthServiceClient;
use fleetdesk_proto::auth::v1::{
    CreateAccountRequest, DeleteNewAccountRequest, SetAccountPhoneRequest,
};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{FromRow, PgConnection, PgPool};
use tonic::Request;
use tonic::transport::Channel;
use uuid::Uuid;

use crate::changes;
use crate::roles::{at_most, caller, check_scope_orgs, status_from_pb, status_pb};
use crate::scope::{self, DataScope, Reach};
use crate::store::{self, DISABLED};

pub const PERM_USER_LIST: &str = "as:sys:user:getList";
pub const PERM_USER_EDIT: &str = "as:sys:user:edit";

/// How org reaches auth to create sign-in accounts.
#[derive(Clone, Debug)]
pub struct AuthLink {
    pub client: AuthServiceClient<Channel>,
    pub signer: TokenSigner,
}

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
    pub created_at: chrono::DateTime<chrono::Utc>,
    pub role_ids: Vec<Uuid>,
    pub role_names: Vec<String>,
}

pub(crate) const SELECT: &str = "select m.id, m.enterprise_id, m.account_id, m.name, m.user_name, m.phone, m.org_id, \
     coalesce((select o.name from org_unit o where o.id = m.org_id), '') as org_name, m.data_scope_kind, m.data_scope_org_ids, m.status, m.avatar_url, \
     m.created_at, \
     coalesce((select array_agg(r.id order by r.name, r.id) from member_role mr join role r on r.id = mr.role_id \
               where mr.member_id = m.id), '{}') as role_ids, \
     coalesce((select array_agg(r.name order by r.name, r.id) from member_role mr join role r on r.id = mr.role_id \
               where mr.member_id = m.id), '{}') as role_names \
     from member m";

pub fn user_pb(row: &UserRow) -> pb::User {
    pb::User {
        id: row.id.to_string(),
        enterprise_id: row.enterprise_id.to_string(),
        account_id: row.account_id.to_string(),
        name: row.name.clone(),
        user_name: row.user_name.clone(),
        phone_masked: mask::centre(&row.phone),
        org_id: row.org_id.map(|o| o.to_string()).unwrap_or_default(),
        org_name: row.org_name.clone(),
        role_ids: row.role_ids.iter().map(Uuid::to_string).collect(),
        role_names: row.role_names.clone(),
        data_scope: row.data_scope_kind.map(|kind| {
            DataScope {
                kind,
                org_ids: row.data_scope_org_ids.clone(),
            }
            .to_pb()
        }),
        status: status_pb(row.status),
        avatar_url: row.avatar_url.clone(),
        create_time: Some(timestamp(row.created_at)),
    }
}

/// One member of the tenant within `reach`, else 4004.
async fn visible(
    conn: &mut PgConnection,
    reach: &Reach,
    id: Uuid,
) -> Result<UserRow, ServiceError> {
    let row: Option<UserRow> = sqlx::query_as(&format!("{SELECT} where m.id = $1"))
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.filter(|r| reach.sees(r.org_id, r.id))
        .ok_or_else(ServiceError::not_found)
}

/// The users list's conditions: the tenant, the reach and only the filters
/// given (no `like '%%'` without a name), so each plan is served by an index
/// (see tests/list_plans.rs).
pub(crate) struct ListFilter {
    pub(crate) tenant: Uuid,
    pub(crate) pattern: Option<String>,
    pub(crate) orgs: Option<Vec<Uuid>>,
    pub(crate) role: Option<Uuid>,
    pub(crate) status: Option<i16>,
    pub(crate) reach: Reach,
}

impl ListFilter {
    fn push(&self, query: &mut sqlx::QueryBuilder<'_, sqlx::Postgres>) {
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
            query.push_bind(status);
        }
        query.push(" and ");
        self.reach.push_condition(query, "m.org_id", "m.id");
    }

    /// One page of rows; `head` goes first (`explain ` in the plan test).
    pub(crate) fn page_query(
        &self,
        head: &str,
        page: i64,
        size: i64,
    ) -> sqlx::QueryBuilder<'_, sqlx::Postgres> {
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
    pub(crate) fn count_query(&self, head: &str) -> sqlx::QueryBuilder<'_, sqlx::Postgres> {
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

pub async fn list(
    pool: &PgPool,
    request: Request<pb::ListUsersRequest>,
) -> Result<pb::ListUsersResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_LIST)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let (page, size) = convert::page(req.page.as_ref());
    let org_filter = match req.org_id.trim() {
        "" => None,
        v => Some(Uuid::parse_str(v).map_err(|_| ServiceError::invalid("orgId", "组织不存在"))?),
    };
    let role_filter = match req.role_id.trim() {
        "" => None,
        v => Some(Uuid::parse_str(v).map_err(|_| ServiceError::invalid("roleId", "角色不存在"))?),
    };
    let status = status_from_pb(req.status)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    // An organisation filter takes the organisation and everything below it.
    let orgs: Option<Vec<Uuid>> = match org_filter {
        Some(org) => {
            let tree = scope::tree(&mut tx).await?;
            Some(scope::subtree(&tree, &[org]).into_iter().collect())
        }
        None => None,
    };
    let filter = ListFilter {
        tenant,
        pattern: Some(req.name_contains.trim())
            .filter(|n| !n.is_empty())
            .map(store::like_pattern),
        orgs,
        role: role_filter,
        status,
        reach,
    };
    let rows: Vec<UserRow> = filter
        .page_query("", page, size)
        .build_query_as()
        .fetch_all(&mut *tx)
        .await?;
    let total: i64 = filter
        .count_query("")
        .build_query_scalar()
        .fetch_one(&mut *tx)
        .await?;
    Ok(pb::ListUsersResponse {
        users: rows.iter().map(user_pb).collect(),
        page: Some(convert::page_info(page, size, total)),
    })
}

pub async fn get(
    pool: &PgPool,
    request: Request<pb::GetUserRequest>,
) -> Result<pb::GetUserResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_LIST)?;
    let (tenant, member) = caller(&request)?;
    let id = convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let row = visible(&mut tx, &reach, id).await?;
    Ok(pb::GetUserResponse {
        user: Some(user_pb(&row)),
    })
}

fn check_name(name: &str) -> Result<(), ServiceError> {
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入姓名"));
    }
    at_most("name", name, 32, "姓名")
}

fn check_phone(phone: &str) -> Result<(), ServiceError> {
    if phone.is_empty() {
        return Err(ServiceError::invalid("phone", "请输入手机号"));
    }
    let valid =
        phone.len() == 11 && phone.starts_with('1') && phone.bytes().all(|b| b.is_ascii_digit());
    if valid {
        Ok(())
    } else {
        Err(ServiceError::invalid("phone", "请输入正确的手机号"))
    }
}

/// The organisation a user belongs to: required, the tenant's, in the caller's reach.
async fn check_org(
    conn: &mut PgConnection,
    reach: &Reach,
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
    if !exists || !reach.sees_org(Some(org)) {
        return Err(ServiceError::invalid("orgId", "组织不存在"));
    }
    Ok(org)
}

/// Role ids of the tenant, deduplicated; at least one (a member without a role sees nothing).
async fn check_roles(conn: &mut PgConnection, ids: &[String]) -> Result<Vec<Uuid>, ServiceError> {
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

impl AuthLink {
    fn signed<T>(&self, message: T) -> Request<T> {
        grpc::outgoing(message, &self.signer, &Claims::service("org"))
    }

    /// The person's account: a new one, or the existing one holding the
    /// account name or phone (`true` when linked).
    async fn account_for(
        &self,
        user_name: &str,
        name: &str,
        phone: &str,
        password: &str,
    ) -> Result<(Uuid, String, bool), ServiceError> {
        let answer = self
            .client
            .clone()
            .create_account(self.signed(CreateAccountRequest {
                username: user_name.to_owned(),
                name: name.to_owned(),
                phone: phone.to_owned(),
                password: password.to_owned(),
                link_existing: true,
            }))
            .await
            .map_err(|s| ServiceError::from_status(&s))?
            .into_inner();
        let account = answer.account.ok_or_else(ServiceError::not_found)?;
        Ok((convert::id(&account.id)?, account.username, answer.linked))
    }

    /// Takes back an account created for a member that could not be added.
    async fn take_back(&self, account_id: Uuid) {
        let request = self.signed(DeleteNewAccountRequest {
            account_id: account_id.to_string(),
        });
        if let Err(status) = self.client.clone().delete_new_account(request).await {
            tracing::error!(%account_id, error = %status.message(), "Account of a member that was not added stays behind.");
        }
    }
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
        return Err(crate::roles::conflict("phone", "该人员已是本企业成员"));
    }
    Ok(())
}

pub async fn create(
    pool: &PgPool,
    auth: &AuthLink,
    request: Request<pb::CreateUserRequest>,
) -> Result<pb::CreateUserResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let (name, user_name, phone) = (req.name.trim(), req.user_name.trim(), req.phone.trim());
    check_name(name)?;
    if user_name.is_empty() {
        return Err(ServiceError::invalid("userName", "请输入账号"));
    }
    check_phone(phone)?;
    let own_scope = DataScope::from_pb(req.data_scope.as_ref())?;
    // Everything org can check is checked before auth is asked for an account.
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let org = check_org(&mut tx, &reach, &req.org_id).await?;
    let roles = check_roles(&mut tx, &req.role_ids).await?;
    if let Some(s) = &own_scope {
        check_scope_orgs(&mut tx, s).await?;
    }
    let (account_id, account_name, linked) = auth
        .account_for(user_name, name, phone, &req.initial_password)
        .await?;
    // A linked person keeps the account name they sign in with.
    let user_name = if linked {
        account_name.as_str()
    } else {
        user_name
    };
    let added = add_member(
        &mut tx,
        tenant,
        account_id,
        name,
        user_name,
        phone,
        org,
        own_scope.as_ref(),
        &roles,
    )
    .await;
    let added = match added {
        Ok(id) => tx.commit().await.map(|()| id).map_err(ServiceError::from),
        Err(err) => Err(err),
    };
    let id = match added {
        Ok(id) => id,
        Err(err) => {
            if !linked {
                auth.take_back(account_id).await;
            }
            return Err(err);
        }
    };
    let mut conn = db::begin_tenant(pool, tenant).await?;
    let row = visible(&mut conn, &Reach::everything(), id).await?;
    tracing::info!(user_id = %id, %account_id, linked, "User created.");
    Ok(pb::CreateUserResponse {
        user: Some(user_pb(&row)),
        linked,
    })
}

/// Writes the member and their roles in the caller's transaction.
#[allow(clippy::too_many_arguments)]
async fn add_member(
    tx: &mut PgConnection,
    tenant: Uuid,
    account_id: Uuid,
    name: &str,
    user_name: &str,
    phone: &str,
    org: Uuid,
    own_scope: Option<&DataScope>,
    roles: &[Uuid],
) -> Result<Uuid, ServiceError> {
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
    .bind(own_scope.map(|s| s.kind))
    .bind(own_scope.map(|s| s.org_ids.clone()).unwrap_or_default())
    .execute(&mut *tx)
    .await
    .on_constraint(|name| {
        (name == "member_user_name_key").then(|| crate::roles::conflict("userName", "账号已存在"))
    })?;
    write_roles(tx, tenant, id, roles).await?;
    Ok(id)
}

pub async fn update(
    pool: &PgPool,
    auth: &AuthLink,
    request: Request<pb::UpdateUserRequest>,
) -> Result<pb::UpdateUserResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    let current = visible(&mut tx, &reach, id).await?;
    let name = req.name.trim();
    check_name(name)?;
    let own_scope = DataScope::from_pb(req.data_scope.as_ref())?;
    let org = check_org(&mut tx, &reach, &req.org_id).await?;
    let roles = check_roles(&mut tx, &req.role_ids).await?;
    if let Some(s) = &own_scope {
        check_scope_orgs(&mut tx, s).await?;
    }
    let phone = req.phone.trim();
    if !phone.is_empty() && phone != current.phone {
        check_phone(phone)?;
        sqlx::query("update member set phone = $2 where id = $1")
            .bind(id)
            .bind(phone)
            .execute(&mut *tx)
            .await?;
        // The sign-in phone changes with it; a phone another person holds is refused.
        auth.client
            .clone()
            .set_account_phone(auth.signed(SetAccountPhoneRequest {
                account_id: current.account_id.to_string(),
                phone: phone.to_owned(),
            }))
            .await
            .map_err(|s| ServiceError::from_status(&s))?;
        tracing::info!(user_id = %id, "User phone changed.");
    }
    sqlx::query(
        "update member set name = $2, org_id = $3, data_scope_kind = $4, data_scope_org_ids = $5, \
         updated_at = now() where id = $1",
    )
    .bind(id)
    .bind(name)
    .bind(org)
    .bind(own_scope.as_ref().map(|s| s.kind))
    .bind(
        own_scope
            .as_ref()
            .map(|s| s.org_ids.clone())
            .unwrap_or_default(),
    )
    .execute(&mut *tx)
    .await?;
    write_roles(&mut tx, tenant, id, &roles).await?;
    changes::principals_changed(&mut tx, Some(tenant), &[id]).await?;
    let row = visible(&mut tx, &Reach::everything(), id).await?;
    tx.commit().await?;
    Ok(pb::UpdateUserResponse {
        user: Some(user_pb(&row)),
    })
}

pub async fn set_status(
    pool: &PgPool,
    request: Request<pb::SetUserStatusRequest>,
) -> Result<pb::SetUserStatusResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_EDIT)?;
    let (tenant, member) = caller(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.id)?;
    let status =
        status_from_pb(req.status)?.ok_or_else(|| ServiceError::invalid("status", "请选择状态"))?;
    if status == DISABLED && member == Some(id) {
        return Err(ServiceError::invalid("id", "不能停用自己"));
    }
    let mut tx = db::begin_tenant(pool, tenant).await?;
    let reach = scope::of_caller(&mut tx, member).await?;
    visible(&mut tx, &reach, id).await?;
    sqlx::query("update member set status = $2, updated_at = now() where id = $1")
        .bind(id)
        .bind(status)
        .execute(&mut *tx)
        .await?;
    changes::principals_changed(&mut tx, Some(tenant), &[id]).await?;
    let row = visible(&mut tx, &Reach::everything(), id).await?;
    tx.commit().await?;
    tracing::info!(user_id = %id, status, "User status changed.");
    Ok(pb::SetUserStatusResponse {
        user: Some(user_pb(&row)),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_are_checked_like_the_login_form() {
        assert_eq!(check_phone("").unwrap_err().message, "请输入手机号");
        assert_eq!(
            check_phone("1381234567").unwrap_err().message,
            "请输入正确的手机号"
        );
        assert_eq!(
            check_phone("23812345678").unwrap_err().fields[0].field,
            "phone"
        );
        assert!(check_phone("13812345678").is_ok());
    }
}
