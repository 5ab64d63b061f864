//! Warnings as proto, by destructuring: a new column fails to compile here
//! until it is shown or deliberately left out.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::store::WarningRow;

pub fn warning(row: WarningRow, enterprise_id: Uuid) -> pb::Warning {
    let WarningRow {
        id,
        org_id,
        vehicle_id,
        plate_number,
        driver_id,
        driver_name,
        kind,
        level,
        title,
        content,
        warn_time,
        status,
        acknowledged_by,
        acknowledge_time,
    } = row;
    let id_text = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    pb::Warning {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.to_string(),
        vehicle_id: id_text(vehicle_id),
        plate_number: plate_number.unwrap_or_default(),
        driver_id: id_text(driver_id),
        driver_name: driver_name.unwrap_or_default(),
        warning_type: i32::from(kind),
        level: i32::from(level),
        title,
        content,
        warn_time: Some(timestamp(warn_time)),
        status: i32::from(status),
        acknowledged_by,
        acknowledge_time: acknowledge_time.map(timestamp),
    }
}
