//! The reminder and service-record tables: the list (its filter as one
//! `filtered` that list, count and export share; its order, the stored
//! urgency, served by the `*_urgency_idx` indexes), one reminder, a
//! vehicle's service history under a plan, and completing.

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::Completion;
use super::judge::{self, DONE_RANK};
use crate::context::Actor;
use crate::plans::domain::{Base, Due};

const SELECT: &str = "select r.id, r.org_id, o.name as org_name, r.vehicle_id, \
     v.plate_number, v.vin, r.plan_id, p.name as plan_name, p.kind, p.interval_m, \
     p.interval_months, p.soon_m, p.soon_days, p.items as plan_items, r.last_service_time, \
     r.last_service_odometer_m, r.base_date, r.base_odometer_m, r.due_odometer_m, r.due_date, \
     r.completed_at, r.record_id, coalesce(rec.repair_order_id, '') as repair_order_id, \
     r.due_state, r.urgency, r.forecast_date, r.judged_on, r.judged_odometer_m, \
     r.judged_daily_m, r.created_by_name, r.updated_by_name, r.created_at, r.updated_at \
     from maintenance_reminder r join vehicle v on v.id = r.vehicle_id \
     join maintenance_plan p on p.id = r.plan_id \
     left join org_unit o on o.id = r.org_id \
     left join maintenance_record rec on rec.id = r.record_id";

/// The list's total: the vehicle joined only for a plate or VIN filter
/// (every reminder has its vehicle), so a tenant's count is the index's.
const COUNT: &str = "select count(*) from maintenance_reminder r \
     join maintenance_plan p on p.id = r.plan_id";
const COUNT_BY_VEHICLE: &str = "select count(*) from maintenance_reminder r \
     join maintenance_plan p on p.id = r.plan_id join vehicle v on v.id = r.vehicle_id";

/// The list's order: the stored state, then urgency, then id.
const ORDER: &str = "r.due_state, r.urgency, r.id";

#[derive(Debug, Clone, FromRow)]
pub struct ReminderRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub plan_id: Uuid,
    pub plan_name: String,
    pub kind: i16,
    pub interval_m: i64,
    pub interval_months: i32,
    pub soon_m: i64,
    pub soon_days: i32,
    pub plan_items: serde_json::Value,
    pub last_service_time: Option<DateTime<Utc>>,
    pub last_service_odometer_m: Option<i64>,
    pub base_date: NaiveDate,
    pub base_odometer_m: i64,
    pub due_odometer_m: Option<i64>,
    pub due_date: Option<NaiveDate>,
    pub completed_at: Option<DateTime<Utc>>,
    pub record_id: Option<Uuid>,
    pub repair_order_id: String,
    /// As judged (`super::judge`): the list's state and order, the day it
    /// falls due, and the reading it was judged with.
    pub due_state: i16,
    pub urgency: i32,
    pub forecast_date: Option<NaiveDate>,
    pub judged_on: Option<NaiveDate>,
    pub judged_odometer_m: Option<i64>,
    pub judged_daily_m: Option<i64>,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl ReminderRow {
    pub fn due(&self) -> Due {
        Due {
            odometer_m: self.due_odometer_m,
            date: self.due_date,
        }
    }
}

/// A checked list filter.
#[derive(Debug, Clone, Default)]
pub struct ReminderQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub plan_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    /// The stored `due_state`s listed, ascending (none = none).
    pub states: Vec<i16>,
    /// Open ones falling due on these days, `[from, until)` (done ones
    /// whatever their days).
    pub due_from: Option<NaiveDate>,
    pub due_until: Option<NaiveDate>,
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", actor.enterprise_id);
    // A reminder is its vehicle's: reach by organisation only (no creator
    // column, so the own-records clause never matches).
    actor
        .reach
        .push_condition(f.scope(), "r.org_id", "null::uuid");
    f
}

/// The list's filter under the caller's reach; list and export share it.
fn filtered<'a>(select: &str, actor: &Actor, q: &ReminderQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("r.org_id", q.org_ids.clone())
        .any_of("r.plan_id", q.plan_ids.clone())
        .any_of("p.kind", q.kinds.clone());
    match q.states.as_slice() {
        [] => {
            f.and().push("false");
        }
        [only] => {
            f.and().push("r.due_state = ").push_bind(*only);
        }
        // Consecutive states as a range, so the index's order holds.
        [first, .., last] if usize::try_from(*last - *first).ok() == Some(q.states.len() - 1) => {
            f.and()
                .push("r.due_state between ")
                .push_bind(*first)
                .push(" and ")
                .push_bind(*last);
        }
        states => {
            f.any_of("r.due_state", states.to_vec());
        }
    }
    if q.due_from.is_some() || q.due_until.is_some() {
        let qb = f.and();
        qb.push("(r.due_state = ")
            .push_bind(DONE_RANK)
            .push(" or (r.forecast_date is not null");
        if let Some(from) = q.due_from {
            qb.push(" and r.forecast_date >= ").push_bind(from);
        }
        if let Some(until) = q.due_until {
            qb.push(" and r.forecast_date < ").push_bind(until);
        }
        qb.push("))");
    }
    f
}

/// The list's order.
struct Urgency;

impl Sort for Urgency {
    fn order_by(&self) -> &'static str {
        ORDER
    }
}

/// One page of the list, in its order, and the total of its filter.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ReminderQuery,
    paging: Paging,
) -> Result<(Vec<ReminderRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Urgency, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, q).await?;
    Ok((rows, total))
}

