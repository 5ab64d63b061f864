//! Aggregations of the bill table by period (and kind): the monthly bills
//! and the figures the dashboard shares. Each runs the bill list's own
//! filter (`bills::store::filtered`) and so its reach.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::Paging;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};

use crate::bills::store::{BillQuery, OVERDUE, filtered};
use crate::context::Actor;

/// Every status but CANCELLED: what a month's figures count.
pub const COUNTED: [i16; 4] = [1, 2, 3, 4];

/// One month of bills.
#[derive(Debug, Clone, Copy, FromRow)]
pub struct MonthRow {
    pub period: i32,
    pub bill_count: i64,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub due_time: Option<DateTime<Utc>>,
    pub overdue: bool,
    pub status: i16,
    pub generated_at: Option<DateTime<Utc>>,
}

/// One kind of bill within one month.
#[derive(Debug, Clone, FromRow)]
pub struct KindRow {
    pub period: i32,
    pub kind: i16,
    pub bill_count: i64,
    pub payable_fen: i64,
    pub outstanding_fen: i64,
}

const MONTHS: &str = "select b.period, count(*) as bill_count, \
     coalesce(sum(b.payable_fen), 0)::bigint as payable_fen, \
     coalesce(sum(b.paid_fen), 0)::bigint as paid_fen, \
     coalesce(sum(b.outstanding_fen), 0)::bigint as outstanding_fen, \
     coalesce(min(b.due_time) filter (where b.outstanding_fen > 0), max(b.due_time)) as due_time, \
     coalesce(bool_or(b.status in (2, 3) and b.due_time < now()), false) as overdue, \
     (case when coalesce(sum(b.outstanding_fen), 0) = 0 then 4 \
           when coalesce(sum(b.paid_fen), 0) = 0 then 2 else 3 end)::smallint as status, \
     max(b.updated_at) as generated_at from bill b";

/// Which months a monthly list shows: the bills' filter, and of the
/// months their status and overdue.
#[derive(Debug, Clone, Default)]
pub struct MonthQuery {
    pub bills: BillQuery,
    pub statuses: Vec<i16>,
    pub overdue: Option<bool>,
}

/// `select <what> from (<months>) m where <month filters>`.
fn months<'a>(what: &str, actor: &Actor, query: &MonthQuery) -> QueryBuilder<'a, Postgres> {
    let mut qb = filtered(
        &format!("select {what} from ({MONTHS}"),
        actor,
        &query.bills,
    )
    .finish();
    qb.push(" group by b.period) m where true");
    if !query.statuses.is_empty() {
        qb.push(" and m.status = any(")
            .push_bind(query.statuses.clone())
            .push(")");
    }
    if let Some(overdue) = query.overdue {
        qb.push(" and m.overdue = ").push_bind(overdue);
    }
    qb
}

/// A page of months, newest first, and how many there are.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &MonthQuery,
    paging: Paging,
) -> Result<(Vec<MonthRow>, i64), ServiceError> {
    let mut qb = months("m.*", actor, query);
    qb.push(" order by m.period desc limit ")
        .push_bind(paging.size)
        .push(" offset ")
        .push_bind(paging.offset());
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &MonthQuery,
) -> Result<i64, ServiceError> {
    Ok(months("count(*)", actor, query)
        .build_query_scalar()
        .fetch_one(conn)
        .await?)
}

/// A page of the export: latest month first, before the month `before`.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &MonthQuery,
    before: Option<i32>,
    limit: i64,
) -> Result<Vec<MonthRow>, ServiceError> {
    let mut qb = months("m.*", actor, query);
    if let Some(before) = before {
        qb.push(" and m.period < ").push_bind(before);
    }
    qb.push(" order by m.period desc limit ").push_bind(limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// The months' figures by kind (of the bills `query` selects).
pub async fn kinds(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BillQuery,
) -> Result<Vec<KindRow>, ServiceError> {
    let mut qb = filtered(
        "select b.period, b.kind, count(*) as bill_count, \
         coalesce(sum(b.payable_fen), 0)::bigint as payable_fen, \
         coalesce(sum(b.outstanding_fen), 0)::bigint as outstanding_fen from bill b",
        actor,
        query,
    )
    .finish();
    qb.push(" group by b.period, b.kind order by b.period, b.kind");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// The figures of the dashboard over the bills `query` selects.
#[derive(Debug, Clone, Copy, Default, FromRow)]
pub struct Figures {
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub outstanding_fen: i64,
    pub overdue_fen: i64,
    pub overdue_count: i64,
    pub due_soon_fen: i64,
    pub unpaid_count: i64,
    pub pending_confirmation_count: i64,
    pub invoiceable_fen: i64,
}

pub async fn figures(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BillQuery,
) -> Result<Figures, ServiceError> {
    let select = format!(
        "select coalesce(sum(b.payable_fen), 0)::bigint as payable_fen, \
         coalesce(sum(b.paid_fen), 0)::bigint as paid_fen, \
         coalesce(sum(b.outstanding_fen), 0)::bigint as outstanding_fen, \
         coalesce(sum(b.outstanding_fen) filter (where {OVERDUE}), 0)::bigint as overdue_fen, \
         count(*) filter (where {OVERDUE}) as overdue_count, \
         coalesce(sum(b.outstanding_fen) filter (where b.status in (2, 3) \
           and b.due_time >= now() and b.due_time < now() + interval '7 days'), 0)::bigint as due_soon_fen, \
         count(*) filter (where b.status in (2, 3)) as unpaid_count, \
         count(*) filter (where b.status = 1) as pending_confirmation_count, \
         coalesce(sum(greatest(b.paid_fen - b.refunded_fen - b.invoiced_fen, 0)), 0)::bigint \
           as invoiceable_fen from bill b"
    );
    Ok(filtered(&select, actor, query)
        .finish()
        .build_query_as()
        .fetch_one(conn)
        .await?)
}
