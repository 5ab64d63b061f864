//! The balance_allocation table: writing the record of a transfer and the
//! record list.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::Direction;
use crate::context::Actor;

const SELECT: &str = "select b.id, b.direction, b.from_account_id, b.from_org_name, \
     b.to_account_id, b.to_org_name, b.amount_fen, b.from_balance_after_fen, \
     b.to_balance_after_fen, b.operator_name, b.created_at, b.remark \
     from balance_allocation b";

#[derive(Debug, Clone, FromRow)]
pub struct AllocationRow {
    pub id: Uuid,
    pub direction: i16,
    pub from_account_id: Uuid,
    pub from_org_name: String,
    pub to_account_id: Uuid,
    pub to_org_name: String,
    pub amount_fen: i64,
    pub from_balance_after_fen: i64,
    pub to_balance_after_fen: i64,
    pub operator_name: String,
    pub created_at: DateTime<Utc>,
    pub remark: String,
}

/// One side of a movement as the record keeps it.
#[derive(Debug, Clone)]
pub struct Side {
    pub account_id: Uuid,
    pub org_id: Option<Uuid>,
    pub org_name: String,
    pub balance_after_fen: i64,
}

/// One record row of a transfer.
#[derive(Debug, Clone)]
pub struct NewAllocation<'a> {
    pub transfer_id: Uuid,
    pub direction: Direction,
    pub from: &'a Side,
    pub to: &'a Side,
    pub amount_fen: i64,
    pub remark: &'a str,
}

/// Writes the record rows of one move in one statement; answers them.
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    rows: &[NewAllocation<'_>],
) -> Result<Vec<AllocationRow>, ServiceError> {
    let ids: Vec<Uuid> = rows.iter().map(|_| Uuid::new_v4()).collect();
    let written: Vec<AllocationRow> = sqlx::query_as(
        "insert into balance_allocation (id, enterprise_id, transfer_id, direction, \
         from_account_id, to_account_id, from_org_id, to_org_id, from_org_name, to_org_name, \
         amount_fen, from_balance_after_fen, to_balance_after_fen, operator_id, operator_name, \
         remark) \
         select r.id, $1, r.transfer_id, r.direction, r.from_account, r.to_account, r.from_org, \
           r.to_org, r.from_name, r.to_name, r.amount, r.from_after, r.to_after, $2, $3, r.remark \
         from unnest($4::uuid[], $5::uuid[], $6::smallint[], $7::uuid[], $8::uuid[], $9::uuid[], \
           $10::uuid[], $11::text[], $12::text[], $13::bigint[], $14::bigint[], $15::bigint[], \
           $16::text[]) as r(id, transfer_id, direction, from_account, to_account, from_org, \
           to_org, from_name, to_name, amount, from_after, to_after, remark) \
         returning id, direction, from_account_id, from_org_name, to_account_id, to_org_name, \
           amount_fen, from_balance_after_fen, to_balance_after_fen, operator_name, created_at, \
           remark",
    )
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(&ids)
    .bind(rows.iter().map(|r| r.transfer_id).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| i16::from(r.direction))
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|r| r.from.account_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.to.account_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.from.org_id).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.to.org_id).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| r.from.org_name.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(
        rows.iter()
            .map(|r| r.to.org_name.as_str())
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|r| r.amount_fen).collect::<Vec<_>>())
    .bind(
        rows.iter()
            .map(|r| r.from.balance_after_fen)
            .collect::<Vec<_>>(),
    )
    .bind(
        rows.iter()
            .map(|r| r.to.balance_after_fen)
            .collect::<Vec<_>>(),
    )
    .bind(rows.iter().map(|r| r.remark).collect::<Vec<_>>())
    .fetch_all(conn)
    .await?;
    // In the order asked (`returning` keeps no promise of order).
    Ok(ids
        .iter()
        .filter_map(|id| written.iter().find(|w| w.id == *id).cloned())
        .collect())
}

/// A checked record-list filter (organisations already expanded).
#[derive(Debug, Clone, Default)]
pub struct AllocationQuery {
    pub account_id: Option<Uuid>,
    pub org_ids: Vec<Uuid>,
    pub direction: Option<i16>,
    pub allocate_time: TimeRange,
}

/// Newest movement first.
#[derive(Debug, Clone, Copy)]
pub struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "b.created_at desc, b.id desc"
    }
}

/// The list's `where`: a movement is seen by who reaches either side's
/// organisation, and by who made it.
pub fn filtered<'a>(select: &str, actor: &Actor, query: &AllocationQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "b.enterprise_id", actor.enterprise_id);
    let scope = f.scope();
    scope.push("(");
    actor
        .reach
        .push_condition(scope, "b.from_org_id", "b.operator_id");
    scope.push(" or ");
    actor
        .reach
        .push_condition(scope, "b.to_org_id", "b.operator_id");
    scope.push(")");
    if let Some(account) = query.account_id {
        f.and()
            .push("(b.from_account_id = ")
            .push_bind(account)
            .push(" or b.to_account_id = ")
            .push_bind(account)
            .push(")");
    }
    if !query.org_ids.is_empty() {
        f.and()
            .push("(b.from_org_id = any(")
            .push_bind(query.org_ids.clone())
            .push(") or b.to_org_id = any(")
            .push_bind(query.org_ids.clone())
            .push("))");
    }
    f.equals("b.direction", query.direction)
        .within("b.created_at", query.allocate_time);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &AllocationQuery,
    paging: Paging,
) -> Result<(Vec<AllocationRow>, i64), ServiceError> {
    let mut rows = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &AllocationQuery,
) -> Result<i64, ServiceError> {
    let mut count = filtered("select count(*) from balance_allocation b", actor, query).finish();
    Ok(count.build_query_scalar().fetch_one(conn).await?)
}

/// One export page: newest first after `cursor`, by keyset on
/// `balance_allocation_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &AllocationQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<AllocationRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("b.created_at", "b.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}
