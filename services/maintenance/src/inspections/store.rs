//! The annual_inspection and annual_inspection_record tables: opening the
//! state rows of vehicles that have none, the list (its filter as one
//! `filtered` that list, count and export share; soonest due first from the
//! `annual_inspection_*due_idx` indexes, each due state a range of due
//! dates), one vehicle's state, recording an inspection with its
//! operation-log row (`crate::oplog`), and the history.

use chrono::{DateTime, Duration, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{Class, DUE_SOON_DAYS, Inspection, Standing, first_due};
use crate::context::Actor;
use crate::odometer::{beijing_day, day_start, first_day_from};
use crate::oplog;

const SELECT: &str = "select a.id, a.org_id, o.name as org_name, a.vehicle_id, v.plate_number, \
     v.vin, v.register_time, a.inspection_class, a.due_date, a.last_inspected_at, a.last_result, \
     a.last_station, a.last_odometer_m, a.last_cost_fen, a.last_images, a.last_remark, \
     a.updated_by_name, a.created_at, a.updated_at \
     from annual_inspection a join vehicle v on v.id = a.vehicle_id \
     left join org_unit o on o.id = a.org_id";

/// The count; the vehicle joined only for a plate or VIN filter.
const COUNT: &str = "select count(*) from annual_inspection a";
const COUNT_BY_VEHICLE: &str =
    "select count(*) from annual_inspection a join vehicle v on v.id = a.vehicle_id";

/// The list's order: soonest due first, unknown due dates last.
const ORDER: &str = "a.due_date, a.id";

#[derive(Debug, Clone, FromRow)]
pub struct InspectionRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub register_time: Option<DateTime<Utc>>,
    pub inspection_class: i16,
    pub due_date: Option<NaiveDate>,
    pub last_inspected_at: Option<DateTime<Utc>>,
    pub last_result: Option<i16>,
    pub last_station: String,
    pub last_odometer_m: i64,
    pub last_cost_fen: i64,
    pub last_images: serde_json::Value,
    pub last_remark: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl InspectionRow {
    pub fn registered(&self) -> Option<NaiveDate> {
        self.register_time.map(beijing_day)
    }
}

#[derive(Debug, Clone, FromRow)]
pub struct RecordRow {
    pub id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub inspected_at: DateTime<Utc>,
    pub result: i16,
    pub station_name: String,
    pub odometer_m: i64,
    pub cost_fen: i64,
    pub images: serde_json::Value,
    pub remark: String,
    pub previous_due_date: Option<NaiveDate>,
    pub due_date: Option<NaiveDate>,
    pub operator_name: String,
    pub created_at: DateTime<Utc>,
}

/// A checked list filter.
#[derive(Debug, Clone, Default)]
pub struct InspectionQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub standings: Vec<Standing>,
    pub due: TimeRange,
    /// The day the states are judged on.
    pub today: NaiveDate,
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "a.enterprise_id", actor.enterprise_id);
    // A vehicle's inspection is its vehicle's: reach by organisation only.
    actor
        .reach
        .push_condition(f.scope(), "a.org_id", "null::uuid");
    f
}

/// The list's filter under the caller's reach; list, count and export
/// share it. Each due state is a range of due dates around today.
fn filtered<'a>(select: &str, actor: &Actor, q: &InspectionQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("a.org_id", q.org_ids.clone());
    if !q.standings.is_empty() {
        let soon_until = q.today + Duration::days(DUE_SOON_DAYS);
        let qb = f.and();
        qb.push("(false");
        for standing in &q.standings {
            qb.push(" or ");
            match standing {
                Standing::Overdue => {
                    qb.push("a.due_date < ").push_bind(q.today);
                }
                Standing::DueSoon => {
                    qb.push("(a.due_date >= ")
                        .push_bind(q.today)
                        .push(" and a.due_date <= ")
                        .push_bind(soon_until)
                        .push(")");
                }
                Standing::Valid => {
                    qb.push("(a.due_date > ")
                        .push_bind(soon_until)
                        .push(" or a.due_date is null)");
                }
            }
        }
        qb.push(")");
    }
    // A due day falls in [start, end) when its start does.
    if let Some(start) = q.due.start {
        f.and()
            .push("a.due_date >= ")
            .push_bind(first_day_from(start));
    }
    if let Some(end) = q.due.end {
        f.and().push("a.due_date < ").push_bind(first_day_from(end));
    }
    f
}

struct SoonestDue;

impl Sort for SoonestDue {
    fn order_by(&self) -> &'static str {
        ORDER
    }
}

