//! The bill and bill_line tables: the list's filter (one `filtered` that
//! the list, its totals and its export share), a bill under the caller's
//! reach, raising a bill once per source, and reconciliation.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{BillStatus, CheckedBill, Fingerprint};
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct BillRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub bill_no: String,
    pub channel: i16,
    pub kind: i16,
    pub status: i16,
    pub title: String,
    pub period: i32,
    pub order_id: Option<Uuid>,
    pub source_service: String,
    pub source_id: String,
    pub amount_fen: i64,
    pub discount_fen: i64,
    pub late_fee_fen: i64,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub refunded_fen: i64,
    pub invoiced_fen: i64,
    pub invoice_state: i16,
    pub issue_time: DateTime<Utc>,
    pub due_time: DateTime<Utc>,
    pub paid_time: Option<DateTime<Utc>>,
    pub confirmed_by_name: String,
    pub confirm_time: Option<DateTime<Utc>>,
    pub attachments: serde_json::Value,
    pub remark: String,
    pub created_by: Option<Uuid>,
    pub created_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_by_name: String,
    pub updated_at: DateTime<Utc>,
}

/// A bill's columns (alias `b`) with its organisation's name from the replica.
pub const SELECT: &str = "select b.id, b.enterprise_id, b.org_id, coalesce(o.name, '') as org_name, \
     b.bill_no, b.channel, b.kind, b.status, b.title, b.period, b.order_id, b.source_service, \
     b.source_id, b.amount_fen, b.discount_fen, b.late_fee_fen, b.payable_fen, b.paid_fen, \
     b.outstanding_fen, b.refunded_fen, b.invoiced_fen, b.invoice_state, b.issue_time, \
     b.due_time, b.paid_time, b.confirmed_by_name, b.confirm_time, b.attachments, b.remark, \
     b.created_by, b.created_by_name, b.created_at, b.updated_by_name, b.updated_at \
     from bill b left join org_unit o on o.id = b.org_id";

/// Owed and past due: the condition of the overdue filter and figures.
pub const OVERDUE: &str = "(b.status in (2, 3) and b.due_time < now())";

#[derive(Debug, Clone, FromRow)]
pub struct LineRow {
    pub bill_id: Uuid,
    pub line_no: i32,
    pub description: String,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
    pub period_start: Option<DateTime<Utc>>,
    pub period_end: Option<DateTime<Utc>>,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    pub tax_rate_bp: i32,
    pub source_kind: i16,
    pub source_id: String,
}

/// A checked bill filter.
#[derive(Debug, Clone, Default)]
pub struct BillQuery {
    pub bill_nos: Vec<String>,
    /// Organisations with their subtrees expanded.
    pub org_ids: Vec<Uuid>,
    pub channel: Option<i16>,
    pub kinds: Vec<i16>,
    pub statuses: Vec<i16>,
    pub invoice_states: Vec<i16>,
    pub overdue: Option<bool>,
    pub plate_numbers: Vec<String>,
    /// Inclusive yyyymm bounds of the period.
    pub from_month: Option<i32>,
    pub to_month: Option<i32>,
    pub issue_time: TimeRange,
    pub due_time: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestIssuedFirst;

impl Sort for NewestIssuedFirst {
    fn order_by(&self) -> &'static str {
        "b.issue_time desc, b.id desc"
    }
}

/// The list's filter under `actor`'s reach: what the list, its totals and
/// its export run (`(enterprise_id, issue_time desc, id desc)` orders it).
pub fn filtered<'a>(select: &str, actor: &Actor, query: &BillQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "b.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "b.org_id", "b.created_by");
    f.any_of("b.bill_no", query.bill_nos.clone())
        .any_of("b.org_id", query.org_ids.clone())
        .equals("b.channel", query.channel)
        .any_of("b.kind", query.kinds.clone())
        .any_of("b.status", query.statuses.clone())
        .any_of("b.invoice_state", query.invoice_states.clone());
    match query.overdue {
        Some(true) => {
            f.and().push(OVERDUE);
        }
        Some(false) => {
            f.and().push("not ").push(OVERDUE);
        }
        None => {}
    }
    if !query.plate_numbers.is_empty() {
        f.and()
            .push("exists (select 1 from bill_line l where l.bill_id = b.id and l.enterprise_id = b.enterprise_id and l.plate_number = any(")
            .push_bind(query.plate_numbers.clone())
            .push("))");
    }
    if let Some(from) = query.from_month {
        f.and().push("b.period >= ").push_bind(from);
    }
    if let Some(to) = query.to_month {
        f.and().push("b.period <= ").push_bind(to);
    }
    f.within("b.issue_time", query.issue_time)
        .within("b.due_time", query.due_time);
    f
}

