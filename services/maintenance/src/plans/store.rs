//! The plan table, its list filter, and the open reminders a plan keeps
//! (`sync`).

use std::collections::{HashMap, HashSet};

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{self, Base, PlanDraft, due_after};
use crate::context::Actor;

const SELECT: &str = "select p.id, p.org_id, o.name as org_name, p.created_by, p.name, p.kind, \
     p.vehicle_model, p.interval_m, p.interval_months, p.soon_m, p.soon_days, p.items, p.remark, \
     (select count(*) from maintenance_reminder r \
       where r.plan_id = p.id and r.completed_at is null) as vehicle_count, \
     p.created_by_name, p.updated_by_name, p.created_at, p.updated_at \
     from maintenance_plan p left join org_unit o on o.id = p.org_id";

const COUNT: &str = "select count(*) from maintenance_plan p";

#[derive(Debug, Clone, FromRow)]
pub struct PlanRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: Option<String>,
    pub created_by: Option<Uuid>,
    pub name: String,
    pub kind: i16,
    pub vehicle_model: String,
    pub interval_m: i64,
    pub interval_months: i32,
    pub soon_m: i64,
    pub soon_days: i32,
    pub items: serde_json::Value,
    pub remark: String,
    pub vehicle_count: i64,
    pub created_by_name: String,
    pub updated_by_name: String,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

/// A checked plan-list filter.
#[derive(Debug, Clone, Default)]
pub struct PlanQuery {
    pub name: String,
    pub kinds: Vec<i16>,
    /// Organisation subtrees, expanded.
    pub org_ids: Vec<Uuid>,
}

/// Newest plan first.
struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "p.created_at desc, p.id desc"
    }
}

