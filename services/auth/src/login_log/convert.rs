//! Proto ↔ domain for the login log: an entry onto the wire, the way filter
//! off it.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::optional;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::auth::v1 as pb;

use super::domain::LoginType;
use super::store::LoginLogRow;

pub fn entry(row: LoginLogRow) -> pb::LoginLogEntry {
    let LoginLogRow {
        id,
        attempted_at,
        login_type,
        principal,
        succeeded,
        failure_reason,
        ip,
        user_agent,
    } = row;
    pb::LoginLogEntry {
        id: id.to_string(),
        attempt_time: Some(timestamp(attempted_at)),
        login_type: optional::<LoginType>(Some(login_type)).map_or(0, LoginType::pb),
        principal,
        succeeded,
        failure_reason,
        ip,
        user_agent,
    }
}

/// The log's way filter: unspecified means any; otherwise one of the ways.
pub fn login_type_filter(value: i32) -> Result<Option<LoginType>, ServiceError> {
    if value == pb::LoginType::Unspecified as i32 {
        return Ok(None);
    }
    LoginType::from_pb(value)
        .map(Some)
        .ok_or_else(|| ServiceError::invalid("loginType", "登录方式无效"))
}