/// Count and money totals of every bill a list matches (its summary row).
#[derive(Debug, Clone, Copy, Default, FromRow)]
pub struct Totals {
    pub count: i64,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BillQuery,
    paging: Paging,
) -> Result<(Vec<BillRow>, Totals), ServiceError> {
    let rows = filtered(SELECT, actor, query)
        .page(&NewestIssuedFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let totals = totals(conn, actor, query).await?;
    Ok((rows, totals))
}

pub async fn totals(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BillQuery,
) -> Result<Totals, ServiceError> {
    Ok(filtered(
        "select count(*) as count, coalesce(sum(b.payable_fen), 0)::bigint as payable_fen, \
         coalesce(sum(b.paid_fen), 0)::bigint as paid_fen, \
         coalesce(sum(b.outstanding_fen), 0)::bigint as outstanding_fen from bill b",
        actor,
        query,
    )
    .finish()
    .build_query_as()
    .fetch_one(conn)
    .await?)
}

/// A page of the export: newest issued first, after `cursor`.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BillQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<BillRow>, ServiceError> {
    Ok(filtered(SELECT, actor, query)
        .keyset("b.issue_time", "b.id", cursor, limit)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// The bills `ids` the caller reaches, optionally locked; missing ones are
/// left out.
pub async fn some(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
    lock: bool,
) -> Result<Vec<BillRow>, ServiceError> {
    let mut f = filtered(SELECT, actor, &BillQuery::default());
    f.and()
        .push("b.id = any(")
        .push_bind(ids.to_vec())
        .push(")");
    let mut qb = f.finish();
    qb.push(" order by b.issue_time desc, b.id desc");
    if lock {
        qb.push(" for update of b");
    }
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// The bill `id` the caller reaches; 4004 otherwise (another tenant's too).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<BillRow, ServiceError> {
    some(conn, actor, &[id], false)
        .await?
        .pop()
        .ok_or_else(ServiceError::not_found)
}

/// The tenant's bill of an order, if any.
pub async fn of_order(
    conn: &mut PgConnection,
    actor: &Actor,
    order_id: Uuid,
) -> Result<Option<BillRow>, ServiceError> {
    let mut f = filtered(SELECT, actor, &BillQuery::default());
    f.and().push("b.order_id = ").push_bind(order_id);
    Ok(f.finish().build_query_as().fetch_optional(conn).await?)
}

/// The lines of `bill_ids`, in bill and line order.
pub async fn lines(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    bill_ids: &[Uuid],
) -> Result<Vec<LineRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select bill_id, line_no, description, vehicle_id, plate_number, period_start, \
         period_end, quantity, unit_price_fen, amount_fen, tax_rate_bp, source_kind, source_id \
         from bill_line where enterprise_id = $1 and bill_id = any($2) order by bill_id, line_no",
    )
    .bind(enterprise_id)
    .bind(bill_ids)
    .fetch_all(conn)
    .await?)
}

/// The bill of the tenant's `(service, id)` source, if raised before, with
/// what makes a repeat of it the same bill.
pub async fn by_source(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    service: &str,
    source_id: &str,
) -> Result<Option<(Uuid, Fingerprint)>, ServiceError> {
    let found: Option<(Uuid, i16, i64, i64, Vec<i64>)> = sqlx::query_as(
        "select b.id, b.kind, b.amount_fen, b.discount_fen, \
         array(select l.amount_fen from bill_line l where l.bill_id = b.id order by l.line_no) \
         from bill b where b.enterprise_id = $1 and b.source_service = $2 and b.source_id = $3",
    )
    .bind(enterprise_id)
    .bind(service)
    .bind(source_id)
    .fetch_optional(conn)
    .await?;
    Ok(
        found.map(|(id, kind, amount_fen, discount_fen, line_amounts)| {
            (
                id,
                Fingerprint {
                    kind,
                    amount_fen,
                    discount_fen,
                    line_amounts,
                },
            )
        }),
    )
}

