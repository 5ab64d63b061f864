//! The login log of the caller's enterprise: every attempt by its members'
//! accounts, newest first, filterable and paged.

use fleetdesk_kit::convert::{self, datetime};
use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::auth::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::store::{self, LoginLogFilter};
use super::{PERM_LOGIN_LOG, convert as log_convert};
use crate::context::Context;

impl Context {
    pub(crate) async fn login_logs(
        &self,
        enterprise_id: Uuid,
        req: pb::ListLoginLogsRequest,
    ) -> Result<pb::ListLoginLogsResponse, ServiceError> {
        let (page, size) = convert::page(req.page.as_ref());
        let login_type = log_convert::login_type_filter(req.login_type)?;
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
        let (rows, total) = store::list(&self.pool, enterprise_id, &filter, page, size).await?;
        Ok(pb::ListLoginLogsResponse {
            entries: rows.into_iter().map(log_convert::entry).collect(),
            page: Some(convert::page_info(page, size, total)),
        })
    }
}

/// `ListLoginLogs`: the caller's enterprise's log.
pub async fn list(
    ctx: &Context,
    request: Request<pb::ListLoginLogsRequest>,
) -> Result<pb::ListLoginLogsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_LOGIN_LOG)?;
    let tenant = grpc::tenant(&request)?;
    ctx.login_logs(tenant, request.into_inner()).await
}
