//! The enterprise's coupons (myCoupons, permission `as:coupon:pageInfo`; the
//! pay page asks for the ones usable on its bills under `oss:bill:pagepay`).

use axum::extract::State;
use fleetdesk_proto::finance::v1 as pb;
use prost_types::Timestamp;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use super::bodies::{CouponBody, CouponKind, CouponStatus, OrderKind};
use crate::edge::enums::codes;
use crate::edge::export::{ExportRecordBody, answer_started};
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, ExportQuery, batch, end_time, start_time, time_range};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_coupons))
        .routes(routes!(export_coupons))
}

/// Filters of the coupon list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct CouponListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub statuses: Vec<CouponStatus>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    pub kinds: Vec<CouponKind>,
    /// Only coupons usable for these bills right now (the pay page).
    #[param(style = Form, explode)]
    #[serde(default, deserialize_with = "batch")]
    pub usable_for_bill_ids: Vec<String>,
    /// Only coupons usable for an order of this kind right now.
    pub usable_for_order_kind: Option<OrderKind>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "start_time")]
    pub valid_until_start: Option<Timestamp>,
    #[param(value_type = Option<String>)]
    #[serde(default, deserialize_with = "end_time")]
    pub valid_until_end: Option<Timestamp>,
}

impl CouponListParams {
    fn request(self) -> Result<pb::ListCouponsRequest, ApiError> {
        Result::Ok(pb::ListCouponsRequest {
            page: Some(paging(self.page, self.size)?),
            statuses: codes(self.statuses),
            kinds: codes(self.kinds),
            usable_for_bill_ids: self.usable_for_bill_ids,
            usable_for_order_kind: self.usable_for_order_kind.map_or(0, Into::into),
            valid_until: time_range(self.valid_until_start, self.valid_until_end),
        })
    }
}

#[utoipa::path(
    get, path = "/finance/coupons", tag = "finance",
    params(CouponListParams),
    responses((status = 200, description = "Coupons granted to the enterprise", body = Envelope<Page<CouponBody>>)),
    security(("token" = ["as:coupon:pageInfo", "oss:bill:pagepay"]))
)]
async fn list_coupons(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<CouponListParams>,
) -> ApiResult<Page<CouponBody>> {
    let answer = state
        .finance()
        .list_coupons(state.as_user(&principal, query.request()?))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.coupons.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    post, path = "/finance/coupons/export", tag = "finance",
    params(CouponListParams),
    responses((status = 200, description = "The export record of the enterprise's coupons with the list's filters and order (paging ignored; the pay page's usable-for filters are 4000); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:coupon:pageInfo"]))
)]
async fn export_coupons(
    State(state): State<AppState>,
    principal: Principal,
    ExportQuery(query): ExportQuery<CouponListParams>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let request = pb::ExportCouponsRequest {
        filter: Some(query.request()?),
    };
    let answer = state
        .finance()
        .export_coupons(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
}
