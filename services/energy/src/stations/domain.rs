//! Rules of stations: their stored codes, what a station's EVSEs make of
//! its status and counts, and distances for "near me".

use fleetdesk_ocpi::{EvseStatus, Hours, Location, PowerType, RegularHours};
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use crate::codes::stored_code;

stored_code!(
    /// Whether a station can be used.
    StationStatus => pb::StationStatus {
        Operating = 1, Maintenance = 2, Closed = 3,
    }
);

stored_code!(
    /// DC fast or AC slow.
    ConnectorKind => pb::ConnectorType {
        Dc = 1, Ac = 2,
    }
);

stored_code!(
    /// An EVSE's status as the platform reports it.
    EvseState {
        Available = 1, Charging = 2, Reserved = 3, Blocked = 4, Inoperative = 5,
        OutOfOrder = 6, Planned = 7, Removed = 8, Unknown = 9,
    }
);

impl StationStatus {
    pub fn label(self) -> &'static str {
        match self {
            StationStatus::Operating => "运营中",
            StationStatus::Maintenance => "维护中",
            StationStatus::Closed => "已关闭",
        }
    }
}

impl ConnectorKind {
    pub fn label(self) -> &'static str {
        match self {
            ConnectorKind::Dc => "直流快充",
            ConnectorKind::Ac => "交流慢充",
        }
    }

    /// DC fast for direct current, AC slow for any alternating one.
    pub fn of(power: PowerType) -> ConnectorKind {
        match power {
            PowerType::Dc => ConnectorKind::Dc,
            PowerType::Ac1Phase
            | PowerType::Ac2Phase
            | PowerType::Ac2PhaseSplit
            | PowerType::Ac3Phase => ConnectorKind::Ac,
        }
    }
}

impl From<EvseStatus> for EvseState {
    fn from(status: EvseStatus) -> EvseState {
        match status {
            EvseStatus::Available => EvseState::Available,
            EvseStatus::Blocked => EvseState::Blocked,
            EvseStatus::Charging => EvseState::Charging,
            EvseStatus::Inoperative => EvseState::Inoperative,
            EvseStatus::Outoforder => EvseState::OutOfOrder,
            EvseStatus::Planned => EvseState::Planned,
            EvseStatus::Removed => EvseState::Removed,
            EvseStatus::Reserved => EvseState::Reserved,
            EvseStatus::Unknown => EvseState::Unknown,
        }
    }
}

impl EvseState {
    /// In service (free or busy), as opposed to down or not there.
    pub fn in_service(self) -> bool {
        match self {
            EvseState::Available
            | EvseState::Charging
            | EvseState::Reserved
            | EvseState::Blocked => true,
            EvseState::Inoperative
            | EvseState::OutOfOrder
            | EvseState::Planned
            | EvseState::Removed
            | EvseState::Unknown => false,
        }
    }
}

/// The id a platform location has here (the same on every sync): card
/// restrictions name stations by it.
pub fn station_id(party_id: &str, location_id: &str) -> Uuid {
    Uuid::new_v5(
        &Uuid::NAMESPACE_URL,
        format!("fleetdesk:ocpi:location:{party_id}:{location_id}").as_bytes(),
    )
}

/// The id of a connector of a station.
pub fn connector_id(station: Uuid, evse_uid: &str, connector: &str) -> Uuid {
    Uuid::new_v5(&station, format!("{evse_uid}/{connector}").as_bytes())
}

/// A station's status from whether it is published and its EVSEs: closed
/// when unpublished or without any EVSE, in maintenance when none is in
/// service, operating otherwise.
pub fn station_status(published: bool, states: &[EvseState]) -> StationStatus {
    if !published || states.is_empty() {
        StationStatus::Closed
    } else if states.iter().any(|s| s.in_service()) {
        StationStatus::Operating
    } else {
        StationStatus::Maintenance
    }
}

/// GB/T 2260 province of a city code (`440300` → `440000`).
pub fn province_of(city_code: &str) -> String {
    match city_code.get(..2) {
        Some(p) if city_code.len() == 6 => format!("{p}0000"),
        _ => String::new(),
    }
}

/// A location's coordinates, if they read as degrees on Earth.
pub fn point(location: &Location) -> Option<(f64, f64)> {
    let lat: f64 = location.coordinates.latitude.trim().parse().ok()?;
    let lng: f64 = location.coordinates.longitude.trim().parse().ok()?;
    ((-90.0..=90.0).contains(&lat) && (-180.0..=180.0).contains(&lng)).then_some((lat, lng))
}

