//! The station and station_connector tables: writing a synced or pushed
//! location (the object as stored beside the columns the list reads),
//! EVSE status pushes (with the station's counts and status kept in step),
//! the list and a station's connector as a session names it.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::{Filters, Paging, Sort};
use fleetdesk_ocpi::{EvseStatus, Location, datetime};
use sqlx::FromRow;
use sqlx::types::Json;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{ConnectorKind, EvseState, StationDraft, StationStatus, station_status};
use crate::codes::optional;
use crate::tariffs::store::tariff_id;

const COLUMNS: &str = "s.id, s.name, s.operator_name, s.province_code, s.city_code, \
     s.city_name, s.address, s.lat, s.lng, s.status, s.dc_connector_count, s.ac_connector_count, \
     s.dc_available_count, s.ac_available_count, s.max_power_kw, s.tariff_id, s.opening_hours, \
     s.parking_note, s.supports_plate_scan, s.truck_friendly";

#[derive(Debug, Clone, FromRow)]
pub struct StationRow {
    pub id: Uuid,
    pub name: String,
    pub operator_name: String,
    pub province_code: String,
    pub city_code: String,
    pub city_name: String,
    pub address: String,
    pub lat: f64,
    pub lng: f64,
    pub status: i16,
    pub dc_connector_count: i32,
    pub ac_connector_count: i32,
    pub dc_available_count: i32,
    pub ac_available_count: i32,
    pub max_power_kw: i32,
    pub tariff_id: Option<Uuid>,
    pub opening_hours: String,
    pub parking_note: String,
    pub supports_plate_scan: bool,
    pub truck_friendly: bool,
    /// Metres from the search point; 0 without one.
    pub distance_m: f64,
}

/// Writes a location (synced or pushed: `object` as stored) and replaces
/// its connectors; the counts come from the connectors. Whether the
/// station is new here.
pub async fn upsert(
    conn: &mut PgConnection,
    s: &StationDraft,
    object: &Location,
) -> Result<bool, ServiceError> {
    let tariff = s.tariff.as_deref().map(|t| tariff_id(&s.party_id, t));
    // A tariff the platform has not published (yet) is not referenced.
    let tariff: Option<Uuid> = match tariff {
        Some(id) => {
            sqlx::query_scalar("select id from tariff where id = $1")
                .bind(id)
                .fetch_optional(&mut *conn)
                .await?
        }
        None => None,
    };
    let created: bool = sqlx::query_scalar(
        "insert into station (id, party_id, location_id, name, operator_name, province_code, \
         city_code, city_name, address, lat, lng, status, max_power_kw, tariff_id, opening_hours, \
         parking_note, supports_plate_scan, truck_friendly, published, last_updated, object, \
         tariff_ref) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22) \
         on conflict (id) do update set name = excluded.name, operator_name = excluded.operator_name, \
         province_code = excluded.province_code, city_code = excluded.city_code, \
         city_name = excluded.city_name, address = excluded.address, lat = excluded.lat, \
         lng = excluded.lng, status = excluded.status, max_power_kw = excluded.max_power_kw, \
         tariff_id = excluded.tariff_id, opening_hours = excluded.opening_hours, \
         parking_note = excluded.parking_note, supports_plate_scan = excluded.supports_plate_scan, \
         truck_friendly = excluded.truck_friendly, published = excluded.published, \
         last_updated = excluded.last_updated, object = excluded.object, \
         tariff_ref = excluded.tariff_ref, synced_at = now() \
         returning (xmax = 0)",
    )
    .bind(s.id)
    .bind(&s.party_id)
    .bind(&s.location_id)
    .bind(&s.name)
    .bind(&s.operator_name)
    .bind(&s.province_code)
    .bind(&s.city_code)
    .bind(&s.city_name)
    .bind(&s.address)
    .bind(s.lat)
    .bind(s.lng)
    .bind(i16::from(s.status))
    .bind(s.max_power_kw)
    .bind(tariff)
    .bind(&s.opening_hours)
    .bind(&s.parking_note)
    .bind(s.supports_plate_scan)
    .bind(s.truck_friendly)
    .bind(s.published)
    .bind(s.last_updated)
    .bind(Json(object))
    .bind(&s.tariff)
    .fetch_one(&mut *conn)
    .await?;
    sqlx::query("delete from station_connector where station_id = $1 and not (id = any($2))")
        .bind(s.id)
        .bind(s.connectors.iter().map(|c| c.id).collect::<Vec<_>>())
        .execute(&mut *conn)
        .await?;
    for c in &s.connectors {
        // A connector pushed without its voltage or amperage (read as 0, see
        // `fleetdesk_ocpi::complete_location_push`) and without
        // `max_electric_power` has no known power: null, not 0 kW.
        let known = object
            .evse(&c.evse_uid)
            .and_then(|e| e.connector(&c.connector_id))
            .is_none_or(|k| k.max_power_w() > 0);
        let power_kw = known.then_some(c.power_kw);
        let tariff = c.tariff.as_deref().map(|t| tariff_id(&s.party_id, t));
        sqlx::query(
            "insert into station_connector (id, station_id, evse_uid, connector_id, pile_no, \
             connector_type, power_kw, status, tariff_id, last_updated, tariff_ref) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, (select id from tariff where id = $9), $10, $11) \
             on conflict (id) do update set pile_no = excluded.pile_no, \
             connector_type = excluded.connector_type, power_kw = excluded.power_kw, \
             tariff_id = excluded.tariff_id, tariff_ref = excluded.tariff_ref, \
             status = case when station_connector.last_updated > excluded.last_updated \
                           then station_connector.status else excluded.status end, \
             last_updated = greatest(station_connector.last_updated, excluded.last_updated)",
        )
        .bind(c.id)
        .bind(s.id)
        .bind(&c.evse_uid)
        .bind(&c.connector_id)
        .bind(&c.pile_no)
        .bind(i16::from(c.kind))
        .bind(power_kw)
        .bind(i16::from(c.state))
        .bind(tariff)
        .bind(c.last_updated)
        .bind(&c.tariff)
        .execute(&mut *conn)
        .await?;
    }
    recount(conn, s.id).await?;
    Ok(created)
}

