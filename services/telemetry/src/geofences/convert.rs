//! Proto ↔ domain for geofences, their crossings, sign-ins and alarms, and
//! a stored fence as evaluation's [`Fence`].

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{ActiveWindow, AlarmKind, Direction, GeofenceFields, Geometry, Purpose, Shape};
use super::engine::Fence;
use super::geometry::Point;
use super::store::{
    AlarmRow, CrossingQuery, CrossingRow, EventQuery, GeofenceQuery, GeofenceRow, SignInRow,
};
use crate::codes::optional;

fn point(p: &common::GeoPoint) -> Point {
    Point::new(p.latitude, p.longitude)
}

fn geo(p: Point) -> common::GeoPoint {
    common::GeoPoint {
        longitude: p.lng,
        latitude: p.lat,
    }
}

/// An input as the domain reads it (every field named: a new one breaks the build).
pub fn fields(input: pb::GeofenceInput) -> GeofenceFields {
    let pb::GeofenceInput {
        org_id,
        name,
        purpose,
        shape,
        center,
        radius_m,
        vertices,
        area: _,
        address,
        alert_on_enter,
        alert_on_exit,
        max_dwell_minutes,
        active_start_minute,
        active_end_minute,
        all_vehicles,
        vehicle_ids,
        enabled,
        corridor_width_m,
        speed_limit_kmh,
        active_windows,
        dwell_seconds,
    } = input;
    let mut windows: Vec<ActiveWindow> = active_windows
        .into_iter()
        .map(|w| ActiveWindow {
            weekdays: w.weekdays,
            start: w.start_minute,
            end: w.end_minute,
        })
        .collect();
    // The older daily window: every day between the two minutes.
    if windows.is_empty() && (active_start_minute, active_end_minute) != (0, 0) {
        windows.push(ActiveWindow {
            weekdays: (1..=7).collect(),
            start: active_start_minute,
            end: active_end_minute,
        });
    }
    GeofenceFields {
        org_id,
        name,
        purpose: Purpose::from_pb(purpose),
        shape: Shape::from_pb(shape),
        center: center.as_ref().map(point),
        radius_m,
        points: vertices.iter().map(point).collect(),
        corridor_width_m,
        speed_limit_kmh,
        windows,
        dwell_seconds,
        alert_on_enter,
        alert_on_exit,
        max_dwell_minutes,
        address,
        all_vehicles,
        vehicle_ids,
        enabled,
    }
}

fn geometry(row: &GeofenceRow) -> Option<Geometry> {
    let shape = optional::<Shape>(Some(row.shape))?;
    match shape {
        Shape::Circle => Some(Geometry::Circle {
            center: Point::new(row.center_lat?, row.center_lng?),
            radius_m: row.radius_m?,
        }),
        Shape::Polygon => Some(Geometry::Polygon { ring: row.points() }),
        Shape::Corridor => Some(Geometry::Corridor {
            line: row.points(),
            width_m: row.corridor_width_m?,
        }),
        Shape::AdministrativeArea => None,
    }
}

/// A stored fence as evaluation needs it (`None`: nothing to evaluate).
pub fn fence(row: GeofenceRow) -> Option<Fence> {
    let geometry = geometry(&row)?;
    Some(Fence {
        id: row.id,
        purpose: optional::<Purpose>(Some(row.purpose))?,
        name: row.name,
        geometry,
        speed_limit_kmh: row.speed_limit_kmh,
        windows: row.active_windows.0,
        dwell_seconds: i64::from(row.dwell_seconds),
        max_stay_seconds: (row.max_dwell_minutes > 0)
            .then(|| i64::from(row.max_dwell_minutes) * 60),
        alert_on_enter: row.alert_on_enter,
        alert_on_exit: row.alert_on_exit,
        all_vehicles: row.all_vehicles,
        vehicles: row.vehicle_ids.into_iter().collect(),
    })
}

