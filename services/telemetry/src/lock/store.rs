//! Lock commands and the lock vehicle list. Requests run in the caller's
//! tenant transaction under their reach; delivery, results and sweeps in
//! service-scoped ones, each move guarded by the states it may leave.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{CommandState, Latest, LockAction};
use crate::context::Actor;

const SELECT: &str = "select c.id, c.enterprise_id, c.org_id, c.created_by, c.operator_name, \
     c.vehicle_id, c.plate_number, c.vin, c.phone, c.action, c.reason, c.state, \
     c.failure_reason, c.sent_at, c.completed_at, c.expire_at, c.created_at, c.updated_at \
     from lock_command c";

#[derive(Debug, Clone, FromRow)]
pub struct CommandRow {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub org_id: Uuid,
    pub created_by: Option<Uuid>,
    pub operator_name: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub phone: String,
    pub action: i16,
    pub reason: String,
    pub state: i16,
    pub failure_reason: String,
    pub sent_at: Option<DateTime<Utc>>,
    pub completed_at: Option<DateTime<Utc>>,
    pub expire_at: DateTime<Utc>,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A new command.
#[derive(Debug, Clone)]
pub struct NewCommand<'a> {
    pub id: Uuid,
    pub org_id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: &'a str,
    pub vin: &'a str,
    pub phone: &'a str,
    pub action: LockAction,
    pub reason: &'a str,
    pub expire_at: DateTime<Utc>,
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    command: &NewCommand<'_>,
) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into lock_command (id, enterprise_id, org_id, created_by, operator_name, \
         vehicle_id, plate_number, vin, phone, action, reason, state, expire_at) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)",
    )
    .bind(command.id)
    .bind(actor.enterprise_id)
    .bind(command.org_id)
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(command.vehicle_id)
    .bind(command.plate_number)
    .bind(command.vin)
    .bind(command.phone)
    .bind(i16::from(command.action))
    .bind(command.reason)
    .bind(i16::from(CommandState::Pending))
    .bind(command.expire_at)
    .execute(conn)
    .await?;
    Ok(())
}

/// Cancels the vehicle's queued (undelivered) commands: a newer one supersedes them.
pub async fn cancel_queued(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle_id: Uuid,
) -> Result<u64, ServiceError> {
    let done = sqlx::query(
        "update lock_command set state = $3, failure_reason = '已被新的指令取代', \
         completed_at = now() where enterprise_id = $1 and vehicle_id = $2 and state = $4",
    )
    .bind(actor.enterprise_id)
    .bind(vehicle_id)
    .bind(i16::from(CommandState::Cancelled))
    .bind(i16::from(CommandState::Pending))
    .execute(conn)
    .await?;
    Ok(done.rows_affected())
}

pub async fn get(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    id: Uuid,
) -> Result<CommandRow, ServiceError> {
    let sql = format!("{SELECT} where c.id = $1 and c.enterprise_id = $2");
    let row: Option<CommandRow> = sqlx::query_as(&sql)
        .bind(id)
        .bind(enterprise_id)
        .fetch_optional(conn)
        .await?;
    row.ok_or_else(ServiceError::not_found)
}

/// What the interlocks read of a vehicle's latest fix.
pub async fn latest(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
) -> Result<Option<Latest>, ServiceError> {
    let row: Option<(DateTime<Utc>, i32, bool)> = sqlx::query_as(
        "select fix_time, speed_dkmh, charging from latest_position \
         where vehicle_id = $1 and enterprise_id = $2",
    )
    .bind(vehicle_id)
    .bind(enterprise_id)
    .fetch_optional(conn)
    .await?;
    Ok(row.map(|(fix_time, speed_dkmh, charging)| Latest {
        fix_time,
        speed_dkmh,
        charging,
    }))
}

/// A checked command-list filter.
#[derive(Debug, Clone, Default)]
pub struct CommandQuery {
    pub vehicle_id: Option<Uuid>,
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub actions: Vec<i16>,
    pub states: Vec<i16>,
    pub created: TimeRange,
}

struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "c.created_at desc, c.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &CommandQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "c.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "c.org_id", "c.created_by");
    f.equals("c.vehicle_id", query.vehicle_id)
        .any_of("c.org_id", query.org_ids.clone())
        .any_of("c.plate_number", query.plates.clone())
        .any_of("c.vin", query.vins.clone())
        .any_of("c.action", query.actions.clone())
        .any_of("c.state", query.states.clone())
        .within("c.created_at", query.created);
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CommandQuery,
    paging: Paging,
) -> Result<Vec<CommandRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).page(&Newest, paging);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &CommandQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered("select count(*) from lock_command c", actor, query).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// The newest command of each of `vehicles`.
pub async fn newest_of(
    conn: &mut PgConnection,
    enterprise_id: Uuid,
    vehicles: &[Uuid],
) -> Result<Vec<CommandRow>, ServiceError> {
    let sql = format!(
        "{SELECT} where c.id in (select distinct on (vehicle_id) id from lock_command \
         where enterprise_id = $1 and vehicle_id = any($2) \
         order by vehicle_id, created_at desc, id desc)"
    );
    Ok(sqlx::query_as(&sql)
        .bind(enterprise_id)
        .bind(vehicles)
        .fetch_all(conn)
        .await?)
}

// --- Delivery, results, sweeps (service scope) ---

/// Claims a queued command for one delivery attempt (no other replica
/// sends it until `retry_at`); `None` when it is not due or not queued.
pub async fn claim(
    conn: &mut PgConnection,
    id: Option<Uuid>,
    retry_at: DateTime<Utc>,
    limit: i64,
) -> Result<Vec<(Uuid, String, i16)>, ServiceError> {
    Ok(sqlx::query_as(
        "update lock_command set attempts = attempts + 1, next_attempt_at = $2 \
         where id in (select id from lock_command where state = $3 and next_attempt_at <= now() \
           and expire_at > now() and ($1::uuid is null or id = $1) \
           order by next_attempt_at limit $4 for update skip locked) \
         returning id, phone, action",
    )
    .bind(id)
    .bind(retry_at)
    .bind(i16::from(CommandState::Pending))
    .bind(limit)
    .fetch_all(conn)
    .await?)
}

/// Marks a queued command delivered to its terminal.
pub async fn mark_sent(conn: &mut PgConnection, id: Uuid, serial: u32) -> Result<(), ServiceError> {
    sqlx::query(
        "update lock_command set state = $2, sent_at = now(), serial = $3, failure_reason = '' \
         where id = $1 and state = $4",
    )
    .bind(id)
    .bind(i16::from(CommandState::Sent))
    .bind(i64::from(serial))
    .bind(i16::from(CommandState::Pending))
    .execute(conn)
    .await?;
    Ok(())
}

/// Notes why a delivery attempt did not reach the terminal (stays queued).
pub async fn note_undelivered(
    conn: &mut PgConnection,
    id: Uuid,
    why: &str,
) -> Result<(), ServiceError> {
    sqlx::query("update lock_command set failure_reason = $2 where id = $1 and state = $3")
        .bind(id)
        .bind(why)
        .bind(i16::from(CommandState::Pending))
        .execute(conn)
        .await?;
    Ok(())
}

/// Applies a terminal's answer to an unfinished command of that tenant and
/// vehicle; returns whether it moved.
pub async fn answer(
    conn: &mut PgConnection,
    id: Uuid,
    enterprise_id: Uuid,
    vehicle_id: Uuid,
    to: CommandState,
    detail: &str,
) -> Result<bool, ServiceError> {
    let from: Vec<i16> = CommandState::ANSWERABLE
        .iter()
        .copied()
        .filter(|s| *s != to)
        .map(i16::from)
        .collect();
    let done = sqlx::query(
        "update lock_command set state = $4, failure_reason = $5, \
         sent_at = coalesce(sent_at, now()), \
         completed_at = case when $6 then now() else completed_at end \
         where id = $1 and enterprise_id = $2 and vehicle_id = $3 and state = any($7)",
    )
    .bind(id)
    .bind(enterprise_id)
    .bind(vehicle_id)
    .bind(i16::from(to))
    .bind(detail)
    .bind(to.is_final())
    .bind(from)
    .execute(conn)
    .await?;
    Ok(done.rows_affected() == 1)
}

