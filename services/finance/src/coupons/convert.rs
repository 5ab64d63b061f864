//! Coupons between the wire and the store: the list filter, a grant's
//! terms checked, rows as proto messages (their status seen at `now`).

use chrono::{DateTime, SubsecRound, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::list::{BATCH_LIMIT, TimeRange};
use fleetdesk_proto::finance::v1 as pb;
use uuid::Uuid;

use super::domain::{self, CouponKind, CouponStatus, Terms};
use super::store::{CouponQuery, CouponRow};
use crate::bills::domain::BillKind;
use crate::filters;
use crate::orders::domain::OrderKind;

/// The list's filter, checked; the bills and the order kind the coupons
/// must be usable for are handed back for the handler to resolve.
pub fn query(
    r: &pb::ListCouponsRequest,
) -> Result<(CouponQuery, Vec<Uuid>, Option<OrderKind>), ServiceError> {
    let pb::ListCouponsRequest {
        page: _,
        statuses,
        kinds,
        usable_for_bill_ids,
        usable_for_order_kind,
        valid_until,
    } = r;
    let mut bill_ids = filters::ids("usableForBillIds", usable_for_bill_ids, "账单编号无效")?;
    bill_ids.sort_unstable();
    bill_ids.dedup();
    if bill_ids.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid(
            "usableForBillIds",
            fleetdesk_kit::list::batch_limit_message(),
        ));
    }
    let query = CouponQuery {
        statuses: filters::codes("statuses", statuses, CouponStatus::from_pb)?,
        kinds: filters::codes("kinds", kinds, CouponKind::from_pb)?,
        usable: None,
        valid_until: TimeRange::parse("validUntil", valid_until.as_ref())?,
    };
    Ok((query, bill_ids, OrderKind::from_pb(*usable_for_order_kind)))
}

/// The campaign of a grant: trimmed, required.
pub fn campaign(campaign: &str) -> Result<String, ServiceError> {
    match campaign.trim() {
        "" => Err(ServiceError::invalid("campaign", "请填写发券活动")),
        c => Ok(c.to_owned()),
    }
}

/// One coupon of a grant, as checked.
#[derive(Debug, Clone)]
pub struct Grant {
    pub coupon_no: String,
    pub terms: Terms,
    /// Whether the caller named the start (unset, it is the grant's time,
    /// and a repeat takes the first grant's).
    pub from_given: bool,
}

/// One coupon of a grant (the `i`th), its number and checked terms; an
/// unset start is `now`. Times are kept to the microsecond, as stored, so
/// a repeat compares equal.
pub fn grant(g: pb::CouponGrant, i: usize, now: DateTime<Utc>) -> Result<Grant, ServiceError> {
    let pb::CouponGrant {
        coupon_no,
        name,
        kind,
        face_value_fen,
        percent_off_bp,
        max_discount_fen,
        min_spend_fen,
        applicable_bill_kinds,
        applicable_order_kinds,
        valid_from,
        valid_until,
    } = g;
    let field = format!("coupons[{i}]");
    let at = |name: &str| format!("{field}.{name}");
    let coupon_no = coupon_no.trim().to_owned();
    if coupon_no.is_empty() {
        return Err(ServiceError::invalid(&at("couponNo"), "请填写券号"));
    }
    let kind = CouponKind::from_pb(kind)
        .ok_or_else(|| ServiceError::invalid(&at("kind"), "请选择优惠券类型"))?;
    let valid_from = valid_from.as_ref().and_then(datetime);
    let valid_until = valid_until
        .as_ref()
        .and_then(datetime)
        .map(|t| t.trunc_subsecs(6))
        .ok_or_else(|| ServiceError::invalid(&at("validUntil"), "请填写有效期截止时间"))?;
    let mut bill_kinds = kinds(
        &applicable_bill_kinds,
        BillKind::from_pb,
        &at("applicableBillKinds"),
    )?;
    bill_kinds.sort_by_key(|k| i16::from(*k));
    bill_kinds.dedup();
    let mut order_kinds = kinds(
        &applicable_order_kinds,
        OrderKind::from_pb,
        &at("applicableOrderKinds"),
    )?;
    order_kinds.sort_by_key(|k| i16::from(*k));
    order_kinds.dedup();
    let terms = Terms {
        name: name.trim().to_owned(),
        kind,
        face_value_fen: if kind == CouponKind::AmountOff {
            face_value_fen
        } else {
            0
        },
        percent_off_bp: if kind == CouponKind::PercentOff {
            percent_off_bp
        } else {
            0
        },
        max_discount_fen: if kind == CouponKind::PercentOff {
            max_discount_fen
        } else {
            0
        },
        min_spend_fen,
        bill_kinds,
        order_kinds,
        valid_from: valid_from.unwrap_or(now).trunc_subsecs(6),
        valid_until,
    };
    terms.check(&field)?;
    Ok(Grant {
        coupon_no,
        terms,
        from_given: valid_from.is_some(),
    })
}