pub fn geofence(row: GeofenceRow, enterprise_id: Uuid) -> pb::Geofence {
    let g = geometry(&row);
    let vertices = match &g {
        Some(Geometry::Polygon { ring }) => ring.iter().copied().map(geo).collect(),
        Some(Geometry::Corridor { line, .. }) => line.iter().copied().map(geo).collect(),
        Some(Geometry::Circle { .. }) | None => Vec::new(),
    };
    let (center, radius_m) = match &g {
        Some(Geometry::Circle { center, radius_m }) => (Some(geo(*center)), *radius_m),
        Some(Geometry::Polygon { .. } | Geometry::Corridor { .. }) | None => (None, 0),
    };
    let vehicle_count = i32::try_from(row.vehicle_ids.len()).unwrap_or(i32::MAX);
    pb::Geofence {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: row.org_id.to_string(),
        org_name: row.org_name,
        name: row.name,
        purpose: optional::<Purpose>(Some(row.purpose)).map_or(0, Purpose::pb),
        shape: optional::<Shape>(Some(row.shape)).map_or(0, Shape::pb),
        center,
        radius_m,
        vertices,
        area: None,
        address: row.address,
        alert_on_enter: row.alert_on_enter,
        alert_on_exit: row.alert_on_exit,
        max_dwell_minutes: row.max_dwell_minutes,
        active_start_minute: 0,
        active_end_minute: 0,
        all_vehicles: row.all_vehicles,
        vehicle_ids: row.vehicle_ids.iter().map(Uuid::to_string).collect(),
        vehicle_count,
        vehicles_inside: row.inside_count,
        enabled: row.enabled,
        audit: Some(common::Audit {
            created_by: row.created_by.map(|u| u.to_string()).unwrap_or_default(),
            create_time: Some(timestamp(row.created_at)),
            updated_by: row.updated_by.map(|u| u.to_string()).unwrap_or_default(),
            update_time: Some(timestamp(row.updated_at)),
        }),
        corridor_width_m: row.corridor_width_m.unwrap_or(0),
        speed_limit_kmh: row.speed_limit_kmh,
        active_windows: row
            .active_windows
            .0
            .into_iter()
            .map(|w| pb::GeofenceActiveWindow {
                weekdays: w.weekdays,
                start_minute: w.start,
                end_minute: w.end,
            })
            .collect(),
        dwell_seconds: row.dwell_seconds,
    }
}

