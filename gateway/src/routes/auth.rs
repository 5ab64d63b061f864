//! Sign-in and sign-out.

use axum::extract::State;
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::auth::v1::{self as pb, SessionKind};
use serde::{Deserialize, Serialize};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Empty, Envelope, Ok};
use crate::extract::{ClientMeta, TrimmedJson};
use crate::routes::rfc3339;
use crate::session::{Principal, token_hash};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(logout))
}

/// Sign-in by account (1), phone code (2) or WeCom (3).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginRequest {
    /// 1 account + password, 2 phone + SMS code, 3 WeCom.
    pub login_type: i32,
    #[serde(default)]
    pub username: String,
    #[serde(default)]
    pub password: String,
    #[serde(default)]
    pub phone: String,
    #[serde(default)]
    pub verify_code: String,
    #[serde(default)]
    pub auth_token: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginData {
    /// Session token: send it in the `token` header.
    pub token: String,
    /// When the session ends (RFC 3339).
    pub expire_time: String,
    /// `enterprise`, or `personal` when an enterprise must still be chosen.
    pub session_kind: String,
}

fn login_data(token: String, session: Option<pb::Session>) -> LoginData {
    let session = session.unwrap_or_default();
    LoginData {
        token,
        expire_time: rfc3339(session.expire_time.as_ref()),
        session_kind: if session.kind == SessionKind::Enterprise as i32 {
            "enterprise"
        } else {
            "personal"
        }
        .to_owned(),
    }
}

#[utoipa::path(
    post, path = "/auth/login", tag = "auth",
    request_body = LoginRequest,
    responses((status = 200, description = "Signed in", body = Envelope<LoginData>)),
    security(())
)]
async fn login(
    State(state): State<AppState>,
    client: ClientMeta,
    TrimmedJson(body): TrimmedJson<LoginRequest>,
) -> ApiResult<LoginData> {
    let client = Some(pb::ClientInfo {
        ip: client.ip,
        user_agent: client.user_agent,
    });
    match body.login_type {
        1 => {
            let request = pb::SignInWithPasswordRequest {
                username: body.username,
                password: body.password,
                client,
            };
            let answer = state
                .auth()
                .sign_in_with_password(state.as_gateway(request))
                .await?
                .into_inner();
            Result::Ok(Ok(login_data(answer.token, answer.session)))
        }
        2 => {
            if body.phone.is_empty() {
                return Err(ApiError::invalid("phone", "请输入手机号"));
            }
            if body.verify_code.is_empty() {
                return Err(ApiError::invalid("verifyCode", "请输入验证码"));
            }
            Err(ApiError(ServiceError::invalid(
                "loginType",
                "手机验证码登录暂未开放，请使用账号登录",
            )))
        }
        3 => {
            if body.auth_token.is_empty() {
                return Err(ApiError::invalid("authToken", "缺少企业微信授权码"));
            }
            Err(ApiError(ServiceError::invalid(
                "loginType",
                "企业微信登录暂未开放，请使用账号登录",
            )))
        }
        _ => Err(ApiError::invalid("loginType", "登录方式无效")),
    }
}

#[utoipa::path(
    post, path = "/auth/logout", tag = "auth",
    responses((status = 200, description = "Session ended", body = Envelope<Empty>)),
    security(("token" = []))
)]
async fn logout(State(state): State<AppState>, principal: Principal) -> ApiResult<Empty> {
    state.sessions.evict(&token_hash(&principal.token));
    state
        .auth()
        .sign_out(state.as_gateway(pb::SignOutRequest {
            token: principal.token.clone(),
        }))
        .await?;
    Result::Ok(Ok(Empty {}))
}
