//! Violations between proto and domain, by destructuring: a new proto field
//! fails to compile here until it is handled.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{TimeRange, batch};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{Source, State, city_code_of};
use super::store::{ViolationQuery, ViolationRow};
use crate::filters::{codes, uuids};

/// A list request's filter, checked (organisations not yet expanded); the
/// export reads it the same way.
pub fn filter(req: &pb::ListViolationsRequest) -> Result<ViolationQuery, ServiceError> {
    let pb::ListViolationsRequest {
        page: _,
        plate_numbers,
        vins,
        org_ids,
        driver_id,
        statuses,
        violation_time,
        city_code,
    } = req;
    let driver_id = driver_id.trim();
    let driver_id = if driver_id.is_empty() {
        None
    } else {
        Some(
            Uuid::parse_str(driver_id)
                .map_err(|_| ServiceError::invalid("driverId", "司机编号无效"))?,
        )
    };
    let city_code = city_code_of(city_code);
    Ok(ViolationQuery {
        plates: batch("plateNumbers", plate_numbers)?,
        vins: batch("vins", vins)?,
        org_ids: uuids("orgIds", org_ids)?,
        driver_id,
        states: codes(statuses, State::from_pb),
        time: TimeRange::parse("violationTime", violation_time.as_ref())?,
        city_code: (!city_code.is_empty()).then(|| city_code.to_owned()),
    })
}

/// Uploaded files as stored (a JSON array of FileRef objects).
pub fn files_json(files: &[common::FileRef]) -> serde_json::Value {
    serde_json::Value::Array(
        files
            .iter()
            .map(|f| {
                let common::FileRef {
                    name,
                    key,
                    content_type,
                    size_bytes,
                } = f;
                serde_json::json!({
                    "name": name,
                    "key": key,
                    "contentType": content_type,
                    "sizeBytes": size_bytes,
                })
            })
            .collect(),
    )
}

/// Stored files (a JSON array of FileRef objects) as the wire's.
pub fn files(value: &serde_json::Value) -> Vec<common::FileRef> {
    let text = |f: &serde_json::Value, k: &str| f[k].as_str().unwrap_or_default().to_owned();
    value
        .as_array()
        .map(|items| {
            items
                .iter()
                .map(|f| common::FileRef {
                    name: text(f, "name"),
                    key: text(f, "key"),
                    content_type: text(f, "contentType"),
                    size_bytes: f["sizeBytes"].as_i64().unwrap_or_default(),
                })
                .collect()
        })
        .unwrap_or_default()
}

pub fn violation(row: ViolationRow, enterprise: Uuid) -> Result<pb::Violation, ServiceError> {
    let ViolationRow {
        id,
        org_id,
        org_name,
        vehicle_id,
        plate_number,
        vin,
        decision_no,
        violation_time,
        address,
        lng,
        lat,
        city_code,
        offence_code,
        description,
        fine_fen,
        penalty_points,
        authority,
        source,
        driver_id,
        driver_name,
        driver_assigned,
        state,
        handled_by_name,
        handled_at,
        paid_by_name,
        paid_at,
        receipts,
        remark,
        synced_at,
        created_at: _,
    } = row;
    let state: State = known(state)?;
    let source: Source = known(source)?;
    Ok(pb::Violation {
        id: id.to_string(),
        enterprise_id: enterprise.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        driver_id: driver_id.map(|d| d.to_string()).unwrap_or_default(),
        driver_name,
        violation_time: Some(timestamp(violation_time)),
        address,
        area: (!city_code.is_empty()).then(|| common::Area {
            city_code,
            ..Default::default()
        }),
        offence_code,
        description,
        fine_fen,
        penalty_points,
        authority,
        status: state.to_pb().into(),
        handler_name: handled_by_name,
        handled_time: handled_at.map(timestamp),
        evidence_images: Vec::new(),
        receipts: files(&receipts),
        remark,
        sync_time: Some(timestamp(synced_at)),
        decision_no,
        location: lng.zip(lat).map(|(longitude, latitude)| common::GeoPoint {
            longitude,
            latitude,
        }),
        paid_by_name,
        paid_time: paid_at.map(timestamp),
        source: pb::ViolationSource::from(source).into(),
        driver_assigned,
    })
}
