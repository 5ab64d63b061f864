//! The login log of the caller's enterprise: every attempt by its members'
//! accounts, newest first, filterable and paged.

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::{ServiceError, convert::datetime};
use fleetdesk_proto::auth::v1 as pb;
use uuid::Uuid;

use super::AuthApi;
use crate::store::{self, LoginLogFilter, LoginLogRow};

/// Permission to read the login log (`loginfoListPage`).
pub const PERM_LOGIN_LOG: &str = "as:sys:loginfo";

fn entry_pb(row: LoginLogRow) -> pb::LoginLogEntry {
    pb::LoginLogEntry {
        id: row.id.to_string(),
        attempt_time: Some(timestamp(row.attempted_at)),
        login_type: i32::from(row.login_type),
        principal: row.principal,
        succeeded: row.succeeded,
        failure_reason: row.failure_reason,
        ip: row.ip,
        user_agent: row.user_agent,
    }
}

impl AuthApi {
    pub(super) async fn login_logs(
        &self,
        enterprise_id: Uuid,
        req: pb::ListLoginLogsRequest,
    ) -> Result<pb::ListLoginLogsResponse, ServiceError> {
        let (page, size) = convert::page(req.page.as_ref());
        let login_type = match pb::LoginType::try_from(req.login_type) {
            Ok(pb::LoginType::Unspecified) => None,
            Ok(t) => Some(t as i16),
            Err(_) => return Err(ServiceError::invalid("loginType", "登录方式无效")),
        };
        let filter = LoginLogFilter {
            login_type,
            succeeded: req.succeeded,
            from: req.from_time.as_ref().and_then(datetime),
            to: req.to_time.as_ref().and_then(datetime),
            principal: req.principal.trim().to_owned(),
        };
        if let (Some(from), Some(to)) = (filter.from, filter.to)
            && from > to
        {
            return Err(ServiceError::invalid(
                "startTime",
                "开始时间不允许大于结束时间",
            ));
        }
        let (rows, total) =
            store::list_login_logs(&self.pool, enterprise_id, &filter, page, size).await?;
        Ok(pb::ListLoginLogsResponse {
            entries: rows.into_iter().map(entry_pb).collect(),
            page: Some(convert::page_info(page, size, total)),
        })
    }
}
