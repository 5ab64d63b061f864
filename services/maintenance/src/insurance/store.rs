//! The insurance_policy table: the list (its filter as one `filtered` that
//! list, count and export share; latest end first from the
//! `insurance_policy_*_idx` indexes, the expiry states as end-time ranges),
//! one policy, recording and correcting one with its operation-log row.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use fleetdesk_kit::{ResultExt, ServiceError};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx::types::Json;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{Coverage, Document, EXPIRING_DAYS, Expiry, Kind, Policy, policy_no_taken};
use crate::context::Actor;
use crate::oplog;
use fleetdesk_assets::oplog::Changes;
use fleetdesk_assets::oplog::domain::{date, yuan};

const SELECT: &str = "select t.id, t.org_id, o.name as org_name, t.vehicle_id, t.plate_number, \
     v.vin, t.kind, t.insurer, t.policy_no, t.insured_name, t.start_time, t.end_time, \
     t.premium_fen, t.coverages, t.documents, t.created_by, t.created_by_name, \
     t.updated_by_name, t.created_at, t.updated_at \
     from insurance_policy t join vehicle v on v.id = t.vehicle_id \
     left join org_unit o on o.id = t.org_id";

/// The count; the vehicle joined only for a VIN filter.
const COUNT: &str = "select count(*) from insurance_policy t";
const COUNT_BY_VIN: &str =
    "select count(*) from insurance_policy t join vehicle v on v.id = t.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct PolicyRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub kind: i16,
    pub insurer: String,
    pub policy_no: String,
    pub insured_name: String,
    pub start_time: DateTime<Utc>,
    pub end_time: DateTime<Utc>,
    pub premium_fen: i64,
    pub coverages: Json<Vec<Coverage>>,
    pub documents: Json<Vec<Document>>,
    pub created_by: Option<Uuid>,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked list filter.
#[derive(Debug, Clone)]
pub struct PolicyQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    pub insurers: Vec<String>,
    pub policy_no: String,
    pub expiry: Vec<Expiry>,
    pub end: TimeRange,
    /// The moment the expiry states are read at.
    pub now: DateTime<Utc>,
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "t.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "t.org_id", "t.created_by");
    f
}

/// The expiry states as one condition over the period (each an end-time
/// range, so the end index serves it).
fn push_expiry(f: &mut Filters<'_>, states: &[Expiry], now: DateTime<Utc>) {
    if states.is_empty() {
        return;
    }
    let soon = now + Duration::days(EXPIRING_DAYS);
    let qb = f.and();
    qb.push("(");
    for (i, state) in states.iter().enumerate() {
        if i > 0 {
            qb.push(" or ");
        }
        match state {
            Expiry::Expired => {
                qb.push("t.end_time <= ").push_bind(now);
            }
            Expiry::Pending => {
                qb.push("(t.end_time > ")
                    .push_bind(now)
                    .push(" and t.start_time > ")
                    .push_bind(now)
                    .push(")");
            }
            Expiry::Expiring => {
                qb.push("(t.end_time > ")
                    .push_bind(now)
                    .push(" and t.end_time <= ")
                    .push_bind(soon)
                    .push(" and t.start_time <= ")
                    .push_bind(now)
                    .push(")");
            }
            Expiry::Active => {
                qb.push("(t.end_time > ")
                    .push_bind(soon)
                    .push(" and t.start_time <= ")
                    .push_bind(now)
                    .push(")");
            }
        }
    }
    qb.push(")");
}

/// The list's filter under the caller's reach; list, count and export share it.
fn filtered<'a>(select: &str, actor: &Actor, q: &PolicyQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.any_of("t.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("t.org_id", q.org_ids.clone())
        .any_of("t.kind", q.kinds.clone())
        .any_of("t.insurer", q.insurers.clone())
        .equals(
            "t.policy_no",
            (!q.policy_no.is_empty()).then(|| q.policy_no.clone()),
        )
        .within("t.end_time", q.end);
    push_expiry(&mut f, &q.expiry, q.now);
    f
}

/// A policy's business type in the operation log.
pub const BUSINESS_TYPE: i16 = pb::BusinessType::InsurancePolicy as i16;

/// The list's order: latest end first.
struct LatestEnd;

impl Sort for LatestEnd {
    fn order_by(&self) -> &'static str {
        "t.end_time desc, t.id desc"
    }
}

