//! What a payment does with a coupon, inside the payment's own tenant
//! transaction: price it ([`discount`]), take it ([`consume`] when the
//! money moves at once, [`hold`] while a bank payment is pending, then
//! [`settle`]), and give it back ([`release`]) when the payment fails or is
//! cancelled.
//!
//! Taking is one conditional update (AVAILABLE and valid now, in the
//! `where`): of two payments racing for one coupon the second finds it
//! taken and gets 4009, so the caller's transaction rolls back whole. A
//! repeated take by the same payment for the same discount is a no-op, so
//! a retried payment step does not fail on its own coupon.

use chrono::Utc;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, CouponStatus, Item, Purchase};
use super::{convert, store};
use crate::bills::domain::BillKind;
use crate::bills::store::BillRow;
use crate::context::Actor;

/// What a coupon takes off one payment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Discount {
    pub coupon_id: Uuid,
    pub discount_fen: i64,
}

/// What paying `amount_fen` (before the coupon) of `bills` buys: each
/// bill's kind and, for an ORDER bill, its order's kind.
pub async fn purchase(
    conn: &mut PgConnection,
    actor: &Actor,
    bills: &[BillRow],
    amount_fen: i64,
) -> Result<Purchase, ServiceError> {
    let order_ids: Vec<Uuid> = bills.iter().filter_map(|b| b.order_id).collect();
    let orders = store::order_kinds(conn, actor.enterprise_id, &order_ids).await?;
    let items = bills
        .iter()
        .map(|bill| {
            let order_kind = match bill.order_id {
                Some(order) => orders
                    .iter()
                    .find(|(id, _)| *id == order)
                    .map(|(_, kind)| known(*kind))
                    .transpose()?,
                None => None,
            };
            Ok(Item {
                bill_kind: known::<BillKind>(bill.kind)?,
                order_kind,
            })
        })
        .collect::<Result<_, ServiceError>>()?;
    Ok(Purchase { items, amount_fen })
}

/// The discount coupon `coupon_id` gives a payment of `amount_fen` (what
/// it moves before the coupon) over `bills` (the caller's rows, reach
/// checked): the coupon is the enterprise's (else 4004), AVAILABLE and
/// valid now, meets its minimum spend and kinds; AMOUNT_OFF or capped
/// PERCENT_OFF, never more than `amount_fen`. Reads only: take it with
/// [`consume`] or [`hold`] in the same transaction.
pub async fn discount(
    conn: &mut PgConnection,
    actor: &Actor,
    coupon_id: Uuid,
    bills: &[BillRow],
    amount_fen: i64,
) -> Result<Discount, ServiceError> {
    let row = store::get(conn, actor, coupon_id).await?;
    let purchase = purchase(conn, actor, bills, amount_fen).await?;
    let discount_fen = domain::discount(
        &convert::terms(&row)?,
        known(row.status)?,
        &purchase,
        Utc::now(),
    )?;
    Ok(Discount {
        coupon_id,
        discount_fen,
    })
}

/// Uses the coupon of `discount` for `payment_id`, whose money has moved
/// (USED). 4009 when another payment took it first or it is no longer
/// valid.
pub async fn consume(
    conn: &mut PgConnection,
    actor: &Actor,
    discount: &Discount,
    payment_id: Uuid,
) -> Result<(), ServiceError> {
    take(conn, actor, discount, payment_id, CouponStatus::Used).await
}

/// Holds the coupon of `discount` for the pending `payment_id` (LOCKED)
/// until [`settle`] or [`release`]; refused as [`consume`] is.
pub async fn hold(
    conn: &mut PgConnection,
    actor: &Actor,
    discount: &Discount,
    payment_id: Uuid,
) -> Result<(), ServiceError> {
    take(conn, actor, discount, payment_id, CouponStatus::Locked).await
}

async fn take(
    conn: &mut PgConnection,
    actor: &Actor,
    discount: &Discount,
    payment_id: Uuid,
    status: CouponStatus,
) -> Result<(), ServiceError> {
    let Discount {
        coupon_id,
        discount_fen,
    } = *discount;
    if discount_fen <= 0 {
        return Err(ServiceError::invalid("couponId", "优惠金额须大于零"));
    }
    if store::take(conn, actor, coupon_id, payment_id, discount_fen, status).await? {
        return Ok(());
    }
    let row = store::get(conn, actor, coupon_id).await?;
    let stored: CouponStatus = known(row.status)?;
    let again = row.used_payment_id == Some(payment_id)
        && row.used_discount_fen == discount_fen
        && (stored == status || stored == CouponStatus::Used);
    if again {
        return Ok(());
    }
    domain::usable(stored, row.valid_from, row.valid_until, Utc::now())?;
    // Valid by the clock here but not by the database's transaction time.
    Err(ServiceError::taken("couponId", "优惠券不可用"))
}

/// The pending `payment_id` succeeded: the coupon it holds becomes USED.
/// Nothing to do when it holds none (or it was settled before).
pub async fn settle(
    conn: &mut PgConnection,
    actor: &Actor,
    payment_id: Uuid,
) -> Result<(), ServiceError> {
    store::settle(conn, actor, payment_id).await?;
    Ok(())
}

/// `payment_id` failed or was cancelled: the coupon it holds or used is
/// AVAILABLE again (EXPIRED if its validity ended meanwhile). Nothing to
/// do when it has none, so a repeated failure callback changes nothing.
pub async fn release(
    conn: &mut PgConnection,
    actor: &Actor,
    payment_id: Uuid,
) -> Result<(), ServiceError> {
    store::release(conn, actor, payment_id).await?;
    Ok(())
}
