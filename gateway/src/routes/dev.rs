//! Development-only helpers. They answer 4004 unless FLEETDESK_ENV is
//! development, and auth refuses them too unless its development SMS sender
//! is the active one.

use axum::extract::State;
use fleetdesk_kit::ErrorCode;
use fleetdesk_proto::auth::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok};
use crate::extract::TrimmedQuery;
use crate::routes::rfc3339;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(sms_outbox))
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_code_is_the_six_digit_run() {
        assert_eq!(code_in("验证码为 042917，5 分钟内有效"), "042917");
        assert_eq!(code_in("no code 12345 here"), "");
    }
}
