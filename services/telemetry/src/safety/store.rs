//! The safety report's queries: mileage from `operation_day`, alarms from
//! `risk_alarm` by their start's Beijing day, both limited to the caller's
//! tenant, reach and organisation filter through the vehicle; and the
//! enterprise's weights with their audit.
//!
//! A ranking is computed over every row of the range and paged by offset
//! (the report's total comes with the page, as the operation log's does);
//! the score orders in SQL by the same formula as `domain::score`. Its
//! aggregates are `materialized`: each is computed once, whatever the
//! planner guesses of the tenant's size (inlined, a mis-estimate rescanned
//! them per row).

use std::collections::BTreeMap;

use chrono::{DateTime, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use sqlx::types::Json;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{self, DayRange};
use crate::alarms::domain::AlarmKind;
use crate::context::Actor;
use crate::operation::rollup::slot_start;

/// What a report counts: the days, the organisation subtrees (expanded)
/// and the weights in force (every alarm type).
#[derive(Debug, Clone)]
pub struct SafetyQuery {
    pub range: DayRange,
    pub org_ids: Vec<Uuid>,
    pub weights: Vec<Weight>,
}

/// One alarm type's weight in force.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Weight {
    pub kind: AlarmKind,
    pub weight: f64,
    pub customized: bool,
}

/// What a ranking ranks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dimension {
    Vehicle,
    Driver,
    Org,
}

/// The score in SQL (`domain::score` before rounding), over a row's
/// `mileage_m` and `penalty` columns.
const SCORE: &str = "case when mileage_m >= $min then \
     greatest(0, 100 - penalty * 100000.0 / mileage_m) end";

fn score_sql() -> String {
    SCORE.replace("$min", &domain::MIN_MILEAGE_M.to_string())
}

/// The range's first instant and the instant after its last day.
fn instants(range: DayRange) -> (DateTime<Utc>, DateTime<Utc>) {
    let end = range.to.succ_opt().unwrap_or(range.to);
    (slot_start(range.from, 0), slot_start(end, 0))
}

/// ` and <the vehicle v in the caller's tenant, reach and organisations>`.
fn push_scope(qb: &mut QueryBuilder<'_, Postgres>, actor: &Actor, q: &SafetyQuery) {
    qb.push(" and v.enterprise_id = ")
        .push_bind(actor.enterprise_id)
        .push(" and ");
    actor.reach.push_condition(qb, "v.org_id", "v.created_by");
    if !q.org_ids.is_empty() {
        qb.push(" and v.org_id = any(")
            .push_bind(q.org_ids.clone())
            .push(")");
    }
}

/// `operation_day d join vehicle v` in the range and scope (no `select`).
fn push_days(qb: &mut QueryBuilder<'_, Postgres>, actor: &Actor, q: &SafetyQuery) {
    qb.push(" from operation_day d join vehicle v on v.id = d.vehicle_id where d.enterprise_id = ")
        .push_bind(actor.enterprise_id)
        .push(" and d.day between ")
        .push_bind(q.range.from)
        .push(" and ")
        .push_bind(q.range.to);
    push_scope(qb, actor, q);
}

/// `risk_alarm a join vehicle v` started in the range and scope, with the
/// alarm's day row `d` when `with_day` (driver attribution).
fn push_alarms(
    qb: &mut QueryBuilder<'_, Postgres>,
    actor: &Actor,
    q: &SafetyQuery,
    with_day: bool,
) {
    let (start, end) = instants(q.range);
    qb.push(" from risk_alarm a join vehicle v on v.id = a.vehicle_id");
    if with_day {
        qb.push(
            " join operation_day d on d.vehicle_id = a.vehicle_id \
               and d.day = (a.started_at at time zone 'Asia/Shanghai')::date \
               and d.driver_id is not null",
        );
    }
    qb.push(" where a.enterprise_id = ")
        .push_bind(actor.enterprise_id)
        .push(" and a.started_at >= ")
        .push_bind(start)
        .push(" and a.started_at < ")
        .push_bind(end);
    push_scope(qb, actor, q);
}

/// `w(kind, weight)`: the weights in force as a relation.
fn push_weights(qb: &mut QueryBuilder<'_, Postgres>, q: &SafetyQuery) {
    qb.push("w(kind, weight) as (select * from unnest(")
        .push_bind(
            q.weights
                .iter()
                .map(|w| i16::from(w.kind))
                .collect::<Vec<_>>(),
        )
        .push("::int2[], ")
        .push_bind(q.weights.iter().map(|w| w.weight).collect::<Vec<_>>())
        .push("::float8[]))");
}

// --- Summary ---

