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
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, batch, end_time, start_time, time_range};
use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new().routes(routes!(list_coupons))
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
    let request = pb::ListCouponsRequest {
        page: Some(paging(query.page, query.size)?),
        statuses: codes(query.statuses),
        kinds: codes(query.kinds),
        usable_for_bill_ids: query.usable_for_bill_ids,
        usable_for_order_kind: query.usable_for_order_kind.map_or(0, Into::into),
        valid_until: time_range(query.valid_until_start, query.valid_until_end),
    };
    let answer = state
        .finance()
        .list_coupons(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.coupons.into_iter().map(Into::into).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}