/// Expires queued commands past their time and times out sent ones the
/// terminal did not answer since `answered_before`. Returns (expired, timed out).
pub async fn sweep(
    conn: &mut PgConnection,
    answered_before: DateTime<Utc>,
) -> Result<(u64, u64), ServiceError> {
    let expired = sqlx::query(
        "update lock_command set state = $1, completed_at = now(), \
         failure_reason = case when failure_reason = '' then '车辆不在线，指令已过期' \
           else failure_reason end \
         where state = $2 and expire_at <= now()",
    )
    .bind(i16::from(CommandState::Expired))
    .bind(i16::from(CommandState::Pending))
    .execute(&mut *conn)
    .await?;
    let timed_out = sqlx::query(
        "update lock_command set state = $1, completed_at = now(), \
         failure_reason = '终端未在规定时间内应答' \
         where state = any($2) and sent_at < $3",
    )
    .bind(i16::from(CommandState::TimedOut))
    .bind(vec![
        i16::from(CommandState::Sent),
        i16::from(CommandState::Acknowledged),
    ])
    .bind(answered_before)
    .execute(conn)
    .await?;
    Ok((expired.rows_affected(), timed_out.rows_affected()))
}

// --- The lock vehicle list ---

#[derive(Debug, Clone, FromRow)]
pub struct LockVehicleRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub org_id: Uuid,
    pub org_name: String,
    pub usage_kind: i16,
    pub overdue_instalments: i32,
    pub overdue_amount_fen: i64,
    pub fix_time: Option<DateTime<Utc>>,
    pub speed_dkmh: Option<i32>,
    pub charging: Option<bool>,
    /// The action of the newest succeeded command.
    pub locked_by: Option<i16>,
}

/// A checked lock-vehicle filter.
#[derive(Debug, Clone, Default)]
pub struct LockVehicleQuery {
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    pub overdue_only: bool,
}

struct MostOverdue;

impl Sort for MostOverdue {
    fn order_by(&self) -> &'static str {
        "coalesce(u.overdue_periods, 0) desc, v.plate_number asc, v.id asc"
    }
}

/// Open (pending or active) rent and rent-to-own records of vehicles in reach.
fn lock_vehicles_filtered<'a>(
    select: &str,
    actor: &Actor,
    query: &LockVehicleQuery,
) -> Filters<'a> {
    let mut f = Filters::new(select, "u.enterprise_id", actor.enterprise_id);
    f.scope().push("u.state in (1, 2) and u.kind in (1, 4)");
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.org_id", query.org_ids.clone())
        .any_of("v.plate_number", query.plates.clone())
        .any_of("u.kind", query.kinds.clone());
    if query.overdue_only {
        f.and().push("coalesce(u.overdue_periods, 0) > 0");
    }
    f
}

const FROM_LOCK_VEHICLES: &str = " from usage_record u join vehicle v on v.id = u.vehicle_id \
     and v.enterprise_id = u.enterprise_id \
     left join latest_position l on l.vehicle_id = v.id";

pub async fn lock_vehicles(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &LockVehicleQuery,
    paging: Paging,
) -> Result<Vec<LockVehicleRow>, ServiceError> {
    let select = format!(
        "select v.id as vehicle_id, v.plate_number, v.vin, v.org_id, \
         coalesce((select o.name from org_unit o where o.id = v.org_id), '') as org_name, \
         u.kind as usage_kind, coalesce(u.overdue_periods, 0) as overdue_instalments, \
         coalesce(u.overdue_periods, 0)::bigint \
           * coalesce(u.monthly_payment_fen, u.monthly_rent_fen, 0) as overdue_amount_fen, \
         l.fix_time, l.speed_dkmh, l.charging, \
         (select c.action from lock_command c where c.enterprise_id = v.enterprise_id \
           and c.vehicle_id = v.id and c.state = 3 \
           order by c.created_at desc limit 1) as locked_by{FROM_LOCK_VEHICLES}"
    );
    let mut qb = lock_vehicles_filtered(&select, actor, query).page(&MostOverdue, paging);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn count_lock_vehicles(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &LockVehicleQuery,
) -> Result<i64, ServiceError> {
    let select = format!("select count(*){FROM_LOCK_VEHICLES}");
    let mut qb = lock_vehicles_filtered(&select, actor, query).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}
