//! The bill_payment, bill_payment_allocation and bank_event tables: a new
//! payment with its allocations, the bills it pays (locked in id order,
//! their paid amounts and statuses), the list's filter, and the bank's
//! events applied once.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Allocation, PaymentMethod, PaymentStatus};
use crate::context::Actor;
use crate::coupons::apply::Discount;

#[derive(Debug, Clone, FromRow)]
pub struct PaymentRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub payment_no: String,
    pub method: i16,
    pub status: i16,
    pub amount_fen: i64,
    pub coupon_id: Option<Uuid>,
    pub coupon_deduction_fen: i64,
    pub payer_name: String,
    pub payer_bank_name: String,
    pub payer_masked_account: String,
    pub bank_order_id: String,
    pub pay_url: String,
    pub expire_time: Option<DateTime<Utc>>,
    pub paid_time: Option<DateTime<Utc>>,
    pub failure_reason: String,
    pub requested_by_name: String,
    pub created_at: DateTime<Utc>,
}

const SELECT: &str = "select p.id, p.enterprise_id, p.org_id, p.payment_no, p.method, p.status, \
     p.amount_fen, p.coupon_id, p.coupon_deduction_fen, p.payer_name, p.payer_bank_name, \
     p.payer_masked_account, p.bank_order_id, p.pay_url, p.expire_time, p.paid_time, \
     p.failure_reason, p.requested_by_name, p.created_at from bill_payment p";

#[derive(Debug, Clone, FromRow)]
pub struct AllocationRow {
    pub payment_id: Uuid,
    pub bill_id: Uuid,
    pub bill_no: String,
    pub amount_fen: i64,
}

/// A payment to write.
#[derive(Debug, Clone)]
pub struct NewPayment<'a> {
    pub id: Uuid,
    pub org_id: Uuid,
    pub payment_no: &'a str,
    pub method: PaymentMethod,
    pub status: PaymentStatus,
    pub amount_fen: i64,
    pub coupon: Option<Discount>,
    pub payer_name: &'a str,
    pub payer_bank_name: &'a str,
    pub payer_masked_account: &'a str,
    pub expire_time: Option<DateTime<Utc>>,
    pub paid_time: Option<DateTime<Utc>>,
    pub allocations: &'a [Allocation],
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    new: &NewPayment<'_>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into bill_payment (id, enterprise_id, org_id, payment_no, method, status, \
         amount_fen, payer_name, payer_bank_name, payer_masked_account, expire_time, paid_time, \
         requested_by, requested_by_name, coupon_id, coupon_deduction_fen) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    )
    .bind(new.id)
    .bind(actor.enterprise_id)
    .bind(new.org_id)
    .bind(new.payment_no)
    .bind(i16::from(new.method))
    .bind(i16::from(new.status))
    .bind(new.amount_fen)
    .bind(new.payer_name)
    .bind(new.payer_bank_name)
    .bind(new.payer_masked_account)
    .bind(new.expire_time)
    .bind(new.paid_time)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(new.coupon.map(|c| c.coupon_id))
    .bind(new.coupon.map_or(0, |c| c.discount_fen))
    .execute(&mut *conn)
    .await?;
    write_allocations(conn, actor.enterprise_id, new.id, new.allocations).await
}

async fn write_allocations(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    payment_id: Uuid,
    allocations: &[Allocation],
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into bill_payment_allocation (payment_id, enterprise_id, bill_id, bill_no, amount_fen) \
         select $1, $2, a.bill_id, a.bill_no, a.amount \
         from unnest($3::uuid[], $4::text[], $5::bigint[]) as a(bill_id, bill_no, amount)",
    )
    .bind(payment_id)
    .bind(enterprise_id)
    .bind(allocations.iter().map(|a| a.bill_id).collect::<Vec<_>>())
    .bind(allocations.iter().map(|a| a.bill_no.clone()).collect::<Vec<_>>())
    .bind(allocations.iter().map(|a| a.amount_fen).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Replaces a settling payment's allocations with what was applied.
pub async fn reallocate(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    payment_id: Uuid,
    applied: &[Allocation],
) -> Result<(), ServiceError> {
    sqlx::query("delete from bill_payment_allocation where enterprise_id = $1 and payment_id = $2")
        .bind(enterprise_id)
        .bind(payment_id)
        .execute(&mut *conn)
        .await?;
    write_allocations(conn, enterprise_id, payment_id, applied).await
}

/// Locks the tenant's bills `ids` in id order (every payment and refund
/// takes them so, and two never deadlock); answers the ids found.
pub async fn lock_bills(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<Uuid>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select id from bill where enterprise_id = $1 and id = any($2) order by id for update",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// The bills' money and statuses, as a settling payment checks them.
pub async fn owed(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<(Uuid, String, i16, i16, i64)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, bill_no, channel, status, outstanding_fen from bill \
         where enterprise_id = $1 and id = any($2)",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// Adds each allocation to its bill's paid amount: PAID (with the paid
/// time) once nothing is outstanding, else PARTIALLY_PAID; the orders of
/// bills now PAID turn PAID with them (`orders::paid`).
pub async fn apply_to_bills(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    allocations: &[Allocation],
    by: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update bill b set paid_fen = b.paid_fen + d.amount, \
           status = case when b.paid_fen + d.amount >= b.payable_fen then 4 else 3 end, \
           paid_time = case when b.paid_fen + d.amount >= b.payable_fen then now() else b.paid_time end, \
           updated_by_name = $4 \
         from unnest($2::uuid[], $3::bigint[]) as d(id, amount) \
         where b.enterprise_id = $1 and b.id = d.id",
    )
    .bind(enterprise_id)
    .bind(allocations.iter().map(|a| a.bill_id).collect::<Vec<_>>())
    .bind(allocations.iter().map(|a| a.amount_fen).collect::<Vec<_>>())
    .bind(by)
    .execute(&mut *conn)
    .await?;
    let bill_ids: Vec<Uuid> = allocations.iter().map(|a| a.bill_id).collect();
    crate::orders::paid::bills_paid(conn, enterprise_id, &bill_ids).await
}

/// Whether any of the bills waits for a bank payment not yet expired.
pub async fn pending_on(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    bill_ids: &[Uuid],
) -> Result<Option<String>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select a.bill_no from bill_payment_allocation a \
         join bill_payment p on p.id = a.payment_id \
         where a.enterprise_id = $1 and a.bill_id = any($2) and p.status = 1 \
           and (p.expire_time is null or p.expire_time > now()) \
         limit 1",
    )
    .bind(enterprise_id)
    .bind(bill_ids)
    .fetch_optional(conn)
    .await?)
}

