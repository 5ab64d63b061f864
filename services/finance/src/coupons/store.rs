//! The coupon table: the list's filter, granting once per (campaign,
//! coupon_no), and a payment taking, settling and releasing a coupon with
//! conditional updates (the status in the `where`, so racing payments
//! cannot both take one coupon).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{CouponStatus, Terms};
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct CouponRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub campaign: String,
    pub coupon_no: String,
    pub name: String,
    pub kind: i16,
    pub face_value_fen: i64,
    pub percent_off_bp: i32,
    pub max_discount_fen: i64,
    pub min_spend_fen: i64,
    pub applicable_bill_kinds: Vec<i16>,
    pub applicable_order_kinds: Vec<i16>,
    pub valid_from: DateTime<Utc>,
    pub valid_until: DateTime<Utc>,
    /// As stored: never EXPIRED (see `domain::seen`).
    pub status: i16,
    pub issued_time: DateTime<Utc>,
    pub used_payment_id: Option<Uuid>,
    pub used_order_id: Option<Uuid>,
    pub used_time: Option<DateTime<Utc>>,
    pub used_discount_fen: i64,
}

const SELECT: &str = "select c.id, c.enterprise_id, c.campaign, c.coupon_no, c.name, c.kind, \
     c.face_value_fen, c.percent_off_bp, c.max_discount_fen, c.min_spend_fen, \
     c.applicable_bill_kinds, c.applicable_order_kinds, c.valid_from, c.valid_until, c.status, \
     c.issued_time, c.used_payment_id, c.used_order_id, c.used_time, c.used_discount_fen \
     from coupon c";

/// The status a reader sees (`domain::seen` in SQL): AVAILABLE past its
/// validity is EXPIRED.
const SEEN_STATUS: &str =
    "(case when c.status = 1 and c.valid_until <= now() then 4 else c.status end)";

/// Usable now: available and within its validity.
const USABLE_NOW: &str = "c.status = 1 and c.valid_from <= now() and c.valid_until > now()";

/// What a coupon must fit to be listed as usable (the pay dialog): the
/// SQL of `domain::discount` over a purchase.
#[derive(Debug, Clone, Default)]
pub struct Usable {
    /// Bill kinds paid; each must be listed by the coupon (or it lists none).
    pub bill_kinds: Vec<i16>,
    /// Order kinds paid; each must be listed by the coupon (or it lists none).
    pub order_kinds: Vec<i16>,
    /// The amount paid, when known: at least the minimum spend, and
    /// enough for a PERCENT_OFF coupon to take off one fen.
    pub amount_fen: Option<i64>,
}

/// A checked coupon filter.
#[derive(Debug, Clone, Default)]
pub struct CouponQuery {
    /// Seen statuses (EXPIRED included).
    pub statuses: Vec<i16>,
    pub kinds: Vec<i16>,
    pub usable: Option<Usable>,
    pub valid_until: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestGrantedFirst;

impl Sort for NewestGrantedFirst {
    fn order_by(&self) -> &'static str {
        "c.issued_time desc, c.id desc"
    }
}

