//! Charging stations where enterprise cards work (the station pickers of
//! cards and sessions, the dashboard's drill-down), permission
//! `as:charge:card` or `as:charge:index`: list by city, keyword or distance
//! from a point, and one station with today's time-of-use tariff.

use axum::extract::{Path, State};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::enums::codes;
use crate::edge::enums::edge_enum;
use crate::edge::file_ref::FileRefBody;
use crate::edge::paging::paging;
use crate::edge::query::{EdgeQuery, number};
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, Page};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_stations))
        .routes(routes!(get_station))
}

edge_enum!(
    /// OPERATING, MAINTENANCE (partly or fully) or CLOSED.
    StationStatus => pb::StationStatus { Operating, Maintenance, Closed }
);
edge_enum!(
    /// Band of a time-of-use tariff: PEAK 峰, FLAT 平, VALLEY 谷.
    TouPeriod => pb::TouPeriod { Peak, Flat, Valley }
);

/// The tariff of one time-of-use period.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationPricePeriodBody {
    /// Minutes after 00:00 Asia/Shanghai, [start, end).
    pub start_minute: i32,
    pub end_minute: i32,
    /// Fen per MWh (0.8235 元/kWh = 82350).
    pub electricity_fen_per_mwh: i64,
    pub service_fee_fen_per_mwh: i64,
    pub period: Option<TouPeriod>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct StationBody {
    pub id: String,
    pub name: String,
    /// The company running the station.
    pub operator_name: String,
    pub province_name: String,
    /// GB/T 2260.
    pub city_code: String,
    pub city_name: String,
    pub district_name: String,
    pub address: String,
    /// WGS-84.
    pub longitude: f64,
    pub latitude: f64,
    /// From the search point, metres; 0 without one.
    pub distance_m: i64,
    pub status: Option<StationStatus>,
    pub dc_connector_count: i32,
    pub ac_connector_count: i32,
    /// Free now, as last reported.
    pub dc_available_count: i32,
    pub ac_available_count: i32,
    /// Highest pile power, kW.
    pub max_power_kw: i32,
    /// Today's tariff over 24 hours.
    pub price_periods: Vec<StationPricePeriodBody>,
    pub opening_hours: String,
    pub parking_note: String,
    pub supports_plate_scan: bool,
    pub truck_friendly: bool,
    pub photos: Vec<FileRefBody>,
}

impl From<pb::Station> for StationBody {
    fn from(s: pb::Station) -> Self {
        let pb::Station {
            id,
            name,
            operator_name,
            area,
            address,
            point,
            distance_m,
            status,
            dc_connector_count,
            ac_connector_count,
            dc_available_count,
            ac_available_count,
            max_power_kw,
            price_periods,
            opening_hours,
            parking_note,
            supports_plate_scan,
            truck_friendly,
            photos,
        } = s;
        let area = area.unwrap_or_default();
        let point = point.unwrap_or_default();
        StationBody {
            id,
            name,
            operator_name,
            province_name: area.province_name,
            city_code: area.city_code,
            city_name: area.city_name,
            district_name: area.district_name,
            address,
            longitude: point.longitude,
            latitude: point.latitude,
            distance_m,
            status: StationStatus::from_pb(status),
            dc_connector_count,
            ac_connector_count,
            dc_available_count,
            ac_available_count,
            max_power_kw,
            price_periods: price_periods
                .into_iter()
                .map(|p| StationPricePeriodBody {
                    start_minute: p.start_minute,
                    end_minute: p.end_minute,
                    electricity_fen_per_mwh: p.electricity_fen_per_mwh,
                    service_fee_fen_per_mwh: p.service_fee_fen_per_mwh,
                    period: TouPeriod::from_pb(p.period),
                })
                .collect(),
            opening_hours,
            parking_note,
            supports_plate_scan,
            truck_friendly,
            photos: photos.into_iter().map(FileRefBody::from).collect(),
        }
    }
}