/// One page of the list and the filter's count.
pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &PolicyQuery,
    paging: Paging,
) -> Result<(Vec<PolicyRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&LatestEnd, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    Ok((rows, count(conn, actor, q).await?))
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &PolicyQuery,
) -> Result<i64, ServiceError> {
    let select = if q.vins.is_empty() {
        COUNT
    } else {
        COUNT_BY_VIN
    };
    let mut qb = filtered(select, actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// An export's keyset page: the next `limit` after `cursor`, latest end first.
pub async fn after(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &PolicyQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<PolicyRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, q).keyset("t.end_time", "t.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// One policy the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<PolicyRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("t.id", Some(id));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of t");
    }
    let row: Option<PolicyRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

fn conflict(name: &str) -> Option<ServiceError> {
    (name == "insurance_policy_no_key").then(policy_no_taken)
}

/// Records `policy` of `vehicle` (in `org`); answers its id.
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    (vehicle, org): (Uuid, Uuid),
    policy: &Policy,
) -> Result<Uuid, ServiceError> {
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into insurance_policy (id, enterprise_id, org_id, vehicle_id, plate_number, kind, \
           insurer, policy_no, insured_name, start_time, end_time, premium_fen, coverages, \
           documents, created_by, created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(org)
    .bind(vehicle)
    .bind(&policy.plate)
    .bind(i16::from(policy.kind))
    .bind(&policy.insurer)
    .bind(&policy.policy_no)
    .bind(&policy.insured_name)
    .bind(policy.start)
    .bind(policy.end)
    .bind(policy.premium_fen)
    .bind(Json(&policy.coverages))
    .bind(Json(&policy.documents))
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await
    .on_constraint(conflict)?;
    log(
        conn,
        actor,
        id,
        &format!(
            "录入保单：{} {}（保单号{}），{}至{}，保费{}",
            policy.insurer,
            policy.kind.label(),
            policy.policy_no,
            date(Some(policy.start)),
            date(Some(policy.end)),
            yuan(policy.premium_fen)
        ),
    )
    .await?;
    Ok(id)
}

/// Replaces `row`'s recorded fields by `policy` (of `vehicle` in `org`),
/// logging what changed.
pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    row: &PolicyRow,
    (vehicle, org): (Uuid, Uuid),
    policy: &Policy,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update insurance_policy set org_id = $2, vehicle_id = $3, plate_number = $4, kind = $5, \
           insurer = $6, policy_no = $7, insured_name = $8, start_time = $9, end_time = $10, \
           premium_fen = $11, coverages = $12, documents = $13, updated_by_name = $14 \
         where id = $1",
    )
    .bind(row.id)
    .bind(org)
    .bind(vehicle)
    .bind(&policy.plate)
    .bind(i16::from(policy.kind))
    .bind(&policy.insurer)
    .bind(&policy.policy_no)
    .bind(&policy.insured_name)
    .bind(policy.start)
    .bind(policy.end)
    .bind(policy.premium_fen)
    .bind(Json(&policy.coverages))
    .bind(Json(&policy.documents))
    .bind(&actor.name)
    .execute(&mut *conn)
    .await
    .on_constraint(conflict)?;
    let changes = changes(row, policy);
    let remark = if changes.is_empty() {
        "保存保单，未修改内容".to_owned()
    } else {
        format!("修改保单：{}", changes.finish())
    };
    log(conn, actor, row.id, &remark).await
}

/// What correcting `row` to `policy` changes, field by field.
fn changes(row: &PolicyRow, policy: &Policy) -> Changes {
    let kind = Kind::try_from(row.kind).map_or("", Kind::label);
    let mut changes = Changes::new()
        .text("车牌号", &row.plate_number, &policy.plate)
        .text("险种", kind, policy.kind.label())
        .text("保险公司", &row.insurer, &policy.insurer)
        .text("保单号", &row.policy_no, &policy.policy_no)
        .text("被保险人", &row.insured_name, &policy.insured_name)
        .date("保险起期", Some(row.start_time), Some(policy.start))
        .date("保险止期", Some(row.end_time), Some(policy.end))
        .money("保费", Some(row.premium_fen), Some(policy.premium_fen));
    if row.coverages.0 != policy.coverages {
        changes = changes.note("险别已修改");
    }
    if row.documents.0 != policy.documents {
        changes = changes.number(
            "保单文件数",
            i64::try_from(row.documents.0.len()).ok(),
            i64::try_from(policy.documents.len()).ok(),
        );
    }
    changes
}

/// Writes an operation-log row about policy `id` (business type INSURANCE_POLICY).
async fn log(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    remark: &str,
) -> Result<(), ServiceError> {
    oplog::record(conn, actor, BUSINESS_TYPE, id, remark).await
}
