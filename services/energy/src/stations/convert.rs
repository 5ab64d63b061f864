//! Proto ↔ domain for stations.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;

use super::domain::{DEFAULT_RADIUS_M, MAX_RADIUS_M, StationStatus};
use super::store::{StationQuery, StationRow};
use crate::codes::optional;
use crate::filters;
use crate::tariffs::domain::TouBand;
use crate::tariffs::store::PeriodRow;

pub fn query(req: &pb::ListStationsRequest) -> Result<StationQuery, ServiceError> {
    let pb::ListStationsRequest {
        page: _,
        city_code,
        keyword,
        near,
        radius_m,
        statuses,
        dc_available_only,
        plate_scan_only,
        truck_friendly_only,
    } = req;
    let radius = match *radius_m {
        0 => DEFAULT_RADIUS_M,
        r if (1..=MAX_RADIUS_M).contains(&r) => r,
        _ => {
            return Err(ServiceError::invalid(
                "radiusM",
                format!("搜索半径须在 1 到 {MAX_RADIUS_M} 米之间"),
            ));
        }
    };
    let near = match near {
        Some(p)
            if (-90.0..=90.0).contains(&p.latitude) && (-180.0..=180.0).contains(&p.longitude) =>
        {
            Some(((p.latitude, p.longitude), f64::from(radius)))
        }
        Some(_) => return Err(ServiceError::invalid("near", "坐标超出范围")),
        None => None,
    };
    let city_code = city_code.trim();
    Ok(StationQuery {
        city_code: (!city_code.is_empty()).then(|| city_code.to_owned()),
        keyword: keyword.trim().chars().take(50).collect(),
        near,
        statuses: filters::codes("statuses", statuses, StationStatus::from_pb)?,
        dc_available_only: *dc_available_only,
        plate_scan_only: *plate_scan_only,
        truck_friendly_only: *truck_friendly_only,
    })
}

/// Name of a GB/T 2260 division, empty when unknown.
fn division_name(code: &str) -> String {
    gb2260::Division::get(code)
        .map(|d| d.name.to_owned())
        .unwrap_or_default()
}

pub fn price_period(row: &PeriodRow) -> pb::StationPricePeriod {
    pb::StationPricePeriod {
        start_minute: i32::from(row.start_minute),
        end_minute: i32::from(row.end_minute),
        electricity_fen_per_mwh: row.electricity_fen_per_mwh,
        service_fee_fen_per_mwh: row.service_fee_fen_per_mwh,
        period: optional::<TouBand>(row.period).map_or(0, TouBand::pb),
    }
}

/// A station with today's bands of its tariff (`periods` may hold other
/// tariffs' too).
pub fn station(row: StationRow, periods: &[PeriodRow]) -> pb::Station {
    let price_periods = periods
        .iter()
        .filter(|p| Some(p.tariff_id) == row.tariff_id)
        .map(price_period)
        .collect();
    pb::Station {
        id: row.id.to_string(),
        name: row.name,
        operator_name: row.operator_name,
        area: Some(common::Area {
            province_name: division_name(&row.province_code),
            province_code: row.province_code,
            city_code: row.city_code,
            city_name: row.city_name,
            district_code: String::new(),
            district_name: String::new(),
        }),
        address: row.address,
        point: Some(common::GeoPoint {
            longitude: row.lng,
            latitude: row.lat,
        }),
        distance_m: row.distance_m.round() as i64,
        status: optional::<StationStatus>(Some(row.status)).map_or(0, StationStatus::pb),
        dc_connector_count: row.dc_connector_count,
        ac_connector_count: row.ac_connector_count,
        dc_available_count: row.dc_available_count,
        ac_available_count: row.ac_available_count,
        max_power_kw: row.max_power_kw,
        price_periods,
        opening_hours: row.opening_hours,
        parking_note: row.parking_note,
        supports_plate_scan: row.supports_plate_scan,
        truck_friendly: row.truck_friendly,
        photos: Vec::new(),
    }
}