fn kinds<T>(
    values: &[i32],
    from_pb: impl Fn(i32) -> Option<T>,
    field: &str,
) -> Result<Vec<T>, ServiceError> {
    values
        .iter()
        .map(|v| from_pb(*v).ok_or_else(|| ServiceError::invalid(field, "适用类型无效")))
        .collect()
}

/// The terms a stored coupon was granted with.
pub fn terms(row: &CouponRow) -> Result<Terms, ServiceError> {
    Ok(Terms {
        name: row.name.clone(),
        kind: known(row.kind)?,
        face_value_fen: row.face_value_fen,
        percent_off_bp: row.percent_off_bp,
        max_discount_fen: row.max_discount_fen,
        min_spend_fen: row.min_spend_fen,
        bill_kinds: row
            .applicable_bill_kinds
            .iter()
            .map(|k| known(*k))
            .collect::<Result<_, _>>()?,
        order_kinds: row
            .applicable_order_kinds
            .iter()
            .map(|k| known(*k))
            .collect::<Result<_, _>>()?,
        valid_from: row.valid_from,
        valid_until: row.valid_until,
    })
}

/// A coupon as the wire shows it, its status seen at `now`.
pub fn coupon(row: CouponRow, now: DateTime<Utc>) -> Result<pb::Coupon, ServiceError> {
    let CouponRow {
        id,
        enterprise_id,
        campaign,
        coupon_no,
        name,
        kind,
        face_value_fen,
        percent_off_bp,
        max_discount_fen,
        min_spend_fen,
        applicable_bill_kinds,
        applicable_order_kinds,
        valid_from,
        valid_until,
        status,
        issued_time,
        used_payment_id,
        used_order_id,
        used_time,
        used_discount_fen,
    } = row;
    let codes_of = |codes: Vec<i16>, pb_of: fn(i16) -> Result<i32, ServiceError>| {
        codes.into_iter().map(pb_of).collect::<Result<Vec<_>, _>>()
    };
    Ok(pb::Coupon {
        id: id.to_string(),
        coupon_no,
        enterprise_id: enterprise_id.to_string(),
        name,
        kind: known::<CouponKind>(kind)?.pb(),
        face_value_fen,
        percent_off_bp,
        max_discount_fen,
        min_spend_fen,
        applicable_bill_kinds: codes_of(applicable_bill_kinds, |k| Ok(known::<BillKind>(k)?.pb()))?,
        applicable_order_kinds: codes_of(applicable_order_kinds, |k| {
            Ok(known::<OrderKind>(k)?.pb())
        })?,
        valid_from: Some(timestamp(valid_from)),
        valid_until: Some(timestamp(valid_until)),
        status: domain::seen(known(status)?, valid_until, now).pb(),
        campaign,
        issued_time: Some(timestamp(issued_time)),
        used_payment_id: used_payment_id.map(|p| p.to_string()).unwrap_or_default(),
        used_order_id: used_order_id.map(|o| o.to_string()).unwrap_or_default(),
        used_time: used_time.map(timestamp),
        used_discount_fen,
    })
}
