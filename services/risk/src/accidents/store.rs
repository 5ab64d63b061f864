//! The accident table, its list filter and its operation-log rows
//! (`operation_log`, business type ACCIDENT).

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{self, AccidentDraft, Status};
use crate::context::Actor;
use crate::lookup::DriverRef;

const SELECT: &str = "select a.id, a.org_id, o.name as org_name, a.created_by, a.case_no, \
     a.vehicle_id, v.plate_number, v.vin, a.driver_id, a.driver_name, a.accident_time, a.address, \
     a.area, a.lng, a.lat, a.description, a.severity, a.liability, a.status, a.injured_count, \
     a.fatality_count, a.estimated_loss_fen, a.assessed_loss_fen, a.fixed_loss_code, \
     a.insurance_policy_id, a.claim_no, a.claim_paid_fen, a.repair_order_id, a.images, \
     a.documents, a.close_time, a.remark, a.created_by_name, a.updated_by_name, a.created_at, \
     a.updated_at \
     from accident a join vehicle v on v.id = a.vehicle_id \
     left join org_unit o on o.id = a.org_id";

const COUNT: &str = "select count(*) from accident a join vehicle v on v.id = a.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct AccidentRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub created_by: Option<Uuid>,
    pub case_no: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub driver_id: Option<Uuid>,
    pub driver_name: String,
    pub accident_time: DateTime<Utc>,
    pub address: String,
    pub area: serde_json::Value,
    pub lng: Option<f64>,
    pub lat: Option<f64>,
    pub description: String,
    pub severity: i16,
    pub liability: i16,
    pub status: i16,
    pub injured_count: i32,
    pub fatality_count: i32,
    pub estimated_loss_fen: i64,
    pub assessed_loss_fen: i64,
    pub fixed_loss_code: Option<String>,
    pub insurance_policy_id: String,
    pub claim_no: String,
    pub claim_paid_fen: i64,
    pub repair_order_id: String,
    pub images: serde_json::Value,
    pub documents: serde_json::Value,
    pub close_time: Option<DateTime<Utc>>,
    pub remark: String,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked list filter.
#[derive(Debug, Clone, Default)]
pub struct AccidentQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub driver: Option<Uuid>,
    pub case_no: Option<String>,
    pub statuses: Vec<i16>,
    pub severities: Vec<i16>,
    pub accident_time: TimeRange,
}

/// Newest accident first.
struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "a.accident_time desc, a.id desc"
    }
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "a.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "a.org_id", "a.created_by");
    f
}

fn filtered<'a>(select: &str, actor: &Actor, q: &AccidentQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("a.org_id", q.org_ids.clone())
        .equals("a.driver_id", q.driver)
        .equals("a.case_no", q.case_no.clone())
        .any_of("a.status", q.statuses.clone())
        .any_of("a.severity", q.severities.clone())
        .within("a.accident_time", q.accident_time);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AccidentQuery,
    paging: Paging,
) -> Result<(Vec<AccidentRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = filtered(COUNT, actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// How GetAccident names the accident.
#[derive(Debug, Clone)]
pub enum Key {
    Id(Uuid),
    FixedLossCode(String),
}

/// One accident the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    key: &Key,
    for_update: bool,
) -> Result<AccidentRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    match key {
        Key::Id(id) => f.equals("a.id", Some(*id)),
        Key::FixedLossCode(code) => f.equals("a.fixed_loss_code", Some(code.clone())),
    };
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of a");
    }
    let row: Option<AccidentRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

fn conflict(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| match name {
        "accident_fixed_loss_code_key" => Some(domain::fixed_loss_code_taken()),
        _ => None,
    })
}

/// What a write stores besides the draft.
#[derive(Debug, Clone)]
pub struct Placement<'a> {
    /// The vehicle's organisation.
    pub org_id: Uuid,
    pub driver: Option<&'a DriverRef>,
    pub status: Status,
}

