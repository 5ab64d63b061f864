//! Rules of a geofence: its stored codes, the checks an input must pass
//! (shape sizes, coordinates, windows, watched vehicles) and the weekly
//! active windows. Pure: no database.

use chrono::{DateTime, Datelike, FixedOffset, Timelike, Utc};
use fleetdesk_assets::vehicles::domain::Problems;
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;
use serde::{Deserialize, Serialize};
use uuid::Uuid;

use super::geometry::{self, Point};
use crate::codes::stored_code;

stored_code!(
    /// The shape of a fence (administrative areas are not built: refused on input).
    Shape => pb::GeofenceShape {
        Circle = 1, Polygon = 2, AdministrativeArea = 3, Corridor = 4,
    }
);

stored_code!(
    /// What a fence is for; the edge offers `area` (General) and `signIn`.
    Purpose => pb::GeofencePurpose {
        General = 1, SignIn = 2, ParkingLot = 3, NoEntry = 4, NoExit = 5,
    }
);

stored_code!(
    /// Which way a vehicle crossed.
    Direction => pb::CrossingDirection {
        Enter = 1, Exit = 2,
    }
);

stored_code!(
    /// What raised a geofence alarm.
    AlarmKind => pb::GeofenceAlarmKind {
        Enter = 1, Exit = 2, Speeding = 3, Overstay = 4,
    }
);

/// Bounds of the input (the contract's).
pub const MIN_RADIUS_M: i32 = 50;
pub const MAX_RADIUS_M: i32 = 50_000;
pub const MIN_CORRIDOR_M: i32 = 10;
pub const MAX_CORRIDOR_M: i32 = 5_000;
pub const MAX_POINTS: usize = 1_000;
pub const MAX_VEHICLES: usize = 1_000;
pub const MAX_DWELL_SECONDS: i32 = 3_600;
pub const MAX_WINDOWS: usize = 7;

/// The area a fence covers.
#[derive(Debug, Clone, PartialEq)]
pub enum Geometry {
    Circle {
        center: Point,
        radius_m: i32,
    },
    /// A ring of vertices, not closed.
    Polygon {
        ring: Vec<Point>,
    },
    /// A polyline and the corridor's full width.
    Corridor {
        line: Vec<Point>,
        width_m: i32,
    },
}

impl Geometry {
    pub fn shape(&self) -> Shape {
        match self {
            Geometry::Circle { .. } => Shape::Circle,
            Geometry::Polygon { .. } => Shape::Polygon,
            Geometry::Corridor { .. } => Shape::Corridor,
        }
    }

    /// Whether `p` is inside (exact test).
    pub fn contains(&self, p: Point) -> bool {
        match self {
            Geometry::Circle { center, radius_m } => {
                geometry::haversine_m(*center, p) <= f64::from(*radius_m)
            }
            Geometry::Polygon { ring } => geometry::in_polygon(p, ring),
            Geometry::Corridor { line, width_m } => {
                geometry::distance_to_polyline_m(p, line) <= f64::from(*width_m) / 2.0
            }
        }
    }

    /// The box an R-tree keeps for it (a metre of slack against rounding).
    pub fn bbox(&self) -> geometry::BBox {
        match self {
            Geometry::Circle { center, radius_m } => {
                geometry::BBox::around(&[*center], f64::from(*radius_m) + 1.0)
            }
            Geometry::Polygon { ring } => geometry::BBox::around(ring, 1.0),
            Geometry::Corridor { line, width_m } => {
                geometry::BBox::around(line, f64::from(*width_m) / 2.0 + 1.0)
            }
        }
    }
}

/// A weekly window a fence is watched in (Asia/Shanghai).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveWindow {
    /// ISO weekdays 1 (Monday) .. 7.
    pub weekdays: Vec<i32>,
    /// Minutes after midnight, `start < end <= 1440`.
    pub start: i32,
    pub end: i32,
}

fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// Whether a fence with `windows` is watched at `t` (no windows: always).
pub fn active_at(windows: &[ActiveWindow], t: DateTime<Utc>) -> bool {
    if windows.is_empty() {
        return true;
    }
    let local = t.with_timezone(&shanghai());
    let weekday = i32::try_from(local.weekday().number_from_monday()).unwrap_or(0);
    let minute = i32::try_from(local.hour() * 60 + local.minute()).unwrap_or(0);
    windows
        .iter()
        .any(|w| w.weekdays.contains(&weekday) && w.start <= minute && minute < w.end)
}