/// The location as stored, its station's row held for the caller's
/// transaction (pushes to one station take turns); None when the station
/// is unknown here or was written before objects were kept.
pub async fn object_for_update(
    conn: &mut PgConnection,
    station: Uuid,
) -> Result<Option<Location>, ServiceError> {
    let stored: Option<Option<Json<Location>>> =
        sqlx::query_scalar("select object from station where id = $1 for update")
            .bind(station)
            .fetch_optional(conn)
            .await?;
    Ok(stored.flatten().map(|Json(l)| l))
}

/// The location as stored (see [`object_for_update`]).
pub async fn object(
    conn: &mut PgConnection,
    station: Uuid,
) -> Result<Option<Location>, ServiceError> {
    let stored: Option<Option<Json<Location>>> =
        sqlx::query_scalar("select object from station where id = $1")
            .bind(station)
            .fetch_optional(conn)
            .await?;
    Ok(stored.flatten().map(|Json(l)| l))
}

/// Applies an EVSE status push unless a newer one was applied, to the
/// connectors and to the stored location (the EVSE's status and
/// `last_updated`, and the location's); false when the station or EVSE is
/// unknown here.
pub async fn set_evse_state(
    conn: &mut PgConnection,
    station: Uuid,
    evse_uid: &str,
    status: EvseStatus,
    at: DateTime<Utc>,
) -> Result<bool, ServiceError> {
    let state = EvseState::from(status);
    // The station first: pushes for its piles take turns, so their recounts
    // never wait on each other's connector rows.
    let known: Option<i32> = sqlx::query_scalar("select 1 from station where id = $1 for update")
        .bind(station)
        .fetch_optional(&mut *conn)
        .await?;
    if known.is_none() {
        return Ok(false);
    }
    let touched = sqlx::query(
        "update station_connector set status = case when last_updated > $4 then status else $3 end, \
         last_updated = greatest(last_updated, $4) where station_id = $1 and evse_uid = $2",
    )
    .bind(station)
    .bind(evse_uid)
    .bind(i16::from(state))
    .bind(at)
    .execute(&mut *conn)
    .await?
    .rows_affected();
    if touched == 0 {
        return Ok(false);
    }
    // Stored DateTimes are all written alike (`2015-06-29T20:39:09Z`), so
    // their text orders as their time.
    let at_text = datetime::format(&at);
    let status_text = serde_json::to_value(status).map_err(|e| ServiceError::internal(&e))?;
    sqlx::query(
        "update station s set object = jsonb_set(jsonb_set(s.object, \
           array['evses', (e.n - 1)::text], \
           e.v || jsonb_build_object('status', $3::jsonb, 'last_updated', $4::text)), \
           '{last_updated}', to_jsonb(greatest(s.object->>'last_updated', $4::text))) \
         from (select x.n, x.v from station t \
               cross join lateral jsonb_array_elements(t.object->'evses') with ordinality x(v, n) \
               where t.id = $1 and x.v->>'uid' = $2) e \
         where s.id = $1 and coalesce(e.v->>'last_updated', '') <= $4",
    )
    .bind(station)
    .bind(evse_uid)
    .bind(status_text)
    .bind(at_text)
    .execute(&mut *conn)
    .await?;
    recount(conn, station).await?;
    Ok(true)
}

