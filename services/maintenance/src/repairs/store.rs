//! The repair_order and repair_record tables: the lists (each filter one
//! `filtered` function that list, count and export share; newest first from
//! the `repair_order_*_idx` / `repair_record_*_idx` indexes), one order, its
//! state moves, each with its operation-log row.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{Line, State};
use crate::context::Actor;

const SELECT: &str = "select r.id, r.org_id, o.name as org_name, r.order_no, r.vehicle_id, \
     r.plate_number, v.vin, r.driver_id, r.driver_name, r.contact_name, r.contact_phone, r.kind, \
     r.state, r.fault_description, r.fault_images, r.odometer_m, r.shop_id, s.name as shop_name, \
     s.address as shop_address, r.appointment_at, r.quote_items, r.quote_total_fen, r.quote_at, \
     r.quote_remark, r.quote_round, r.quote_reject_reason, r.confirmed_total_fen, \
     r.confirmed_by_name, r.confirm_at, r.approval_id, r.final_items, r.final_total_fen, \
     r.completed_at, r.completed_odometer_m, r.completion_images, r.statement_id, r.record_id, \
     r.accident_id, r.cancel_reason, r.remark, r.created_by, r.created_by_name, \
     r.updated_by_name, r.created_at, r.updated_at \
     from repair_order r join vehicle v on v.id = r.vehicle_id \
     join repair_supplier s on s.id = r.shop_id left join org_unit o on o.id = r.org_id";

const COUNT: &str = "select count(*) from repair_order r join vehicle v on v.id = r.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct OrderRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub order_no: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub contact_name: String,
    pub contact_phone: String,
    pub kind: i16,
    pub state: i16,
    pub fault_description: String,
    pub fault_images: serde_json::Value,
    pub odometer_m: i64,
    pub shop_id: Uuid,
    pub shop_name: String,
    pub shop_address: String,
    pub appointment_at: Option<DateTime<Utc>>,
    pub quote_items: serde_json::Value,
    pub quote_total_fen: i64,
    pub quote_at: Option<DateTime<Utc>>,
    pub quote_remark: String,
    pub quote_round: i32,
    pub quote_reject_reason: String,
    pub confirmed_total_fen: i64,
    pub confirmed_by_name: String,
    pub confirm_at: Option<DateTime<Utc>>,
    pub approval_id: String,
    pub final_items: serde_json::Value,
    pub final_total_fen: i64,
    pub completed_at: Option<DateTime<Utc>>,
    pub completed_odometer_m: i64,
    pub completion_images: serde_json::Value,
    pub statement_id: Option<Uuid>,
    pub record_id: Option<Uuid>,
    pub accident_id: String,
    pub cancel_reason: String,
    pub remark: String,
    pub created_by: Option<Uuid>,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl OrderRow {
    pub fn state(&self) -> Result<State, ServiceError> {
        known(self.state)
    }

    /// The stored quote lines.
    pub fn quote_lines(&self) -> Vec<Line> {
        serde_json::from_value(self.quote_items.clone()).unwrap_or_default()
    }
}

/// A checked order filter.
#[derive(Debug, Clone, Default)]
pub struct OrderQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub order_no: String,
    pub states: Vec<i16>,
    pub kinds: Vec<i16>,
    pub shop_id: Option<Uuid>,
    pub created: TimeRange,
    pub completed: TimeRange,
    pub statement_id: Option<Uuid>,
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "r.org_id", "r.created_by");
    f
}

fn filtered<'a>(select: &str, actor: &Actor, q: &OrderQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("r.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("r.org_id", q.org_ids.clone())
        .contains("r.order_no", &q.order_no)
        .any_of("r.state", q.states.clone())
        .any_of("r.kind", q.kinds.clone())
        .equals("r.shop_id", q.shop_id)
        .equals("r.statement_id", q.statement_id)
        .within("r.created_at", q.created)
        .within("r.completed_at", q.completed);
    f
}

/// An order's business type in the operation log.
pub const ORDER_LOG: i16 = pb::BusinessType::RepairOrder as i16;

struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "r.created_at desc, r.id desc"
    }
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &OrderQuery,
    paging: Paging,
) -> Result<(Vec<OrderRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    Ok((rows, count(conn, actor, q).await?))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &OrderQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered(COUNT, actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// An export's keyset page, newest first.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &OrderQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<OrderRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, q).keyset("r.created_at", "r.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One order the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<OrderRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("r.id", Some(id));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of r");
    }
    let row: Option<OrderRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

/// One order of `enterprise` whatever the reach, locked (the approval consumer).
pub async fn lock_for_service(
    conn: &mut PgConnection,
    enterprise: Uuid,
    id: Uuid,
) -> Result<Option<OrderRow>, ServiceError> {
    let mut f = Filters::new(SELECT, "r.enterprise_id", enterprise);
    f.equals("r.id", Some(id));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    qb.push(" for update of r");
    Ok(qb.build_query_as().fetch_optional(conn).await?)
}

/// A new order's fields, checked.
#[derive(Debug, Clone)]
pub struct NewOrder {
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub driver: Option<(Uuid, String)>,
    pub contact_name: String,
    pub contact_phone: String,
    pub kind: i16,
    pub fault_description: String,
    pub fault_images: serde_json::Value,
    pub odometer_m: i64,
    pub shop_id: Uuid,
    pub appointment_at: Option<DateTime<Utc>>,
    pub accident_id: String,
}

/// Stores a new order AWAITING_QUOTE with the next number of the day
/// (WX + Beijing date + 4 digits); answers its id.
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    order: &NewOrder,
) -> Result<(Uuid, String), ServiceError> {
    let order_no = next_number(
        conn,
        actor.enterprise_id,
        "repair_order",
        "order_no",
        "WX",
        "YYYYMMDD",
    )
    .await?;
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into repair_order (id, enterprise_id, org_id, order_no, vehicle_id, plate_number, \
           driver_id, driver_name, contact_name, contact_phone, kind, state, fault_description, \
           fault_images, odometer_m, shop_id, appointment_at, accident_id, created_by, \
           created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, \
           $19, $20, $20)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(order.org_id)
    .bind(&order_no)
    .bind(order.vehicle_id)
    .bind(&order.plate_number)
    .bind(order.driver.as_ref().map(|d| d.0))
    .bind(order.driver.as_ref().map_or("", |d| d.1.as_str()))
    .bind(&order.contact_name)
    .bind(&order.contact_phone)
    .bind(order.kind)
    .bind(i16::from(State::AwaitingQuote))
    .bind(&order.fault_description)
    .bind(&order.fault_images)
    .bind(order.odometer_m)
    .bind(order.shop_id)
    .bind(order.appointment_at)
    .bind(&order.accident_id)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    log(conn, actor, ORDER_LOG, id, &format!("创建维修单{order_no}")).await?;
    Ok((id, order_no))
}

/// The next number of `table`'s `column` for today (Beijing): `prefix`,
/// the date in `format`, then 4 digits; serialised per enterprise and table.
pub async fn next_number(
    conn: &mut PgConnection,
    enterprise: Uuid,
    table: &'static str,
    column: &'static str,
    prefix: &'static str,
    format: &'static str,
) -> Result<String, ServiceError> {
    sqlx::query("select pg_advisory_xact_lock(hashtext($1::text || $2))")
        .bind(enterprise)
        .bind(table)
        .execute(&mut *conn)
        .await?;
    let stem: String =
        sqlx::query_scalar("select $1 || to_char(now() at time zone 'Asia/Shanghai', $2)")
            .bind(prefix)
            .bind(format)
            .fetch_one(&mut *conn)
            .await?;
    // The highest number of the day, not a count: demo data may skip some.
    let sql = format!(
        "select coalesce(max(substr({column}, length($2) + 1)::bigint), 0)::bigint from {table} \
         where enterprise_id = $1 and {column} like $2 || '%' \
           and substr({column}, length($2) + 1) ~ '^[0-9]+$'"
    );
    let taken: i64 = sqlx::query_scalar(&sql)
        .bind(enterprise)
        .bind(&stem)
        .fetch_one(conn)
        .await?;
    Ok(format!("{stem}{:04}", taken + 1))
}