/// Search radius of "near me" when none is asked, metres.
pub const DEFAULT_RADIUS_M: i32 = 10_000;
/// Widest search radius, metres.
pub const MAX_RADIUS_M: i32 = 50_000;
/// Mean Earth radius, metres.
const EARTH_M: f64 = 6_371_000.0;

/// Great-circle distance in metres.
pub fn distance_m(a: (f64, f64), b: (f64, f64)) -> f64 {
    let (la1, lo1) = (a.0.to_radians(), a.1.to_radians());
    let (la2, lo2) = (b.0.to_radians(), b.1.to_radians());
    let h = ((la2 - la1) / 2.0).sin().powi(2)
        + la1.cos() * la2.cos() * ((lo2 - lo1) / 2.0).sin().powi(2);
    2.0 * EARTH_M * h.sqrt().asin()
}

/// The lat/lng box around `centre` holding every point within `radius_m`
/// (what the index narrows by before the exact distance).
pub fn bounding_box(centre: (f64, f64), radius_m: f64) -> ((f64, f64), (f64, f64)) {
    let dlat = (radius_m / EARTH_M).to_degrees();
    let cos = centre.0.to_radians().cos().abs().max(0.01);
    let dlng = (radius_m / (EARTH_M * cos)).to_degrees().min(180.0);
    (
        (centre.0 - dlat, centre.1 - dlng),
        (centre.0 + dlat, centre.1 + dlng),
    )
}

/// A location as this service keeps it.
#[derive(Debug, Clone, PartialEq)]
pub struct StationDraft {
    pub id: Uuid,
    pub party_id: String,
    pub location_id: String,
    pub name: String,
    pub operator_name: String,
    pub province_code: String,
    pub city_code: String,
    pub city_name: String,
    pub address: String,
    pub lat: f64,
    pub lng: f64,
    pub published: bool,
    pub status: StationStatus,
    pub max_power_kw: i32,
    /// The OCPI id of the tariff of its first connector that names one.
    pub tariff: Option<String>,
    pub opening_hours: String,
    pub parking_note: String,
    pub supports_plate_scan: bool,
    pub truck_friendly: bool,
    pub last_updated: chrono::DateTime<chrono::Utc>,
    pub connectors: Vec<ConnectorDraft>,
}

/// One connector of a location's EVSE.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConnectorDraft {
    pub id: Uuid,
    pub evse_uid: String,
    pub connector_id: String,
    pub pile_no: String,
    pub kind: ConnectorKind,
    pub power_kw: i32,
    pub state: EvseState,
    /// The OCPI id of its first tariff.
    pub tariff: Option<String>,
    pub last_updated: chrono::DateTime<chrono::Utc>,
}

/// Opening hours as the station list shows them: `00:00-24:00` around the
/// clock, one range when every day has the same, else each weekday's.
fn opening_hours(hours: &Hours) -> String {
    if hours.twentyfourseven {
        return "00:00-24:00".to_owned();
    }
    let range = |r: &RegularHours| format!("{}-{}", r.period_begin, r.period_end);
    let mut days: Vec<u8> = hours.regular_hours.iter().map(|r| r.weekday).collect();
    days.sort_unstable();
    days.dedup();
    let ranges: Vec<String> = hours.regular_hours.iter().map(range).collect();
    if days == [1, 2, 3, 4, 5, 6, 7] && ranges.len() == 7 && ranges.iter().all(|r| *r == ranges[0])
    {
        return ranges[0].clone();
    }
    const DAYS: [&str; 7] = ["周一", "周二", "周三", "周四", "周五", "周六", "周日"];
    hours
        .regular_hours
        .iter()
        .map(|r| {
            let day = DAYS
                .get(usize::from(r.weekday).wrapping_sub(1))
                .unwrap_or(&"");
            format!("{day} {}", range(r))
        })
        .collect::<Vec<_>>()
        .join("，")
}

