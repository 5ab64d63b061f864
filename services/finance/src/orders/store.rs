//! The enterprise_order and order_item tables: the list's filter, an order
//! under the caller's reach, placing an order once per source and
//! cancelling it.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::CheckedOrder;
use crate::context::Actor;

#[derive(Debug, Clone, FromRow)]
pub struct OrderRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub order_no: String,
    pub kind: i16,
    pub status: i16,
    pub title: String,
    pub total_fen: i64,
    pub discount_fen: i64,
    pub payable_fen: i64,
    pub paid_fen: i64,
    pub refunded_fen: i64,
    pub coupon_id: Option<Uuid>,
    pub contract_no: String,
    pub source_service: String,
    pub source_id: String,
    pub placed_by_name: String,
    pub placed_at: DateTime<Utc>,
    pub paid_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub payment_deadline: DateTime<Utc>,
    pub cancel_reason: String,
    pub remark: String,
    pub created_at: DateTime<Utc>,
    pub updated_by_name: String,
    pub updated_at: DateTime<Utc>,
}

const SELECT: &str = "select r.id, r.enterprise_id, r.org_id, coalesce(o.name, '') as org_name, \
     r.order_no, r.kind, r.status, r.title, r.total_fen, r.discount_fen, r.payable_fen, \
     r.paid_fen, r.refunded_fen, r.coupon_id, r.contract_no, r.source_service, r.source_id, \
     r.placed_by_name, r.placed_at, r.paid_at, r.completed_at, r.payment_deadline, \
     r.cancel_reason, r.remark, r.created_at, r.updated_by_name, r.updated_at \
     from enterprise_order r left join org_unit o on o.id = r.org_id";

#[derive(Debug, Clone, FromRow)]
pub struct ItemRow {
    pub order_id: Uuid,
    pub name: String,
    pub sku: String,
    pub quantity: i32,
    pub unit_price_fen: i64,
    pub amount_fen: i64,
    pub vehicle_id: Option<Uuid>,
    pub plate_number: String,
}

/// A checked order filter.
#[derive(Debug, Clone, Default)]
pub struct OrderQuery {
    pub order_nos: Vec<String>,
    /// Organisations with their subtrees expanded.
    pub org_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    pub statuses: Vec<i16>,
    pub plate_numbers: Vec<String>,
    pub contract_no: String,
    pub placed: TimeRange,
    pub paid: TimeRange,
}

#[derive(Debug, Clone, Copy)]
struct NewestPlacedFirst;

impl Sort for NewestPlacedFirst {
    fn order_by(&self) -> &'static str {
        "r.placed_at desc, r.id desc"
    }
}

/// The list's filter under `actor`'s reach (`(enterprise_id, placed_at
/// desc, id desc)` orders it).
pub fn filtered<'a>(select: &str, actor: &Actor, query: &OrderQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "r.org_id", "r.placed_by");
    f.any_of("r.order_no", query.order_nos.clone())
        .any_of("r.org_id", query.org_ids.clone())
        .any_of("r.kind", query.kinds.clone())
        .any_of("r.status", query.statuses.clone())
        .contains("r.contract_no", &query.contract_no)
        .within("r.placed_at", query.placed)
        .within("r.paid_at", query.paid);
    if !query.plate_numbers.is_empty() {
        f.and()
            .push("exists (select 1 from order_item i where i.order_id = r.id and i.enterprise_id = r.enterprise_id and i.plate_number = any(")
            .push_bind(query.plate_numbers.clone())
            .push("))");
    }
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &OrderQuery,
    paging: Paging,
) -> Result<(Vec<OrderRow>, i64), ServiceError> {
    let rows = filtered(SELECT, actor, query)
        .page(&NewestPlacedFirst, paging)
        .build_query_as()
        .fetch_all(&mut *conn)
        .await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &OrderQuery,
) -> Result<i64, ServiceError> {
    Ok(
        filtered("select count(*) from enterprise_order r", actor, query)
            .finish()
            .build_query_scalar()
            .fetch_one(conn)
            .await?,
    )
}

/// A page of the export: newest placed first, after `cursor`.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &OrderQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<OrderRow>, ServiceError> {
    Ok(filtered(SELECT, actor, query)
        .keyset("r.placed_at", "r.id", cursor, limit)
        .build_query_as()
        .fetch_all(conn)
        .await?)
}

/// The order `id` the caller reaches, optionally locked; 4004 otherwise.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    lock: bool,
) -> Result<OrderRow, ServiceError> {
    let mut f = filtered(SELECT, actor, &OrderQuery::default());
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

/// The items of `order_ids`, in order and line order.
pub async fn items(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    order_ids: &[Uuid],
) -> Result<Vec<ItemRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select order_id, name, sku, quantity, unit_price_fen, amount_fen, vehicle_id, plate_number \
         from order_item where enterprise_id = $1 and order_id = any($2) order by order_id, line_no",
    )
    .bind(enterprise_id)
    .bind(order_ids)
    .fetch_all(conn)
    .await?)
}

/// The order of the tenant's `(service, id)` source: (id, kind, total).
pub async fn by_source(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    service: &str,
    source_id: &str,
) -> Result<Option<(Uuid, i16, i64)>, ServiceError> {
    Ok(sqlx::query_as(
        "select id, kind, total_fen from enterprise_order \
         where enterprise_id = $1 and source_service = $2 and source_id = $3",
    )
    .bind(enterprise_id)
    .bind(service)
    .bind(source_id)
    .fetch_optional(conn)
    .await?)
}

/// Inserts order `id` with its items unless its source was placed before
/// (then nothing is written and false answers).
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    order_no: &str,
    checked: &CheckedOrder,
) -> Result<bool, ServiceError> {
    let CheckedOrder {
        order,
        total_fen,
        placed_at,
        payment_deadline,
    } = checked;
    let inserted = sqlx::query(
        "insert into enterprise_order (id, enterprise_id, org_id, order_no, kind, status, title, \
         total_fen, contract_no, source_service, source_id, placed_by, placed_by_name, placed_at, \
         payment_deadline, remark, updated_by_name) \
         values ($1, $2, $3, $4, $5, 1, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $12) \
         on conflict on constraint enterprise_order_source_key do nothing",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(order.org_id)
    .bind(order_no)
    .bind(i16::from(order.kind))
    .bind(order.title.trim())
    .bind(total_fen)
    .bind(order.contract_no.trim())
    .bind(order.source.service.trim())
    .bind(order.source.id.trim())
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(placed_at)
    .bind(payment_deadline)
    .bind(&order.remark)
    .execute(&mut *conn)
    .await?;
    if inserted.rows_affected() == 0 {
        return Ok(false);
    }
    for (line_no, item) in (1..).zip(&order.items) {
        sqlx::query(
            "insert into order_item (order_id, enterprise_id, line_no, name, sku, quantity, \
             unit_price_fen, amount_fen, vehicle_id, plate_number) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)",
        )
        .bind(id)
        .bind(actor.enterprise_id)
        .bind(line_no)
        .bind(item.name.trim())
        .bind(item.sku.trim())
        .bind(item.quantity)
        .bind(item.unit_price_fen)
        .bind(item.amount_fen)
        .bind(item.vehicle_id)
        .bind(item.plate_number.trim())
        .execute(&mut *conn)
        .await?;
    }
    Ok(true)
}

/// Cancels order `id` with `reason`.
pub async fn cancel(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update enterprise_order set status = 5, cancel_reason = $3, updated_by_name = $4 \
         where enterprise_id = $1 and id = $2",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(reason)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}