/// Records the bank's order of a pending payment.
pub async fn set_bank_order(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    order_id: &str,
    pay_url: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update bill_payment set bank_order_id = $3, pay_url = $4 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .bind(order_id)
    .bind(pay_url)
    .execute(conn)
    .await?;
    Ok(())
}

/// Ends a pending payment: SUCCEEDED (with its paid time) or FAILED (with
/// the bank's reason).
pub async fn finish(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    status: PaymentStatus,
    paid_time: Option<DateTime<Utc>>,
    failure_reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update bill_payment set status = $3, paid_time = $4, failure_reason = $5 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .bind(i16::from(status))
    .bind(paid_time)
    .bind(failure_reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// The payment `id` of any tenant, locked (a bank callback, service scope).
pub async fn lock_any(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<PaymentRow>, ServiceError> {
    let sql = format!("{SELECT} where p.id = $1 for update");
    Ok(sqlx::query_as(&sql).bind(id).fetch_optional(conn).await?)
}

/// The list's filter.
#[derive(Debug, Clone, Default)]
pub struct PaymentQuery {
    pub bill_id: Option<Uuid>,
    pub payment_no: String,
    pub methods: Vec<i16>,
    pub statuses: Vec<i16>,
    pub created: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "p.created_at desc, p.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &PaymentQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "p.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "p.org_id", "p.requested_by");
    if let Some(bill_id) = query.bill_id {
        f.and()
            .push("exists (select 1 from bill_payment_allocation a where a.payment_id = p.id and a.enterprise_id = p.enterprise_id and a.bill_id = ")
            .push_bind(bill_id)
            .push(")");
    }
    f.contains("p.payment_no", &query.payment_no)
        .any_of("p.method", query.methods.clone())
        .any_of("p.status", query.statuses.clone())
        .within("p.created_at", query.created);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &PaymentQuery,
    paging: Paging,
) -> Result<(Vec<PaymentRow>, i64), ServiceError> {
    let rows = filtered(SELECT, actor, query)
        .page(&NewestFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let count = count(conn, actor, query).await?;
    Ok((rows, count))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &PaymentQuery,
) -> Result<i64, ServiceError> {
    Ok(
        filtered("select count(*) from bill_payment p", actor, query)
            .finish()
            .build_query_scalar()
            .fetch_one(conn)
            .await?,
    )
}

/// A page of the export: newest first, after `cursor`.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &PaymentQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<PaymentRow>, ServiceError> {
    Ok(filtered(SELECT, actor, query)
        .keyset("p.created_at", "p.id", cursor, limit)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// The payment `id` the caller reaches; 4004 otherwise.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<PaymentRow, ServiceError> {
    let mut f = filtered(SELECT, actor, &PaymentQuery::default());
    f.and().push("p.id = ").push_bind(id);
    f.finish()
        .build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}

/// The allocations of `payment_ids`, in bill number order.
pub async fn allocations(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    payment_ids: &[Uuid],
) -> Result<Vec<AllocationRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select payment_id, bill_id, bill_no, amount_fen from bill_payment_allocation \
         where enterprise_id = $1 and payment_id = any($2) order by payment_id, bill_no",
    )
    .bind(enterprise_id)
    .bind(payment_ids)
    .fetch_all(conn)
    .await?)
}

/// Records the bank's event `event_id` as applied in this transaction;
/// false when it was applied before (a repeat: change nothing).
pub async fn first_time(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    event_id: &str,
    event_type: &str,
    subject_id: Uuid,
) -> Result<bool, ServiceError> {
    let inserted = sqlx::query(
        "insert into bank_event (event_id, enterprise_id, event_type, subject_id) \
         values ($1, $2, $3, $4) on conflict (event_id) do nothing",
    )
    .bind(event_id)
    .bind(enterprise_id)
    .bind(event_type)
    .bind(subject_id)
    .execute(conn)
    .await?
    .rows_affected();
    Ok(inserted == 1)
}
