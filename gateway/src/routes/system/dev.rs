//! Development-only helpers. They answer 4004 unless FLEETDESK_ENV is
//! development, and auth refuses them too unless its development SMS sender
//! is the active one. The charging decisions stand in for the operator's own
//! tools (energy takes them only from `svc:operator`), so a development stack
//! can be opened for charging without them.

use axum::extract::{Path, State};
use fleetdesk_kit::ErrorCode;
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_proto::auth::v1 as pb;
use fleetdesk_proto::energy::v1 as energy;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok};
use crate::extract::{TrimmedJson, TrimmedQuery};
use crate::routes::energy::convert::ChargingOpenApplicationBody;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(sms_outbox))
        .routes(routes!(approve_charging_open_application))
        .routes(routes!(reject_charging_open_application))
}

/// A request to energy as the platform operator (`svc:operator`, no enterprise).
fn as_operator<T>(state: &AppState, message: T) -> tonic::Request<T> {
    fleetdesk_kit::grpc::outgoing(message, &state.signer, &Claims::service("operator"))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct OutboxQuery {
    /// Only messages to this phone.
    pub phone: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct DevSmsBody {
    pub phone: String,
    pub text: String,
    /// The 6-digit code in the text, for tests.
    pub code: String,
    pub sent_time: String,
}

/// The first run of exactly six digits in `text`.
fn code_in(text: &str) -> String {
    text.split(|c: char| !c.is_ascii_digit())
        .find(|run| run.len() == 6)
        .unwrap_or_default()
        .to_owned()
}

#[utoipa::path(
    get, path = "/dev/sms-outbox", tag = "dev",
    params(OutboxQuery),
    responses((status = 200, description = "Development only: SMS the development sender recorded, newest first", body = Envelope<Vec<DevSmsBody>>)),
    security(())
)]
async fn sms_outbox(
    State(state): State<AppState>,
    TrimmedQuery(query): TrimmedQuery<OutboxQuery>,
) -> ApiResult<Vec<DevSmsBody>> {
    if !state.development {
        return Err(ApiError::code(ErrorCode::NotFound));
    }
    let answer = state
        .auth()
        .list_dev_sms_messages(state.as_gateway(pb::ListDevSmsMessagesRequest {
            phone: query.phone.unwrap_or_default(),
        }))
        .await?
        .into_inner();
    Result::Ok(Ok(answer
        .messages
        .into_iter()
        .map(|m| DevSmsBody {
            code: code_in(&m.text),
            phone: m.phone,
            text: m.text,
            sent_time: rfc3339(m.send_time.as_ref()),
        })
        .collect()))
}

/// The operator's decision on an application.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct DevChargingDecisionForm {
    /// Approve: the main account's overdraft (fen).
    pub credit_limit_fen: i64,
    /// Reject: why (required by energy).
    pub reason: String,
    /// Approve: the operator's remark, kept on the application.
    pub remark: String,
}

#[utoipa::path(
    post, path = "/dev/charging-open-applications/{id}/approve", tag = "dev",
    params(("id" = String, Path, description = "Application id (latestApplication.id of /charging/open-status)")),
    request_body = DevChargingDecisionForm,
    responses((status = 200, description = "Development only: approves as the platform operator; the enterprise's charging account opens", body = Envelope<ChargingOpenApplicationBody>)),
    security(())
)]
async fn approve_charging_open_application(
    State(state): State<AppState>,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<DevChargingDecisionForm>,
) -> ApiResult<ChargingOpenApplicationBody> {
    if !state.development {
        return Err(ApiError::code(ErrorCode::NotFound));
    }
    let request = energy::ApproveChargingOpenApplicationRequest {
        application_id: id,
        credit_limit_fen: form.credit_limit_fen,
        remark: form.remark,
    };
    let answer = state
        .energy()
        .approve_charging_open_application(as_operator(&state, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.application.unwrap_or_default().into()))
}

#[utoipa::path(
    post, path = "/dev/charging-open-applications/{id}/reject", tag = "dev",
    params(("id" = String, Path, description = "Application id")),
    request_body = DevChargingDecisionForm,
    responses((status = 200, description = "Development only: rejects as the platform operator; the enterprise may apply again", body = Envelope<ChargingOpenApplicationBody>)),
    security(())
)]
async fn reject_charging_open_application(
    State(state): State<AppState>,
    Path(id): Path<String>,
    TrimmedJson(form): TrimmedJson<DevChargingDecisionForm>,
) -> ApiResult<ChargingOpenApplicationBody> {
    if !state.development {
        return Err(ApiError::code(ErrorCode::NotFound));
    }
    let request = energy::RejectChargingOpenApplicationRequest {
        application_id: id,
        reason: form.reason,
    };
    let answer = state
        .energy()
        .reject_charging_open_application(as_operator(&state, request))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.application.unwrap_or_default().into()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_is_the_six_digit_run() {
        assert_eq!(code_in("验证码为 042917，5 分钟内有效"), "042917");
        assert_eq!(code_in("no code 12345 here"), "");
    }
}
