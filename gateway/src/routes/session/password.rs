//! The person's password: change it (signed in) or set a new one with an SMS
//! code. Either ends every other session of the account.

use axum::extract::State;
use fleetdesk_proto::auth::v1 as pb;
use serde::Deserialize;
use utoipa::ToSchema;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, Empty, Envelope, OkWith};
use crate::extract::{ClientMeta, TrimmedJson};
use crate::session::Person;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(change_password))
        .routes(routes!(reset_password_by_phone))
}

/// The change-password form (console spec §5).
#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ChangePasswordRequest {
    #[serde(default)]
    pub old_password: String,
    /// 8 to 20 characters.
    #[serde(default)]
    pub new_password: String,
    /// The new password again (the console's field name).
    #[serde(default)]
    pub confirm_new_paw: String,
}

#[utoipa::path(
    post, path = "/auth/password", tag = "auth",
    request_body = ChangePasswordRequest,
    responses((status = 200, description = "修改密码成功; every other session of the account has ended", body = Envelope<Empty>)),
    security(("personal" = []))
)]
async fn change_password(
    State(state): State<AppState>,
    person: Person,
    TrimmedJson(body): TrimmedJson<ChangePasswordRequest>,
) -> Result<OkWith<Empty>, ApiError> {
    state
        .auth()
        .change_password(state.as_gateway(pb::ChangePasswordRequest {
            old_password: body.old_password,
            new_password: body.new_password,
            confirm_new_password: body.confirm_new_paw,
            current_token: person.token.clone(),
        }))
        .await?;
    Ok(OkWith {
        msg: "修改密码成功",
        data: Empty {},
    })
}

#[derive(Debug, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ResetPasswordRequest {
    #[serde(default)]
    pub phone: String,
    /// The code from `POST /auth/sms-code` with purpose `reset-password`.
    #[serde(default)]
    pub verify_code: String,
    /// 8 to 20 characters.
    #[serde(default)]
    pub new_password: String,
}

#[utoipa::path(
    post, path = "/auth/password/reset-by-phone", tag = "auth",
    request_body = ResetPasswordRequest,
    responses((status = 200, description = "Password set; every session of the account has ended", body = Envelope<Empty>)),
    security(())
)]
async fn reset_password_by_phone(
    State(state): State<AppState>,
    client: ClientMeta,
    TrimmedJson(body): TrimmedJson<ResetPasswordRequest>,
) -> Result<OkWith<Empty>, ApiError> {
    state
        .auth()
        .reset_password_by_phone(state.as_gateway(pb::ResetPasswordByPhoneRequest {
            phone: body.phone,
            verify_code: body.verify_code,
            new_password: body.new_password,
            client: Some(pb::ClientInfo {
                ip: client.ip,
                user_agent: client.user_agent,
            }),
        }))
        .await?;
    Ok(OkWith {
        msg: "密码重置成功，请重新登录",
        data: Empty {},
    })
}
