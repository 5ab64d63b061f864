//! Getting in and out: sign-in by account, phone code or WeCom QR, SMS codes,
//! the WeCom QR frame's settings, choosing an enterprise, logout.

use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, header};
use axum::response::{IntoResponse, Response};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use fleetdesk_proto::auth::v1::{self as pb, SessionKind, SmsPurpose};
use fleetdesk_proto::org::v1::ListMembershipsRequest;
use rand::RngCore as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Empty, Envelope, Ok};
use crate::extract::{ClientMeta, TrimmedJson};
use crate::session::{Person, token_hash};
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(login))
        .routes(routes!(logout))
        .routes(routes!(send_sms_code))
        .routes(routes!(wecom_app_info))
        .routes(routes!(enterprises))
        .routes(routes!(select_enterprise))
}

/// The cookie that binds a WeCom QR `state` to the browser that asked for it.
const BINDING_COOKIE: &str = "fd_wecom_binding";

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
    /// WeCom: the `code` the QR frame sent back.
    #[serde(default)]
    pub auth_token: String,
    /// WeCom: the `state` that came back with the code.
    #[serde(default)]
    pub state: String,
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

/// The browser's binding cookie, if it sent a well-formed one.
fn binding_cookie(headers: &HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(name, _)| *name == BINDING_COOKIE)
        .map(|(_, value)| value.to_owned())
        .filter(|v| B64.decode(v).is_ok_and(|b| b.len() == 16))
}

/// What auth keeps of the cookie: its SHA-256, never the value.
fn binding_hash(cookie: &str) -> String {
    hex::encode(Sha256::digest(cookie.as_bytes()))
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
    headers: HeaderMap,
    TrimmedJson(body): TrimmedJson<LoginRequest>,
) -> ApiResult<LoginData> {
    let client = Some(pb::ClientInfo {
        ip: client.ip,
        user_agent: client.user_agent,
    });
    let (token, session) = match body.login_type {
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
            (answer.token, answer.session)
        }
        2 => {
            let request = pb::SignInWithSmsCodeRequest {
                phone: body.phone,
                verify_code: body.verify_code,
                client,
            };
            let answer = state
                .auth()
                .sign_in_with_sms_code(state.as_gateway(request))
                .await?
                .into_inner();
            (answer.token, answer.session)
        }
        3 => {
            let request = pb::SignInWithWeComRequest {
                code: body.auth_token,
                state: body.state,
                browser_binding: binding_cookie(&headers)
                    .map(|c| binding_hash(&c))
                    .unwrap_or_default(),
                client,
            };
            let answer = state
                .auth()
                .sign_in_with_we_com(state.as_gateway(request))
                .await?
                .into_inner();
            (answer.token, answer.session)
        }
        _ => return Err(ApiError::invalid("loginType", "登录方式无效")),
    };
    Result::Ok(Ok(login_data(token, session)))
}

#[utoipa::path(
    post, path = "/auth/logout", tag = "auth",
    responses((status = 200, description = "Session ended", body = Envelope<Empty>)),
    security(("personal" = []))
)]
async fn logout(State(state): State<AppState>, person: Person) -> ApiResult<Empty> {
    state.sessions.evict(&token_hash(&person.token));
    state
        .auth()
        .sign_out(state.as_gateway(pb::SignOutRequest {
            token: person.token.clone(),
        }))
        .await?;
    Result::Ok(Ok(Empty {}))
}

/// Asks for an SMS code.
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmsCodeRequest {
    /// 11 digits starting with 1.
    #[serde(default)]
    pub phone: String,
    /// `login` (default) or `reset-password`.
    #[serde(default)]
    pub purpose: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SmsCodeData {
    /// Seconds until another code may be asked for (the countdown).
    pub resend_after_seconds: i32,
}

#[utoipa::path(
    post, path = "/auth/sms-code", tag = "auth",
    request_body = SmsCodeRequest,
    responses(
        (status = 200, description = "Code sent (also for phones without an account, which get nothing)", body = Envelope<SmsCodeData>),
        (status = 429, description = "4029: a sending limit; Retry-After says how long to wait")
    ),
    security(())
)]
async fn send_sms_code(
    State(state): State<AppState>,
    client: ClientMeta,
    TrimmedJson(body): TrimmedJson<SmsCodeRequest>,
) -> ApiResult<SmsCodeData> {
    let purpose = match body.purpose.as_deref().unwrap_or("login") {
        "login" | "" => SmsPurpose::Login,
        "reset-password" => SmsPurpose::ResetPassword,
        _ => return Err(ApiError::invalid("purpose", "验证码用途无效")),
    };
    let request = pb::SendSmsCodeRequest {
        phone: body.phone,
        purpose: purpose as i32,
        client: Some(pb::ClientInfo {
            ip: client.ip,
            user_agent: client.user_agent,
        }),
    };
    let answer = state
        .auth()
        .send_sms_code(state.as_gateway(request))
        .await?
        .into_inner();
    Result::Ok(Ok(SmsCodeData {
        resend_after_seconds: answer.resend_after_seconds,
    }))
}