/// Filters of the station list.
#[derive(Debug, Default, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
#[serde(rename_all = "camelCase")]
pub struct StationListParams {
    pub page: Option<i32>,
    pub size: Option<i32>,
    /// GB/T 2260 city code; empty = nationwide.
    #[serde(default)]
    pub city_code: String,
    /// Part of the name or address.
    #[serde(default)]
    pub keyword: String,
    /// Search centre (WGS-84), with nearLatitude: nearest first.
    #[serde(default, deserialize_with = "number")]
    pub near_longitude: Option<f64>,
    #[serde(default, deserialize_with = "number")]
    pub near_latitude: Option<f64>,
    /// Metres around the centre; default 10000, at most 50000.
    #[serde(default, deserialize_with = "number")]
    pub radius_m: Option<i32>,
    #[param(style = Form, explode, inline)]
    #[serde(default)]
    #[serde(rename = "status")]
    pub statuses: Vec<StationStatus>,
    /// Only stations with a free DC connector now.
    #[serde(default)]
    pub dc_available_only: bool,
    #[serde(default)]
    pub plate_scan_only: bool,
    #[serde(default)]
    pub truck_friendly_only: bool,
}

/// The search centre: both coordinates or neither, within WGS-84's ranges.
fn near(
    longitude: Option<f64>,
    latitude: Option<f64>,
) -> Result<Option<common::GeoPoint>, ApiError> {
    match (longitude, latitude) {
        (None, None) => Result::Ok(None),
        (Some(longitude), Some(latitude)) => {
            if !(-180.0..=180.0).contains(&longitude) {
                return Err(ApiError::invalid(
                    "nearLongitude",
                    "经度应在 -180 到 180 之间",
                ));
            }
            if !(-90.0..=90.0).contains(&latitude) {
                return Err(ApiError::invalid("nearLatitude", "纬度应在 -90 到 90 之间"));
            }
            Result::Ok(Some(common::GeoPoint {
                longitude,
                latitude,
            }))
        }
        (Some(_), None) => Err(ApiError::invalid("nearLatitude", "请同时提供经度和纬度")),
        (None, Some(_)) => Err(ApiError::invalid("nearLongitude", "请同时提供经度和纬度")),
    }
}

#[utoipa::path(
    get, path = "/charging/stations", tag = "charging",
    params(StationListParams),
    responses((status = 200, description = "Stations where the enterprise's cards work; nearest first around a search centre", body = Envelope<Page<StationBody>>)),
    security(("token" = ["as:charge:card"]))
)]
async fn list_stations(
    State(state): State<AppState>,
    principal: Principal,
    EdgeQuery(query): EdgeQuery<StationListParams>,
) -> ApiResult<Page<StationBody>> {
    let radius_m = query.radius_m.unwrap_or(0);
    if !(0..=50_000).contains(&radius_m) {
        return Err(ApiError::invalid(
            "radiusM",
            "搜索半径应在 0 到 50000 米之间",
        ));
    }
    let request = pb::ListStationsRequest {
        page: Some(paging(query.page, query.size)?),
        near: near(query.near_longitude, query.near_latitude)?,
        city_code: query.city_code,
        keyword: query.keyword,
        radius_m,
        statuses: codes(query.statuses),
        dc_available_only: query.dc_available_only,
        plate_scan_only: query.plate_scan_only,
        truck_friendly_only: query.truck_friendly_only,
    };
    let answer = state
        .energy()
        .list_stations(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer.stations.into_iter().map(StationBody::from).collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/charging/stations/{id}", tag = "charging",
    params(("id" = String, Path, description = "Station id")),
    responses((status = 200, description = "One station with today's tariff", body = Envelope<StationBody>)),
    security(("token" = ["as:charge:card"]))
)]
async fn get_station(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<StationBody> {
    let answer = state
        .energy()
        .get_station(state.as_user(&principal, pb::GetStationRequest { station_id: id }))
        .await?
        .into_inner();
    Result::Ok(Ok(answer.station.unwrap_or_default().into()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::edge::query::{ListQuery, from_query};

    #[test]
    fn a_search_centre_needs_both_coordinates_in_range() {
        let near_of = |raw: &str| {
            let query = ListQuery::parse(raw).unwrap();
            let params: StationListParams = from_query(&query)?;
            near(params.near_longitude, params.near_latitude)
        };
        assert!(near_of("").unwrap().is_none());
        let p = near_of("nearLongitude=121.47&nearLatitude=31.23")
            .unwrap()
            .unwrap();
        assert_eq!((p.longitude, p.latitude), (121.47, 31.23));
        assert!(near_of("nearLongitude=121.47").is_err());
        assert!(near_of("nearLongitude=200&nearLatitude=31").is_err());
        assert!(near_of("nearLongitude=x&nearLatitude=31").is_err());
    }
}
