//! Requests into queries, rows onto the wire.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::{id, timestamp};
use fleetdesk_kit::list::{TimeRange, batch};
use fleetdesk_proto::vehicle::v1 as pb;

use super::domain::celsius;
use super::store::{AlarmQuery, AlarmRow, ReadingRow, ShareRow, ThresholdRow};

/// A probe filter: 0 = every probe.
pub fn probe_filter(probe: i32) -> Result<Option<i16>, ServiceError> {
    match probe {
        0 => Ok(None),
        p => i16::try_from(p)
            .ok()
            .filter(|p| (1..=255).contains(p))
            .map(Some)
            .ok_or_else(|| ServiceError::invalid("probeNo", "探头编号应在 1 到 255 之间")),
    }
}

/// The alarm list's filter (the list and its export).
pub fn alarm_query(request: &pb::ListTemperatureAlarmsRequest) -> Result<AlarmQuery, ServiceError> {
    Ok(AlarmQuery {
        plates: batch("plateNumbers", &request.plate_numbers)?,
        vehicle_id: match request.vehicle_id.trim() {
            "" => None,
            v => Some(id(v)?),
        },
        probe: probe_filter(request.probe_no)?,
        started: TimeRange::parse("started", request.started.as_ref())?,
        open_only: request.open_only,
    })
}

pub fn threshold(r: &ThresholdRow) -> pb::TemperatureThreshold {
    pb::TemperatureThreshold {
        vehicle_id: r.vehicle_id.to_string(),
        probe_no: i32::from(r.probe),
        min_celsius: celsius(r.min_deci),
        max_celsius: celsius(r.max_deci),
        min_duration_seconds: r.min_duration_s,
    }
}

pub fn alarm(r: AlarmRow) -> pb::TemperatureAlarm {
    pb::TemperatureAlarm {
        id: r.id.to_string(),
        vehicle_id: r.vehicle_id.to_string(),
        plate_number: r.plate_number,
        probe_no: i32::from(r.probe),
        started_at: Some(timestamp(r.started_at)),
        ended_at: r.ended_at.map(timestamp),
        min_seen_celsius: celsius(r.min_seen_deci),
        max_seen_celsius: celsius(r.max_seen_deci),
        threshold_min_celsius: celsius(r.threshold_min_deci),
        threshold_max_celsius: celsius(r.threshold_max_deci),
        min_duration_seconds: r.min_duration_s,
    }
}

pub fn reading(r: ReadingRow, enterprise: uuid::Uuid) -> pb::TemperatureReading {
    pb::TemperatureReading {
        vehicle_id: r.vehicle_id.to_string(),
        enterprise_id: enterprise.to_string(),
        plate_number: r.plate_number,
        probe_no: i32::from(r.probe),
        temperature_celsius: celsius(r.deci_celsius),
        humidity_percent: None,
        point: None,
        record_time: Some(timestamp(r.fix_time)),
        out_of_range: r.out_of_range,
    }
}

pub fn share(r: ShareRow) -> pb::TemperatureShare {
    pb::TemperatureShare {
        id: r.id.to_string(),
        vehicle_id: r.vehicle_id.to_string(),
        plate_number: r.plate_number,
        consignee_name: r.consignee_name,
        consignee_phone: r.consignee_phone,
        expires_at: Some(timestamp(r.expires_at)),
        created_at: Some(timestamp(r.created_at)),
        revoked_at: r.revoked_at.map(timestamp),
    }
}
