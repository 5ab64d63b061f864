//! The repair_statement and repair_bill tables: a completed order joins
//! its supplier's open statement of the month it was completed in (Beijing
//! time; one is opened when none is), whose count and total follow its
//! orders; confirming a statement raises its bill, settles its orders and
//! emits `RepairBillIssued` through the outbox, all in one transaction.

use chrono::{DateTime, Datelike, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use fleetdesk_kit::{events, subjects};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{self, BillState, State, StatementState};
use super::store::{self, OrderRow, log, next_number};
use crate::context::Actor;

/// A statement's business type in the operation log.
pub const STATEMENT_LOG: i16 = pb::BusinessType::RepairStatement as i16;
/// Days a shop gives to pay a bill.
const BILL_TERM_DAYS: i64 = 30;

pub fn year_month(period: NaiveDate) -> common::YearMonth {
    common::YearMonth {
        year: period.year(),
        month: period.month() as i32,
    }
}

/// Puts completed `order` (of the supplier's `org`) on its supplier's open
/// statement of its month; answers the statement's id.
pub async fn attach(
    conn: &mut PgConnection,
    actor: &Actor,
    order: &OrderRow,
    supplier_org: Uuid,
    completed_at: DateTime<Utc>,
) -> Result<Uuid, ServiceError> {
    let period: NaiveDate =
        sqlx::query_scalar("select date_trunc('month', $1 at time zone 'Asia/Shanghai')::date")
            .bind(completed_at)
            .fetch_one(&mut *conn)
            .await?;
    let open: Option<Uuid> = sqlx::query_scalar(
        "select id from repair_statement where enterprise_id = $1 and shop_id = $2 \
         and period = $3 and state in (1, 3) for update",
    )
    .bind(actor.enterprise_id)
    .bind(order.shop_id)
    .bind(period)
    .fetch_optional(&mut *conn)
    .await?;
    let statement = match open {
        Some(id) => id,
        None => {
            let id = Uuid::new_v4();
            let no = next_number(
                conn,
                actor.enterprise_id,
                "repair_statement",
                "statement_no",
                "JS",
                "YYYYMMDD",
            )
            .await?;
            sqlx::query(
                "insert into repair_statement (id, enterprise_id, org_id, statement_no, shop_id, \
                 period) values ($1, $2, $3, $4, $5, $6)",
            )
            .bind(id)
            .bind(actor.enterprise_id)
            .bind(supplier_org)
            .bind(&no)
            .bind(order.shop_id)
            .bind(period)
            .execute(&mut *conn)
            .await?;
            log(
                conn,
                actor,
                STATEMENT_LOG,
                id,
                &format!("生成对账单{no}（{}年{}月）", period.year(), period.month()),
            )
            .await?;
            id
        }
    };
    sqlx::query("update repair_order set statement_id = $2 where id = $1")
        .bind(order.id)
        .bind(statement)
        .execute(&mut *conn)
        .await?;
    refresh(conn, statement).await?;
    log(
        conn,
        actor,
        STATEMENT_LOG,
        statement,
        &format!("加入维修单{}", order.order_no),
    )
    .await?;
    Ok(statement)
}

/// A statement's count and total from its orders.
async fn refresh(conn: &mut PgConnection, statement: Uuid) -> Result<(), ServiceError> {
    sqlx::query(
        "update repair_statement s set order_count = t.n, total_fen = t.total \
         from (select count(*)::int as n, coalesce(sum(final_total_fen), 0)::bigint as total \
               from repair_order where statement_id = $1) t where s.id = $1",
    )
    .bind(statement)
    .execute(conn)
    .await?;
    Ok(())
}

const STATEMENT_SELECT: &str = "select t.id, t.org_id, t.statement_no, t.shop_id, \
     s.name as shop_name, t.period, t.order_count, t.total_fen, t.state, t.issued_at, \
     t.confirmed_by_name, t.confirm_at, t.dispute_reason, t.bill_id, t.created_at, t.updated_at \
     from repair_statement t join repair_supplier s on s.id = t.shop_id";
const STATEMENT_COUNT: &str = "select count(*) from repair_statement t";

#[derive(Debug, Clone, FromRow)]
pub struct StatementRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub statement_no: String,
    pub shop_id: Uuid,
    pub shop_name: String,
    pub period: NaiveDate,
    pub order_count: i32,
    pub total_fen: i64,
    pub state: i16,
    pub issued_at: DateTime<Utc>,
    pub confirmed_by_name: String,
    pub confirm_at: Option<DateTime<Utc>>,
    pub dispute_reason: String,
    pub bill_id: Option<Uuid>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked statement or bill filter (months as first days, inclusive).
#[derive(Debug, Clone, Default)]
pub struct PeriodQuery {
    pub shop_id: Option<Uuid>,
    pub number: String,
    pub states: Vec<i16>,
    pub from: Option<NaiveDate>,
    pub to: Option<NaiveDate>,
    pub due: fleetdesk_kit::list::TimeRange,
}

fn period_filtered<'a>(
    select: &str,
    alias: &str,
    actor: &Actor,
    q: &PeriodQuery,
    number_column: &str,
) -> Filters<'a> {
    let mut f = Filters::new(
        select,
        &format!("{alias}.enterprise_id"),
        actor.enterprise_id,
    );
    actor
        .reach
        .push_condition(f.scope(), &format!("{alias}.org_id"), "null::uuid");
    f.equals(&format!("{alias}.shop_id"), q.shop_id)
        .contains(number_column, &q.number)
        .any_of(&format!("{alias}.state"), q.states.clone());
    if let Some(from) = q.from {
        f.and().push(format!("{alias}.period >= ")).push_bind(from);
    }
    if let Some(to) = q.to {
        f.and().push(format!("{alias}.period <= ")).push_bind(to);
    }
    f
}