/// A platform location as a station (an EVSE REMOVED has no connectors
/// here); why not when its coordinates are unreadable.
pub fn draft(location: &Location) -> Result<StationDraft, String> {
    let (lat, lng) = point(location).ok_or("unreadable coordinates")?;
    let id = station_id(&location.party_id, &location.id);
    let mut connectors = Vec::new();
    for evse in &location.evses {
        if evse.status == EvseStatus::Removed {
            continue;
        }
        for c in &evse.connectors {
            connectors.push(ConnectorDraft {
                id: connector_id(id, &evse.uid, &c.id),
                evse_uid: evse.uid.clone(),
                connector_id: c.id.clone(),
                pile_no: evse
                    .physical_reference
                    .clone()
                    .unwrap_or_else(|| evse.uid.clone()),
                kind: ConnectorKind::of(c.power_type),
                power_kw: i32::try_from(c.max_power_w() / 1000).unwrap_or(i32::MAX),
                state: evse.status.into(),
                tariff: c.tariff_ids.first().cloned(),
                last_updated: evse.last_updated.max(c.last_updated),
            });
        }
    }
    let states: Vec<EvseState> = connectors.iter().map(|c| c.state).collect();
    let opening_hours = location
        .opening_times
        .as_ref()
        .map(opening_hours)
        .unwrap_or_default();
    Ok(StationDraft {
        id,
        party_id: location.party_id.clone(),
        location_id: location.id.clone(),
        // A location may go without a name (a home charge point): its address.
        name: location
            .name
            .clone()
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| location.address.clone()),
        operator_name: location
            .operator
            .as_ref()
            .map(|o| o.name.clone())
            .unwrap_or_default(),
        province_code: province_of(&location.x_city_code),
        city_code: location.x_city_code.clone(),
        city_name: location.city.clone(),
        address: location.address.clone(),
        lat,
        lng,
        published: location.publish,
        status: station_status(location.publish, &states),
        max_power_kw: connectors.iter().map(|c| c.power_kw).max().unwrap_or(0),
        tariff: connectors.iter().find_map(|c| c.tariff.clone()),
        opening_hours,
        parking_note: location.x_parking_note.clone(),
        supports_plate_scan: location.x_plate_recognition,
        truck_friendly: location.x_truck_friendly,
        last_updated: location.last_updated,
        connectors,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_station_is_operating_while_any_pile_is_in_service() {
        use EvseState::*;
        assert_eq!(
            station_status(true, &[OutOfOrder, Charging]),
            StationStatus::Operating
        );
        assert_eq!(
            station_status(true, &[OutOfOrder, Inoperative]),
            StationStatus::Maintenance
        );
        assert_eq!(station_status(false, &[Available]), StationStatus::Closed);
        assert_eq!(station_status(true, &[]), StationStatus::Closed);
    }

    #[test]
    fn distances_and_boxes_agree() {
        // Shenzhen Nanshan to Shenzhen Bao'an airport: about 22 km.
        let a = (22.5405, 113.9530);
        let b = (22.6393, 113.8107);
        let d = distance_m(a, b);
        assert!((17_000.0..19_500.0).contains(&d), "{d}");
        let ((lat0, lng0), (lat1, lng1)) = bounding_box(a, d + 1.0);
        assert!(lat0 <= b.0 && b.0 <= lat1 && lng0 <= b.1 && b.1 <= lng1);
        let ((lat0, _), (lat1, _)) = bounding_box(a, 1_000.0);
        assert!(!(lat0 <= b.0 && b.0 <= lat1));
    }

    #[test]
    fn opening_hours_read_as_one_range_or_each_weekday() {
        let day = |weekday: u8, begin: &str, end: &str| RegularHours {
            weekday,
            period_begin: begin.into(),
            period_end: end.into(),
        };
        assert_eq!(opening_hours(&Hours::always()), "00:00-24:00");
        let every_day = Hours {
            twentyfourseven: false,
            regular_hours: (1..=7).map(|d| day(d, "07:00", "18:00")).collect(),
            ..Hours::always()
        };
        assert_eq!(opening_hours(&every_day), "07:00-18:00");
        let two = Hours {
            twentyfourseven: false,
            regular_hours: vec![day(1, "01:00", "06:00"), day(2, "01:00", "06:00")],
            ..Hours::always()
        };
        assert_eq!(opening_hours(&two), "周一 01:00-06:00，周二 01:00-06:00");
    }

    #[test]
    fn ids_are_stable_and_provinces_follow_city_codes() {
        assert_eq!(station_id("SDC", "SZ-1"), station_id("SDC", "SZ-1"));
        assert_ne!(station_id("SDC", "SZ-1"), station_id("XYZ", "SZ-1"));
        assert_eq!(province_of("440300"), "440000");
        assert_eq!(province_of("44"), "");
    }
}