/// Stores the shop's quote: its lines and total, a new quote round.
pub async fn quoted(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &OrderRow,
    lines: &[Line],
    total_fen: i64,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update repair_order set state = $2, quote_items = $3, quote_total_fen = $4, \
           quote_at = now(), quote_remark = $5, quote_round = quote_round + 1, \
           updated_by_name = $6 where id = $1",
    )
    .bind(row.id)
    .bind(i16::from(State::Quoted))
    .bind(serde_json::to_value(lines).map_err(|e| ServiceError::internal(&e))?)
    .bind(total_fen)
    .bind(remark)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    let from = row.state()?.label();
    log(
        conn,
        actor,
        ORDER_LOG,
        row.id,
        &format!(
            "报价：{}项，合计{}；状态：{from} → 待确认价格",
            lines.len(),
            super::domain::yuan(total_fen)
        ),
    )
    .await
}

/// Moves `row` to `to` (the caller checked the move), filling what
/// `change` names, and writes the move with `remark` to its log.
pub async fn moved(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &OrderRow,
    to: State,
    change: Change<'_>,
    remark: &str,
) -> Result<(), ServiceError> {
    let (set, text) = match change {
        Change::Nothing => ("", ""),
        Change::Confirm => (
            ", confirmed_total_fen = quote_total_fen, confirmed_by_name = $4, confirm_at = now(), \
             quote_reject_reason = ''",
            "",
        ),
        Change::RequestApproval => (", confirmed_by_name = $4, quote_reject_reason = ''", ""),
        Change::Approved(approval) => (
            ", confirmed_total_fen = quote_total_fen, confirm_at = now(), approval_id = $3",
            approval,
        ),
        Change::Rejected(reason) => (", quote_reject_reason = $3", reason),
        Change::Disapproved(approval) => (
            ", quote_reject_reason = '审批未通过', approval_id = $3",
            approval,
        ),
        Change::Cancel(reason) => (", cancel_reason = $3", reason),
    };
    let sql =
        format!("update repair_order set state = $2, updated_by_name = $4{set} where id = $1");
    sqlx::query(&sql)
        .bind(row.id)
        .bind(i16::from(to))
        .bind(text)
        .bind(&actor.name)
        .execute(&mut *conn)
        .await?;
    let from = row.state()?.label();
    let mut line = format!("状态：{from} → {}", to.label());
    if !remark.is_empty() {
        line.push_str(&format!("；{remark}"));
    }
    log(conn, actor, ORDER_LOG, row.id, &line).await
}

