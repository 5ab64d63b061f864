//! The traffic_violation table: the list (its filter as one `filtered`
//! that list, count, totals and export share; newest violation first from
//! the `traffic_violation_*_idx` indexes), one violation, the upsert by
//! decision number with the responsible driver found at the violation's
//! time, the state moves and the assignment, each with its operation-log
//! row.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{Incoming, Source, State};
use crate::context::Actor;

const SELECT: &str = "select t.id, t.org_id, o.name as org_name, t.vehicle_id, t.plate_number, \
     v.vin, t.decision_no, t.violation_time, t.address, t.lng, t.lat, t.city_code, \
     t.offence_code, t.description, t.fine_fen, t.penalty_points, t.authority, t.source, \
     t.driver_id, t.driver_name, t.driver_assigned, t.state, t.handled_by_name, t.handled_at, \
     t.paid_by_name, t.paid_at, t.receipts, t.remark, t.synced_at, t.created_at \
     from traffic_violation t join vehicle v on v.id = t.vehicle_id \
     left join org_unit o on o.id = t.org_id";

/// The list's totals; the vehicle joined only for a VIN filter.
const TOTALS: &str = "select count(*), coalesce(sum(t.fine_fen), 0)::bigint, \
     coalesce(sum(t.penalty_points), 0)::bigint from traffic_violation t";
const TOTALS_BY_VIN: &str = "select count(*), coalesce(sum(t.fine_fen), 0)::bigint, \
     coalesce(sum(t.penalty_points), 0)::bigint from traffic_violation t \
     join vehicle v on v.id = t.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct ViolationRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub decision_no: String,
    pub violation_time: DateTime<Utc>,
    pub address: String,
    pub lng: Option<f64>,
    pub lat: Option<f64>,
    pub city_code: String,
    pub offence_code: String,
    pub description: String,
    pub fine_fen: i64,
    pub penalty_points: i32,
    pub authority: String,
    pub source: i16,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub driver_assigned: bool,
    pub state: i16,
    pub handled_by_name: String,
    pub handled_at: Option<DateTime<Utc>>,
    pub paid_by_name: String,
    pub paid_at: Option<DateTime<Utc>>,
    pub receipts: serde_json::Value,
    pub remark: String,
    pub synced_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
}

impl ViolationRow {
    pub fn state(&self) -> Result<State, ServiceError> {
        known(self.state)
    }
}

/// A checked list filter.
#[derive(Debug, Clone, Default)]
pub struct ViolationQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub driver_id: Option<Uuid>,
    pub states: Vec<i16>,
    pub time: TimeRange,
    pub city_code: Option<String>,
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "t.enterprise_id", actor.enterprise_id);
    // A violation is its vehicle's: reach by organisation only.
    actor
        .reach
        .push_condition(f.scope(), "t.org_id", "null::uuid");
    f
}

/// The list's filter under the caller's reach; list, totals and export share it.
fn filtered<'a>(select: &str, actor: &Actor, q: &ViolationQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("t.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("t.org_id", q.org_ids.clone())
        .equals("t.driver_id", q.driver_id)
        .any_of("t.state", q.states.clone())
        .equals("t.city_code", q.city_code.clone())
        .within("t.violation_time", q.time);
    f
}

/// A violation's business type in the operation log.
pub const BUSINESS_TYPE: i16 = pb::BusinessType::Violation as i16;

/// The list's order: newest violation first.
struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "t.violation_time desc, t.id desc"
    }
}

/// The filter's count, fines and points.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Totals {
    pub count: i64,
    pub fine_fen: i64,
    pub points: i64,
}

/// One page of the list and the filter's totals.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ViolationQuery,
    paging: Paging,
) -> Result<(Vec<ViolationRow>, Totals), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let totals = totals(conn, actor, q).await?;
    Ok((rows, totals))
}