/// A geofence input as the edge sent it (from `GeofenceInput`).
#[derive(Debug, Clone, Default)]
pub struct GeofenceFields {
    pub org_id: String,
    pub name: String,
    pub purpose: Option<Purpose>,
    pub shape: Option<Shape>,
    pub center: Option<Point>,
    pub radius_m: i32,
    pub points: Vec<Point>,
    pub corridor_width_m: i32,
    pub speed_limit_kmh: Option<i32>,
    pub windows: Vec<ActiveWindow>,
    pub dwell_seconds: i32,
    pub alert_on_enter: bool,
    pub alert_on_exit: bool,
    pub max_dwell_minutes: i32,
    pub address: String,
    pub all_vehicles: bool,
    pub vehicle_ids: Vec<String>,
    pub enabled: bool,
}

/// A checked geofence, ready to store.
#[derive(Debug, Clone, PartialEq)]
pub struct GeofenceDraft {
    pub org_id: Uuid,
    pub name: String,
    pub purpose: Purpose,
    pub geometry: Geometry,
    pub speed_limit_kmh: Option<i32>,
    pub windows: Vec<ActiveWindow>,
    pub dwell_seconds: i32,
    pub alert_on_enter: bool,
    pub alert_on_exit: bool,
    pub max_dwell_minutes: i32,
    pub address: String,
    /// Watch every vehicle of the enterprise (no ids given).
    pub all_vehicles: bool,
    pub vehicle_ids: Vec<Uuid>,
    pub enabled: bool,
}

fn check_point(problems: &mut Problems, field: &str, p: Point) -> bool {
    if !(p.lat.is_finite() && (-90.0..=90.0).contains(&p.lat)) {
        problems.add(field, "纬度须在 -90 到 90 之间");
        return false;
    }
    if !(p.lng.is_finite() && (-180.0..=180.0).contains(&p.lng)) {
        problems.add(field, "经度须在 -180 到 180 之间");
        return false;
    }
    true
}

fn check_points(problems: &mut Problems, points: &[Point], min: usize, too_few: &str) -> bool {
    if points.len() < min {
        problems.add("points", too_few);
        return false;
    }
    if points.len() > MAX_POINTS {
        problems.add("points", format!("围栏最多 {MAX_POINTS} 个点"));
        return false;
    }
    points.iter().all(|p| check_point(problems, "points", *p))
}