#[derive(Debug, Clone, Default, FromRow)]
pub struct MileageRow {
    pub mileage_m: i64,
    pub vehicles: i64,
}

/// The range's mileage and vehicles with days, and its alarms by type.
pub async fn summary(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &SafetyQuery,
) -> Result<(MileageRow, BTreeMap<i16, i64>), ServiceError> {
    let mut qb = QueryBuilder::new(
        "select coalesce(sum(d.mileage_m), 0)::int8 as mileage_m, \
           count(distinct d.vehicle_id)::int8 as vehicles",
    );
    push_days(&mut qb, actor, q);
    let mileage: MileageRow = qb.build_query_as().fetch_one(&mut *conn).await?;
    let mut qb = QueryBuilder::new("select a.kind, count(*)::int8");
    push_alarms(&mut qb, actor, q, false);
    qb.push(" group by a.kind");
    let kinds: Vec<(i16, i64)> = qb.build_query_as().fetch_all(conn).await?;
    Ok((mileage, kinds.into_iter().collect()))
}

// --- Rankings ---

#[derive(Debug, Clone, FromRow)]
pub struct RankRow {
    pub key: Uuid,
    pub name: Option<String>,
    pub org_id: Option<Uuid>,
    pub org_name: Option<String>,
    pub mileage_m: i64,
    pub vehicles: i64,
    pub alarm_count: i64,
    pub penalty: f64,
    /// `[[kind, count], …]` in kind order.
    pub by_type: Json<Vec<(i16, i64)>>,
    /// Position in the ranking's order, from 1.
    pub rank: i64,
    pub total: i64,
}

