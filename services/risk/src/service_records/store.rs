//! The customer_service_record table and its list filter.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{RecordDraft, RecordStatus};
use crate::context::Actor;
use crate::lookup::DriverRef;

const SELECT: &str = "select r.id, r.org_id, o.name as org_name, r.created_by, r.ticket_no, \
     r.vehicle_id, v.plate_number, r.driver_id, r.driver_name, r.alarm_id, r.caller_name, \
     r.caller_phone, r.channel, r.category, r.status, r.summary, r.resolution, r.agent_name, \
     r.start_time, r.duration_seconds, r.follow_up_time, r.close_time, r.satisfaction, \
     r.created_by_name, r.updated_by_name, r.created_at, r.updated_at \
     from customer_service_record r join vehicle v on v.id = r.vehicle_id \
     left join org_unit o on o.id = r.org_id";

const COUNT: &str =
    "select count(*) from customer_service_record r join vehicle v on v.id = r.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct RecordRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub created_by: Option<Uuid>,
    pub ticket_no: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub alarm_id: Option<Uuid>,
    pub caller_name: String,
    pub caller_phone: String,
    pub channel: i16,
    pub category: i16,
    pub status: i16,
    pub summary: String,
    pub resolution: String,
    pub agent_name: String,
    pub start_time: DateTime<Utc>,
    pub duration_seconds: i32,
    pub follow_up_time: Option<DateTime<Utc>>,
    pub close_time: Option<DateTime<Utc>>,
    pub satisfaction: i16,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked list filter.
#[derive(Debug, Clone, Default)]
pub struct RecordQuery {
    pub plates: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub ticket_no: Option<String>,
    pub channels: Vec<i16>,
    pub categories: Vec<i16>,
    pub statuses: Vec<i16>,
    pub start_time: TimeRange,
}

/// Newest contact first.
struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "r.start_time desc, r.id desc"
    }
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "r.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "r.org_id", "r.created_by");
    f
}

fn filtered<'a>(select: &str, actor: &Actor, q: &RecordQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("r.org_id", q.org_ids.clone())
        .equals("r.ticket_no", q.ticket_no.clone())
        .any_of("r.channel", q.channels.clone())
        .any_of("r.category", q.categories.clone())
        .any_of("r.status", q.statuses.clone())
        .within("r.start_time", q.start_time);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &RecordQuery,
    paging: Paging,
) -> Result<(Vec<RecordRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = filtered(COUNT, actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// One record the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<RecordRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("r.id", Some(id));
    let mut qb = f.finish();
    if for_update {
        qb.push(" for update of r");
    }
    let row: Option<RecordRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

/// The vehicle of the tenant's alarm `alarm`, if there is one.
pub async fn alarm_vehicle(
    conn: &mut PgConnection,
    actor: &Actor,
    alarm: Uuid,
) -> Result<Option<Uuid>, ServiceError> {
    Ok(
        sqlx::query_scalar(
            "select vehicle_id from risk_alarm where id = $1 and enterprise_id = $2",
        )
        .bind(alarm)
        .bind(actor.enterprise_id)
        .fetch_optional(conn)
        .await?,
    )
}

/// What a write stores besides the draft.
#[derive(Debug, Clone)]
pub struct Placement<'a> {
    pub vehicle_id: Uuid,
    /// The vehicle's organisation.
    pub org_id: Uuid,
    pub driver: Option<&'a DriverRef>,
    pub status: RecordStatus,
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    ticket_no: &str,
    at: &Placement<'_>,
    d: &RecordDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into customer_service_record (id, enterprise_id, org_id, created_by, ticket_no, \
           vehicle_id, driver_id, driver_name, alarm_id, caller_name, caller_phone, channel, \
           category, status, summary, resolution, agent_name, start_time, duration_seconds, \
           follow_up_time, satisfaction, close_time, created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
           $18, $19, $20, $21, case when $22 then now() end, $17, $17)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(at.org_id)
    .bind(actor.user_id)
    .bind(ticket_no)
    .bind(at.vehicle_id)
    .bind(at.driver.map(|x| x.id))
    .bind(at.driver.map(|x| x.name.as_str()).unwrap_or_default())
    .bind(d.alarm_id)
    .bind(&d.caller_name)
    .bind(&d.caller_phone)
    .bind(i16::from(d.channel))
    .bind(i16::from(d.category))
    .bind(i16::from(at.status))
    .bind(&d.summary)
    .bind(&d.resolution)
    .bind(&actor.name)
    .bind(d.start_time)
    .bind(d.duration_seconds)
    .bind(d.follow_up_time)
    .bind(d.satisfaction)
    .bind(at.status.is_done())
    .execute(conn)
    .await?;
    Ok(())
}

/// Replaces the editable fields; a done record keeps its first close
/// time, a reopened one loses it.
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    at: &Placement<'_>,
    d: &RecordDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update customer_service_record set org_id = $2, vehicle_id = $3, driver_id = $4, \
           driver_name = $5, alarm_id = $6, caller_name = $7, \
           caller_phone = coalesce(nullif($8, ''), caller_phone), channel = $9, \
           category = $10, status = $11, summary = $12, resolution = $13, start_time = $14, \
           duration_seconds = $15, follow_up_time = $16, satisfaction = $17, \
           updated_by_name = $18, \
           close_time = case when $19 then coalesce(close_time, now()) end \
         where id = $1",
    )
    .bind(id)
    .bind(at.org_id)
    .bind(at.vehicle_id)
    .bind(at.driver.map(|x| x.id))
    .bind(at.driver.map(|x| x.name.as_str()).unwrap_or_default())
    .bind(d.alarm_id)
    .bind(&d.caller_name)
    .bind(&d.caller_phone)
    .bind(i16::from(d.channel))
    .bind(i16::from(d.category))
    .bind(i16::from(at.status))
    .bind(&d.summary)
    .bind(&d.resolution)
    .bind(d.start_time)
    .bind(d.duration_seconds)
    .bind(d.follow_up_time)
    .bind(d.satisfaction)
    .bind(&actor.name)
    .bind(at.status.is_done())
    .execute(conn)
    .await?;
    Ok(())
}