pub async fn totals(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ViolationQuery,
) -> Result<Totals, ServiceError> {
    let select = if q.vins.is_empty() {
        TOTALS
    } else {
        TOTALS_BY_VIN
    };
    let mut qb = filtered(select, actor, q).finish();
    let (count, fine_fen, points): (i64, i64, i64) = qb.build_query_as().fetch_one(conn).await?;
    Ok(Totals {
        count,
        fine_fen,
        points,
    })
}

/// An export's keyset page: the next `limit` after `cursor`, newest first.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &ViolationQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<ViolationRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, q).keyset("t.violation_time", "t.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One violation the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<ViolationRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("t.id", Some(id));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of t");
    }
    let row: Option<ViolationRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

/// The query of the driver responsible for vehicle `vehicle` of enterprise
/// `enterprise` at `at` (SQL expressions): the one whose driver binding was
/// valid then, while a usage record of the vehicle was valid then too
/// (active or ended, started by `at`, not ended before it).
fn responsible_sql(enterprise: &str, vehicle: &str, at: &str) -> String {
    format!(
        "select b.target_id, b.target_name from vehicle_binding b \
         where b.enterprise_id = {enterprise} and b.vehicle_id = {vehicle} and b.kind = {kind} \
           and b.bound_at <= {at} and (b.unbound_at is null or b.unbound_at > {at}) \
           and exists (select 1 from usage_record u \
             where u.enterprise_id = {enterprise} and u.vehicle_id = {vehicle} \
               and u.state in (2, 3) and u.start_time <= {at} \
               and (u.ended_at is null or u.ended_at > {at})) \
         order by b.bound_at desc limit 1",
        kind = pb::BindingKind::Driver as i16
    )
}

/// The driver responsible for `vehicle` at `at` ([`responsible_sql`]).
pub async fn responsible(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    at: DateTime<Utc>,
) -> Result<Option<(Uuid, String)>, ServiceError> {
    let sql = responsible_sql("$1", "$2", "$3");
    let row: Option<(String, String)> = sqlx::query_as(&sql)
        .bind(enterprise)
        .bind(vehicle)
        .bind(at)
        .fetch_optional(conn)
        .await?;
    Ok(row.and_then(|(id, name)| Uuid::parse_str(&id).ok().map(|id| (id, name))))
}

/// How a violation's first log row says it came.
fn stored_remark(source: Source) -> &'static str {
    match source {
        Source::Fetched => "从交管部门获取",
        Source::Imported => "导入",
    }
}

