//! The operation-log table of every vehicle-asset detail page (console spec §3:
//! remark, operName, operTime), newest first. Reading a log needs the
//! permission of the page it sits on: the route admits any of the three, the
//! vehicle service checks the one of the requested business type.

use axum::extract::State;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::paging::paging;
use crate::edge::time::rfc3339;
use crate::envelope::{ApiResult, Envelope, Ok};
use crate::extract::TrimmedQuery;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_operation_logs))
}

/// What kind of object a log belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, ToSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum BusinessType {
    Vehicle,
    Driver,
    UsageRecord,
}

impl From<BusinessType> for i32 {
    fn from(value: BusinessType) -> i32 {
        match value {
            BusinessType::Vehicle => pb::BusinessType::Vehicle as i32,
            BusinessType::Driver => pb::BusinessType::Driver as i32,
            BusinessType::UsageRecord => pb::BusinessType::UsageRecord as i32,
        }
    }
}

/// The spec's request: businessId, pageNum, pageSize (page and size accepted too).
#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct OperationLogQuery {
    #[param(inline)]
    pub business_type: BusinessType,
    /// Id of the vehicle, driver or usage record.
    pub business_id: String,
    /// Page from 1.
    pub page_num: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub page_size: Option<i32>,
    pub page: Option<i32>,
    pub size: Option<i32>,
}

/// One entry of the log table.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationLogBody {
    /// What changed, field by field, in Chinese.
    pub remark: String,
    pub oper_name: String,
    pub oper_time: String,
}

/// The spec's list response: `totalNum` and `list` (`total` too, as every list).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct OperationLogPage {
    pub list: Vec<OperationLogBody>,
    pub total: i64,
    pub total_num: i64,
}

#[utoipa::path(
    get, path = "/operation-logs", tag = "vehicles",
    params(OperationLogQuery),
    responses((status = 200, description = "The object's changes, newest first", body = Envelope<OperationLogPage>)),
    security(("token" = ["as:sys:car", "as:sys:driver", "as:sys:car:used"]))
)]
async fn list_operation_logs(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<OperationLogQuery>,
) -> ApiResult<OperationLogPage> {
    let request = pb::ListOperationLogsRequest {
        business_type: query.business_type.into(),
        business_id: query.business_id,
        page: Some(paging(
            query.page_num.or(query.page),
            query.page_size.or(query.size),
        )?),
    };
    let answer = state
        .assets()
        .list_operation_logs(state.as_user(&principal, request))
        .await?
        .into_inner();
    let total = answer.page.map_or(0, |p| p.total);
    Result::Ok(Ok(OperationLogPage {
        list: answer
            .entries
            .into_iter()
            .map(|e| OperationLogBody {
                remark: e.remark,
                oper_name: e.operator_name,
                oper_time: rfc3339(e.operate_time.as_ref()),
            })
            .collect(),
        total,
        total_num: total,
    }))
}