fn uuids(field: &str, values: &[String], message: &str) -> Result<Vec<Uuid>, ServiceError> {
    if values.len() > list::BATCH_LIMIT {
        return Err(ServiceError::invalid(field, list::batch_limit_message()));
    }
    values
        .iter()
        .map(|v| Uuid::parse_str(v.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid(field, message))
}

fn codes<T: Copy>(
    field: &str,
    values: &[i32],
    from_pb: impl Fn(i32) -> Option<T>,
) -> Result<Vec<T>, ServiceError> {
    values
        .iter()
        .map(|v| from_pb(*v).ok_or_else(|| ServiceError::invalid(field, "筛选条件的取值无效")))
        .collect()
}

/// The organisations a dashboard asks for.
pub fn org_ids(values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    uuids("orgIds", values, "所选组织不存在")
}

pub fn query(req: &pb::ListGeofencesRequest) -> Result<GeofenceQuery, ServiceError> {
    let pb::ListGeofencesRequest {
        page: _,
        org_ids,
        name,
        purposes,
        shapes,
        enabled,
        vehicle_id,
    } = req;
    let vehicle_id = match vehicle_id.trim() {
        "" => None,
        v => Some(
            Uuid::parse_str(v).map_err(|_| ServiceError::invalid("vehicleId", "所选车辆不存在"))?,
        ),
    };
    Ok(GeofenceQuery {
        org_ids: self::org_ids(org_ids)?,
        name: name.clone(),
        purposes: codes("purposes", purposes, Purpose::from_pb)?
            .into_iter()
            .map(i16::from)
            .collect(),
        shapes: codes("shapes", shapes, Shape::from_pb)?
            .into_iter()
            .map(i16::from)
            .collect(),
        enabled: *enabled,
        vehicle_id,
    })
}

pub fn crossing_query(
    req: &pb::ListGeofenceCrossingsRequest,
) -> Result<CrossingQuery, ServiceError> {
    let pb::ListGeofenceCrossingsRequest {
        page: _,
        geofence_ids,
        plate_numbers,
        vins: _,
        org_ids,
        direction,
        cross_time,
        alarmed_only,
        directions,
    } = req;
    let mut all: Vec<i32> = directions.clone();
    if *direction != 0 {
        all.push(*direction);
    }
    let mut directions: Vec<i16> = codes("directions", &all, Direction::from_pb)?
        .into_iter()
        .map(i16::from)
        .collect();
    directions.sort_unstable();
    directions.dedup();
    Ok(CrossingQuery {
        geofence_ids: uuids("geofenceIds", geofence_ids, "所选围栏不存在")?,
        plates: list::batch("plateNumbers", plate_numbers)?,
        org_ids: self::org_ids(org_ids)?,
        directions,
        time: TimeRange::parse("crossTime", cross_time.as_ref())?,
        alarmed_only: *alarmed_only,
        fence_org_ids: Vec::new(),
    })
}

pub fn sign_in_query(req: &pb::ListGeofenceSignInsRequest) -> Result<EventQuery, ServiceError> {
    let pb::ListGeofenceSignInsRequest {
        page: _,
        geofence_ids,
        plate_numbers,
        sign_time,
    } = req;
    Ok(EventQuery {
        geofence_ids: uuids("geofenceIds", geofence_ids, "所选签到点不存在")?,
        plates: list::batch("plateNumbers", plate_numbers)?,
        kinds: Vec::new(),
        time: TimeRange::parse("signTime", sign_time.as_ref())?,
        fence_org_ids: Vec::new(),
    })
}

pub fn alarm_query(req: &pb::ListGeofenceAlarmsRequest) -> Result<EventQuery, ServiceError> {
    let pb::ListGeofenceAlarmsRequest {
        page: _,
        geofence_ids,
        plate_numbers,
        kinds,
        alarm_time,
    } = req;
    Ok(EventQuery {
        geofence_ids: uuids("geofenceIds", geofence_ids, "所选围栏不存在")?,
        plates: list::batch("plateNumbers", plate_numbers)?,
        kinds: codes("kinds", kinds, AlarmKind::from_pb)?
            .into_iter()
            .map(i16::from)
            .collect(),
        time: TimeRange::parse("alarmTime", alarm_time.as_ref())?,
        fence_org_ids: Vec::new(),
    })
}

pub fn crossing(row: CrossingRow, enterprise_id: Uuid) -> pb::GeofenceCrossing {
    pb::GeofenceCrossing {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        geofence_id: row.geofence_id.to_string(),
        geofence_name: row.geofence_name,
        vehicle_id: row.vehicle_id.to_string(),
        plate_number: row.plate_number,
        driver_id: String::new(),
        driver_name: String::new(),
        direction: optional::<Direction>(Some(row.direction)).map_or(0, Direction::pb),
        cross_time: Some(timestamp(row.cross_time)),
        point: Some(geo(Point::new(row.lat, row.lng))),
        address: String::new(),
        speed_kmh: f64::from(row.speed_dkmh) / 10.0,
        dwell_seconds: row.dwell_seconds.unwrap_or(0),
        alarmed: row.alarmed,
    }
}

pub fn sign_in(row: SignInRow) -> pb::GeofenceSignIn {
    pb::GeofenceSignIn {
        id: row.id.to_string(),
        geofence_id: row.geofence_id.to_string(),
        point_name: row.point_name,
        vehicle_id: row.vehicle_id.to_string(),
        plate_number: row.plate_number,
        sign_time: Some(timestamp(row.sign_time)),
        point: Some(geo(Point::new(row.lat, row.lng))),
    }
}

pub fn alarm(row: AlarmRow) -> pb::GeofenceAlarm {
    pb::GeofenceAlarm {
        id: row.id.to_string(),
        geofence_id: row.geofence_id.to_string(),
        geofence_name: row.geofence_name,
        vehicle_id: row.vehicle_id.to_string(),
        plate_number: row.plate_number,
        kind: optional::<AlarmKind>(Some(row.kind)).map_or(0, AlarmKind::pb),
        alarm_time: Some(timestamp(row.alarm_time)),
        point: Some(geo(Point::new(row.lat, row.lng))),
        speed_kmh: f64::from(row.speed_dkmh) / 10.0,
        limit_kmh: row.limit_kmh.unwrap_or(0),
        max_stay_minutes: row.max_stay_minutes.unwrap_or(0),
    }
}