struct LatestStatement;

impl Sort for LatestStatement {
    fn order_by(&self) -> &'static str {
        "t.period desc, t.id desc"
    }
}

pub async fn statements(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &PeriodQuery,
    paging: Option<Paging>,
) -> Result<(Vec<StatementRow>, i64), ServiceError> {
    let f = period_filtered(STATEMENT_SELECT, "t", actor, q, "t.statement_no");
    let mut qb = match paging {
        Some(paging) => f.page(&LatestStatement, paging),
        None => {
            let mut qb = f.finish();
            qb.push(" order by t.period desc, t.id desc");
            qb
        }
    };
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = period_filtered(STATEMENT_COUNT, "t", actor, q, "t.statement_no").finish();
    let count: i64 = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, count))
}

pub async fn statement(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<StatementRow, ServiceError> {
    let mut f = period_filtered(
        STATEMENT_SELECT,
        "t",
        actor,
        &PeriodQuery::default(),
        "t.statement_no",
    );
    f.equals("t.id", Some(id));
    let mut qb = f.finish();
    if for_update {
        qb.push(" for update of t");
    }
    let row: Option<StatementRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

/// The ids of a statement's orders, newest completion first.
pub async fn order_ids(
    conn: &mut PgConnection,
    statement: Uuid,
) -> Result<Vec<Uuid>, ServiceError> {
    Ok(sqlx::query_scalar(
        "select id from repair_order where statement_id = $1 order by completed_at desc, id desc",
    )
    .bind(statement)
    .fetch_all(conn)
    .await?)
}

/// Disputes `row` with `reason`.
pub async fn disputed(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &StatementRow,
    reason: &str,
) -> Result<(), ServiceError> {
    sqlx::query("update repair_statement set state = $2, dispute_reason = $3 where id = $1")
        .bind(row.id)
        .bind(i16::from(StatementState::Disputed))
        .bind(reason)
        .execute(&mut *conn)
        .await?;
    let from: StatementState = known(row.state)?;
    log(
        conn,
        actor,
        STATEMENT_LOG,
        row.id,
        &format!("状态：{} → 有异议；原因：{reason}", from.label()),
    )
    .await
}

/// Confirms `row`: raises its bill, settles its orders, marks it billed
/// and emits `RepairBillIssued`. Answers the bill's id.
pub async fn confirmed(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &StatementRow,
) -> Result<Uuid, ServiceError> {
    let bill = Uuid::new_v4();
    let bill_no = next_number(
        conn,
        actor.enterprise_id,
        "repair_bill",
        "bill_no",
        "ZD",
        "YYYYMMDD",
    )
    .await?;
    let (issued_at, due_at): (DateTime<Utc>, DateTime<Utc>) = sqlx::query_as(
        "insert into repair_bill (id, enterprise_id, org_id, bill_no, statement_id, shop_id, \
           period, amount_fen, state, due_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, now() + make_interval(days => $10)) \
         returning issued_at, due_at",
    )
    .bind(bill)
    .bind(actor.enterprise_id)
    .bind(row.org_id)
    .bind(&bill_no)
    .bind(row.id)
    .bind(row.shop_id)
    .bind(row.period)
    .bind(row.total_fen)
    .bind(i16::from(BillState::Unpaid))
    .bind(BILL_TERM_DAYS as i32)
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query(
        "update repair_statement set state = $2, confirmed_by_name = $3, confirm_at = now(), \
         bill_id = $4 where id = $1",
    )
    .bind(row.id)
    .bind(i16::from(StatementState::Billed))
    .bind(&actor.name)
    .bind(bill)
    .execute(&mut *conn)
    .await?;
    let orders: Vec<(Uuid, String)> = sqlx::query_as(
        "update repair_order set state = $2, updated_by_name = $3 \
         where statement_id = $1 and state = $4 returning id, order_no",
    )
    .bind(row.id)
    .bind(i16::from(State::Settled))
    .bind(&actor.name)
    .bind(i16::from(State::Completed))
    .fetch_all(&mut *conn)
    .await?;
    for (order, _) in &orders {
        log(
            conn,
            actor,
            store::ORDER_LOG,
            *order,
            &format!("状态：已完工 → 已结算（对账单{}）", row.statement_no),
        )
        .await?;
    }
    let from: StatementState = known(row.state)?;
    log(
        conn,
        actor,
        STATEMENT_LOG,
        row.id,
        &format!(
            "状态：{} → 已确认 → 已出账；生成账单{bill_no}，金额{}",
            from.label(),
            domain::yuan(row.total_fen)
        ),
    )
    .await?;
    events::enqueue(
        conn,
        subjects::VEHICLE_REPAIR_BILL_ISSUED,
        &pb::RepairBillIssued {
            bill_id: bill.to_string(),
            enterprise_id: actor.enterprise_id.to_string(),
            bill_no,
            statement_id: row.id.to_string(),
            statement_no: row.statement_no.clone(),
            shop_id: row.shop_id.to_string(),
            shop_name: row.shop_name.clone(),
            period: Some(year_month(row.period)),
            order_count: row.order_count,
            amount_fen: row.total_fen,
            issued_time: Some(timestamp(issued_at)),
            due_time: Some(timestamp(due_at)),
            org_id: row.org_id.to_string(),
        },
    )
    .await?;
    Ok(bill)
}

const BILL_SELECT: &str = "select b.id, b.org_id, b.bill_no, b.statement_id, t.statement_no, \
     b.shop_id, s.name as shop_name, b.period, b.amount_fen, b.paid_fen, b.state, b.issued_at, \
     b.due_at, b.paid_at, b.finance_bill_id, b.created_at, b.updated_at \
     from repair_bill b join repair_statement t on t.id = b.statement_id \
     join repair_supplier s on s.id = b.shop_id";
const BILL_TOTALS: &str = "select count(*), coalesce(sum(b.amount_fen), 0)::bigint, \
     coalesce(sum(b.amount_fen - b.paid_fen) filter (where b.state <> 4), 0)::bigint \
     from repair_bill b";

#[derive(Debug, Clone, FromRow)]
pub struct BillRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub bill_no: String,
    pub statement_id: Uuid,
    pub statement_no: String,
    pub shop_id: Uuid,
    pub shop_name: String,
    pub period: NaiveDate,
    pub amount_fen: i64,
    pub paid_fen: i64,
    pub state: i16,
    pub issued_at: DateTime<Utc>,
    pub due_at: DateTime<Utc>,
    pub paid_at: Option<DateTime<Utc>>,
    pub finance_bill_id: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

fn bills_filtered<'a>(select: &str, actor: &Actor, q: &PeriodQuery) -> Filters<'a> {
    let mut f = period_filtered(select, "b", actor, q, "b.bill_no");
    f.within("b.due_at", q.due);
    f
}

struct LatestBill;

impl Sort for LatestBill {
    fn order_by(&self) -> &'static str {
        "b.period desc, b.id desc"
    }
}

/// A page of bills (all when `paging` is none) with the filter's count,
/// amount and outstanding amount.
pub async fn bills(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &PeriodQuery,
    paging: Option<Paging>,
) -> Result<(Vec<BillRow>, (i64, i64, i64)), ServiceError> {
    let f = bills_filtered(BILL_SELECT, actor, q);
    let mut qb = match paging {
        Some(paging) => f.page(&LatestBill, paging),
        None => {
            let mut qb = f.finish();
            qb.push(" order by b.period desc, b.id desc");
            qb
        }
    };
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = bills_filtered(BILL_TOTALS, actor, q).finish();
    let totals: (i64, i64, i64) = qb.build_query_as().fetch_one(conn).await?;
    Ok((rows, totals))
}

pub async fn bill(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<BillRow, ServiceError> {
    let mut f = bills_filtered(BILL_SELECT, actor, &PeriodQuery::default());
    f.equals("b.id", Some(id));
    let mut qb = f.finish();
    let row: Option<BillRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}