/// Writes an accident: a new one with its case number, or an existing
/// one's editable fields (its case number and creator kept); moving to
/// CLOSED sets the close time once.
pub async fn save(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    case_no: &str,
    at: &Placement<'_>,
    d: &AccidentDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into accident (id, enterprise_id, org_id, created_by, case_no, vehicle_id, \
           driver_id, driver_name, accident_time, address, area, lng, lat, description, severity, \
           liability, status, injured_count, fatality_count, estimated_loss_fen, \
           assessed_loss_fen, fixed_loss_code, insurance_policy_id, claim_no, claim_paid_fen, \
           repair_order_id, images, documents, remark, close_time, created_by_name, \
           updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
           $18, $19, $20, $21, $22, $23, $24, $25, $26, $27, $28, $29, \
           case when $17 = 5 then now() end, $30, $30) \
         on conflict (id) do update set org_id = excluded.org_id, \
           vehicle_id = excluded.vehicle_id, driver_id = excluded.driver_id, \
           driver_name = excluded.driver_name, accident_time = excluded.accident_time, \
           address = excluded.address, area = excluded.area, lng = excluded.lng, \
           lat = excluded.lat, description = excluded.description, \
           severity = excluded.severity, liability = excluded.liability, \
           status = excluded.status, injured_count = excluded.injured_count, \
           fatality_count = excluded.fatality_count, \
           estimated_loss_fen = excluded.estimated_loss_fen, \
           assessed_loss_fen = excluded.assessed_loss_fen, \
           fixed_loss_code = excluded.fixed_loss_code, \
           insurance_policy_id = excluded.insurance_policy_id, claim_no = excluded.claim_no, \
           claim_paid_fen = excluded.claim_paid_fen, \
           repair_order_id = excluded.repair_order_id, images = excluded.images, \
           documents = excluded.documents, remark = excluded.remark, \
           updated_by_name = excluded.updated_by_name, \
           close_time = case when excluded.status = 5 \
             then coalesce(accident.close_time, now()) end",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(at.org_id)
    .bind(actor.user_id)
    .bind(case_no)
    .bind(d.vehicle_id)
    .bind(at.driver.map(|x| x.id))
    .bind(at.driver.map(|x| x.name.as_str()).unwrap_or_default())
    .bind(d.accident_time)
    .bind(&d.address)
    .bind(&d.area)
    .bind(d.point.map(|p| p.0))
    .bind(d.point.map(|p| p.1))
    .bind(&d.description)
    .bind(i16::from(d.severity))
    .bind(i16::from(d.liability))
    .bind(i16::from(at.status))
    .bind(d.injured_count)
    .bind(d.fatality_count)
    .bind(d.estimated_loss_fen)
    .bind(d.assessed_loss_fen)
    .bind(&d.fixed_loss_code)
    .bind(&d.insurance_policy_id)
    .bind(&d.claim_no)
    .bind(d.claim_paid_fen)
    .bind(&d.repair_order_id)
    .bind(&d.images)
    .bind(&d.documents)
    .bind(&d.remark)
    .bind(&actor.name)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// The operation log's business type of accidents.
fn business_type() -> i16 {
    pb::BusinessType::Accident as i16
}

/// Writes one operation-log row for `accident` (nothing when `remark` is empty).
pub async fn log(
    conn: &mut PgConnection,
    actor: &Actor,
    accident: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    if remark.trim().is_empty() {
        return Ok(());
    }
    sqlx::query(
        "insert into operation_log (id, enterprise_id, business_type, business_id, remark, \
         operator_id, operator_name) values ($1, $2, $3, $4, $5, $6, $7)",
    )
    .bind(Uuid::new_v4())
    .bind(actor.enterprise_id)
    .bind(business_type())
    .bind(accident)
    .bind(remark)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct LogRow {
    pub remark: String,
    pub operator_name: String,
    pub created_at: DateTime<Utc>,
}

/// Most log rows a detail shows.
const LOG_LIMIT: i64 = 200;

/// The accident's log, newest first.
pub async fn logs(
    conn: &mut PgConnection,
    actor: &Actor,
    accident: Uuid,
) -> Result<Vec<LogRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select remark, operator_name, created_at from operation_log \
         where enterprise_id = $1 and business_id = $2 and business_type = $3 \
         order by created_at desc, id desc limit $4",
    )
    .bind(actor.enterprise_id)
    .bind(accident)
    .bind(business_type())
    .bind(LOG_LIMIT)
    .fetch_all(conn)
    .await?)
}
