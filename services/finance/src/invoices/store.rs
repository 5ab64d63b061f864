//! The invoice_application, invoice_application_bill and issued_invoice
//! tables: invoiceable bills, the applications list, one application, the
//! bills' invoiced amounts, and the issuing queue.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::bills::store::{self as bills, BillQuery, BillRow};
use crate::context::Actor;

/// Paid money of a bill not yet refunded nor invoiced (alias `b`).
const INVOICEABLE: &str =
    "(b.status in (3, 4) and b.paid_fen - b.refunded_fen - b.invoiced_fen > 0)";

#[derive(Debug, Clone, Copy)]
struct NewestIssuedFirst;

impl Sort for NewestIssuedFirst {
    fn order_by(&self) -> &'static str {
        "b.issue_time desc, b.id desc"
    }
}

/// The bills of `query` with money left to invoice, a page of them, their
/// count and the sum left to invoice over all.
pub async fn invoiceable(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BillQuery,
    paging: Paging,
) -> Result<(Vec<BillRow>, i64, i64), ServiceError> {
    let mut page = bills::filtered(bills::SELECT, actor, query);
    page.and().push(INVOICEABLE);
    let rows = page
        .page(&NewestIssuedFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let mut sums = bills::filtered(
        "select count(*), coalesce(sum(b.paid_fen - b.refunded_fen - b.invoiced_fen), 0)::bigint \
         from bill b",
        actor,
        query,
    );
    sums.and().push(INVOICEABLE);
    let (count, left): (i64, i64) = sums.finish().build_query_as().fetch_one(conn).await?;
    Ok((rows, count, left))
}

/// Adds `delta_fen` to each bill's invoiced amount (negative: frees it).
pub async fn add_invoiced(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    amounts: &[(Uuid, i64)],
) -> Result<(), ServiceError> {
    let (ids, deltas): (Vec<Uuid>, Vec<i64>) = amounts.iter().copied().unzip();
    sqlx::query(
        "update bill b set invoiced_fen = b.invoiced_fen + d.delta \
         from unnest($2::uuid[], $3::bigint[]) as d(id, delta) \
         where b.enterprise_id = $1 and b.id = d.id",
    )
    .bind(enterprise_id)
    .bind(ids)
    .bind(deltas)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct ApplicationRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub application_no: String,
    pub channel: i16,
    pub invoice_type: i16,
    pub status: i16,
    pub title: Vec<u8>,
    pub address: Option<Vec<u8>>,
    pub amount_fen: i64,
    pub content: String,
    pub contract_no: String,
    pub purchase_order_no: String,
    pub invoice_remark: String,
    pub applicant_name: String,
    pub apply_time: DateTime<Utc>,
    pub review_time: Option<DateTime<Utc>>,
    pub reject_reason: String,
    pub cancel_reason: String,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub updated_by_name: String,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str = "select a.id, a.enterprise_id, a.application_no, a.channel, \
     a.invoice_type, a.status, a.title, a.address, a.amount_fen, a.content, a.contract_no, \
     a.purchase_order_no, a.invoice_remark, a.applicant_name, a.apply_time, a.review_time, \
     a.reject_reason, a.cancel_reason, a.attempts, a.created_at, a.updated_by_name, \
     a.updated_at from invoice_application a";

#[derive(Debug, Clone, FromRow)]
pub struct ApplicationBillRow {
    pub application_id: Uuid,
    pub bill_id: Uuid,
    pub bill_no: String,
    pub kind: i16,
    pub period: i32,
    pub amount_fen: i64,
}

#[derive(Debug, Clone, FromRow)]
pub struct InvoiceRow {
    pub application_id: Uuid,
    pub invoice_number: String,
    pub amount_fen: i64,
    pub tax_fen: i64,
    pub total_fen: i64,
    pub tax_rate_bp: i32,
    pub issue_time: DateTime<Utc>,
    pub file: serde_json::Value,
    pub reversed: bool,
}

/// A new application, checked.
#[derive(Debug, Clone)]
pub struct NewApplication {
    pub id: Uuid,
    pub application_no: String,
    pub channel: i16,
    pub invoice_type: i16,
    pub title: Vec<u8>,
    pub address: Option<Vec<u8>>,
    pub bills: Vec<(BillRow, i64)>,
    pub content: String,
    pub contract_no: String,
    pub purchase_order_no: String,
    pub invoice_remark: String,
}

/// Inserts `new` (ISSUING, approved as applied: queued for the worker now)
/// with its bills.
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    new: &NewApplication,
    status: i16,
) -> Result<(), ServiceError> {
    let amount: i64 = new.bills.iter().map(|(_, a)| a).sum();
    sqlx::query(
        "insert into invoice_application (id, enterprise_id, application_no, channel, \
         invoice_type, status, title, address, amount_fen, content, contract_no, \
         purchase_order_no, invoice_remark, applicant, applicant_name, review_time, \
         next_attempt_at, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, now(), now(), $15)",
    )
    .bind(new.id)
    .bind(actor.enterprise_id)
    .bind(&new.application_no)
    .bind(new.channel)
    .bind(new.invoice_type)
    .bind(status)
    .bind(&new.title)
    .bind(&new.address)
    .bind(amount)
    .bind(&new.content)
    .bind(&new.contract_no)
    .bind(&new.purchase_order_no)
    .bind(&new.invoice_remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    let ids: Vec<Uuid> = new.bills.iter().map(|(b, _)| b.id).collect();
    let nos: Vec<String> = new.bills.iter().map(|(b, _)| b.bill_no.clone()).collect();
    let kinds: Vec<i16> = new.bills.iter().map(|(b, _)| b.kind).collect();
    let periods: Vec<i32> = new.bills.iter().map(|(b, _)| b.period).collect();
    let amounts: Vec<i64> = new.bills.iter().map(|(_, a)| *a).collect();
    sqlx::query(
        "insert into invoice_application_bill (application_id, enterprise_id, bill_id, bill_no, \
         kind, period, amount_fen) \
         select $1, $2, * from unnest($3::uuid[], $4::text[], $5::smallint[], $6::int[], $7::bigint[])",
    )
    .bind(new.id)
    .bind(actor.enterprise_id)
    .bind(ids)
    .bind(nos)
    .bind(kinds)
    .bind(periods)
    .bind(amounts)
    .execute(conn)
    .await?;
    Ok(())
}

/// A checked applications filter.
#[derive(Debug, Clone, Default)]
pub struct ApplicationQuery {
    pub channel: Option<i16>,
    pub application_no: String,
    pub invoice_types: Vec<i16>,
    pub statuses: Vec<i16>,
    pub bill_id: Option<Uuid>,
    pub invoice_number: String,
    pub apply_time: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestAppliedFirst;

impl Sort for NewestAppliedFirst {
    fn order_by(&self) -> &'static str {
        "a.apply_time desc, a.id desc"
    }
}

fn filtered<'a>(select: &str, enterprise_id: Uuid, query: &ApplicationQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "a.enterprise_id", enterprise_id);
    f.equals("a.channel", query.channel)
        .contains("a.application_no", &query.application_no)
        .any_of("a.invoice_type", query.invoice_types.clone())
        .any_of("a.status", query.statuses.clone())
        .within("a.apply_time", query.apply_time);
    if let Some(bill_id) = query.bill_id {
        f.and()
            .push("exists (select 1 from invoice_application_bill x where x.application_id = a.id and x.enterprise_id = a.enterprise_id and x.bill_id = ")
            .push_bind(bill_id)
            .push(")");
    }
    if !query.invoice_number.trim().is_empty() {
        f.and()
            .push("exists (select 1 from issued_invoice i where i.application_id = a.id and i.enterprise_id = a.enterprise_id and i.invoice_number = ")
            .push_bind(query.invoice_number.trim().to_owned())
            .push(")");
    }
    f
}

pub async fn list(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    query: &ApplicationQuery,
    paging: Paging,
) -> Result<(Vec<ApplicationRow>, i64), ServiceError> {
    let rows = filtered(SELECT, enterprise_id, query)
        .page(&NewestAppliedFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let total = count(conn, enterprise_id, query).await?;
    Ok((rows, total))
}

pub async fn count(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    query: &ApplicationQuery,
) -> Result<i64, ServiceError> {
    Ok(filtered(
        "select count(*) from invoice_application a",
        enterprise_id,
        query,
    )
    .finish()
    .build_query_scalar()
    .fetch_one(conn)
    .await?)
}

/// A page of the export: newest applied first, after `cursor`.
pub async fn after(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    query: &ApplicationQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<ApplicationRow>, ServiceError> {
    Ok(filtered(SELECT, enterprise_id, query)
        .keyset("a.apply_time", "a.id", cursor, limit)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// The tenant's application `id` (4004 otherwise), optionally locked.
pub async fn get(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    lock: bool,
) -> Result<ApplicationRow, ServiceError> {
    let lock = if lock { " for update" } else { "" };
    sqlx::query_as(&format!(
        "{SELECT} where a.enterprise_id = $1 and a.id = $2{lock}"
    ))
    .bind(enterprise_id)
    .bind(id)
    .fetch_optional(conn)
    .await?
    .ok_or_else(ServiceError::not_found)
}

/// The bills of applications `ids`.
pub async fn bills_of(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<ApplicationBillRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select application_id, bill_id, bill_no, kind, period, amount_fen \
         from invoice_application_bill where enterprise_id = $1 and application_id = any($2) \
         order by application_id, bill_no",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// The invoices of applications `ids`.
pub async fn invoices_of(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<InvoiceRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select application_id, invoice_number, amount_fen, tax_fen, total_fen, tax_rate_bp, \
         issue_time, file, reversed from issued_invoice \
         where enterprise_id = $1 and application_id = any($2)",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// The tax rates of each line of bills `ids`.
pub async fn line_rates(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    ids: &[Uuid],
) -> Result<Vec<(Uuid, Vec<i32>)>, ServiceError> {
    Ok(sqlx::query_as(
        "select bill_id, array_agg(tax_rate_bp) from bill_line \
         where enterprise_id = $1 and bill_id = any($2) group by bill_id",
    )
    .bind(enterprise_id)
    .bind(ids)
    .fetch_all(conn)
    .await?)
}

/// Ends application `id` as `status` (REJECTED or CANCELLED) with its reason
/// and takes it off the queue.
pub async fn close(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    status: i16,
    reason: &str,
    by: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update invoice_application set status = $3, next_attempt_at = null, \
         reject_reason = case when $3 = 5 then $4 else reject_reason end, \
         cancel_reason = case when $3 = 6 then $4 else cancel_reason end, updated_by_name = $5 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .bind(status)
    .bind(reason)
    .bind(by)
    .execute(conn)
    .await?;
    Ok(())
}

/// Marks the invoice of application `id` reversed by red-letter invoice `red_number`.
pub async fn reversed(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    red_number: &str,
    red_issue_time: DateTime<Utc>,
    reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update issued_invoice set reversed = true, red_invoice_number = $3, \
         red_issue_time = $4, reverse_reason = $5 \
         where enterprise_id = $1 and application_id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .bind(red_number)
    .bind(red_issue_time)
    .bind(reason)
    .execute(conn)
    .await?;
    Ok(())
}

// --- The issuing queue (across tenants) ---

/// The next application due for issuing, locked so no other worker takes it.
pub async fn next_due(conn: &mut PgConnection) -> Result<Option<(Uuid, Uuid)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, enterprise_id from invoice_application \
         where status = 2 and next_attempt_at <= now() \
         order by next_attempt_at limit 1 for update skip locked",
    )
    .fetch_optional(conn)
    .await?)
}

/// One more try of application `id` failed: try again after `delay_ms`.
pub async fn retry_later(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    delay_ms: i64,
    error: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update invoice_application set attempts = attempts + 1, last_error = $4, \
         next_attempt_at = now() + $3 * interval '1 millisecond' \
         where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .bind(delay_ms)
    .bind(error)
    .execute(conn)
    .await?;
    Ok(())
}

/// What the platform issued for an application.
#[derive(Debug, Clone)]
pub struct Issued {
    pub invoice_number: String,
    pub request_no: String,
    pub amount_fen: i64,
    pub tax_fen: i64,
    pub total_fen: i64,
    pub tax_rate_bp: i32,
    pub issue_time: DateTime<Utc>,
    pub file: serde_json::Value,
}

/// Application `id` is ISSUED with `invoice`.
pub async fn issued(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
    invoice: &Issued,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into issued_invoice (application_id, enterprise_id, invoice_number, request_no, \
         amount_fen, tax_fen, total_fen, tax_rate_bp, issue_time, file) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
    )
    .bind(id)
    .bind(enterprise_id)
    .bind(&invoice.invoice_number)
    .bind(&invoice.request_no)
    .bind(invoice.amount_fen)
    .bind(invoice.tax_fen)
    .bind(invoice.total_fen)
    .bind(invoice.tax_rate_bp)
    .bind(invoice.issue_time)
    .bind(&invoice.file)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "update invoice_application set status = 3, attempts = attempts + 1, \
         next_attempt_at = null, last_error = '' where enterprise_id = $1 and id = $2",
    )
    .bind(enterprise_id)
    .bind(id)
    .execute(conn)
    .await?;
    Ok(())
}