/// Stores many new records at once ((vehicle, organisation, record) each),
/// each with the driver found at its time and its log row; a decision
/// number already stored is left as it is. Answers how many were new. For
/// loads where a statement per record is too slow (the demo's year).
pub async fn insert_many(
    conn: &mut PgConnection,
    actor: &Actor,
    rows: &[(Uuid, Uuid, Incoming)],
    source: Source,
) -> Result<u64, ServiceError> {
    let texts = |f: fn(&Incoming) -> &str| -> Vec<String> {
        rows.iter().map(|r| f(&r.2).to_owned()).collect()
    };
    let vehicles: Vec<Uuid> = rows.iter().map(|r| r.0).collect();
    let orgs: Vec<Uuid> = rows.iter().map(|r| r.1).collect();
    let times: Vec<DateTime<Utc>> = rows.iter().map(|r| r.2.time).collect();
    let lngs: Vec<Option<f64>> = rows.iter().map(|r| r.2.point.map(|p| p.0)).collect();
    let lats: Vec<Option<f64>> = rows.iter().map(|r| r.2.point.map(|p| p.1)).collect();
    let fines: Vec<i64> = rows.iter().map(|r| r.2.fine_fen).collect();
    let points: Vec<i32> = rows.iter().map(|r| r.2.points).collect();
    let sql = format!(
        "with r as (select * from unnest($2::uuid[], $3::uuid[], $4::text[], $5::text[], \
           $6::timestamptz[], $7::text[], $8::float8[], $9::float8[], $10::text[], $11::text[], \
           $12::text[], $13::int8[], $14::int4[], $15::text[]) as r(vehicle_id, org_id, plate, \
           decision_no, at, address, lng, lat, city_code, offence_code, description, fine_fen, \
           points, authority)), \
         ins as (insert into traffic_violation (id, enterprise_id, org_id, vehicle_id, \
           plate_number, decision_no, violation_time, address, lng, lat, city_code, offence_code, \
           description, fine_fen, penalty_points, authority, source, driver_id, driver_name) \
           select gen_random_uuid(), $1, r.org_id, r.vehicle_id, r.plate, r.decision_no, r.at, \
             r.address, r.lng, r.lat, r.city_code, r.offence_code, r.description, r.fine_fen, \
             r.points, r.authority, $16, d.target_id::uuid, coalesce(d.target_name, '') \
           from r left join lateral ({}) d on true \
           on conflict on constraint traffic_violation_decision_key do nothing \
           returning id, decision_no, driver_name) \
         insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
           operator_id, operator_name) \
         select gen_random_uuid(), $1, $17, ins.id, $18 || '违章记录（决定书编号' \
           || ins.decision_no || '），责任司机：' || coalesce(nullif(ins.driver_name, ''), '无'), \
           $19, $20 from ins",
        responsible_sql("$1", "r.vehicle_id", "r.at")
    );
    let done = sqlx::query(&sql)
        .bind(actor.enterprise_id)
        .bind(&vehicles)
        .bind(&orgs)
        .bind(texts(|r| r.plate.as_str()))
        .bind(texts(|r| r.decision_no.as_str()))
        .bind(&times)
        .bind(texts(|r| r.address.as_str()))
        .bind(&lngs)
        .bind(&lats)
        .bind(texts(|r| r.city_code.as_str()))
        .bind(texts(|r| r.offence_code.as_str()))
        .bind(texts(|r| r.description.as_str()))
        .bind(&fines)
        .bind(&points)
        .bind(texts(|r| r.authority.as_str()))
        .bind(i16::from(source))
        .bind(BUSINESS_TYPE)
        .bind(stored_remark(source))
        .bind(actor.user_id)
        .bind(&actor.name)
        .execute(conn)
        .await?;
    Ok(done.rows_affected())
}

/// A driver of the enterprise: (id, name).
pub async fn driver(
    conn: &mut PgConnection,
    enterprise: Uuid,
    id: Uuid,
) -> Result<Option<(Uuid, String)>, ServiceError> {
    Ok(
        sqlx::query_as("select id, name from driver where enterprise_id = $1 and id = $2")
            .bind(enterprise)
            .bind(id)
            .fetch_optional(conn)
            .await?,
    )
}

/// Stores `record` of `vehicle` (in `org`) by its decision number: a new
/// one with the driver found at its time, a known one refreshed in the
/// authority's fields only. Answers whether it was new.
pub async fn upsert(
    conn: &mut PgConnection,
    actor: &Actor,
    (vehicle, org): (Uuid, Uuid),
    record: &Incoming,
    source: Source,
) -> Result<bool, ServiceError> {
    let driver = responsible(conn, actor.enterprise_id, vehicle, record.time).await?;
    let id = Uuid::new_v4();
    let (inserted_id, inserted): (Uuid, bool) = sqlx::query_as(
        "insert into traffic_violation (id, enterprise_id, org_id, vehicle_id, plate_number, \
           decision_no, violation_time, address, lng, lat, city_code, offence_code, description, \
           fine_fen, penalty_points, authority, source, driver_id, driver_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
           $18, $19) \
         on conflict on constraint traffic_violation_decision_key do update set \
           address = excluded.address, lng = excluded.lng, lat = excluded.lat, \
           city_code = excluded.city_code, offence_code = excluded.offence_code, \
           description = excluded.description, fine_fen = excluded.fine_fen, \
           penalty_points = excluded.penalty_points, authority = excluded.authority, \
           synced_at = now() \
         returning id, (xmax = 0)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(org)
    .bind(vehicle)
    .bind(&record.plate)
    .bind(&record.decision_no)
    .bind(record.time)
    .bind(&record.address)
    .bind(record.point.map(|p| p.0))
    .bind(record.point.map(|p| p.1))
    .bind(&record.city_code)
    .bind(&record.offence_code)
    .bind(&record.description)
    .bind(record.fine_fen)
    .bind(record.points)
    .bind(&record.authority)
    .bind(i16::from(source))
    .bind(driver.as_ref().map(|d| d.0))
    .bind(driver.as_ref().map_or("", |d| d.1.as_str()))
    .fetch_one(&mut *conn)
    .await?;
    if inserted {
        let whom = driver.map_or_else(|| "无".to_owned(), |d| d.1);
        let how = stored_remark(source);
        log(
            conn,
            actor,
            inserted_id,
            &format!(
                "{how}违章记录（决定书编号{}），责任司机：{whom}",
                record.decision_no
            ),
        )
        .await?;
    }
    Ok(inserted)
}

