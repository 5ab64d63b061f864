//! The refund table: a new refund, one under the caller's reach (locked
//! when it moves on), the bill's refunds in flight, the moves of its state
//! machine, the bill's refunded amount, the records' filter, and the
//! payment a refund goes back through.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{RefundMethod, RefundReason, RefundStatus};
use crate::bills::domain::Channel;
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct RefundRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub refund_no: String,
    pub channel: i16,
    pub bill_id: Uuid,
    pub bill_no: String,
    pub order_id: Option<Uuid>,
    pub payment_id: Option<Uuid>,
    pub reason: i16,
    pub reason_detail: String,
    pub requested_fen: i64,
    pub approved_fen: i64,
    pub refunded_fen: i64,
    pub method: i16,
    pub payee_name: String,
    pub payee_bank_name: String,
    pub payee_masked_account: String,
    pub status: i16,
    pub applicant_name: String,
    pub apply_time: DateTime<Utc>,
    pub reviewer_name: String,
    pub review_time: Option<DateTime<Utc>>,
    pub reject_reason: String,
    pub confirmed_by_name: String,
    pub confirm_time: Option<DateTime<Utc>>,
    pub complete_time: Option<DateTime<Utc>>,
    pub transaction_no: String,
    pub failure_reason: String,
    pub created_at: DateTime<Utc>,
    pub updated_by_name: String,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str = "select r.id, r.enterprise_id, r.refund_no, r.channel, r.bill_id, r.bill_no, \
     r.order_id, r.payment_id, r.reason, r.reason_detail, r.requested_fen, r.approved_fen, \
     r.refunded_fen, r.method, r.payee_name, r.payee_bank_name, r.payee_masked_account, r.status, \
     r.applicant_name, r.apply_time, r.reviewer_name, r.review_time, r.reject_reason, \
     r.confirmed_by_name, r.confirm_time, r.complete_time, r.transaction_no, r.failure_reason, \
     r.created_at, r.updated_by_name, r.updated_at from refund r";

/// A refund applied for.
#[derive(Debug, Clone)]
pub struct NewRefund<'a> {
    pub id: Uuid,
    pub org_id: Uuid,
    pub refund_no: &'a str,
    pub channel: Channel,
    pub bill_id: Uuid,
    pub bill_no: &'a str,
    pub order_id: Option<Uuid>,
    pub reason: RefundReason,
    pub reason_detail: &'a str,
    pub amount_fen: i64,
    pub method: RefundMethod,
    pub payee_name: &'a str,
    pub payee_bank_name: &'a str,
    pub payee_masked_account: &'a str,
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    new: &NewRefund<'_>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into refund (id, enterprise_id, org_id, refund_no, channel, bill_id, bill_no, \
         order_id, reason, reason_detail, requested_fen, method, payee_name, payee_bank_name, \
         payee_masked_account, status, applicant_id, applicant_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18)",
    )
    .bind(new.id)
    .bind(actor.enterprise_id)
    .bind(new.org_id)
    .bind(new.refund_no)
    .bind(i16::from(new.channel))
    .bind(new.bill_id)
    .bind(new.bill_no)
    .bind(new.order_id)
    .bind(i16::from(new.reason))
    .bind(new.reason_detail)
    .bind(new.amount_fen)
    .bind(i16::from(new.method))
    .bind(new.payee_name)
    .bind(new.payee_bank_name)
    .bind(new.payee_masked_account)
    .bind(i16::from(RefundStatus::PendingReview))
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// What the bill's refunds in flight claim (applied, proposed, paying out).
pub async fn in_flight(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    bill_id: Uuid,
) -> Result<i64, ServiceError> {
    Ok(sqlx::query_scalar(
        "select coalesce(sum(greatest(requested_fen, approved_fen) - refunded_fen), 0)::bigint \
         from refund where enterprise_id = $1 and bill_id = $2 and status in (1, 2, 3)",
    )
    .bind(enterprise_id)
    .bind(bill_id)
    .fetch_one(conn)
    .await?)
}

/// The list's filter.
#[derive(Debug, Clone, Default)]
pub struct RefundQuery {
    pub channel: Option<i16>,
    pub refund_no: String,
    pub bill_id: Option<Uuid>,
    pub reasons: Vec<i16>,
    pub statuses: Vec<i16>,
    pub applied: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "r.apply_time desc, r.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &RefundQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "r.org_id", "r.applicant_id");
    f.equals("r.channel", query.channel)
        .contains("r.refund_no", &query.refund_no)
        .equals("r.bill_id", query.bill_id)
        .any_of("r.reason", query.reasons.clone())
        .any_of("r.status", query.statuses.clone())
        .within("r.apply_time", query.applied);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &RefundQuery,
    paging: Paging,
) -> Result<(Vec<RefundRow>, i64), ServiceError> {
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
    query: &RefundQuery,
) -> Result<i64, ServiceError> {
    Ok(filtered("select count(*) from refund r", actor, query)
        .finish()
        .build_query_scalar()
        .fetch_one(conn)
        .await?)
}

