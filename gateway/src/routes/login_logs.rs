//! The login log of the user's enterprise (`loginfoListPage`).

use axum::extract::State;
use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone as _};
use fleetdesk_proto::auth::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedQuery;
use crate::routes::{paging, rfc3339};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_login_logs))
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct LoginLogQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// 1 account, 2 phone code, 3 WeCom.
    pub login_type: Option<i32>,
    /// true: successes only; false: failures only.
    pub succeeded: Option<bool>,
    /// From this time: RFC 3339, or `yyyy-MM-dd HH:mm:ss` in China time (UTC+8).
    pub start_time: Option<String>,
    /// Until this time, same formats.
    pub end_time: Option<String>,
    /// Part of the account name or masked phone.
    pub principal: Option<String>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct LoginLogBody {
    pub id: String,
    /// RFC 3339 (UTC).
    pub login_time: String,
    /// 1 account, 2 phone code, 3 WeCom.
    pub login_type: i32,
    /// The account name, masked phone or WeCom user that was tried.
    pub principal: String,
    pub succeeded: bool,
    /// Why it failed; empty on success.
    pub message: String,
    pub ip: String,
    pub user_agent: String,
}

/// A filter time: RFC 3339, or the console's `yyyy-MM-dd HH:mm:ss` read as China time.
fn parse_time(field: &str, value: &str) -> Result<prost_types::Timestamp, ApiError> {
    let china = FixedOffset::east_opt(8 * 3600).expect("UTC+8");
    let at = DateTime::parse_from_rfc3339(value).ok().or_else(|| {
        NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S")
            .ok()
            .and_then(|t| china.from_local_datetime(&t).single())
    });
    at.map(|t| fleetdesk_kit::convert::timestamp(t.to_utc()))
        .ok_or_else(|| ApiError::invalid(field, "时间格式应为 yyyy-MM-dd HH:mm:ss"))
}

#[utoipa::path(
    get, path = "/auth/login-logs", tag = "auth",
    params(LoginLogQuery),
    responses((status = 200, description = "Sign-in attempts of the enterprise's members, newest first", body = Envelope<Page<LoginLogBody>>)),
    security(("token" = ["as:sys:loginfo"]))
)]
async fn list_login_logs(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<LoginLogQuery>,
) -> ApiResult<Page<LoginLogBody>> {
    let login_type = match query.login_type {
        None => pb::LoginType::Unspecified,
        Some(1) => pb::LoginType::Password,
        Some(2) => pb::LoginType::SmsCode,
        Some(3) => pb::LoginType::Wecom,
        Some(_) => return Err(ApiError::invalid("loginType", "登录方式无效")),
    };
    let request = pb::ListLoginLogsRequest {
        page: Some(paging(query.page, query.size)?),
        login_type: login_type as i32,
        succeeded: query.succeeded,
        from_time: query
            .start_time
            .as_deref()
            .map(|t| parse_time("startTime", t))
            .transpose()?,
        to_time: query
            .end_time
            .as_deref()
            .map(|t| parse_time("endTime", t))
            .transpose()?,
        principal: query.principal.unwrap_or_default(),
    };
    let answer = state
        .auth()
        .list_login_logs(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .entries
            .into_iter()
            .map(|e| LoginLogBody {
                id: e.id,
                login_time: rfc3339(e.attempt_time.as_ref()),
                login_type: e.login_type,
                principal: e.principal,
                succeeded: e.succeeded,
                message: e.failure_reason,
                ip: e.ip,
                user_agent: e.user_agent,
            })
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filter_times_read_rfc3339_and_china_time() {
        let a = parse_time("startTime", "2026-01-02 08:00:00").unwrap();
        let b = parse_time("startTime", "2026-01-02T00:00:00Z").unwrap();
        assert_eq!(a, b);
        assert!(parse_time("startTime", "2026/01/02").is_err());
    }
}