/// One page of the list and the total of its filter.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &InspectionQuery,
    paging: Paging,
) -> Result<(Vec<InspectionRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&SoonestDue, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, q).await?;
    Ok((rows, total))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &InspectionQuery,
) -> Result<i64, ServiceError> {
    let select = if q.plates.is_empty() && q.vins.is_empty() {
        COUNT
    } else {
        COUNT_BY_VEHICLE
    };
    let mut qb = filtered(select, actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// An export's keyset page in list order: the next `limit` after `after`
/// (due date, id); unknown due dates come last.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &InspectionQuery,
    after: Option<(Option<NaiveDate>, Uuid)>,
    limit: i64,
) -> Result<Vec<InspectionRow>, ServiceError> {
    let mut f = filtered(SELECT, actor, q);
    match after {
        Some((Some(due), id)) => {
            f.and()
                .push("((a.due_date, a.id) > (")
                .push_bind(due)
                .push(", ")
                .push_bind(id)
                .push(") or a.due_date is null)");
        }
        Some((None, id)) => {
            f.and().push("a.due_date is null and a.id > ").push_bind(id);
        }
        None => {}
    }
    let mut qb = f.finish();
    qb.push(" order by ")
        .push(ORDER)
        .push(" limit ")
        .push_bind(limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// The inspection state of vehicle `vehicle` the caller may see (locked
/// for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle: Uuid,
    for_update: bool,
) -> Result<InspectionRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("a.vehicle_id", Some(vehicle));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of a");
    }
    let row: Option<InspectionRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

/// A vehicle without a state row: (id, organisation, category,
/// registration, the licence's inspection stamp).
type Unopened = (
    Uuid,
    Uuid,
    i16,
    Option<DateTime<Utc>>,
    Option<DateTime<Utc>>,
);

/// The vehicles of `rows` with the class and first due date their
/// registration gives (`domain::first_due`).
fn derived(rows: &[Unopened], today: NaiveDate) -> (Vec<Uuid>, Vec<i16>, Vec<Option<NaiveDate>>) {
    let mut ids = Vec::with_capacity(rows.len());
    let mut classes = Vec::with_capacity(rows.len());
    let mut dues = Vec::with_capacity(rows.len());
    for (vehicle, _, category, registered, stamp) in rows {
        let class = Class::of_category(*category);
        ids.push(*vehicle);
        classes.push(i16::from(class));
        dues.push(first_due(
            class,
            registered.map(beijing_day),
            stamp.map(beijing_day),
            today,
        ));
    }
    (ids, classes, dues)
}

/// Opens the state row of each vehicle of the enterprise that has none
/// (`vehicles` only, when given), its due date from the schedule
/// (`domain::first_due`), and derives again the rows whose vehicle changed
/// before their first record. Cheap when nothing is missing or pending: an
/// anti-join on the vehicle key and a partial-index probe.
pub async fn open(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicles: Option<&[Uuid]>,
    today: NaiveDate,
) -> Result<u64, ServiceError> {
    // Shared locks on the vehicles opened: a registration edited meanwhile
    // waits for this row, and its trigger then marks the row to derive again.
    let missing: Vec<Unopened> = sqlx::query_as(
        "select v.id, v.org_id, v.category, v.register_time, v.inspection_expire_time \
         from vehicle v where v.enterprise_id = $1 \
           and ($2::uuid[] is null or v.id = any($2)) \
           and not exists (select 1 from annual_inspection a \
             where a.enterprise_id = $1 and a.vehicle_id = v.id) \
         for share of v",
    )
    .bind(enterprise)
    .bind(vehicles)
    .fetch_all(&mut *conn)
    .await?;
    let mut opened = 0;
    if !missing.is_empty() {
        let orgs: Vec<Uuid> = missing.iter().map(|m| m.1).collect();
        let (ids, classes, dues) = derived(&missing, today);
        opened = sqlx::query(
            "insert into annual_inspection (id, enterprise_id, org_id, vehicle_id, \
               inspection_class, due_date) \
             select gen_random_uuid(), $1, r.org_id, r.vehicle_id, r.class, r.due \
             from unnest($2::uuid[], $3::uuid[], $4::int2[], $5::date[]) \
               as r(vehicle_id, org_id, class, due) \
             on conflict on constraint annual_inspection_vehicle_key do nothing",
        )
        .bind(enterprise)
        .bind(&ids)
        .bind(&orgs)
        .bind(&classes)
        .bind(&dues)
        .execute(&mut *conn)
        .await?
        .rows_affected();
    }
    // Rows whose vehicle changed before any inspection was recorded (marked
    // by the `annual_inspection_follow_vehicle` trigger, which also moves
    // rows with their vehicle): derived again, by their partial index.
    let pending: Vec<Unopened> = sqlx::query_as(
        "select a.vehicle_id, a.org_id, v.category, v.register_time, v.inspection_expire_time \
         from annual_inspection a join vehicle v on v.id = a.vehicle_id \
         where a.enterprise_id = $1 and a.derive_pending \
           and ($2::uuid[] is null or a.vehicle_id = any($2))",
    )
    .bind(enterprise)
    .bind(vehicles)
    .fetch_all(&mut *conn)
    .await?;
    if !pending.is_empty() {
        let (ids, classes, dues) = derived(&pending, today);
        sqlx::query(
            "update annual_inspection a set inspection_class = r.class, due_date = r.due, \
               derive_pending = false \
             from unnest($2::uuid[], $3::int2[], $4::date[]) as r(vehicle_id, class, due) \
             where a.enterprise_id = $1 and a.vehicle_id = r.vehicle_id \
               and a.last_inspected_at is null",
        )
        .bind(enterprise)
        .bind(&ids)
        .bind(&classes)
        .bind(&dues)
        .execute(&mut *conn)
        .await?;
    }
    Ok(opened)
}

/// An inspection's business type in the operation log.
pub const BUSINESS_TYPE: i16 = pb::BusinessType::AnnualInspection as i16;

/// Records `inspection` of `row`'s vehicle: its history row and its log
/// row; the state (class, due date, last inspection) moves only when it is
/// not older than the last recorded one, so backfilled history leaves the
/// state as it is. Answers the history row's id.
pub async fn record(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &InspectionRow,
    inspection: &Inspection,
    class: Class,
    due: Option<NaiveDate>,
    images: &serde_json::Value,
) -> Result<Uuid, ServiceError> {
    let at = day_start(inspection.inspected);
    let current = row.last_inspected_at.is_none_or(|last| at >= last);
    let due = if current { due } else { row.due_date };
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into annual_inspection_record (id, enterprise_id, org_id, vehicle_id, \
           inspected_at, result, station_name, odometer_m, cost_fen, images, remark, \
           previous_due_date, due_date, operator_id, operator_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(row.org_id)
    .bind(row.vehicle_id)
    .bind(at)
    .bind(i16::from(inspection.outcome))
    .bind(&inspection.station)
    .bind(inspection.odometer_m)
    .bind(inspection.cost_fen)
    .bind(images)
    .bind(&inspection.remark)
    .bind(row.due_date)
    .bind(due)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    if current {
        sqlx::query(
            "update annual_inspection set inspection_class = $2, due_date = $3, \
               last_inspected_at = $4, last_result = $5, last_station = $6, \
               last_odometer_m = $7, last_cost_fen = $8, last_images = $9, last_remark = $10, \
               updated_by_name = $11 \
             where id = $1",
        )
        .bind(row.id)
        .bind(i16::from(class))
        .bind(due)
        .bind(at)
        .bind(i16::from(inspection.outcome))
        .bind(&inspection.station)
        .bind(inspection.odometer_m)
        .bind(inspection.cost_fen)
        .bind(images)
        .bind(&inspection.remark)
        .bind(&actor.name)
        .execute(&mut *conn)
        .await?;
    }
    let shown = |d: Option<NaiveDate>| d.map_or_else(|| "未知".to_owned(), |d| d.to_string());
    let mut text = format!(
        "登记年检：{}，{}",
        inspection.inspected,
        inspection.outcome.label()
    );
    if !inspection.station.is_empty() {
        text.push_str(&format!("，检验机构：{}", inspection.station));
    }
    if current && due != row.due_date {
        text.push_str(&format!(
            "；到期日期：{} → {}",
            shown(row.due_date),
            shown(due)
        ));
    }
    if class != known::<Class>(row.inspection_class)? {
        text.push_str(&format!("；检验类别：{}", class.label()));
    }
    if !inspection.remark.is_empty() {
        text.push_str(&format!("；备注：{}", inspection.remark));
    }
    oplog::record(conn, actor, BUSINESS_TYPE, row.id, &text).await?;
    Ok(id)
}

/// Most history rows a detail shows.
const DETAIL_LIMIT: i64 = 100;

/// Vehicle `vehicle`'s inspections, newest first.
pub async fn history(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle: Uuid,
) -> Result<Vec<RecordRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select r.id, r.vehicle_id, v.plate_number, r.inspected_at, r.result, r.station_name, \
           r.odometer_m, r.cost_fen, r.images, r.remark, r.previous_due_date, r.due_date, \
           r.operator_name, r.created_at \
         from annual_inspection_record r join vehicle v on v.id = r.vehicle_id \
         where r.enterprise_id = $1 and r.vehicle_id = $2 \
         order by r.inspected_at desc, r.id desc limit $3",
    )
    .bind(actor.enterprise_id)
    .bind(vehicle)
    .bind(DETAIL_LIMIT)
    .fetch_all(conn)
    .await?)
}

/// One history row by id (the answer of a record).
pub async fn record_row(conn: &mut PgConnection, id: Uuid) -> Result<RecordRow, ServiceError> {
    Ok(sqlx::query_as(
        "select r.id, r.vehicle_id, v.plate_number, r.inspected_at, r.result, r.station_name, \
           r.odometer_m, r.cost_fen, r.images, r.remark, r.previous_due_date, r.due_date, \
           r.operator_name, r.created_at \
         from annual_inspection_record r join vehicle v on v.id = r.vehicle_id where r.id = $1",
    )
    .bind(id)
    .fetch_one(conn)
    .await?)
}
