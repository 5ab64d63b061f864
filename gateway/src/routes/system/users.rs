//! System settings: users of the enterprise (members), within the caller's
//! data scope. Phones arrive masked by org. A change to a user evicts the
//! enterprise's cached principals here at once (other gateways hear org's
//! principal-changed event), so a disabled user's next request is refused.

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::routes::system::forms::{StatusForm, data_scope_field, status_field};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_users, create_user))
        .routes(routes!(get_user, update_user))
        .routes(routes!(set_user_status))
        .routes(routes!(export_users))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserBody {
    pub id: String,
    pub account_id: String,
    pub name: String,
    pub user_name: String,
    /// Masked by the server (centre mode).
    #[serde(rename = "phone")]
    pub phone_masked: String,
    pub org_id: String,
    pub org_name: String,
    pub role_ids: Vec<String>,
    pub role_names: Vec<String>,
    /// The user's own data scope (1..5); 0 means "from the roles".
    pub data_scope: i32,
    pub data_scope_org_ids: Vec<String>,
    /// 1 enabled, 2 disabled.
    pub status: i32,
    #[serde(rename = "avatar")]
    pub avatar_url: String,
    pub create_time: String,
}

impl From<pb::User> for UserBody {
    fn from(u: pb::User) -> Self {
        let scope = u.data_scope.unwrap_or_default();
        UserBody {
            id: u.id,
            account_id: u.account_id,
            name: u.name,
            user_name: u.user_name,
            phone_masked: u.phone_masked,
            org_id: u.org_id,
            org_name: u.org_name,
            role_ids: u.role_ids,
            role_names: u.role_names,
            data_scope: scope.kind,
            data_scope_org_ids: scope.org_ids,
            status: u.status,
            avatar_url: u.avatar_url,
            create_time: rfc3339(u.create_time.as_ref()),
        }
    }
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct UserListQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// Part of the name or account.
    pub name: Option<String>,
    /// An organisation: its members and those below it.
    pub org_id: Option<String>,
    pub role_id: Option<String>,
    /// 1 enabled, 2 disabled.
    pub status: Option<i32>,
}

#[utoipa::path(
    get, path = "/system/users", tag = "system",
    params(UserListQuery),
    responses((status = 200, description = "Users within the caller's data scope", body = Envelope<Page<UserBody>>)),
    security(("token" = ["as:sys:user:getList"]))
)]
async fn list_users(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<UserListQuery>,
) -> ApiResult<Page<UserBody>> {
    let status = match query.status {
        None => 0,
        some => status_field(some)?,
    };
    let request = pb::ListUsersRequest {
        page: Some(paging(query.page, query.size)?),
        name_contains: query.name.unwrap_or_default(),
        org_id: query.org_id.unwrap_or_default(),
        role_id: query.role_id.unwrap_or_default(),
        status,
    };
    let answer = state
        .org()
        .list_users(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.users.into_iter().map(UserBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/system/users/{id}", tag = "system",
    params(("id" = String, Path, description = "User id")),
    responses((status = 200, description = "One user", body = Envelope<UserBody>)),
    security(("token" = ["as:sys:user:getList"]))
)]
async fn get_user(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<UserBody> {
    let answer = state
        .org()
        .get_user(state.as_user(&principal, pb::GetUserRequest { id }))
        .await?
        .into_inner();
    Result::Ok(Ok(UserBody::from(answer.user.unwrap_or_default())))
}

/// A user just added; `linked` when the phone or account name belonged to a
/// person who already had an account (they choose this enterprise on /selectNet).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct UserCreatedBody {
    #[serde(flatten)]
    pub user: UserBody,
    pub linked: bool,
}

/// A new user: the sign-in account is created with them, or the existing
/// person with this account name or phone is linked.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct UserCreateForm {
    pub name: String,
    /// The sign-in account name.
    pub user_name: String,
    pub phone: String,
    pub org_id: String,
    pub role_ids: Vec<String>,
    /// The user's own data scope (1..5); absent: from the roles.
    pub data_scope: Option<i32>,
    pub data_scope_org_ids: Vec<String>,
    /// Initial password (8 to 20 characters); empty: SMS or WeCom sign-in only.
    pub password: String,
}

