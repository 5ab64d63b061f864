//! Rows onto the wire: a latest position or a history fix as
//! `VehiclePosition`, a track's stops and speeding.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;

use super::domain::{self, PositionStatus, Speeding, Stop};
use super::store::{HistoryRow, LatestRow};

/// `[{"probe": 1, "deci": -182}]` as probe readings.
pub fn temperatures(value: &serde_json::Value) -> Vec<pb::ProbeTemperature> {
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .filter_map(|t| {
                    Some(pb::ProbeTemperature {
                        probe: i32::try_from(t.get("probe")?.as_i64()?).ok()?,
                        celsius: t.get("deci")?.as_f64()? / 10.0,
                    })
                })
                .collect()
        })
        .unwrap_or_default()
}

fn bits(value: i64) -> u32 {
    u32::try_from(value).unwrap_or(0)
}

/// A latest position with its status as of `now`.
pub fn latest(row: LatestRow, now: DateTime<Utc>) -> pb::VehiclePosition {
    let LatestRow {
        vehicle_id,
        enterprise_id,
        plate_number,
        org_id,
        org_name,
        driver_name,
        fix_time,
        receive_time,
        lat,
        lng,
        altitude_m,
        speed_dkmh,
        heading,
        alarm_bits,
        status_bits,
        mileage_m,
        soc,
        charging,
        temperatures: temps,
        // Recomputed with the same rule, so a row read at the edge of the
        // ten minutes and the answer's clock agree.
        status: _,
    } = row;
    let status = domain::status(now, fix_time, alarm_bits, charging, speed_dkmh);
    pb::VehiclePosition {
        vehicle_id: vehicle_id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        plate_number,
        point: Some(common::GeoPoint {
            longitude: lng,
            latitude: lat,
        }),
        address: String::new(),
        speed_kmh: f64::from(speed_dkmh) / 10.0,
        heading_deg: i32::from(heading),
        altitude_m: f64::from(altitude_m),
        odometer_m: mileage_m.unwrap_or(0),
        soc_percent: soc.map(i32::from),
        // Status bit 0 of Table 25.
        acc_on: status_bits & 1 == 1,
        online: status != PositionStatus::Offline,
        gps_time: Some(timestamp(fix_time)),
        receive_time: Some(timestamp(receive_time)),
        org_id: org_id.to_string(),
        org_name,
        driver_name: driver_name.unwrap_or_default(),
        temperatures: temperatures(&temps),
        alarm_bits: bits(alarm_bits),
        status_bits: bits(status_bits),
        status: status.pb(),
        charging,
        mileage_m,
    }
}

/// A fix of one vehicle's track.
pub fn fix(
    row: &HistoryRow,
    vehicle_id: &str,
    enterprise_id: &str,
    plate: &str,
) -> pb::VehiclePosition {
    pb::VehiclePosition {
        vehicle_id: vehicle_id.to_owned(),
        enterprise_id: enterprise_id.to_owned(),
        plate_number: plate.to_owned(),
        point: Some(common::GeoPoint {
            longitude: row.lng,
            latitude: row.lat,
        }),
        speed_kmh: f64::from(row.speed_dkmh) / 10.0,
        heading_deg: i32::from(row.heading),
        altitude_m: f64::from(row.altitude_m),
        odometer_m: row.mileage_m.unwrap_or(0),
        soc_percent: row.soc.map(i32::from),
        acc_on: row.status_bits & 1 == 1,
        gps_time: Some(timestamp(row.fix_time)),
        receive_time: Some(timestamp(row.receive_time)),
        alarm_bits: bits(row.alarm_bits),
        status_bits: bits(row.status_bits),
        mileage_m: row.mileage_m,
        ..Default::default()
    }
}

pub fn stop(s: &Stop) -> pb::TrackStop {
    pb::TrackStop {
        start_time: Some(timestamp(s.from)),
        end_time: Some(timestamp(s.to)),
        point: Some(common::GeoPoint {
            longitude: s.lng,
            latitude: s.lat,
        }),
        duration_s: (s.to - s.from).num_seconds(),
    }
}

pub fn speeding(s: &Speeding) -> pb::TrackSpeeding {
    pb::TrackSpeeding {
        start_time: Some(timestamp(s.from)),
        end_time: Some(timestamp(s.to)),
        max_speed_kmh: s.max_kmh,
        limit_kmh: s.limit_kmh,
    }
}

pub fn track_point(row: &HistoryRow) -> domain::TrackPoint {
    domain::TrackPoint {
        at: row.fix_time,
        lat: row.lat,
        lng: row.lng,
        speed_dkmh: row.speed_dkmh,
        mileage_m: row.mileage_m,
    }
}