/// Keeps a station's connector counts, free counts and status in step
/// with its connectors (the caller holds the station's row).
async fn recount(conn: &mut PgConnection, station: Uuid) -> Result<(), ServiceError> {
    let connectors: Vec<(i16, i16)> = sqlx::query_as(
        "select connector_type, status from station_connector where station_id = $1",
    )
    .bind(station)
    .fetch_all(&mut *conn)
    .await?;
    let published: bool = sqlx::query_scalar("select published from station where id = $1")
        .bind(station)
        .fetch_one(&mut *conn)
        .await?;
    let mut counts = [0i32; 4];
    let mut states = Vec::with_capacity(connectors.len());
    for (kind, state) in connectors {
        let kind = optional::<ConnectorKind>(Some(kind));
        let state = optional::<EvseState>(Some(state)).unwrap_or(EvseState::Unknown);
        states.push(state);
        let free = state == EvseState::Available;
        match kind {
            Some(ConnectorKind::Dc) => {
                counts[0] += 1;
                counts[2] += i32::from(free);
            }
            Some(ConnectorKind::Ac) => {
                counts[1] += 1;
                counts[3] += i32::from(free);
            }
            None => {}
        }
    }
    let status: StationStatus = station_status(published, &states);
    sqlx::query(
        "update station set dc_connector_count = $2, ac_connector_count = $3, \
         dc_available_count = $4, ac_available_count = $5, status = $6 where id = $1",
    )
    .bind(station)
    .bind(counts[0])
    .bind(counts[1])
    .bind(counts[2])
    .bind(counts[3])
    .bind(i16::from(status))
    .execute(conn)
    .await?;
    Ok(())
}

/// A station's connector as a session records it.
#[derive(Debug, Clone, FromRow)]
pub struct ConnectorRef {
    pub station_id: Uuid,
    pub station_name: String,
    pub city_name: String,
    pub pile_no: String,
    pub connector_id: String,
    pub connector_type: i16,
}

/// The station of a platform location and, when known, the pile `evse_uid`.
pub async fn connector(
    conn: &mut PgConnection,
    party_id: &str,
    location_id: &str,
    evse_uid: &str,
) -> Result<Option<ConnectorRef>, ServiceError> {
    Ok(sqlx::query_as(
        "select s.id as station_id, s.name as station_name, s.city_name, \
         coalesce(c.pile_no, '') as pile_no, coalesce(c.connector_id, '') as connector_id, \
         coalesce(c.connector_type, 0::smallint) as connector_type \
         from station s left join station_connector c on c.station_id = s.id and c.evse_uid = $3 \
         where s.party_id = $1 and s.location_id = $2 order by c.connector_id limit 1",
    )
    .bind(party_id)
    .bind(location_id)
    .bind(evse_uid)
    .fetch_optional(conn)
    .await?)
}

