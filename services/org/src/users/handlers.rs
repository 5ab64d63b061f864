//! User RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach. Everything org can check is
//! checked before auth is asked for an account.

use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ErrorCode, ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::store::{self, ListFilter, MemberEdit, NewMember};
use super::{PERM_USER_EDIT, PERM_USER_LIST, convert, domain, export};
use crate::changes;
use crate::codes::Status;
use crate::context::{self, Context};
use crate::roles;
use crate::scope;
use crate::scope::domain::Reach;
use crate::sql::like_pattern;

pub async fn list(
    ctx: &Context,
    request: Request<pb::ListUsersRequest>,
) -> Result<pb::ListUsersResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_LIST)?;
    let mut actor = context::actor(&request)?;
    let pb::ListUsersRequest {
        page,
        name_contains,
        org_id,
        role_id,
        status,
    } = request.into_inner();
    let (page, size) = kit_convert::page(page.as_ref());
    let org_filter = convert::optional_id("orgId", &org_id, "组织不存在")?;
    let role_filter = convert::optional_id("roleId", &role_id, "角色不存在")?;
    let status = Status::from_request(status)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    // An organisation filter takes the organisation and everything below it.
    let orgs = match org_filter {
        Some(org) => Some(scope::store::subtrees(&mut tx, &[org]).await?),
        None => None,
    };
    let filter = ListFilter {
        tenant: actor.enterprise_id,
        pattern: Some(name_contains.trim())
            .filter(|n| !n.is_empty())
            .map(like_pattern),
        orgs,
        role: role_filter,
        status,
        reach: actor.reach,
    };
    let (rows, total) = store::list(&mut tx, &filter, page, size).await?;
    Ok(pb::ListUsersResponse {
        users: rows.iter().map(convert::user).collect(),
        page: Some(kit_convert::page_info(page, size, total)),
    })
}

pub async fn get(
    ctx: &Context,
    request: Request<pb::GetUserRequest>,
) -> Result<pb::GetUserResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_LIST)?;
    let mut actor = context::actor(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let row = store::visible(&mut tx, &actor.reach, id).await?;
    Ok(pb::GetUserResponse {
        user: Some(convert::user(&row)),
    })
}

pub async fn create(
    ctx: &Context,
    request: Request<pb::CreateUserRequest>,
) -> Result<pb::CreateUserResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::CreateUserRequest {
        name,
        user_name,
        phone,
        org_id,
        role_ids,
        data_scope,
        initial_password,
    } = request.into_inner();
    let (name, user_name, phone) = (name.trim(), user_name.trim(), phone.trim());
    domain::check_name(name)?;
    if user_name.is_empty() {
        return Err(ServiceError::invalid("userName", "请输入账号"));
    }
    domain::check_phone(phone)?;
    let own_scope = scope::convert::data_scope(data_scope.as_ref())?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let org = store::check_org(&mut tx, &actor.reach, &org_id).await?;
    let roles = store::check_roles(&mut tx, &role_ids).await?;
    if let Some(s) = &own_scope {
        scope::store::check_orgs(&mut tx, s).await?;
    }
    let account = ctx
        .auth
        .account_for(user_name, name, phone, &initial_password)
        .await?;
    // A linked person keeps the account name they sign in with.
    let user_name = if account.linked {
        account.username.as_str()
    } else {
        user_name
    };
    let added = store::add_member(
        &mut tx,
        NewMember {
            tenant,
            account_id: account.id,
            name,
            user_name,
            phone,
            org,
            own_scope: own_scope.as_ref(),
            roles: &roles,
        },
    )
    .await;
    let added = match added {
        Ok(id) => tx.commit().await.map(|()| id).map_err(ServiceError::from),
        Err(err) => Err(err),
    };
    let id = match added {
        Ok(id) => id,
        Err(err) => {
            if !account.linked {
                ctx.auth.take_back(account.id).await;
            }
            return Err(err);
        }
    };
    let mut conn = db::begin_tenant(&ctx.pool, tenant).await?;
    let row = store::visible(&mut conn, &everything(), id).await?;
    tracing::info!(user_id = %id, account_id = %account.id, linked = account.linked, "User created.");
    Ok(pb::CreateUserResponse {
        user: Some(convert::user(&row)),
        linked: account.linked,
    })
}