/// How many reminders the filter matches.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ReminderQuery,
) -> Result<i64, ServiceError> {
    let select = if q.plates.is_empty() && q.vins.is_empty() {
        COUNT
    } else {
        COUNT_BY_VEHICLE
    };
    let mut qb = filtered(select, actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// The next `limit` reminders of the filter after `after` (state,
/// urgency, id), in list order: an export's keyset page.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ReminderQuery,
    after: Option<(i16, i32, Uuid)>,
    limit: i64,
) -> Result<Vec<ReminderRow>, ServiceError> {
    let mut f = filtered(SELECT, actor, q);
    if let Some((state, urgency, id)) = after {
        f.and()
            .push("(r.due_state, r.urgency, r.id) > (")
            .push_bind(state)
            .push(", ")
            .push_bind(urgency)
            .push(", ")
            .push_bind(id)
            .push(")");
    }
    let mut qb = f.finish();
    qb.push(" order by ")
        .push(ORDER)
        .push(" limit ")
        .push_bind(limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One reminder the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<ReminderRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("r.id", Some(id));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of r");
    }
    let row: Option<ReminderRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

#[derive(Debug, Clone, FromRow)]
pub struct RecordRow {
    pub id: Uuid,
    pub reminder_id: Uuid,
    pub plan_id: Uuid,
    pub plan_name: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub service_time: DateTime<Utc>,
    pub service_odometer_m: i64,
    pub supplier: String,
    pub cost_fen: i64,
    pub items: serde_json::Value,
    pub remark: String,
    pub schedule: i16,
    pub repair_order_id: String,
    pub created_by_name: String,
    pub created_at: DateTime<Utc>,
}

/// Most services a detail shows.
const HISTORY_LIMIT: i64 = 200;

/// The services of `vehicle` under `plan`, newest first.
pub async fn history(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle: Uuid,
    plan: Uuid,
) -> Result<Vec<RecordRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select m.id, m.reminder_id, m.plan_id, m.plan_name, m.vehicle_id, v.plate_number, \
           m.service_time, m.service_odometer_m, m.supplier, m.cost_fen, m.items, m.remark, \
           m.schedule, m.repair_order_id, m.created_by_name, m.created_at \
         from maintenance_record m join vehicle v on v.id = m.vehicle_id \
         where m.enterprise_id = $1 and m.vehicle_id = $2 and m.plan_id = $3 \
         order by m.service_time desc, m.id desc limit $4",
    )
    .bind(actor.enterprise_id)
    .bind(vehicle)
    .bind(plan)
    .bind(HISTORY_LIMIT)
    .fetch_all(conn)
    .await?)
}

/// The newest service of `vehicle` under `plan` (its odometer bounds the next).
pub async fn last_service(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle: Uuid,
    plan: Uuid,
) -> Result<Option<(DateTime<Utc>, i64)>, ServiceError> {
    Ok(sqlx::query_as(
        "select service_time, service_odometer_m from maintenance_record \
         where enterprise_id = $1 and vehicle_id = $2 and plan_id = $3 \
         order by service_time desc, id desc limit 1",
    )
    .bind(actor.enterprise_id)
    .bind(vehicle)
    .bind(plan)
    .fetch_optional(conn)
    .await?)
}

/// Closes `reminder` at `completed_at` with the service `c` (items
/// resolved) and opens the next cycle at `base`, due at `due` (unjudged:
/// the caller judges it); answers (record id, next reminder id).
pub async fn complete(
    conn: &mut PgConnection,
    actor: &Actor,
    reminder: &ReminderRow,
    c: &Completion,
    items: &[String],
    (base, due): (Base, Due),
    completed_at: DateTime<Utc>,
) -> Result<(Uuid, Uuid), ServiceError> {
    let record_id = Uuid::new_v4();
    let next_id = Uuid::new_v4();
    sqlx::query(
        "insert into maintenance_record (id, enterprise_id, org_id, created_by, reminder_id, \
           plan_id, plan_name, vehicle_id, service_time, service_odometer_m, supplier, cost_fen, \
           items, remark, schedule, repair_order_id, created_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17)",
    )
    .bind(record_id)
    .bind(actor.enterprise_id)
    .bind(reminder.org_id)
    .bind(actor.user_id)
    .bind(reminder.id)
    .bind(reminder.plan_id)
    .bind(&reminder.plan_name)
    .bind(reminder.vehicle_id)
    .bind(c.service_time)
    .bind(c.odometer_m)
    .bind(&c.supplier)
    .bind(c.cost_fen)
    .bind(serde_json::json!(items))
    .bind(&c.remark)
    .bind(i16::from(c.schedule))
    .bind(&c.repair_order_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    let (done, urgency) = judge::place(None, Some(completed_at));
    sqlx::query(
        "update maintenance_reminder set completed_at = $4, record_id = $2, \
           updated_by_name = $3, due_state = $5, urgency = $6 where id = $1",
    )
    .bind(reminder.id)
    .bind(record_id)
    .bind(&actor.name)
    .bind(completed_at)
    .bind(done)
    .bind(urgency)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "insert into maintenance_reminder (id, enterprise_id, org_id, vehicle_id, plan_id, \
           last_service_time, last_service_odometer_m, base_date, base_odometer_m, \
           due_odometer_m, due_date, created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)",
    )
    .bind(next_id)
    .bind(actor.enterprise_id)
    .bind(reminder.org_id)
    .bind(reminder.vehicle_id)
    .bind(reminder.plan_id)
    .bind(c.service_time)
    .bind(c.odometer_m)
    .bind(base.date)
    .bind(base.odometer_m)
    .bind(due.odometer_m)
    .bind(due.date)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok((record_id, next_id))
}