/// What the console needs to show WeCom's QR frame (spec `getAppPCInfo`).
#[derive(Debug, Serialize, ToSchema)]
pub struct WeComAppInfo {
    /// The corp id.
    pub appid: String,
    pub agentid: String,
    /// Where WeCom sends the browser back with `code` and `state`.
    pub redirect_uri: String,
    /// Pass it to the frame and back with the code: valid 10 minutes, once,
    /// and only from this browser.
    pub state: String,
    /// The QR frame page; the console adds appid, agentid, redirect_uri and state.
    pub qrconnect_url: String,
}

#[utoipa::path(
    get, path = "/auth/wecom/app-info", tag = "auth",
    responses((status = 200, description = "QR frame settings and a fresh state; sets the browser binding cookie", body = Envelope<WeComAppInfo>)),
    security(())
)]
async fn wecom_app_info(
    State(state): State<AppState>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    // One binding per browser: reuse the cookie it has, else make one.
    let cookie = binding_cookie(&headers).unwrap_or_else(|| {
        let mut bytes = [0u8; 16];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        B64.encode(bytes)
    });
    let answer = state
        .auth()
        .get_we_com_app_info(state.as_gateway(pb::GetWeComAppInfoRequest {
            browser_binding: binding_hash(&cookie),
        }))
        .await?
        .into_inner();
    let secure = if state.development { "" } else { "; Secure" };
    let set_cookie = HeaderValue::from_str(&format!(
        "{BINDING_COOKIE}={cookie}; Max-Age=600; Path=/api/v1/auth; HttpOnly; SameSite=Lax{secure}"
    ))
    .map_err(|_| ApiError::code(fleetdesk_kit::ErrorCode::Internal))?;
    let info = WeComAppInfo {
        appid: answer.appid,
        agentid: answer.agent_id,
        redirect_uri: answer.redirect_uri,
        state: answer.state,
        qrconnect_url: answer.qr_connect_url,
    };
    Result::Ok(([(header::SET_COOKIE, set_cookie)], Ok(info)).into_response())
}

/// An enterprise the person belongs to.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct EnterpriseChoice {
    pub enterprise_id: String,
    pub enterprise_name: String,
    /// True for the enterprise of the session making the call.
    pub current: bool,
}

#[utoipa::path(
    get, path = "/auth/enterprises", tag = "auth",
    responses((status = 200, description = "The person's enterprises, for /selectNet and switching", body = Envelope<Vec<EnterpriseChoice>>)),
    security(("personal" = []))
)]
async fn enterprises(
    State(state): State<AppState>,
    person: Person,
) -> ApiResult<Vec<EnterpriseChoice>> {
    let memberships = state
        .org()
        .list_memberships(state.as_gateway(ListMembershipsRequest {
            account_id: person.account_id.clone(),
        }))
        .await?
        .into_inner()
        .memberships;
    Result::Ok(Ok(memberships
        .into_iter()
        .map(|m| EnterpriseChoice {
            current: person.enterprise_id.as_deref() == Some(m.enterprise_id.as_str()),
            enterprise_id: m.enterprise_id,
            enterprise_name: m.enterprise_name,
        })
        .collect()))
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct SelectEnterpriseRequest {
    #[serde(default)]
    pub enterprise_id: String,
}

#[utoipa::path(
    post, path = "/auth/select-enterprise", tag = "auth",
    request_body = SelectEnterpriseRequest,
    responses((status = 200, description = "A new enterprise session; the calling session stays valid", body = Envelope<LoginData>)),
    security(("personal" = []))
)]
async fn select_enterprise(
    State(state): State<AppState>,
    person: Person,
    TrimmedJson(body): TrimmedJson<SelectEnterpriseRequest>,
) -> ApiResult<LoginData> {
    if body.enterprise_id.is_empty() {
        return Err(ApiError::invalid("enterpriseId", "请选择企业"));
    }
    let answer = state
        .auth()
        .select_enterprise(state.as_gateway(pb::SelectEnterpriseRequest {
            token: person.token.clone(),
            enterprise_id: body.enterprise_id,
        }))
        .await?
        .into_inner();
    Result::Ok(Ok(login_data(answer.token, answer.session)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_well_formed_binding_cookie_is_read() {
        let mut headers = HeaderMap::new();
        assert_eq!(binding_cookie(&headers), None);
        let good = B64.encode([7u8; 16]);
        headers.insert(
            header::COOKIE,
            format!("a=1; {BINDING_COOKIE}={good}; b=2")
                .parse()
                .unwrap(),
        );
        assert_eq!(binding_cookie(&headers), Some(good.clone()));
        headers.insert(
            header::COOKIE,
            format!("{BINDING_COOKIE}=short").parse().unwrap(),
        );
        assert_eq!(binding_cookie(&headers), None);
        assert_eq!(binding_hash(&good).len(), 64);
        assert_ne!(binding_hash(&good), good);
    }
}
