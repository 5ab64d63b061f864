//! The login log of the user's enterprise (`loginfoListPage`), with the
//! browser and operating system read from each attempt's user agent.

use axum::extract::State;
use chrono::{DateTime, FixedOffset, NaiveDateTime, TimeZone as _};
use fleetdesk_proto::auth::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedQuery;
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
    /// The raw user agent.
    pub user_agent: String,
    /// Browser and major version read from the user agent, e.g. `Chrome 120`; empty when unknown.
    pub browser: String,
    /// Operating system and version, e.g. `Windows 10`, `macOS 10.15.7`; empty when unknown.
    pub os: String,
}

/// The text after `marker` up to the next space, `;` or `)`.
fn token_after<'a>(ua: &'a str, marker: &str) -> Option<&'a str> {
    let start = ua.find(marker)? + marker.len();
    let rest = &ua[start..];
    let end = rest.find([' ', ';', ')']).unwrap_or(rest.len());
    Some(&rest[..end]).filter(|v| !v.is_empty())
}

/// The first `parts` dot-separated parts of a version.
fn version(value: &str, parts: usize) -> String {
    value.split('.').take(parts).collect::<Vec<_>>().join(".")
}

/// Browser and version from a user agent. Order matters: Edge, Opera and WeCom
/// also say Chrome, Chrome also says Safari.
pub fn browser_of(ua: &str) -> String {
    const NAMED: [(&str, &str, usize); 8] = [
        ("wxwork/", "企业微信", 3),
        ("MicroMessenger/", "微信", 3),
        ("Edg/", "Edge", 1),
        ("OPR/", "Opera", 1),
        ("Firefox/", "Firefox", 1),
        ("HeadlessChrome/", "Chrome Headless", 1),
        ("Chrome/", "Chrome", 1),
        ("CriOS/", "Chrome", 1),
    ];
    for (marker, name, parts) in NAMED {
        if let Some(v) = token_after(ua, marker) {
            return format!("{name} {}", version(v, parts));
        }
    }
    if ua.contains("Safari/")
        && let Some(v) = token_after(ua, "Version/")
    {
        return format!("Safari {}", version(v, 2));
    }
    String::new()
}

/// Operating system and version from a user agent.
pub fn os_of(ua: &str) -> String {
    if let Some(v) = token_after(ua, "Windows NT ") {
        let name = match v {
            "10.0" => "10",
            "6.3" => "8.1",
            "6.2" => "8",
            "6.1" => "7",
            other => other,
        };
        return format!("Windows {name}");
    }
    // iPhone and iPad say "like Mac OS X": check them first.
    for marker in ["iPhone OS ", "CPU OS "] {
        if let Some(v) = token_after(ua, marker) {
            return format!("iOS {}", v.replace('_', "."));
        }
    }
    if let Some(v) = token_after(ua, "Android ") {
        return format!("Android {v}");
    }
    if let Some(v) = token_after(ua, "Mac OS X ") {
        return format!("macOS {}", v.replace('_', "."));
    }
    if ua.contains("CrOS") {
        return "ChromeOS".to_owned();
    }
    if ua.contains("Linux") {
        return "Linux".to_owned();
    }
    String::new()
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
                browser: browser_of(&e.user_agent),
                os: os_of(&e.user_agent),
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

    #[test]
    fn browser_and_os_are_read_from_the_user_agent() {
        let cases = [
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.6099.109 Safari/537.36",
                "Chrome 120",
                "Windows 10",
            ),
            (
                "Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.2210.91",
                "Edge 120",
                "Windows 10",
            ),
            (
                "Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15",
                "Safari 17.1",
                "macOS 10.15.7",
            ),
            (
                "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1.2 Mobile/15E148 Safari/604.1",
                "Safari 17.1",
                "iOS 17.1.2",
            ),
            (
                "Mozilla/5.0 (X11; Ubuntu; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0",
                "Firefox 121",
                "Linux",
            ),
            (
                "Mozilla/5.0 (Linux; Android 13; Pixel 7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/119.0.0.0 Mobile Safari/537.36",
                "Chrome 119",
                "Android 13",
            ),
            (
                "Mozilla/5.0 (Windows NT 6.1; WOW64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/53.0.2785.116 Safari/537.36 wxwork/4.1.10 MicroMessenger/7.0.1",
                "企业微信 4.1.10",
                "Windows 7",
            ),
            ("curl/8.4.0", "", ""),
            ("", "", ""),
        ];
        for (ua, browser, os) in cases {
            assert_eq!(
                (browser_of(ua).as_str(), os_of(ua).as_str()),
                (browser, os),
                "{ua}"
            );
        }
    }
}