/// One page of a ranking (`offset` rows skipped, at most `limit`), with
/// the number of ranked rows.
pub async fn ranking(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &SafetyQuery,
    dimension: Dimension,
    best_first: bool,
    offset: i64,
    limit: i64,
) -> Result<Vec<RankRow>, ServiceError> {
    let (day_key, alarm_key) = match dimension {
        Dimension::Vehicle => ("d.vehicle_id", "a.vehicle_id"),
        Dimension::Driver => ("d.driver_id", "d.driver_id"),
        Dimension::Org => ("v.org_id", "v.org_id"),
    };
    let mut qb = QueryBuilder::new("with ");
    push_weights(&mut qb, q);
    qb.push(format!(
        ", m as materialized (select {day_key} as key, sum(d.mileage_m)::int8 as mileage_m, \
           count(distinct d.vehicle_id)::int8 as vehicles, max(d.driver_name) as driver_name"
    ));
    push_days(&mut qb, actor, q);
    if dimension == Dimension::Driver {
        qb.push(" and d.driver_id is not null");
    }
    qb.push(format!(
        " group by 1), ak as materialized (select {alarm_key} as key, a.kind, count(*)::int8 as n"
    ));
    push_alarms(&mut qb, actor, q, dimension == Dimension::Driver);
    qb.push(
        " group by 1, 2), \
         a as materialized (select ak.key, sum(ak.n)::int8 as alarm_count, \
           sum(ak.n * coalesce(w.weight, 0))::float8 as penalty, \
           jsonb_agg(jsonb_build_array(ak.kind, ak.n) order by ak.kind) as by_type \
           from ak left join w on w.kind = ak.kind group by ak.key), \
         r as (select coalesce(m.key, a.key) as key, coalesce(m.mileage_m, 0) as mileage_m, \
           coalesce(m.vehicles, 0) as vehicles, m.driver_name, \
           coalesce(a.alarm_count, 0) as alarm_count, coalesce(a.penalty, 0) as penalty, \
           coalesce(a.by_type, '[]'::jsonb) as by_type \
           from m full join a on a.key = m.key), ",
    );
    qb.push(format!(
        "s as (select r.*, {} as score from r) ",
        score_sql()
    ));
    let (names, name) = match dimension {
        Dimension::Vehicle => (
            " left join vehicle nv on nv.id = s.key left join org_unit o on o.id = nv.org_id",
            "nv.plate_number as name, nv.org_id, o.name as org_name, 1::int8 as vehicles",
        ),
        Dimension::Driver => (
            " left join driver dr on dr.id = s.key left join org_unit o on o.id = dr.org_id",
            "coalesce(dr.name, s.driver_name) as name, dr.org_id, o.name as org_name, \
             s.vehicles",
        ),
        Dimension::Org => (
            " left join org_unit o on o.id = s.key",
            "o.name as name, s.key as org_id, o.name as org_name, s.vehicles",
        ),
    };
    let order = if best_first {
        "s.score desc nulls last, s.alarm_count, s.key"
    } else {
        "s.score asc nulls last, s.alarm_count desc, s.key"
    };
    qb.push(format!(
        "select s.key, {name}, s.mileage_m, s.alarm_count, s.penalty, s.by_type, \
           row_number() over (order by {order}) as rank, count(*) over () as total \
         from s{names} where s.key is not null order by {order} limit "
    ))
    .push_bind(limit)
    .push(" offset ")
    .push_bind(offset);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

// --- Trend ---

#[derive(Debug, Clone, FromRow)]
pub struct WeekRow {
    /// The week's Monday.
    pub week: NaiveDate,
    pub mileage_m: i64,
    pub alarm_count: i64,
    pub average_score: Option<f64>,
    pub scored: i64,
}

/// Per ISO week of the range (weeks without a row are left out): mileage,
/// alarms, and the average of the vehicles' scores of that week.
pub async fn trend(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &SafetyQuery,
) -> Result<Vec<WeekRow>, ServiceError> {
    let mut qb = QueryBuilder::new("with ");
    push_weights(&mut qb, q);
    qb.push(
        ", m as materialized (select date_trunc('week', d.day)::date as week, d.vehicle_id as key, \
           sum(d.mileage_m)::int8 as mileage_m",
    );
    push_days(&mut qb, actor, q);
    qb.push(
        " group by 1, 2), a as materialized (select \
           date_trunc('week', (a.started_at at time zone 'Asia/Shanghai')::date)::date as week, \
           a.vehicle_id as key, count(*)::int8 as n, \
           sum(coalesce((select w.weight from w where w.kind = a.kind), 0))::float8 as penalty",
    );
    push_alarms(&mut qb, actor, q, false);
    qb.push(
        " group by 1, 2), \
         r as (select coalesce(m.week, a.week) as week, coalesce(m.mileage_m, 0) as mileage_m, \
           coalesce(a.n, 0) as n, coalesce(a.penalty, 0) as penalty \
           from m full join a on a.week = m.week and a.key = m.key), ",
    );
    qb.push(format!(
        "s as (select r.*, {} as score from r) \
         select week, sum(mileage_m)::int8 as mileage_m, sum(n)::int8 as alarm_count, \
           avg(score)::float8 as average_score, count(score)::int8 as scored \
         from s group by week order by week",
        score_sql()
    ));
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

// --- Weights ---

/// The enterprise's weights in force: its own, the defaults elsewhere.
pub async fn weights(
    conn: &mut PgConnection,
    enterprise: Uuid,
) -> Result<Vec<Weight>, ServiceError> {
    let stored: BTreeMap<i16, f64> = sqlx::query_as::<_, (i16, f64)>(
        "select alarm_type, weight from safety_weight where enterprise_id = $1",
    )
    .bind(enterprise)
    .fetch_all(conn)
    .await?
    .into_iter()
    .collect();
    Ok(AlarmKind::ALL
        .iter()
        .map(|kind| match stored.get(&i16::from(*kind)) {
            Some(weight) => Weight {
                kind: *kind,
                weight: *weight,
                customized: true,
            },
            None => Weight {
                kind: *kind,
                weight: domain::default_weight(*kind),
                customized: false,
            },
        })
        .collect())
}

/// Sets weights (checked by the caller), each change logged with its
/// previous value; an unchanged weight writes nothing.
pub async fn set_weights(
    conn: &mut PgConnection,
    actor: &Actor,
    changes: &[(AlarmKind, f64)],
) -> Result<(), ServiceError> {
    let current = weights(&mut *conn, actor.enterprise_id).await?;
    for (kind, weight) in changes {
        let before = current.iter().find(|w| w.kind == *kind);
        if before.is_some_and(|b| b.customized && b.weight == *weight) {
            continue;
        }
        sqlx::query(
            "insert into safety_weight (enterprise_id, alarm_type, weight, updated_by) \
             values ($1, $2, $3, $4) on conflict (enterprise_id, alarm_type) do update \
             set weight = excluded.weight, updated_by = excluded.updated_by, updated_at = now()",
        )
        .bind(actor.enterprise_id)
        .bind(i16::from(*kind))
        .bind(weight)
        .bind(&actor.name)
        .execute(&mut *conn)
        .await?;
        sqlx::query(
            "insert into safety_weight_change \
               (enterprise_id, alarm_type, operator_name, before, after) \
             values ($1, $2, $3, $4, $5)",
        )
        .bind(actor.enterprise_id)
        .bind(i16::from(*kind))
        .bind(&actor.name)
        .bind(before.map(|b| b.weight))
        .bind(weight)
        .execute(&mut *conn)
        .await?;
    }
    Ok(())
}
