//! The vehicle_binding table: the active binding of a kind, opening and
//! closing bindings, and the log list.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::context::Actor;

const SELECT: &str = "select b.id, b.vehicle_id, v.plate_number, v.vin, b.kind, b.target_id, \
     b.target_name, b.terminal_sim, b.bound_at, b.bound_by_name, b.unbound_at, \
     b.unbound_by_name, b.remark \
     from vehicle_binding b join vehicle v on v.id = b.vehicle_id";

#[derive(Debug, Clone, FromRow)]
pub struct BindingRow {
    pub id: Uuid,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub vin: String,
    pub kind: i16,
    pub target_id: String,
    pub target_name: String,
    pub terminal_sim: String,
    pub bound_at: DateTime<Utc>,
    pub bound_by_name: String,
    pub unbound_at: Option<DateTime<Utc>>,
    pub unbound_by_name: String,
    pub remark: String,
}

pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<BindingRow, ServiceError> {
    let mut qb = sqlx::QueryBuilder::new(SELECT);
    qb.push(" where b.id = ")
        .push_bind(id)
        .push(" and b.enterprise_id = ")
        .push_bind(actor.enterprise_id);
    Ok(qb.build_query_as().fetch_one(conn).await?)
}

/// A checked binding-log filter.
#[derive(Debug, Clone, Default)]
pub struct BindingQuery {
    pub plates: Vec<String>,
    pub vins: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub kinds: Vec<i16>,
    pub target_id: String,
    pub active: Option<bool>,
    pub bind_time: TimeRange,
    pub vehicle_id: Option<Uuid>,
}

/// Newest binding first.
#[derive(Debug, Clone, Copy)]
pub struct NewestFirst;

impl Sort for NewestFirst {
    fn order_by(&self) -> &'static str {
        "b.bound_at desc, b.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &BindingQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "b.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "v.created_by");
    f.any_of("v.org_id", query.org_ids.clone())
        .any_of("v.plate_number", query.plates.clone())
        .any_of("v.vin", query.vins.clone())
        .any_of("b.kind", query.kinds.clone())
        .equals("b.vehicle_id", query.vehicle_id)
        .within("b.bound_at", query.bind_time);
    if !query.target_id.trim().is_empty() {
        f.equals("b.target_id", Some(query.target_id.trim().to_owned()));
    }
    if let Some(active) = query.active {
        f.present("b.unbound_at", Some(!active));
    }
    f
}

/// The count of the list.
const COUNT: &str = "select count(*) from vehicle_binding b join vehicle v on v.id = b.vehicle_id";

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BindingQuery,
    paging: Paging,
) -> Result<(Vec<BindingRow>, i64), ServiceError> {
    let mut rows_query = filtered(SELECT, actor, query).page(&NewestFirst, paging);
    let rows = rows_query.build_query_as().fetch_all(&mut *conn).await?;
    let total = count(conn, actor, query).await?;
    Ok((rows, total))
}

/// The exact number of bindings the list matches.
pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BindingQuery,
) -> Result<i64, ServiceError> {
    let mut count = filtered(COUNT, actor, query).finish();
    Ok(count.build_query_scalar().fetch_one(conn).await?)
}

/// One export page under the list's filter and reach: newest first after
/// `cursor` (`bound_at`, `id`), by keyset on `vehicle_binding_newest_idx`.
pub async fn export_page(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &BindingQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<BindingRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).keyset("b.bound_at", "b.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}