impl GeofenceDraft {
    /// Checks every field, reporting all refusals together (4000).
    pub fn parse(fields: GeofenceFields) -> Result<GeofenceDraft, ServiceError> {
        let mut problems = Problems::default();
        let org_id = problems.org("orgId", &fields.org_id);
        let name = problems.text("name", "围栏名称", &fields.name, 50);
        let address = problems.optional_text("address", "地址", &fields.address, 200);
        let purpose = problems.choice("purpose", "围栏用途", fields.purpose);
        let shape = problems.choice("shape", "围栏形状", fields.shape);
        let geometry = match shape {
            None => None,
            Some(Shape::AdministrativeArea) => {
                problems.add("shape", "暂不支持按行政区域设置围栏");
                None
            }
            Some(Shape::Circle) => {
                let radius_m = fields.radius_m;
                if !(MIN_RADIUS_M..=MAX_RADIUS_M).contains(&radius_m) {
                    problems.add("radiusM", "半径须在 50 米到 50 公里之间");
                }
                match fields.center {
                    None => {
                        problems.add("center", "请选择圆心");
                        None
                    }
                    Some(center) => check_point(&mut problems, "center", center)
                        .then_some(Geometry::Circle { center, radius_m }),
                }
            }
            Some(Shape::Polygon) => {
                let ring = strip_closing_point(fields.points.clone());
                if !check_points(&mut problems, &ring, 3, "多边形至少需要 3 个点") {
                    None
                } else if geometry::ring_self_intersects(&ring) {
                    problems.add("points", "多边形的边不能相交");
                    None
                } else if geometry::ring_area2(&ring).abs() < 1e-12 {
                    problems.add("points", "多边形的面积不能为 0");
                    None
                } else {
                    Some(Geometry::Polygon { ring })
                }
            }
            Some(Shape::Corridor) => {
                let width_m = fields.corridor_width_m;
                if !(MIN_CORRIDOR_M..=MAX_CORRIDOR_M).contains(&width_m) {
                    problems.add("corridorWidthM", "路线宽度须在 10 米到 5 公里之间");
                }
                check_points(&mut problems, &fields.points, 2, "路线至少需要 2 个点").then(|| {
                    Geometry::Corridor {
                        line: fields.points.clone(),
                        width_m,
                    }
                })
            }
        };
        if purpose == Some(Purpose::SignIn) && shape.is_some_and(|s| s != Shape::Circle) {
            problems.add("shape", "签到点须为圆形围栏");
        }
        if let Some(limit) = fields.speed_limit_kmh {
            problems.within("speedLimitKmh", "限速(km/h)", limit, 1, 250);
        }
        problems.within(
            "dwellSeconds",
            "停留时长(秒)",
            fields.dwell_seconds,
            0,
            MAX_DWELL_SECONDS,
        );
        problems.within(
            "maxStayMinutes",
            "最长停留(分钟)",
            fields.max_dwell_minutes,
            0,
            10_080,
        );
        if fields.windows.len() > MAX_WINDOWS {
            problems.add("activeWindows", format!("生效时段最多 {MAX_WINDOWS} 个"));
        }
        let mut windows = Vec::with_capacity(fields.windows.len());
        for w in fields.windows {
            let mut weekdays = w.weekdays.clone();
            weekdays.sort_unstable();
            weekdays.dedup();
            if weekdays.is_empty() || weekdays.iter().any(|d| !(1..=7).contains(d)) {
                problems.add("activeWindows", "请选择生效的星期（周一到周日）");
            }
            if !(0 <= w.start && w.start < w.end && w.end <= 1440) {
                problems.add("activeWindows", "生效时段的开始时间须早于结束时间");
            }
            windows.push(ActiveWindow {
                weekdays,
                start: w.start,
                end: w.end,
            });
        }
        let mut vehicle_ids = Vec::with_capacity(fields.vehicle_ids.len());
        for v in &fields.vehicle_ids {
            match Uuid::parse_str(v.trim()) {
                Ok(id) if !vehicle_ids.contains(&id) => vehicle_ids.push(id),
                Ok(_) => {}
                Err(_) => problems.add("vehicleIds", "所选车辆不存在"),
            }
        }
        if vehicle_ids.len() > MAX_VEHICLES {
            problems.add("vehicleIds", format!("最多选择 {MAX_VEHICLES} 辆车"));
        }
        let all_vehicles = fields.all_vehicles || vehicle_ids.is_empty();
        if all_vehicles {
            vehicle_ids.clear();
        }
        problems.finish()?;
        match (org_id, purpose, geometry) {
            (Some(org_id), Some(purpose), Some(geometry)) => Ok(GeofenceDraft {
                org_id,
                name,
                purpose,
                geometry,
                speed_limit_kmh: fields.speed_limit_kmh,
                windows,
                dwell_seconds: fields.dwell_seconds,
                alert_on_enter: fields.alert_on_enter,
                alert_on_exit: fields.alert_on_exit,
                max_dwell_minutes: fields.max_dwell_minutes,
                address,
                all_vehicles,
                vehicle_ids,
                enabled: fields.enabled,
            }),
            // Every `None` above recorded a problem, so `finish` refused.
            _ => Err(ServiceError::invalid("shape", "请选择围栏形状")),
        }
    }
}

/// A ring drawn closed (last = first) is kept open.
fn strip_closing_point(mut ring: Vec<Point>) -> Vec<Point> {
    if ring.len() > 3 && ring.first() == ring.last() {
        ring.pop();
    }
    ring
}

#[cfg(test)]
mod tests {
    use super::*;

    fn circle() -> GeofenceFields {
        GeofenceFields {
            org_id: Uuid::from_u128(1).to_string(),
            name: "仓库".into(),
            purpose: Some(Purpose::General),
            shape: Some(Shape::Circle),
            center: Some(Point::new(31.2, 121.4)),
            radius_m: 500,
            enabled: true,
            ..GeofenceFields::default()
        }
    }