/// A page of the export: newest applied first, after `cursor`.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &RefundQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<RefundRow>, ServiceError> {
    Ok(filtered(SELECT, actor, query)
        .keyset("r.apply_time", "r.id", cursor, limit)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// The refund `id` the caller reaches, locked when it is to move on; 4004
/// otherwise (another tenant's too).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    lock: bool,
) -> Result<RefundRow, ServiceError> {
    let mut f = filtered(SELECT, actor, &RefundQuery::default());
    f.and().push("r.id = ").push_bind(id);
    let mut qb = f.finish();
    if lock {
        qb.push(" for update of r");
    }
    qb.build_query_as()
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}

/// The refund `id` of any tenant, locked (a bank callback, service scope).
pub async fn lock_any(
    conn: &mut PgConnection,
    id: Uuid,
) -> Result<Option<RefundRow>, ServiceError> {
    let sql = format!("{SELECT} where r.id = $1 for update");
    Ok(sqlx::query_as(&sql).bind(id).fetch_optional(conn).await?)
}

/// A confirmed refund: approved at its requested amount, by `method`,
/// paying out (PROCESSING) or already paid (COMPLETED).
pub async fn confirm(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    method: RefundMethod,
    status: RefundStatus,
    payment_id: Option<Uuid>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update refund set approved_fen = requested_fen, method = $3, status = $4, \
           payment_id = $5, confirmed_by_name = $6, confirm_time = now(), updated_by_name = $6, \
           refunded_fen = case when $4 = 4 then requested_fen else 0 end, \
           complete_time = case when $4 = 4 then now() end \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(i16::from(method))
    .bind(i16::from(status))
    .bind(payment_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// The bank's refund id of a refund paying out.
pub async fn set_transaction(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    transaction_no: &str,
) -> Result<(), ServiceError> {
    sqlx::query("update refund set transaction_no = $3 where enterprise_id = $1 and id = $2")
        .bind(enterprise_id)
        .bind(id)
        .bind(transaction_no)
        .execute(conn)
        .await?;
    Ok(())
}

/// A refund paying out ends: COMPLETED (all of it refunded) or FAILED
/// (with the bank's reason).
pub async fn finish(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    status: RefundStatus,
    failure_reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update refund set status = $3, failure_reason = $4, updated_by_name = '银行', \
           refunded_fen = case when $3 = 4 then approved_fen else refunded_fen end, \
           complete_time = case when $3 = 4 then now() else complete_time end \
         where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .bind(i16::from(status))
    .bind(failure_reason)
    .execute(conn)
    .await?;
    Ok(())
}

/// Withdraws an open refund.
pub async fn cancel(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update refund set status = $3, cancel_reason = $4, updated_by_name = $5 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(i16::from(RefundStatus::Cancelled))
    .bind(reason)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// Adds `amount_fen` to the bill's refunded amount (the bill's own check
/// keeps it within what was paid).
pub async fn add_refunded(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    bill_id: Uuid,
    amount_fen: i64,
    by: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update bill set refunded_fen = refunded_fen + $3, updated_by_name = $4 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(bill_id)
    .bind(amount_fen)
    .bind(by)
    .execute(conn)
    .await?;
    Ok(())
}

/// The payment a refund of the bill goes back through: its latest
/// succeeded one, with its method, its bank order and what of it this bill
/// took less what refunds through it claim (paying out or paid).
#[derive(Debug, Clone, FromRow)]
pub struct Route {
    pub payment_id: Uuid,
    pub method: i16,
    pub bank_order_id: String,
    pub room_fen: i64,
}

pub async fn route(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    bill_id: Uuid,
) -> Result<Option<Route>, ServiceError> {
    Ok(sqlx::query_as(
        "select p.id as payment_id, p.method, p.bank_order_id, \
           (a.amount_fen - coalesce((select sum(r.approved_fen) from refund r \
              where r.enterprise_id = p.enterprise_id and r.payment_id = p.id \
                and r.bill_id = a.bill_id and r.status in (3, 4)), 0))::bigint as room_fen \
         from bill_payment_allocation a join bill_payment p on p.id = a.payment_id \
         where a.enterprise_id = $1 and a.bill_id = $2 and p.status = 2 \
         order by p.paid_time desc nulls last, p.id desc limit 1",
    )
    .bind(enterprise_id)
    .bind(bill_id)
    .fetch_optional(conn)
    .await?)
}