/// What a state move fills besides the state.
#[derive(Debug, Clone, Copy)]
pub enum Change<'a> {
    Nothing,
    /// The price is confirmed (at or below the threshold).
    Confirm,
    /// Accepted above the threshold: who asked is kept.
    RequestApproval,
    /// Org's approval (its id) approved the price.
    Approved(&'a str),
    /// Sent back with a reason.
    Rejected(&'a str),
    /// Org's approval (its id) rejected the price.
    Disapproved(&'a str),
    Cancel(&'a str),
}

/// The work done, as the completion gives it.
#[derive(Debug, Clone)]
pub struct Completion {
    pub completed_at: DateTime<Utc>,
    pub odometer_m: i64,
    pub lines: Vec<Line>,
    pub total_fen: i64,
    pub images: serde_json::Value,
    pub remark: String,
}

/// Moves `row` to COMPLETED and records the service; answers the record's id.
pub async fn completed(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &OrderRow,
    done: &Completion,
) -> Result<Uuid, ServiceError> {
    let record = Uuid::new_v4();
    let items = serde_json::to_value(&done.lines).map_err(|e| ServiceError::internal(&e))?;
    sqlx::query(
        "insert into repair_record (id, enterprise_id, org_id, repair_order_id, order_no, \
           vehicle_id, plate_number, kind, shop_id, completed_at, odometer_m, items, total_fen, \
           remark, created_by, created_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
    )
    .bind(record)
    .bind(actor.enterprise_id)
    .bind(row.org_id)
    .bind(row.id)
    .bind(&row.order_no)
    .bind(row.vehicle_id)
    .bind(&row.plate_number)
    .bind(row.kind)
    .bind(row.shop_id)
    .bind(done.completed_at)
    .bind(done.odometer_m)
    .bind(&items)
    .bind(done.total_fen)
    .bind(&done.remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "update repair_order set state = $2, completed_at = $3, completed_odometer_m = $4, \
           final_items = $5, final_total_fen = $6, completion_images = $7, record_id = $8, \
           remark = case when $9 = '' then remark else $9 end, updated_by_name = $10 \
         where id = $1",
    )
    .bind(row.id)
    .bind(i16::from(State::Completed))
    .bind(done.completed_at)
    .bind(done.odometer_m)
    .bind(&items)
    .bind(done.total_fen)
    .bind(&done.images)
    .bind(record)
    .bind(&done.remark)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    log(
        conn,
        actor,
        ORDER_LOG,
        row.id,
        &format!(
            "状态：维修中 → 已完工；结算金额{}",
            super::domain::yuan(done.total_fen)
        ),
    )
    .await?;
    Ok(record)
}

/// Writes an operation-log row about `id` of business type `kind`.
pub async fn log(
    conn: &mut PgConnection,
    actor: &Actor,
    kind: i16,
    id: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(kind)
    .bind(id)
    .bind(remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

/// Most log rows a detail shows.
const LOG_LIMIT: i64 = 100;

/// The operation log of `id` (business type `kind`), newest first.
pub async fn logs(
    conn: &mut PgConnection,
    actor: &Actor,
    kind: i16,
    id: Uuid,
) -> Result<Vec<(String, String, DateTime<Utc>)>, ServiceError> {
    Ok(sqlx::query_as(
        "select remark, operator_name, created_at from operation_log \
         where enterprise_id = $1 and business_id = $2 and business_type = $3 \
         order by created_at desc, id desc limit $4",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(kind)
    .bind(LOG_LIMIT)
    .fetch_all(conn)
    .await?)
}

// --- Records (maintainRecord) ---

const RECORD_SELECT: &str = "select c.id, c.repair_order_id, c.order_no, c.org_id, \
     o.name as org_name, c.vehicle_id, c.plate_number, c.kind, c.shop_id, s.name as shop_name, \
     c.completed_at, c.odometer_m, c.items, c.total_fen, c.remark, c.created_by_name, \
     c.created_at from repair_record c join repair_supplier s on s.id = c.shop_id \
     left join org_unit o on o.id = c.org_id";

const RECORD_COUNT: &str = "select count(*) from repair_record c";

#[derive(Debug, Clone, FromRow)]
pub struct RecordRow {
    pub id: Uuid,
    pub repair_order_id: Uuid,
    pub order_no: String,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub kind: i16,
    pub shop_id: Uuid,
    pub shop_name: String,
    pub completed_at: DateTime<Utc>,
    pub odometer_m: i64,
    pub items: serde_json::Value,
    pub total_fen: i64,
    pub remark: String,
    pub created_by_name: String,
    pub created_at: DateTime<Utc>,
}

/// A checked record filter.
#[derive(Debug, Clone, Default)]
pub struct RecordQuery {
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub shop_id: Option<Uuid>,
    pub kinds: Vec<i16>,
    pub completed: TimeRange,
    pub order_no: String,
}

fn records_scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "c.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "c.org_id", "c.created_by");
    f
}

fn records_filtered<'a>(select: &str, actor: &Actor, q: &RecordQuery) -> Filters<'a> {
    let mut f = records_scoped(select, actor);
    f.any_of("c.plate_number", q.plates.clone())
        .any_of("c.org_id", q.org_ids.clone())
        .equals("c.shop_id", q.shop_id)
        .any_of("c.kind", q.kinds.clone())
        .contains("c.order_no", &q.order_no)
        .within("c.completed_at", q.completed);
    f
}

struct LatestDone;

impl Sort for LatestDone {
    fn order_by(&self) -> &'static str {
        "c.completed_at desc, c.id desc"
    }
}

pub async fn records(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &RecordQuery,
    paging: Paging,
) -> Result<(Vec<RecordRow>, i64), ServiceError> {
    let mut qb = records_filtered(RECORD_SELECT, actor, q).page(&LatestDone, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    Ok((rows, record_count(conn, actor, q).await?))
}

pub async fn record_count(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &RecordQuery,
) -> Result<i64, ServiceError> {
    let mut qb = records_filtered(RECORD_COUNT, actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

pub async fn records_after(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &RecordQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<RecordRow>, ServiceError> {
    let mut qb =
        records_filtered(RECORD_SELECT, actor, q).keyset("c.completed_at", "c.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn record(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<RecordRow, ServiceError> {
    let mut f = records_scoped(RECORD_SELECT, actor);
    f.equals("c.id", Some(id));
    let mut qb = f.finish();
    let row: Option<RecordRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}