/// The list's filter in `actor`'s enterprise (coupons have no reach: they
/// belong to the whole enterprise).
pub fn filtered<'a>(select: &str, actor: &Actor, query: &CouponQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "c.enterprise_id", actor.enterprise_id);
    f.any_of(SEEN_STATUS, query.statuses.clone())
        .any_of("c.kind", query.kinds.clone())
        .within("c.valid_until", query.valid_until);
    if let Some(usable) = &query.usable {
        f.and().push(USABLE_NOW);
        f.and()
            .push("(cardinality(c.applicable_bill_kinds) = 0 or c.applicable_bill_kinds @> ")
            .push_bind(usable.bill_kinds.clone())
            .push(")");
        f.and()
            .push("(cardinality(c.applicable_order_kinds) = 0 or c.applicable_order_kinds @> ")
            .push_bind(usable.order_kinds.clone())
            .push(")");
        if let Some(amount) = usable.amount_fen {
            f.and().push_bind(amount).push(" > 0");
            f.and().push("c.min_spend_fen <= ").push_bind(amount);
            f.and()
                .push("(c.kind = 1 or c.percent_off_bp::bigint * ")
                .push_bind(amount)
                .push(" >= 10000)");
        }
    }
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CouponQuery,
    paging: Paging,
) -> Result<(Vec<CouponRow>, i64), ServiceError> {
    let rows = filtered(SELECT, actor, query)
        .page(&NewestGrantedFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let count = count(conn, actor, query).await?;
    Ok((rows, count))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CouponQuery,
) -> Result<i64, ServiceError> {
    Ok(filtered("select count(*) from coupon c", actor, query)
        .finish()
        .build_query_scalar()
        .fetch_one(conn)
        .await?)
}

/// A page of the export: newest granted first, after `cursor`.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CouponQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<CouponRow>, ServiceError> {
    Ok(filtered(SELECT, actor, query)
        .keyset("c.issued_time", "c.id", cursor, limit)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// The coupon `id` of `actor`'s enterprise; 4004 otherwise.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<CouponRow, ServiceError> {
    let mut f = filtered(SELECT, actor, &CouponQuery::default());
    f.and().push("c.id = ").push_bind(id);
    f.finish()
        .build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}

/// The coupon granted as `(campaign, coupon_no)` to `actor`'s enterprise.
pub async fn by_grant(
    conn: &mut PgConnection,
    actor: &Actor,
    campaign: &str,
    coupon_no: &str,
) -> Result<Option<CouponRow>, ServiceError> {
    let mut f = filtered(SELECT, actor, &CouponQuery::default());
    f.and().push("c.campaign = ").push_bind(campaign.to_owned());
    f.and()
        .push("c.coupon_no = ")
        .push_bind(coupon_no.to_owned());
    Ok(f.finish().build_query_as().fetch_optional(conn).await?)
}

/// Inserts coupon `id` granted as `(campaign, coupon_no)` with `terms`,
/// unless that grant was made before (then false answers, nothing written).
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    campaign: &str,
    coupon_no: &str,
    terms: &Terms,
) -> Result<bool, ServiceError> {
    let Terms {
        name,
        kind,
        face_value_fen,
        percent_off_bp,
        max_discount_fen,
        min_spend_fen,
        bill_kinds,
        order_kinds,
        valid_from,
        valid_until,
    } = terms;
    let bill_kinds: Vec<i16> = bill_kinds.iter().map(|k| i16::from(*k)).collect();
    let order_kinds: Vec<i16> = order_kinds.iter().map(|k| i16::from(*k)).collect();
    let inserted = sqlx::query(
        "insert into coupon (id, enterprise_id, campaign, coupon_no, name, kind, face_value_fen, \
         percent_off_bp, max_discount_fen, min_spend_fen, applicable_bill_kinds, \
         applicable_order_kinds, valid_from, valid_until) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14) \
         on conflict on constraint coupon_grant_key do nothing",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(campaign)
    .bind(coupon_no)
    .bind(name.trim())
    .bind(i16::from(*kind))
    .bind(face_value_fen)
    .bind(percent_off_bp)
    .bind(max_discount_fen)
    .bind(min_spend_fen)
    .bind(bill_kinds)
    .bind(order_kinds)
    .bind(valid_from)
    .bind(valid_until)
    .execute(conn)
    .await?;
    Ok(inserted.rows_affected() == 1)
}

/// Takes coupon `id` for `payment_id` (LOCKED while the payment is
/// pending, USED once it settles) if it is still AVAILABLE and valid now:
/// the one conditional update racing payments meet on. False when it was
/// not available (nothing written).
pub async fn take(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    payment_id: Uuid,
    discount_fen: i64,
    status: CouponStatus,
) -> Result<bool, ServiceError> {
    let taken = sqlx::query(&format!(
        "update coupon c set status = $4, used_payment_id = $3, used_time = now(), \
         used_discount_fen = $5 where c.enterprise_id = $1 and c.id = $2 and {USABLE_NOW}"
    ))
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(payment_id)
    .bind(i16::from(status))
    .bind(discount_fen)
    .execute(conn)
    .await?;
    Ok(taken.rows_affected() == 1)
}

/// Marks the coupon `payment_id` holds (LOCKED) as USED; how many moved.
pub async fn settle(
    conn: &mut PgConnection,
    actor: &Actor,
    payment_id: Uuid,
) -> Result<u64, ServiceError> {
    Ok(sqlx::query(
        "update coupon set status = 3, used_time = now() \
         where enterprise_id = $1 and used_payment_id = $2 and status = 2",
    )
    .bind(actor.enterprise_id)
    .bind(payment_id)
    .execute(conn)
    .await?
    .rows_affected())
}

/// Frees the coupon `payment_id` holds or used (AVAILABLE again, its use
/// forgotten); how many were freed.
pub async fn release(
    conn: &mut PgConnection,
    actor: &Actor,
    payment_id: Uuid,
) -> Result<u64, ServiceError> {
    Ok(sqlx::query(
        "update coupon set status = 1, used_payment_id = null, used_time = null, \
         used_discount_fen = 0 \
         where enterprise_id = $1 and used_payment_id = $2 and status in (2, 3)",
    )
    .bind(actor.enterprise_id)
    .bind(payment_id)
    .execute(conn)
    .await?
    .rows_affected())
}

/// The kinds of the tenant's orders `ids` (what an ORDER bill pays for).
pub async fn order_kinds(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<(Uuid, i16)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, kind from enterprise_order where enterprise_id = $1 and id = any($2)",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}
