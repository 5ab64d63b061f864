//! Queries of risk alarms, their activity log and the alarm rules.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{Activity, AlarmState, RuleDraft, RuleKind};
use crate::context::Actor;

// --- Alarms ---

#[derive(Debug, Clone, FromRow)]
pub struct AlarmRow {
    pub id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub org_id: Option<Uuid>,
    pub org_name: Option<String>,
    pub rule_id: Uuid,
    pub rule_name: Option<String>,
    pub condition: i16,
    pub kind: i16,
    pub level: i16,
    pub started_at: DateTime<Utc>,
    pub ended_at: Option<DateTime<Utc>>,
    pub last_seen_at: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub peak_speed_dkmh: i32,
    pub status: i16,
    pub assignee_id: Option<Uuid>,
    pub assignee_name: String,
    pub handle_method: Option<i16>,
    pub handle_remark: String,
    pub handler_name: String,
    pub handled_at: Option<DateTime<Utc>>,
    /// An active-safety alarm's identifier.
    pub alarm_key: Option<String>,
}

#[derive(Debug, Clone, Default)]
pub struct AlarmQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    pub levels: Vec<i16>,
    pub statuses: Vec<i16>,
    pub assignee: Option<Uuid>,
    /// Both ends set (checked by the handler).
    pub started: TimeRange,
}

const SELECT: &str = "select a.id, a.vehicle_id, v.plate_number, v.vin, a.org_id, o.name as org_name, \
     a.rule_id, r.name as rule_name, a.condition, a.kind, a.level, a.started_at, a.ended_at, \
     a.last_seen_at, a.lat, a.lng, a.peak_speed_dkmh, a.status, a.assignee_id, a.assignee_name, \
     a.handle_method, a.handle_remark, a.handler_name, a.handled_at, a.alarm_key \
     from risk_alarm a join vehicle v on v.id = a.vehicle_id \
     left join org_unit o on o.id = a.org_id left join alarm_rule r on r.id = a.rule_id";

const COUNT: &str = "select count(*) from risk_alarm a join vehicle v on v.id = a.vehicle_id";

struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "a.started_at desc, a.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, q: &AlarmQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "a.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = a.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.plate_number", q.plates.clone())
        .any_of("v.vin", q.vins.clone())
        .any_of("a.org_id", q.org_ids.clone())
        .any_of("a.kind", q.kinds.clone())
        .any_of("a.level", q.levels.clone())
        .any_of("a.status", q.statuses.clone())
        .equals("a.assignee_id", q.assignee)
        .within("a.started_at", q.started);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AlarmQuery,
    paging: Paging,
) -> Result<(Vec<AlarmRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, q).await?;
    Ok((rows, total))
}

/// How many alarms the list of `q` has.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AlarmQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered(COUNT, actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// An export page: the list's order (newest first) after `cursor`.
pub async fn page(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &AlarmQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<AlarmRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, q).keyset("a.started_at", "a.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Alarms by id within the caller's reach, locked when `for_update` (in id
/// order: two batches lock the same alarms in the same order).
pub async fn get_many(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
    for_update: bool,
) -> Result<Vec<AlarmRow>, ServiceError> {
    let mut f = Filters::new(SELECT, "a.enterprise_id", actor.enterprise_id);
    f.scope().push("v.enterprise_id = a.enterprise_id");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("a.id", ids.to_vec());
    let mut qb = f.finish();
    qb.push(" order by a.id");
    if for_update {
        qb.push(" for update of a");
    }
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// The terminal phones (as the device edge subscribes them) of `vehicles`
/// that have a terminal.
pub async fn terminal_phones(
    conn: &mut PgConnection,
    vehicles: &[Uuid],
) -> Result<std::collections::HashMap<Uuid, String>, ServiceError> {
    if vehicles.is_empty() {
        return Ok(std::collections::HashMap::new());
    }
    let rows: Vec<(Uuid, Option<String>)> =
        sqlx::query_as("select id, terminal_sim from vehicle where id = any($1)")
            .bind(vehicles)
            .fetch_all(conn)
            .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, sim)| {
            let phone = crate::directory::domain::phone(sim.as_deref()?);
            (!phone.is_empty()).then_some((id, phone))
        })
        .collect())
}