fn scoped<'a>(select: &str, actor: &Actor) -> Filters<'a> {
    let mut f = Filters::new(select, "p.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "p.org_id", "p.created_by");
    f
}

fn filtered<'a>(select: &str, actor: &Actor, q: &PlanQuery) -> Filters<'a> {
    let mut f = scoped(select, actor);
    f.contains("p.name", &q.name)
        .any_of("p.kind", q.kinds.clone())
        .any_of("p.org_id", q.org_ids.clone());
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &PlanQuery,
    paging: Paging,
) -> Result<(Vec<PlanRow>, i64), ServiceError> {
    let mut qb = filtered(SELECT, actor, q).page(&Newest, paging);
    let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
    let mut qb = filtered(COUNT, actor, q).finish();
    let total = qb.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

/// One plan the caller may see (locked for change when `for_update`).
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<PlanRow, ServiceError> {
    let mut f = scoped(SELECT, actor);
    f.equals("p.id", Some(id));
    let mut qb: QueryBuilder<'_, Postgres> = f.finish();
    if for_update {
        qb.push(" for update of p");
    }
    let row: Option<PlanRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.ok_or_else(ServiceError::not_found)
}

fn conflict(err: sqlx::Error) -> ServiceError {
    fleetdesk_kit::on_constraint(err, |name| match name {
        "maintenance_plan_name_key" => Some(domain::name_taken()),
        _ => None,
    })
}

/// Writes a plan: a new one, or an existing one's fields (its creator
/// kept). A new due-soon window leaves its open reminders unjudged for the
/// reminders' judge (`judged_on` null).
pub async fn save(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    d: &PlanDraft,
) -> Result<(), ServiceError> {
    sqlx::query(
        "update maintenance_reminder r set judged_on = null from maintenance_plan p \
         where p.id = $1 and p.enterprise_id = $2 and r.enterprise_id = $2 and r.plan_id = p.id \
           and r.completed_at is null and r.judged_on is not null \
           and (p.soon_m, p.soon_days) is distinct from ($3, $4)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(d.window.m)
    .bind(d.window.days)
    .execute(&mut *conn)
    .await?;
    sqlx::query(
        "insert into maintenance_plan (id, enterprise_id, org_id, created_by, name, kind, \
           vehicle_model, interval_m, interval_months, soon_m, soon_days, items, remark, \
           created_by_name, updated_by_name) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $14) \
         on conflict (id) do update set org_id = excluded.org_id, name = excluded.name, \
           kind = excluded.kind, vehicle_model = excluded.vehicle_model, \
           interval_m = excluded.interval_m, interval_months = excluded.interval_months, \
           soon_m = excluded.soon_m, soon_days = excluded.soon_days, items = excluded.items, \
           remark = excluded.remark, updated_by_name = excluded.updated_by_name",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(d.org_id)
    .bind(actor.user_id)
    .bind(&d.name)
    .bind(i16::from(d.kind))
    .bind(&d.vehicle_model)
    .bind(d.interval.m)
    .bind(d.interval.months)
    .bind(d.window.m)
    .bind(d.window.days)
    .bind(serde_json::json!(d.items))
    .bind(&d.remark)
    .bind(&actor.name)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(())
}

/// Deletes a plan and its open reminders; services done stay, with the
/// reminders they closed.
pub async fn delete(conn: &mut PgConnection, actor: &Actor, id: Uuid) -> Result<(), ServiceError> {
    sqlx::query(
        "delete from maintenance_reminder \
         where enterprise_id = $1 and plan_id = $2 and completed_at is null",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .execute(&mut *conn)
    .await?;
    sqlx::query("delete from maintenance_plan where enterprise_id = $1 and id = $2")
        .bind(actor.enterprise_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

#[derive(Debug, FromRow)]
struct Covered {
    id: Uuid,
    org_id: Uuid,
    odometer_m: Option<i64>,
}

#[derive(Debug, FromRow)]
struct Open {
    id: Uuid,
    vehicle_id: Uuid,
    base_date: NaiveDate,
    base_odometer_m: i64,
}

/// What a save did to the plan's reminders.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Synced {
    /// Reminders opened (a concurrent sync may have opened some first).
    pub opened: usize,
    pub moved: usize,
    pub closed: u64,
}

/// Keeps one open reminder per vehicle the plan `id` covers: closes (deletes)
/// those of vehicles it no longer covers, moves the others' due by the
/// plan's interval from their base (and their organisation with their
/// vehicle's), and opens one counting from `today` and the vehicle's
/// odometer by telemetry (0 without one) for each covered vehicle without.
pub async fn sync(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    d: &PlanDraft,
    today: NaiveDate,
) -> Result<Synced, ServiceError> {
    let subtree = fleetdesk_kit::reach::subtrees(&mut *conn, &[d.org_id]).await?;
    let covered: Vec<Covered> = sqlx::query_as(
        "select v.id, v.org_id, lp.mileage_m as odometer_m from vehicle v \
         left join latest_position lp on lp.vehicle_id = v.id and lp.enterprise_id = v.enterprise_id \
         where v.enterprise_id = $1 and v.org_id = any($2) and ($3 = '' or v.model = $3)",
    )
    .bind(actor.enterprise_id)
    .bind(&subtree)
    .bind(&d.vehicle_model)
    .fetch_all(&mut *conn)
    .await?;
    let covered_ids: Vec<Uuid> = covered.iter().map(|c| c.id).collect();
    let closed = sqlx::query(
        // An anti-join: `<> all($3)` compares every row with every id
        // (100,000 vehicles: 10^10 comparisons, 44 s).
        "delete from maintenance_reminder r \
         where r.enterprise_id = $1 and r.plan_id = $2 and r.completed_at is null \
           and not exists (select 1 from unnest($3::uuid[]) c(id) where c.id = r.vehicle_id)",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(&covered_ids)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    let open: Vec<Open> = sqlx::query_as(
        "select id, vehicle_id, base_date, base_odometer_m from maintenance_reminder \
         where enterprise_id = $1 and plan_id = $2 and completed_at is null",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .fetch_all(&mut *conn)
    .await?;
    let orgs_of: HashMap<Uuid, Uuid> = covered.iter().map(|c| (c.id, c.org_id)).collect();
    let org_of = |v: Uuid| orgs_of.get(&v).copied();
    let mut ids = Vec::with_capacity(open.len());
    let mut orgs = Vec::with_capacity(open.len());
    let mut due_m = Vec::with_capacity(open.len());
    let mut due_date = Vec::with_capacity(open.len());
    for o in &open {
        let due = due_after(
            d.interval,
            Base {
                date: o.base_date,
                odometer_m: o.base_odometer_m,
            },
        );
        ids.push(o.id);
        orgs.push(org_of(o.vehicle_id).unwrap_or(d.org_id));
        due_m.push(due.odometer_m);
        due_date.push(due.date);
    }
    // A moved due waits unjudged (`judged_on` null) for the reminders' judge.
    sqlx::query(
        "update maintenance_reminder r set org_id = u.org_id, due_odometer_m = u.due_m, \
           due_date = u.due_date, updated_by_name = $5, \
           judged_on = case when (r.due_odometer_m, r.due_date) \
             is not distinct from (u.due_m, u.due_date) then r.judged_on end \
         from unnest($1::uuid[], $2::uuid[], $3::bigint[], $4::date[]) \
           as u (id, org_id, due_m, due_date) \
         where r.id = u.id and (r.org_id, r.due_odometer_m, r.due_date) \
           is distinct from (u.org_id, u.due_m, u.due_date)",
    )
    .bind(&ids)
    .bind(&orgs)
    .bind(&due_m)
    .bind(&due_date)
    .bind(&actor.name)
    .execute(&mut *conn)
    .await?;
    let reminded: HashSet<Uuid> = open.iter().map(|o| o.vehicle_id).collect();
    let fresh: Vec<&Covered> = covered
        .iter()
        .filter(|c| !reminded.contains(&c.id))
        .collect();
    let mut new_ids = Vec::with_capacity(fresh.len());
    let mut vehicles = Vec::with_capacity(fresh.len());
    let mut new_orgs = Vec::with_capacity(fresh.len());
    let mut base_m = Vec::with_capacity(fresh.len());
    let mut new_due_m = Vec::with_capacity(fresh.len());
    let mut new_due_date = Vec::with_capacity(fresh.len());
    for c in &fresh {
        let base = Base {
            date: today,
            odometer_m: c.odometer_m.unwrap_or(0).max(0),
        };
        let due = due_after(d.interval, base);
        new_ids.push(Uuid::new_v4());
        vehicles.push(c.id);
        new_orgs.push(c.org_id);
        base_m.push(base.odometer_m);
        new_due_m.push(due.odometer_m);
        new_due_date.push(due.date);
    }
    sqlx::query(
        "insert into maintenance_reminder (id, enterprise_id, org_id, vehicle_id, plan_id, \
           base_date, base_odometer_m, due_odometer_m, due_date, created_by_name, \
           updated_by_name) \
         select u.id, $1, u.org_id, u.vehicle_id, $2, $3, u.base_m, u.due_m, u.due_date, $4, $4 \
         from unnest($5::uuid[], $6::uuid[], $7::uuid[], $8::bigint[], $9::bigint[], $10::date[]) \
           as u (id, vehicle_id, org_id, base_m, due_m, due_date) \
         on conflict (vehicle_id, plan_id) where completed_at is null do nothing",
    )
    .bind(actor.enterprise_id)
    .bind(id)
    .bind(today)
    .bind(&actor.name)
    .bind(&new_ids)
    .bind(&vehicles)
    .bind(&new_orgs)
    .bind(&base_m)
    .bind(&new_due_m)
    .bind(&new_due_date)
    .execute(conn)
    .await?;
    Ok(Synced {
        opened: fresh.len(),
        moved: open.len(),
        closed,
    })
}
