//! Coupon RPCs: validate → domain → store → response. ListCoupons reads
//! the caller's enterprise (the coupon page, or the pay page asking which
//! coupons fit its bills); GrantCoupons is the operator's, through a
//! service caller naming the enterprise.

use chrono::Utc;
use fleetdesk_kit::list::{BATCH_LIMIT, Paging};
use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::finance::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{Item, Purchase};
use super::store::{self, Usable};
use super::{PAY_PERMISSION, PERMISSION, apply, convert};
use crate::bills::domain::BillKind;
use crate::bills::store as bills;
use crate::context::{self, Actor, Context};

/// ListCoupons: under the coupon page's permission or the pay page's.
pub async fn list(
    ctx: &Context,
    req: Request<pb::ListCouponsRequest>,
) -> Result<pb::ListCouponsResponse, ServiceError> {
    if grpc::require_permission(&req, PERMISSION).is_err() {
        grpc::require_permission(&req, PAY_PERMISSION)?;
    }
    let (actor, mut tx) = Actor::begin_member(&ctx.pool, &req).await?;
    let message = req.into_inner();
    let paging = Paging::parse(message.page.as_ref())?;
    let (mut query, bill_ids, order_kind) = convert::query(&message)?;
    if !bill_ids.is_empty() || order_kind.is_some() {
        let rows = bills::some(&mut tx, &actor, &bill_ids, false).await?;
        if rows.len() != bill_ids.len() {
            return Err(ServiceError::not_found());
        }
        let amount = (!rows.is_empty()).then(|| rows.iter().map(|b| b.outstanding_fen).sum());
        let mut purchase = apply::purchase(&mut tx, &actor, &rows, amount.unwrap_or(0)).await?;
        if let Some(kind) = order_kind {
            purchase.items.push(Item {
                bill_kind: BillKind::Order,
                order_kind: Some(kind),
            });
        }
        query.usable = Some(usable(&purchase, amount));
    }
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    let now = Utc::now();
    Ok(pb::ListCouponsResponse {
        coupons: rows
            .into_iter()
            .map(|r| convert::coupon(r, now))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

/// The list's "usable for" condition of `purchase`, paying `amount_fen`
/// when known.
fn usable(purchase: &Purchase, amount_fen: Option<i64>) -> Usable {
    let mut bill_kinds: Vec<i16> = purchase.items.iter().map(|i| i.bill_kind.into()).collect();
    let mut order_kinds: Vec<i16> = purchase
        .items
        .iter()
        .filter_map(|i| i.order_kind.map(Into::into))
        .collect();
    bill_kinds.sort_unstable();
    bill_kinds.dedup();
    order_kinds.sort_unstable();
    order_kinds.dedup();
    Usable {
        bill_kinds,
        order_kinds,
        amount_fen,
    }
}

/// GrantCoupons: service callers only, all coupons or none; a repeated
/// (campaign, coupon_no) answers the first coupon when its terms are the
/// same (an unset start takes the first's) and is 4009 otherwise.
pub async fn grant(
    ctx: &Context,
    req: Request<pb::GrantCouponsRequest>,
) -> Result<pb::GrantCouponsResponse, ServiceError> {
    let enterprise_id = req.get_ref().enterprise_id.clone();
    let (actor, mut tx) = context::for_enterprise(&ctx.pool, &req, &enterprise_id).await?;
    let pb::GrantCouponsRequest {
        enterprise_id: _,
        campaign,
        coupons,
    } = req.into_inner();
    let campaign = convert::campaign(&campaign)?;
    if coupons.is_empty() {
        return Err(ServiceError::invalid("coupons", "请至少发放一张优惠券"));
    }
    if coupons.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "coupons",
            format!("每次最多发放{BATCH_LIMIT}张优惠券"),
        ));
    }
    let now = Utc::now();
    let grants = coupons
        .into_iter()
        .enumerate()
        .map(|(i, g)| convert::grant(g, i, now))
        .collect::<Result<Vec<_>, _>>()?;
    for (i, g) in grants.iter().enumerate() {
        if grants[..i]
            .iter()
            .any(|earlier| earlier.coupon_no == g.coupon_no)
        {
            return Err(ServiceError::invalid(
                &format!("coupons[{i}].couponNo"),
                "同一次发放中券号重复",
            ));
        }
    }
    let mut granted = Vec::with_capacity(grants.len());
    for (i, g) in grants.into_iter().enumerate() {
        let id = Uuid::new_v4();
        if store::insert(&mut tx, &actor, id, &campaign, &g.coupon_no, &g.terms).await? {
            granted.push(store::get(&mut tx, &actor, id).await?);
            continue;
        }
        let first = store::by_grant(&mut tx, &actor, &campaign, &g.coupon_no)
            .await?
            .ok_or_else(ServiceError::not_found)?;
        let mut again = g.terms;
        if !g.from_given {
            again.valid_from = first.valid_from;
        }
        if convert::terms(&first)? != again {
            return Err(ServiceError::taken(
                &format!("coupons[{i}].couponNo"),
                "该活动已发放此券号，且内容与已发放的不一致",
            ));
        }
        granted.push(first);
    }
    tx.commit().await?;
    Ok(pb::GrantCouponsResponse {
        coupons: granted
            .into_iter()
            .map(|r| convert::coupon(r, now))
            .collect::<Result<_, _>>()?,
    })
}