/// An operator's move of one alarm.
#[derive(Debug, Clone)]
pub struct Move {
    pub to: AlarmState,
    pub action: Activity,
    pub assignee: Option<(Uuid, String)>,
    pub handle_method: Option<i16>,
    pub remark: String,
    pub attachments: serde_json::Value,
}

/// Applies `m` to locked alarms and logs one activity entry each.
pub async fn apply_move(
    conn: &mut PgConnection,
    actor: &Actor,
    alarms: &[AlarmRow],
    m: &Move,
) -> Result<(), ServiceError> {
    let ids: Vec<Uuid> = alarms.iter().map(|a| a.id).collect();
    let closing = matches!(m.to, AlarmState::Handled | AlarmState::FalseAlarm);
    sqlx::query(
        "update risk_alarm set status = $2, \
           assignee_id = coalesce($3, assignee_id), \
           assignee_name = coalesce($4, assignee_name), \
           handle_method = case when $5 then $6 else handle_method end, \
           handle_remark = case when $5 then $7 else handle_remark end, \
           handler_name = case when $5 then $8 else handler_name end, \
           handled_at = case when $5 then now() else handled_at end \
         where id = any($1)",
    )
    .bind(&ids)
    .bind(i16::from(m.to))
    .bind(m.assignee.as_ref().map(|a| a.0))
    .bind(m.assignee.as_ref().map(|a| a.1.clone()))
    .bind(closing)
    .bind(m.handle_method)
    .bind(&m.remark)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "insert into risk_alarm_activity (enterprise_id, alarm_id, action, from_status, \
           to_status, remark, attachments, actor_id, actor_name) \
         select $1, t.id, $3, t.from_status, $4, $5, $6, $7, $8 \
         from unnest($2::uuid[], $9::int2[]) t(id, from_status)",
    )
    .bind(actor.enterprise_id)
    .bind(&ids)
    .bind(i16::from(m.action))
    .bind(i16::from(m.to))
    .bind(&m.remark)
    .bind(&m.attachments)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(alarms.iter().map(|a| a.status).collect::<Vec<_>>())
    .execute(conn)
    .await?;
    Ok(())
}

/// Logs a comment, or a viewing (at most one per member and alarm an hour).
pub async fn log(
    conn: &mut PgConnection,
    actor: &Actor,
    alarm: Uuid,
    action: Activity,
    remark: &str,
    attachments: &serde_json::Value,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into risk_alarm_activity (enterprise_id, alarm_id, action, remark, attachments, \
           actor_id, actor_name) \
         select $1, $2, $3, $4, $5, $6, $7 \
         where $3 <> 5 or not exists (select 1 from risk_alarm_activity x where x.alarm_id = $2 \
           and x.action = 5 and x.actor_id is not distinct from $6 \
           and x.at > now() - interval '1 hour')",
    )
    .bind(actor.enterprise_id)
    .bind(alarm)
    .bind(i16::from(action))
    .bind(remark)
    .bind(attachments)
    .bind(actor.user_id)
    .bind(&actor.name)
    .execute(conn)
    .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct ActivityRow {
    pub action: i16,
    pub from_status: Option<i16>,
    pub to_status: Option<i16>,
    pub remark: String,
    pub attachments: serde_json::Value,
    pub actor_name: String,
    pub at: DateTime<Utc>,
}

pub async fn activities(
    conn: &mut PgConnection,
    alarm: Uuid,
) -> Result<Vec<ActivityRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select action, from_status, to_status, remark, attachments, actor_name, at \
         from risk_alarm_activity where alarm_id = $1 order by id",
    )
    .bind(alarm)
    .fetch_all(conn)
    .await?)
}

#[derive(Debug, Clone, FromRow)]
pub struct TrackRow {
    pub fix_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub speed_dkmh: i32,
}

/// The vehicle's fixes in `[from, to]`, at most 500 (evidence).
pub async fn track(
    conn: &mut PgConnection,
    vehicle: Uuid,
    from: DateTime<Utc>,
    to: DateTime<Utc>,
) -> Result<Vec<TrackRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select fix_time, lat, lng, speed_dkmh from position \
         where vehicle_id = $1 and fix_time between $2 and $3 order by fix_time limit 500",
    )
    .bind(vehicle)
    .bind(from)
    .bind(to)
    .fetch_all(conn)
    .await?)
}

// --- Rules ---