/// Inserts the bill `id` numbered `bill_no` with its lines, unless its
/// source was raised before (then nothing is written and false answers).
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    bill_no: &str,
    checked: &CheckedBill,
) -> Result<bool, ServiceError> {
    let CheckedBill {
        bill,
        amount_fen,
        status,
        issue_time,
        due_time,
    } = checked;
    let inserted = sqlx::query(
        "insert into bill (id, enterprise_id, org_id, bill_no, channel, kind, status, title, \
         period, order_id, source_service, source_id, amount_fen, discount_fen, issue_time, \
         due_time, paid_time, attachments, remark, created_by, created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, \
         case when $7 = 4 then $15 end, $17, $18, $19, $20, $20) \
         on conflict on constraint bill_source_key do nothing",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(bill.org_id)
    .bind(bill_no)
    .bind(i16::from(bill.channel))
    .bind(i16::from(bill.kind))
    .bind(i16::from(*status))
    .bind(bill.title.trim())
    .bind(bill.period.code())
    .bind(bill.order_id)
    .bind(bill.source.service.trim())
    .bind(bill.source.id.trim())
    .bind(amount_fen)
    .bind(bill.discount_fen)
    .bind(issue_time)
    .bind(due_time)
    .bind(&bill.attachments)
    .bind(&bill.remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    if inserted.rows_affected() == 0 {
        return Ok(false);
    }
    for (line_no, line) in (1..).zip(&bill.lines) {
        sqlx::query(
            "insert into bill_line (bill_id, enterprise_id, line_no, description, vehicle_id, \
             plate_number, period_start, period_end, quantity, unit_price_fen, amount_fen, \
             tax_rate_bp, source_kind, source_id) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)",
        )
        .bind(id)
        .bind(actor.enterprise_id)
        .bind(line_no)
        .bind(line.description.trim())
        .bind(line.vehicle_id)
        .bind(line.plate_number.trim())
        .bind(line.period_start)
        .bind(line.period_end)
        .bind(line.quantity)
        .bind(line.unit_price_fen)
        .bind(line.amount_fen)
        .bind(line.tax_rate_bp)
        .bind(i16::from(line.source))
        .bind(&line.source_id)
        .execute(&mut *conn)
        .await?;
    }
    Ok(true)
}

/// Records the enterprise's reconciliation of bill `id`: confirmed (its new
/// status) or disputed (status kept, the reason and time kept).
pub async fn reconcile(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    status: BillStatus,
    accepted: bool,
    dispute_reason: &str,
) -> Result<(), ServiceError> {
    let query = if accepted {
        "update bill set status = $3, confirmed_by = $4, confirmed_by_name = $5, \
         confirm_time = now(), dispute_reason = '', disputed_at = null, updated_by_name = $5, \
         paid_time = case when $3 = 4 then now() else paid_time end \
         where enterprise_id = $1 and id = $2"
    } else {
        "update bill set status = $3, dispute_reason = $6, disputed_at = now(), \
         updated_by_name = $5 where enterprise_id = $1 and id = $2"
    };
    sqlx::query(query)
        .bind(actor.enterprise_id)
        .bind(id)
        .bind(i16::from(status))
        .bind(actor.user_id)
        .bind(&actor.name)
        .bind(dispute_reason)
        .execute(conn)
        .await?;
    Ok(())
}

/// Cancels the still unpaid bill of order `order_id` (nothing paid on it).
pub async fn cancel_of_order(
    conn: &mut PgConnection,
    actor: &Actor,
    order_id: Uuid,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update bill set status = 5, updated_by_name = $3 \
         where enterprise_id = $1 and order_id = $2 and status in (1, 2) and paid_fen = 0",
    )
    .bind(actor.enterprise_id)
    .bind(order_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// The root of the enterprise's organisation tree in the replica, if known.
pub async fn root_org(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
) -> Result<Option<Uuid>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select id from org_unit where enterprise_id = $1 and parent_id is null order by path limit 1",
    )
    .bind(enterprise_id)
    .fetch_optional(conn)
    .await?)
}