#[utoipa::path(
    post, path = "/system/users", tag = "system",
    request_body = UserCreateForm,
    responses((status = 200, description = "The new user; `linked` when an existing person was added", body = Envelope<UserCreatedBody>)),
    security(("token" = ["as:sys:user:edit"]))
)]
async fn create_user(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedJson(form): TrimmedJson<UserCreateForm>,
) -> ApiResult<UserCreatedBody> {
    let request = pb::CreateUserRequest {
        name: form.name,
        user_name: form.user_name,
        phone: form.phone,
        org_id: form.org_id,
        role_ids: form.role_ids,
        data_scope: data_scope_field(form.data_scope, form.data_scope_org_ids)?,
        initial_password: form.password,
    };
    let answer = state
        .org()
        .create_user(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(UserCreatedBody {
        user: UserBody::from(answer.user.unwrap_or_default()),
        linked: answer.linked,
    }))
}

/// A user's name, organisation, roles, own data scope and phone.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct UserUpdateForm {
    pub name: String,
    /// A new phone (also the person's sign-in phone); empty keeps the current one.
    pub phone: String,
    pub org_id: String,
    pub role_ids: Vec<String>,
    /// The user's own data scope (1..5); absent: from the roles.
    pub data_scope: Option<i32>,
    pub data_scope_org_ids: Vec<String>,
}

#[utoipa::path(
    put, path = "/system/users/{id}", tag = "system",
    params(("id" = String, Path, description = "User id")),
    request_body = UserUpdateForm,
    responses((status = 200, description = "The changed user; takes effect on their next request", body = Envelope<UserBody>)),
    security(("token" = ["as:sys:user:edit"]))
)]
async fn update_user(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<UserUpdateForm>,
) -> ApiResult<UserBody> {
    let request = pb::UpdateUserRequest {
        id,
        name: form.name,
        org_id: form.org_id,
        role_ids: form.role_ids,
        data_scope: data_scope_field(form.data_scope, form.data_scope_org_ids)?,
        phone: form.phone,
    };
    let answer = state
        .org()
        .update_user(state.as_user(&principal, request))
        .await?
        .into_inner();
    state.sessions.evict_enterprise(&principal.enterprise_id);
    Result::Ok(Ok(UserBody::from(answer.user.unwrap_or_default())))
}

#[utoipa::path(
    post, path = "/system/users/{id}/status", tag = "system",
    params(("id" = String, Path, description = "User id")),
    request_body = StatusForm,
    responses((status = 200, description = "A disabled user's next request is refused", body = Envelope<UserBody>)),
    security(("token" = ["as:sys:user:edit"]))
)]
async fn set_user_status(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<StatusForm>,
) -> ApiResult<UserBody> {
    let request = pb::SetUserStatusRequest {
        id,
        status: status_field(form.status)?,
    };
    let answer = state
        .org()
        .set_user_status(state.as_user(&principal, request))
        .await?
        .into_inner();
    state.sessions.evict_enterprise(&principal.enterprise_id);
    Result::Ok(Ok(UserBody::from(answer.user.unwrap_or_default())))
}

#[utoipa::path(
    post, path = "/system/users/export", tag = "system",
    params(UserListQuery),
    responses((status = 200, description = "The export record of the users list with the list's filters (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:user:getList"]))
)]
async fn export_users(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<UserListQuery>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let status = match query.status {
        None => 0,
        some => status_field(some)?,
    };
    let request = pb::ExportUsersRequest {
        name_contains: query.name.unwrap_or_default(),
        org_id: query.org_id.unwrap_or_default(),
        role_id: query.role_id.unwrap_or_default(),
        status,
    };
    let answer = state
        .org()
        .export_users(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