#[derive(Debug, Clone, FromRow)]
pub struct RuleRow {
    pub id: Uuid,
    pub name: String,
    pub level: i16,
    pub org_id: Option<Uuid>,
    pub org_name: Option<String>,
    pub enabled: bool,
    pub params: sqlx::types::Json<RuleKind>,
    pub quiet_minutes: i32,
    pub created_by: String,
    pub created_at: DateTime<Utc>,
    pub updated_by: String,
    pub updated_at: DateTime<Utc>,
}

const RULES: &str = "select r.id, r.name, r.level, r.org_id, o.name as org_name, r.enabled, \
     r.params, r.quiet_minutes, r.created_by, r.created_at, r.updated_by, r.updated_at \
     from alarm_rule r left join org_unit o on o.id = r.org_id \
     where r.enterprise_id = $1 and not r.deleted";

pub async fn rules(
    conn: &mut PgConnection,
    enterprise: Uuid,
) -> Result<Vec<RuleRow>, ServiceError> {
    Ok(
        sqlx::query_as(&format!("{RULES} order by r.kind, r.created_at, r.id"))
            .bind(enterprise)
            .fetch_all(conn)
            .await?,
    )
}

pub async fn rule(
    conn: &mut PgConnection,
    enterprise: Uuid,
    id: Uuid,
    for_update: bool,
) -> Result<RuleRow, ServiceError> {
    let lock = if for_update { " for update of r" } else { "" };
    let row: Option<RuleRow> = sqlx::query_as(&format!("{RULES} and r.id = $2{lock}"))
        .bind(enterprise)
        .bind(id)
        .fetch_optional(conn)
        .await?;
    row.ok_or_else(ServiceError::not_found)
}

fn snapshot(d: &RuleDraft) -> serde_json::Value {
    serde_json::json!({
        "name": d.name, "level": d.level, "orgId": d.org_id, "enabled": d.enabled,
        "params": d.kind, "quietMinutes": d.quiet_minutes,
    })
}

fn snapshot_of(r: &RuleRow) -> serde_json::Value {
    serde_json::json!({
        "name": r.name, "level": r.level, "orgId": r.org_id, "enabled": r.enabled,
        "params": r.params.0, "quietMinutes": r.quiet_minutes,
    })
}

/// Writes a rule (new when `id` has none) and its change-log entry.
pub async fn save_rule(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    before: Option<&RuleRow>,
    d: &RuleDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into alarm_rule (id, enterprise_id, name, kind, level, org_id, enabled, params, \
           quiet_minutes, created_by, updated_by) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $10) \
         on conflict (id) do update set name = excluded.name, kind = excluded.kind, \
           level = excluded.level, org_id = excluded.org_id, enabled = excluded.enabled, \
           params = excluded.params, quiet_minutes = excluded.quiet_minutes, \
           updated_by = excluded.updated_by, updated_at = now()",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(&d.name)
    .bind(i16::from(d.kind.code()))
    .bind(d.level)
    .bind(d.org_id)
    .bind(d.enabled)
    .bind(sqlx::types::Json(&d.kind))
    .bind(d.quiet_minutes)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    change(conn, actor, id, before.map(snapshot_of), Some(snapshot(d))).await
}

pub async fn delete_rule(
    conn: &mut PgConnection,
    actor: &Actor,
    before: &RuleRow,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update alarm_rule set deleted = true, updated_by = $2, updated_at = now() where id = $1",
    )
    .bind(before.id)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    change(conn, actor, before.id, Some(snapshot_of(before)), None).await
}

async fn change(
    conn: &mut PgConnection,
    actor: &Actor,
    rule: Uuid,
    before: Option<serde_json::Value>,
    after: Option<serde_json::Value>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into alarm_rule_change (enterprise_id, rule_id, operator_name, before, after) \
         values ($1, $2, $3, $4, $5)",
    )
    .bind(actor.enterprise_id)
    .bind(rule)
    .bind(&actor.name)
    .bind(before)
    .bind(after)
    .execute(conn)
    .await?;
    Ok(())
}

/// Whether the organisation exists in the caller's tenant (replica).
pub async fn org_exists(
    conn: &mut PgConnection,
    enterprise: Uuid,
    org: Uuid,
) -> Result<bool, ServiceError> {
    Ok(sqlx::query_scalar(
        "select exists (select 1 from org_unit where id = $1 and enterprise_id = $2)",
    )
    .bind(org)
    .bind(enterprise)
    .fetch_one(conn)
    .await?)
}