/// Moves `row` to HANDLED by `actor` (the caller checked the move).
pub async fn handled(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &ViolationRow,
    receipts: &serde_json::Value,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update traffic_violation set state = $2, handled_by = $3, handled_by_name = $4, \
           handled_at = now(), receipts = $5, remark = case when $6 = '' then remark else $6 end \
         where id = $1",
    )
    .bind(row.id)
    .bind(i16::from(State::Handled))
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(receipts)
    .bind(remark)
    .execute(&mut *conn)
    .await?;
    let mut text = "状态：未处理 → 已处理".to_owned();
    if !remark.is_empty() {
        text.push_str(&format!("；备注：{remark}"));
    }
    log(conn, actor, row.id, &text).await
}

/// Moves `row` to PAID by `actor` (the caller checked the move).
pub async fn paid(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &ViolationRow,
    receipts: &serde_json::Value,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update traffic_violation set state = $2, paid_by = $3, paid_by_name = $4, \
           paid_at = now(), receipts = $5, remark = case when $6 = '' then remark else $6 end \
         where id = $1",
    )
    .bind(row.id)
    .bind(i16::from(State::Paid))
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(receipts)
    .bind(remark)
    .execute(&mut *conn)
    .await?;
    let mut text = format!(
        "状态：已处理 → 已缴款（罚款{}）",
        fleetdesk_assets::oplog::domain::yuan(row.fine_fen)
    );
    if !remark.is_empty() {
        text.push_str(&format!("；备注：{remark}"));
    }
    log(conn, actor, row.id, &text).await
}

/// Holds `driver` responsible for `row`.
pub async fn assign(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &ViolationRow,
    (driver_id, driver_name): (Uuid, &str),
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update traffic_violation set driver_id = $2, driver_name = $3, driver_assigned = true, \
           remark = case when $4 = '' then remark else $4 end where id = $1",
    )
    .bind(row.id)
    .bind(driver_id)
    .bind(driver_name)
    .bind(remark)
    .execute(&mut *conn)
    .await?;
    let before = if row.driver_name.is_empty() {
        "无"
    } else {
        row.driver_name.as_str()
    };
    let mut text = format!("责任司机：{before} → {driver_name}");
    if !remark.is_empty() {
        text.push_str(&format!("；备注：{remark}"));
    }
    log(conn, actor, row.id, &text).await
}

/// Writes an operation-log row about violation `id` (business type VIOLATION).
async fn log(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(BUSINESS_TYPE)
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

/// Violation `id`'s operation log, newest first.
pub async fn logs(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<Vec<(String, String, DateTime<Utc>)>, ServiceError> {
    Ok(sqlx::query_as(
        "select remark, operator_name, created_at from operation_log \
         where enterprise_id = $1 and business_id = $2 and business_type = $3 \
         order by created_at desc, id desc limit $4",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(BUSINESS_TYPE)
    .bind(LOG_LIMIT)
    .fetch_all(conn)
    .await?)
}