    fn fields_of(err: ServiceError) -> Vec<(String, String)> {
        err.fields
            .into_iter()
            .map(|f| (f.field, f.message))
            .collect()
    }

    #[test]
    fn a_circle_within_bounds_is_accepted_and_watches_every_vehicle() {
        let draft = GeofenceDraft::parse(circle()).unwrap();
        assert!(draft.all_vehicles);
        assert_eq!(draft.geometry.shape(), Shape::Circle);
    }

    #[test]
    fn radius_corridor_width_and_coordinates_are_bounded() {
        let mut f = circle();
        f.radius_m = 49;
        f.center = Some(Point::new(91.0, 121.0));
        let errs = fields_of(GeofenceDraft::parse(f).unwrap_err());
        assert!(errs.contains(&("radiusM".into(), "半径须在 50 米到 50 公里之间".into())));
        assert!(errs.contains(&("center".into(), "纬度须在 -90 到 90 之间".into())));

        let mut f = circle();
        f.shape = Some(Shape::Corridor);
        f.points = vec![Point::new(31.0, 121.0), Point::new(31.1, 121.1)];
        f.corridor_width_m = 5_001;
        let errs = fields_of(GeofenceDraft::parse(f).unwrap_err());
        assert_eq!(errs[0].0, "corridorWidthM");
    }

    #[test]
    fn polygons_need_three_points_no_crossing_edges_and_at_most_a_thousand() {
        let mut f = circle();
        f.shape = Some(Shape::Polygon);
        f.points = vec![Point::new(0.0, 0.0), Point::new(1.0, 1.0)];
        assert_eq!(
            fields_of(GeofenceDraft::parse(f.clone()).unwrap_err())[0].1,
            "多边形至少需要 3 个点"
        );
        f.points = vec![
            Point::new(0.0, 0.0),
            Point::new(1.0, 1.0),
            Point::new(0.0, 1.0),
            Point::new(1.0, 0.0),
        ];
        assert_eq!(
            fields_of(GeofenceDraft::parse(f.clone()).unwrap_err())[0].1,
            "多边形的边不能相交"
        );
        f.points = (0..1_001)
            .map(|i| {
                let a = f64::from(i) / 1_001.0 * std::f64::consts::TAU;
                Point::new(31.0 + 0.01 * a.sin(), 121.0 + 0.01 * a.cos())
            })
            .collect();
        assert_eq!(
            fields_of(GeofenceDraft::parse(f.clone()).unwrap_err())[0].1,
            "围栏最多 1000 个点"
        );
        f.points.truncate(1_000);
        assert!(GeofenceDraft::parse(f).is_ok());
    }

    #[test]
    fn a_sign_in_point_must_be_a_circle() {
        let mut f = circle();
        f.purpose = Some(Purpose::SignIn);
        f.shape = Some(Shape::Corridor);
        f.points = vec![Point::new(31.0, 121.0), Point::new(31.1, 121.1)];
        f.corridor_width_m = 100;
        let errs = fields_of(GeofenceDraft::parse(f).unwrap_err());
        assert!(errs.contains(&("shape".into(), "签到点须为圆形围栏".into())));
    }

    #[test]
    fn windows_are_weekly_in_shanghai_time() {
        let weekdays_9_to_18 = [ActiveWindow {
            weekdays: vec![1, 2, 3, 4, 5],
            start: 9 * 60,
            end: 18 * 60,
        }];
        // Monday 2026-11-23 10:00 in Shanghai is 02:00 UTC.
        let monday_10 = DateTime::parse_from_rfc3339("2026-11-23T02:00:00Z")
            .unwrap()
            .with_timezone(&Utc);
        assert!(active_at(&weekdays_9_to_18, monday_10));
        assert!(!active_at(
            &weekdays_9_to_18,
            monday_10 + chrono::Duration::hours(9)
        ));
        assert!(!active_at(
            &weekdays_9_to_18,
            monday_10 + chrono::Duration::days(5)
        ));
        assert!(active_at(&[], monday_10));
    }
}