/// Whether the platform location is known here.
pub async fn known(
    conn: &mut PgConnection,
    party_id: &str,
    location_id: &str,
) -> Result<bool, ServiceError> {
    Ok(sqlx::query_scalar(
        "select exists(select 1 from station where party_id = $1 and location_id = $2)",
    )
    .bind(party_id)
    .bind(location_id)
    .fetch_one(conn)
    .await?)
}

/// A checked station filter.
#[derive(Debug, Clone, Default)]
pub struct StationQuery {
    pub city_code: Option<String>,
    pub keyword: String,
    /// (lat, lng) and radius in metres.
    pub near: Option<((f64, f64), f64)>,
    pub statuses: Vec<i16>,
    pub dc_available_only: bool,
    pub plate_scan_only: bool,
    pub truck_friendly_only: bool,
}

/// By name, or nearest first around a point.
#[derive(Debug, Clone, Copy)]
enum StationSort {
    Name,
    Nearest,
}

impl Sort for StationSort {
    fn order_by(&self) -> &'static str {
        match self {
            StationSort::Name => "s.name, s.id",
            StationSort::Nearest => "distance_m, s.id",
        }
    }
}

/// The great-circle distance from a point, metres (the point inlined as
/// numbers: they are parsed floats, never text from the request).
fn distance_sql((lat, lng): (f64, f64)) -> String {
    format!(
        "(2 * 6371000 * asin(sqrt(power(sin(radians(s.lat - ({lat})) / 2), 2) + \
         cos(radians({lat})) * cos(radians(s.lat)) * power(sin(radians(s.lng - ({lng})) / 2), 2))))"
    )
}

fn filtered<'a>(select: &str, query: &StationQuery) -> Filters<'a> {
    let mut f = Filters::across_tenants(select);
    f.equals("s.city_code", query.city_code.clone())
        .contains_any(&["s.name", "s.address"], &query.keyword)
        .any_of("s.status", query.statuses.clone());
    if let Some((centre, radius)) = query.near {
        let ((lat0, lng0), (lat1, lng1)) = super::domain::bounding_box(centre, radius);
        f.and()
            .push("s.lat between ")
            .push_bind(lat0)
            .push(" and ")
            .push_bind(lat1)
            .push(" and s.lng between ")
            .push_bind(lng0)
            .push(" and ")
            .push_bind(lng1);
        f.and()
            .push(distance_sql(centre))
            .push(" <= ")
            .push_bind(radius);
    }
    if query.dc_available_only {
        f.and().push("s.dc_available_count > 0");
    }
    if query.plate_scan_only {
        f.and().push("s.supports_plate_scan");
    }
    if query.truck_friendly_only {
        f.and().push("s.truck_friendly");
    }
    f
}

fn select(query: &StationQuery) -> String {
    let distance = query.near.map_or_else(
        || "0::float8".to_owned(),
        |(centre, _)| distance_sql(centre),
    );
    format!("select {COLUMNS}, {distance} as distance_m from station s")
}

pub async fn list(
    conn: &mut PgConnection,
    query: &StationQuery,
    paging: Paging,
) -> Result<(Vec<StationRow>, i64), ServiceError> {
    let sort = if query.near.is_some() {
        StationSort::Nearest
    } else {
        StationSort::Name
    };
    let select = select(query);
    let mut rows = filtered(&select, query).page(&sort, paging);
    let rows = rows.build_query_as().fetch_all(&mut *conn).await?;
    let mut count = filtered("select count(*) from station s", query).finish();
    let total = count.build_query_scalar().fetch_one(conn).await?;
    Ok((rows, total))
}

pub async fn get(conn: &mut PgConnection, id: Uuid) -> Result<StationRow, ServiceError> {
    let sql = format!("{} where s.id = $1", select(&StationQuery::default()));
    sqlx::query_as(&sql)
        .bind(id)
        .fetch_optional(conn)
        .await?
        .ok_or_else(ServiceError::not_found)
}
