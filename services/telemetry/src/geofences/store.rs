//! Queries of the geofence tables for the RPCs: fences (list, count, read,
//! write), inside now, crossings, sign-ins, alarms and the dashboard's
//! aggregates. Every query names the tenant and applies the caller's reach
//! (fences by their organisation and creator; crossings, sign-ins and alarms
//! by the vehicle's organisation when they happened); row-level security is
//! the second line. Evaluation's own queries live in `evaluate`.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Cursor, Filters, Paging, Sort, TimeRange};
use sqlx::types::Json;
use sqlx::{FromRow, QueryBuilder};
use sqlx_postgres::PgRow;
use sqlx_postgres::{PgConnection, Postgres};
use uuid::Uuid;

use super::domain::{ActiveWindow, GeofenceDraft, Geometry};
use super::geometry::Point;
use crate::context::Actor;

const SELECT: &str = "select g.id, g.org_id, \
     coalesce((select o.name from org_unit o where o.id = g.org_id), '') as org_name, \
     g.created_by, g.updated_by, g.name, g.purpose, g.shape, g.center_lat, g.center_lng, \
     g.radius_m, g.points, g.corridor_width_m, g.speed_limit_kmh, g.active_windows, \
     g.dwell_seconds, g.alert_on_enter, g.alert_on_exit, g.max_dwell_minutes, g.address, \
     g.all_vehicles, g.vehicle_ids, g.enabled, \
     (select count(*) from geofence_state s where s.enterprise_id = g.enterprise_id \
        and s.geofence_id = g.id and s.inside)::int4 as inside_count, \
     g.created_at, g.updated_at \
     from geofence g";

#[derive(Debug, Clone, FromRow)]
pub struct GeofenceRow {
    pub id: Uuid,
    pub org_id: Uuid,
    pub org_name: String,
    pub created_by: Option<Uuid>,
    pub updated_by: Option<Uuid>,
    pub name: String,
    pub purpose: i16,
    pub shape: i16,
    pub center_lat: Option<f64>,
    pub center_lng: Option<f64>,
    pub radius_m: Option<i32>,
    /// `[[lng, lat], ...]`.
    pub points: Json<Vec<[f64; 2]>>,
    pub corridor_width_m: Option<i32>,
    pub speed_limit_kmh: Option<i32>,
    pub active_windows: Json<Vec<ActiveWindow>>,
    pub dwell_seconds: i32,
    pub alert_on_enter: bool,
    pub alert_on_exit: bool,
    pub max_dwell_minutes: i32,
    pub address: String,
    pub all_vehicles: bool,
    pub vehicle_ids: Vec<Uuid>,
    pub enabled: bool,
    pub inside_count: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
}

impl GeofenceRow {
    pub fn points(&self) -> Vec<Point> {
        self.points
            .0
            .iter()
            .map(|[lng, lat]| Point::new(*lat, *lng))
            .collect()
    }
}

/// A checked fence list filter.
#[derive(Debug, Clone, Default)]
pub struct GeofenceQuery {
    pub org_ids: Vec<Uuid>,
    pub name: String,
    pub purposes: Vec<i16>,
    pub shapes: Vec<i16>,
    pub enabled: Option<bool>,
    pub vehicle_id: Option<Uuid>,
}

struct Newest;

impl Sort for Newest {
    fn order_by(&self) -> &'static str {
        "g.created_at desc, g.id desc"
    }
}

fn filtered<'a>(select: &str, actor: &Actor, query: &GeofenceQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "g.enterprise_id", actor.enterprise_id);
    actor
        .reach
        .push_condition(f.scope(), "g.org_id", "g.created_by");
    f.any_of("g.org_id", query.org_ids.clone())
        .contains("g.name", &query.name)
        .any_of("g.purpose", query.purposes.clone())
        .any_of("g.shape", query.shapes.clone())
        .equals("g.enabled", query.enabled);
    if let Some(vehicle) = query.vehicle_id {
        f.and()
            .push("(g.all_vehicles or g.vehicle_ids @> array[")
            .push_bind(vehicle)
            .push("]::uuid[])");
    }
    f
}