pub async fn update(
    ctx: &Context,
    request: Request<pb::UpdateUserRequest>,
) -> Result<pb::UpdateUserResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::UpdateUserRequest {
        id,
        name,
        phone,
        org_id,
        role_ids,
        data_scope,
    } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let current = store::visible(&mut tx, &actor.reach, id).await?;
    let name = name.trim();
    domain::check_name(name)?;
    let own_scope = scope::convert::data_scope(data_scope.as_ref())?;
    let org = store::check_org(&mut tx, &actor.reach, &org_id).await?;
    let roles = store::check_roles(&mut tx, &role_ids).await?;
    if let Some(s) = &own_scope {
        scope::store::check_orgs(&mut tx, s).await?;
    }
    if let Some(admin) = last_admin(&mut tx, tenant, &current).await?
        && !roles.contains(&admin)
    {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "该用户是企业最后一位启用的管理员，不能移除其管理员角色",
        ));
    }
    let phone = phone.trim();
    if !phone.is_empty() && phone != current.phone {
        domain::check_phone(phone)?;
        store::set_phone(&mut tx, id, phone).await?;
        // The sign-in phone changes with it; a phone another person holds is refused.
        ctx.auth.set_phone(current.account_id, phone).await?;
        tracing::info!(user_id = %id, "User phone changed.");
    }
    store::update_member(
        &mut tx,
        tenant,
        id,
        MemberEdit {
            name,
            org,
            own_scope: own_scope.as_ref(),
            roles: &roles,
        },
    )
    .await?;
    changes::principals_changed(&mut tx, Some(tenant), &[id]).await?;
    let row = store::visible(&mut tx, &everything(), id).await?;
    tx.commit().await?;
    Ok(pb::UpdateUserResponse {
        user: Some(convert::user(&row)),
    })
}

pub async fn set_status(
    ctx: &Context,
    request: Request<pb::SetUserStatusRequest>,
) -> Result<pb::SetUserStatusResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_EDIT)?;
    let mut actor = context::actor(&request)?;
    let pb::SetUserStatusRequest { id, status } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let status = Status::from_request(status)?
        .ok_or_else(|| ServiceError::invalid("status", "请选择状态"))?;
    if status == Status::Disabled && actor.user_id == Some(id) {
        return Err(ServiceError::invalid("id", "不能停用自己"));
    }
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let current = store::visible(&mut tx, &actor.reach, id).await?;
    if status == Status::Disabled && last_admin(&mut tx, tenant, &current).await?.is_some() {
        return Err(ServiceError::new(
            ErrorCode::Conflict,
            "该用户是企业最后一位启用的管理员，不能停用",
        ));
    }
    store::set_status(&mut tx, id, status).await?;
    changes::principals_changed(&mut tx, Some(tenant), &[id]).await?;
    let row = store::visible(&mut tx, &everything(), id).await?;
    tx.commit().await?;
    tracing::info!(user_id = %id, status = i16::from(status), "User status changed.");
    Ok(pb::SetUserStatusResponse {
        user: Some(convert::user(&row)),
    })
}

/// `ExportUsers`: queues the export and answers the job at once.
pub async fn export(
    ctx: &Context,
    request: Request<pb::ExportUsersRequest>,
) -> Result<pb::ExportUsersResponse, ServiceError> {
    grpc::require_permission(&request, PERM_USER_LIST)?;
    let mut actor = context::actor(&request)?;
    let pb::ExportUsersRequest {
        name_contains,
        org_id,
        role_id,
        status,
    } = request.into_inner();
    let org = convert::optional_id("orgId", &org_id, "机构不存在")?;
    let role = convert::optional_id("roleId", &role_id, "角色不存在")?;
    let status_filter = Status::from_request(status)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let orgs = match org {
        Some(org) => Some(scope::store::subtrees(&mut tx, &[org]).await?),
        None => None,
    };
    let filter = export::UsersFilter {
        name_contains: name_contains.trim().to_owned(),
        orgs,
        role,
        status: status_filter.map(i16::from),
    };
    let filters_json = serde_json::json!({
        "nameContains": name_contains.trim(),
        "orgId": org_id.trim(),
        "roleId": role_id.trim(),
        "status": status,
    });
    let job = export::start(&mut tx, &actor, filter, filters_json).await?;
    tx.commit().await?;
    Ok(pb::ExportUsersResponse { job: Some(job) })
}

/// The built-in administrator role when `member` is its last enabled
/// holder (the role then locked until the transaction ends, so two edits
/// cannot each leave the other as the last).
async fn last_admin(
    tx: &mut sqlx_postgres::PgConnection,
    tenant: uuid::Uuid,
    member: &store::UserRow,
) -> Result<Option<uuid::Uuid>, ServiceError> {
    if Status::of_column(member.status) != Status::Enabled {
        return Ok(None);
    }
    let Some(admin) = roles::store::lock_builtin(&mut *tx, tenant).await? else {
        return Ok(None);
    };
    if !member.role_ids.contains(&admin) {
        return Ok(None);
    }
    let others = roles::store::enabled_holders_except(tx, admin, member.id).await?;
    Ok((others == 0).then_some(admin))
}

/// The reach of a write's own answer: the row just written, whatever the scope.
fn everything() -> ResolvedReach {
    Reach::everything().into()
}