pub async fn list(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &GeofenceQuery,
    paging: Paging,
) -> Result<Vec<GeofenceRow>, ServiceError> {
    let mut qb = filtered(SELECT, actor, query).page(&Newest, paging);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn count(
    conn: &mut PgConnection,
    actor: &Actor,
    query: &GeofenceQuery,
) -> Result<i64, ServiceError> {
    let mut qb = filtered("select count(*) from geofence g", actor, query).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// One fence the caller may see, locked for change when `for_update`.
pub async fn get(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    for_update: bool,
) -> Result<GeofenceRow, ServiceError> {
    let mut qb = QueryBuilder::<Postgres>::new(SELECT);
    qb.push(" where g.id = ")
        .push_bind(id)
        .push(" and g.enterprise_id = ")
        .push_bind(actor.enterprise_id);
    if for_update {
        qb.push(" for update of g");
    }
    let row: Option<GeofenceRow> = qb.build_query_as().fetch_optional(conn).await?;
    row.filter(|r| actor.reach.sees(Some(r.org_id), r.created_by))
        .ok_or_else(ServiceError::not_found)
}

/// Every enabled fence of the enterprise (evaluation's R-tree).
pub async fn enabled(
    conn: &mut PgConnection,
    enterprise: Uuid,
) -> Result<Vec<GeofenceRow>, ServiceError> {
    let mut qb = QueryBuilder::<Postgres>::new(SELECT);
    qb.push(" where g.enterprise_id = ")
        .push_bind(enterprise)
        .push(" and g.enabled");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Refuses watched vehicles that are not the tenant's.
pub async fn check_vehicles(
    conn: &mut PgConnection,
    actor: &Actor,
    ids: &[Uuid],
) -> Result<(), ServiceError> {
    if ids.is_empty() {
        return Ok(());
    }
    let found: i64 = sqlx::query_scalar(
        "select count(*) from vehicle where enterprise_id = $1 and id = any($2)",
    )
    .bind(actor.enterprise_id)
    .bind(ids)
    .fetch_one(conn)
    .await?;
    if usize::try_from(found).unwrap_or(0) != ids.len() {
        return Err(ServiceError::invalid("vehicleIds", "所选车辆不存在"));
    }
    Ok(())
}

/// The columns a draft writes, in `insert`/`update` order from `$4`.
struct Columns {
    center: Option<Point>,
    radius_m: Option<i32>,
    points: Vec<[f64; 2]>,
    corridor_width_m: Option<i32>,
}

fn columns(geometry: &Geometry) -> Columns {
    let pairs = |ps: &[Point]| ps.iter().map(|p| [p.lng, p.lat]).collect();
    match geometry {
        Geometry::Circle { center, radius_m } => Columns {
            center: Some(*center),
            radius_m: Some(*radius_m),
            points: Vec::new(),
            corridor_width_m: None,
        },
        Geometry::Polygon { ring } => Columns {
            center: None,
            radius_m: None,
            points: pairs(ring),
            corridor_width_m: None,
        },
        Geometry::Corridor { line, width_m } => Columns {
            center: None,
            radius_m: None,
            points: pairs(line),
            corridor_width_m: Some(*width_m),
        },
    }
}

/// Marks the enterprise's fences changed (evaluators rebuild their R-tree).
pub async fn bump_version(conn: &mut PgConnection, enterprise: Uuid) -> Result<(), ServiceError> {
    sqlx::query(
        "insert into geofence_version (enterprise_id, version) values ($1, 1) \
         on conflict (enterprise_id) do update set version = geofence_version.version + 1",
    )
    .bind(enterprise)
    .execute(conn)
    .await?;
    Ok(())
}

pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &GeofenceDraft,
) -> Result<(), ServiceError> {
    let c = columns(&draft.geometry);
    sqlx::query(
        "insert into geofence (id, enterprise_id, created_by, updated_by, org_id, name, purpose, \
         shape, center_lat, center_lng, radius_m, points, corridor_width_m, speed_limit_kmh, \
         active_windows, dwell_seconds, alert_on_enter, alert_on_exit, max_dwell_minutes, \
         address, all_vehicles, vehicle_ids, enabled) \
         values ($1, $2, $3, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, \
         $18, $19, $20, $21, $22)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .bind(draft.org_id)
    .bind(&draft.name)
    .bind(i16::from(draft.purpose))
    .bind(i16::from(draft.geometry.shape()))
    .bind(c.center.map(|p| p.lat))
    .bind(c.center.map(|p| p.lng))
    .bind(c.radius_m)
    .bind(Json(c.points))
    .bind(c.corridor_width_m)
    .bind(draft.speed_limit_kmh)
    .bind(Json(&draft.windows))
    .bind(draft.dwell_seconds)
    .bind(draft.alert_on_enter)
    .bind(draft.alert_on_exit)
    .bind(draft.max_dwell_minutes)
    .bind(&draft.address)
    .bind(draft.all_vehicles)
    .bind(&draft.vehicle_ids)
    .bind(draft.enabled)
    .execute(&mut *conn)
    .await?;
    bump_version(conn, actor.enterprise_id).await
}

pub async fn update(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
    draft: &GeofenceDraft,
) -> Result<(), ServiceError> {
    let c = columns(&draft.geometry);
    sqlx::query(
        "update geofence set updated_by = $3, org_id = $4, name = $5, purpose = $6, shape = $7, \
         center_lat = $8, center_lng = $9, radius_m = $10, points = $11, corridor_width_m = $12, \
         speed_limit_kmh = $13, active_windows = $14, dwell_seconds = $15, alert_on_enter = $16, \
         alert_on_exit = $17, max_dwell_minutes = $18, address = $19, all_vehicles = $20, \
         vehicle_ids = $21, enabled = $22 \
         where id = $1 and enterprise_id = $2",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(actor.user_id)
    .bind(draft.org_id)
    .bind(&draft.name)
    .bind(i16::from(draft.purpose))
    .bind(i16::from(draft.geometry.shape()))
    .bind(c.center.map(|p| p.lat))
    .bind(c.center.map(|p| p.lng))
    .bind(c.radius_m)
    .bind(Json(c.points))
    .bind(c.corridor_width_m)
    .bind(draft.speed_limit_kmh)
    .bind(Json(&draft.windows))
    .bind(draft.dwell_seconds)
    .bind(draft.alert_on_enter)
    .bind(draft.alert_on_exit)
    .bind(draft.max_dwell_minutes)
    .bind(&draft.address)
    .bind(draft.all_vehicles)
    .bind(&draft.vehicle_ids)
    .bind(draft.enabled)
    .execute(&mut *conn)
    .await?;
    if !draft.enabled {
        clear_states(conn, actor, id).await?;
    }
    bump_version(conn, actor.enterprise_id).await
}

/// Deletes a fence and its inside-states; its crossings stay in history.
pub async fn delete(conn: &mut PgConnection, actor: &Actor, id: Uuid) -> Result<(), ServiceError> {
    sqlx::query("delete from geofence where id = $1 and enterprise_id = $2")
        .bind(id)
        .bind(actor.enterprise_id)
        .execute(&mut *conn)
        .await?;
    clear_states(conn, actor, id).await?;
    bump_version(conn, actor.enterprise_id).await
}

/// Forgets every vehicle's state against a fence (disabled or deleted:
/// watching again starts afresh).
async fn clear_states(
    conn: &mut PgConnection,
    actor: &Actor,
    id: Uuid,
) -> Result<(), ServiceError> {
    sqlx::query("delete from geofence_state where enterprise_id = $1 and geofence_id = $2")
        .bind(actor.enterprise_id)
        .bind(id)
        .execute(conn)
        .await?;
    Ok(())
}

#[derive(Debug, Clone, FromRow)]
pub struct InsideRow {
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub since: Option<DateTime<Utc>>,
}

/// Vehicles inside a fence now, longest inside first (the partial index).
pub async fn inside(
    conn: &mut PgConnection,
    actor: &Actor,
    fence: Uuid,
) -> Result<Vec<InsideRow>, ServiceError> {
    Ok(sqlx::query_as(
        "select s.vehicle_id, coalesce(v.plate_number, '') as plate_number, s.since \
         from geofence_state s left join vehicle v on v.id = s.vehicle_id \
         where s.enterprise_id = $1 and s.geofence_id = $2 and s.inside \
         order by s.since, s.vehicle_id limit 20000",
    )
    .bind(actor.enterprise_id)
    .bind(fence)
    .fetch_all(conn)
    .await?)
}

// --- Crossings ---------------------------------------------------------------

const CROSSING_SELECT: &str = "select c.id, c.geofence_id, c.geofence_name, c.vehicle_id, \
     c.plate_number, c.direction, c.cross_time, c.lat, c.lng, c.speed_dkmh, c.dwell_seconds, \
     c.alarmed from geofence_crossing c";

#[derive(Debug, Clone, FromRow)]
pub struct CrossingRow {
    pub id: Uuid,
    pub geofence_id: Uuid,
    pub geofence_name: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub direction: i16,
    pub cross_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub speed_dkmh: i32,
    pub dwell_seconds: Option<i64>,
    pub alarmed: bool,
}

/// A checked crossings filter.
#[derive(Debug, Clone, Default)]
pub struct CrossingQuery {
    pub geofence_ids: Vec<Uuid>,
    pub plates: Vec<String>,
    pub org_ids: Vec<Uuid>,
    pub directions: Vec<i16>,
    pub time: TimeRange,
    pub alarmed_only: bool,
    /// Only at fences of these organisations (the dashboard's filter).
    pub fence_org_ids: Vec<Uuid>,
}

/// `column` (a fence id) names a fence of one of `orgs` (when any): the
/// fences come from the org index, the rows from the (enterprise, fence,
/// time) index.
fn at_fences_of(f: &mut Filters<'_>, column: &str, enterprise: Uuid, orgs: &[Uuid]) {
    if orgs.is_empty() {
        return;
    }
    f.and()
        .push(column)
        .push(" in (select g.id from geofence g where g.enterprise_id = ")
        .push_bind(enterprise)
        .push(" and g.org_id = any(")
        .push_bind(orgs.to_vec())
        .push("))");
}

struct CrossingsNewest;

impl Sort for CrossingsNewest {
    fn order_by(&self) -> &'static str {
        "c.cross_time desc, c.id desc"
    }
}

fn crossings_filtered<'a>(select: &str, actor: &Actor, q: &CrossingQuery) -> Filters<'a> {
    let mut f = Filters::new(select, "c.enterprise_id", actor.enterprise_id);
    // Crossings have no creator: only the organisation reaches them.
    actor
        .reach
        .push_condition(f.scope(), "c.org_id", "null::uuid");
    f.any_of("c.geofence_id", q.geofence_ids.clone())
        .any_of("c.plate_number", q.plates.clone())
        .any_of("c.org_id", q.org_ids.clone())
        .any_of("c.direction", q.directions.clone())
        .within("c.cross_time", q.time);
    at_fences_of(
        &mut f,
        "c.geofence_id",
        actor.enterprise_id,
        &q.fence_org_ids,
    );
    if q.alarmed_only {
        f.and().push("c.alarmed");
    }
    f
}

pub async fn crossings(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &CrossingQuery,
    paging: Paging,
) -> Result<Vec<CrossingRow>, ServiceError> {
    let mut qb = crossings_filtered(CROSSING_SELECT, actor, q).page(&CrossingsNewest, paging);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

pub async fn count_crossings(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &CrossingQuery,
) -> Result<i64, ServiceError> {
    let mut qb = crossings_filtered("select count(*) from geofence_crossing c", actor, q).finish();
    Ok(qb.build_query_scalar().fetch_one(conn).await?)
}

/// An export page: newest first after `cursor` (keyset on the list's index).
pub async fn crossings_page(
    conn: &mut PgConnection,
    actor: &Actor,
    q: &CrossingQuery,
    cursor: Option<Cursor>,
    limit: i64,
) -> Result<Vec<CrossingRow>, ServiceError> {
    let mut qb =
        crossings_filtered(CROSSING_SELECT, actor, q).keyset("c.cross_time", "c.id", cursor, limit);
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

// --- Sign-ins ----------------------------------------------------------------

#[derive(Debug, Clone, FromRow)]
pub struct SignInRow {
    pub id: Uuid,
    pub geofence_id: Uuid,
    pub point_name: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub sign_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
}

/// A checked sign-in (or alarm) filter.
#[derive(Debug, Clone, Default)]
pub struct EventQuery {
    pub geofence_ids: Vec<Uuid>,
    pub plates: Vec<String>,
    pub kinds: Vec<i16>,
    pub time: TimeRange,
    /// Only at fences of these organisations (the dashboard's filter).
    pub fence_org_ids: Vec<Uuid>,
}

// --- Alarms ------------------------------------------------------------------

#[derive(Debug, Clone, FromRow)]
pub struct AlarmRow {
    pub id: Uuid,
    pub geofence_id: Uuid,
    pub geofence_name: String,
    pub vehicle_id: Uuid,
    pub plate_number: String,
    pub kind: i16,
    pub alarm_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub speed_dkmh: i32,
    pub limit_kmh: Option<i32>,
    pub max_stay_minutes: Option<i32>,
}

/// Sign-ins and alarms: the same filter, reach, order and paging over their
/// own table (aliased `e`), each served by its (enterprise, time desc, id
/// desc) indexes.
#[derive(Debug, Clone, Copy)]
pub struct EventTable {
    select: &'static str,
    from: &'static str,
    time: &'static str,
    order: &'static str,
    /// Whether the table has a `kind` to filter on.
    kinds: bool,
}

pub const SIGN_INS: EventTable = EventTable {
    select: "select e.id, e.geofence_id, e.point_name, e.vehicle_id, e.plate_number, \
             e.sign_time, e.lat, e.lng",
    from: " from sign_in e",
    time: "e.sign_time",
    order: "e.sign_time desc, e.id desc",
    kinds: false,
};

pub const ALARMS: EventTable = EventTable {
    select: "select e.id, e.geofence_id, e.geofence_name, e.vehicle_id, e.plate_number, \
             e.kind, e.alarm_time, e.lat, e.lng, e.speed_dkmh, e.limit_kmh, e.max_stay_minutes",
    from: " from geofence_alarm e",
    time: "e.alarm_time",
    order: "e.alarm_time desc, e.id desc",
    kinds: true,
};

impl Sort for EventTable {
    fn order_by(&self) -> &'static str {
        self.order
    }
}

impl EventTable {
    fn filtered<'a>(&self, select: &str, actor: &Actor, q: &EventQuery) -> Filters<'a> {
        let mut f = Filters::new(
            &format!("{select}{}", self.from),
            "e.enterprise_id",
            actor.enterprise_id,
        );
        actor
            .reach
            .push_condition(f.scope(), "e.org_id", "null::uuid");
        f.any_of("e.geofence_id", q.geofence_ids.clone())
            .any_of("e.plate_number", q.plates.clone());
        if self.kinds {
            f.any_of("e.kind", q.kinds.clone());
        }
        f.within(self.time, q.time);
        at_fences_of(
            &mut f,
            "e.geofence_id",
            actor.enterprise_id,
            &q.fence_org_ids,
        );
        f
    }

    /// Rows matching `q` under the reach, with the unpaged total.
    pub async fn list<R>(
        &self,
        conn: &mut PgConnection,
        actor: &Actor,
        q: &EventQuery,
        paging: Paging,
    ) -> Result<(Vec<R>, i64), ServiceError>
    where
        R: for<'r> FromRow<'r, PgRow> + Send + Unpin,
    {
        let mut qb = self.filtered(self.select, actor, q).page(self, paging);
        let rows = qb.build_query_as().fetch_all(&mut *conn).await?;
        let total = self.count(conn, actor, q).await?;
        Ok((rows, total))
    }

    pub async fn count(
        &self,
        conn: &mut PgConnection,
        actor: &Actor,
        q: &EventQuery,
    ) -> Result<i64, ServiceError> {
        let mut qb = self.filtered("select count(*)", actor, q).finish();
        Ok(qb.build_query_scalar().fetch_one(conn).await?)
    }
}

// --- Dashboard ---------------------------------------------------------------

#[derive(Debug, Clone, Default, FromRow)]
pub struct Totals {
    pub fence_count: i64,
    pub enabled_count: i64,
    pub vehicles_inside: i64,
}

/// Fence counts under the reach (of `orgs` when any) and the distinct
/// vehicles under the reach inside any of those fences.
pub async fn totals(
    conn: &mut PgConnection,
    actor: &Actor,
    orgs: &[Uuid],
) -> Result<Totals, ServiceError> {
    let mut f = Filters::new(
        "select count(*) as fence_count, count(*) filter (where g.enabled) as enabled_count, \
         0::int8 as vehicles_inside from geofence g",
        "g.enterprise_id",
        actor.enterprise_id,
    );
    actor
        .reach
        .push_condition(f.scope(), "g.org_id", "g.created_by");
    f.any_of("g.org_id", orgs.to_vec());
    let mut totals: Totals = f.finish().build_query_as().fetch_one(&mut *conn).await?;
    let mut f = Filters::new(
        "select count(distinct s.vehicle_id) from geofence_state s \
         join vehicle v on v.id = s.vehicle_id and v.enterprise_id = s.enterprise_id",
        "s.enterprise_id",
        actor.enterprise_id,
    );
    actor
        .reach
        .push_condition(f.scope(), "v.org_id", "null::uuid");
    f.and().push("s.inside");
    at_fences_of(&mut f, "s.geofence_id", actor.enterprise_id, orgs);
    totals.vehicles_inside = f.finish().build_query_scalar().fetch_one(conn).await?;
    Ok(totals)
}

#[derive(Debug, Clone, FromRow)]
pub struct DayRow {
    pub day: String,
    pub entries: i64,
    pub exits: i64,
}

/// Entries and exits per Shanghai day (a range scan of the newest index, or
/// of the fence index for the fences of `fence_orgs` when any).
pub async fn days(
    conn: &mut PgConnection,
    actor: &Actor,
    range: TimeRange,
    fence_orgs: &[Uuid],
) -> Result<Vec<DayRow>, ServiceError> {
    let q = CrossingQuery {
        time: range,
        fence_org_ids: fence_orgs.to_vec(),
        ..CrossingQuery::default()
    };
    let mut qb = crossings_filtered(
        "select to_char(c.cross_time at time zone 'Asia/Shanghai', 'YYYY-MM-DD') as day, \
         count(*) filter (where c.direction = 1) as entries, \
         count(*) filter (where c.direction = 2) as exits \
         from geofence_crossing c",
        actor,
        &q,
    )
    .finish();
    qb.push(" group by 1 order by 1");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

#[derive(Debug, Clone, FromRow)]
pub struct DwellRow {
    pub geofence_id: Uuid,
    pub name: String,
    pub entries: i64,
    pub exits: i64,
    pub avg_dwell: Option<f64>,
    pub max_dwell: Option<i64>,
}

/// Entries and dwell per fence in the range (at the fences of `fence_orgs`
/// when any), busiest first (at most 50).
pub async fn dwell(
    conn: &mut PgConnection,
    actor: &Actor,
    range: TimeRange,
    fence_orgs: &[Uuid],
) -> Result<Vec<DwellRow>, ServiceError> {
    let q = CrossingQuery {
        time: range,
        fence_org_ids: fence_orgs.to_vec(),
        ..CrossingQuery::default()
    };
    let mut qb = crossings_filtered(
        "select c.geofence_id, max(c.geofence_name) as name, \
         count(*) filter (where c.direction = 1) as entries, \
         count(*) filter (where c.direction = 2) as exits, \
         avg(c.dwell_seconds)::float8 as avg_dwell, max(c.dwell_seconds) as max_dwell \
         from geofence_crossing c",
        actor,
        &q,
    )
    .finish();
    qb.push(" group by c.geofence_id order by 3 desc, 1 limit 50");
    Ok(qb.build_query_as().fetch_all(conn).await?)
}

/// Alarms in the range under the reach (at the fences of `fence_orgs` when any).
pub async fn count_alarms(
    conn: &mut PgConnection,
    actor: &Actor,
    range: TimeRange,
    fence_orgs: &[Uuid],
) -> Result<i64, ServiceError> {
    let q = EventQuery {
        time: range,
        fence_org_ids: fence_orgs.to_vec(),
        ..EventQuery::default()
    };
    ALARMS.count(conn, actor, &q).await
}
