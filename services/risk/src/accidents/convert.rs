//! Accidents between proto and domain, by destructuring: a new proto field
//! fails to compile here until it is handled.

use fleetdesk_assets::vehicles::convert::{files_from_json, files_to_json};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::known;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;

use super::domain::{AccidentDraft, AccidentFields};
use super::store::{AccidentRow, LogRow};

/// An area as stored (JSON with the proto's field names in camelCase).
pub fn area_to_json(area: Option<&common::Area>) -> serde_json::Value {
    let Some(common::Area {
        province_code,
        province_name,
        city_code,
        city_name,
        district_code,
        district_name,
    }) = area
    else {
        return serde_json::json!({});
    };
    serde_json::json!({
        "provinceCode": province_code.trim(), "provinceName": province_name.trim(),
        "cityCode": city_code.trim(), "cityName": city_name.trim(),
        "districtCode": district_code.trim(), "districtName": district_name.trim(),
    })
}

pub fn area_from_json(value: &serde_json::Value) -> Option<common::Area> {
    let text = |k: &str| value[k].as_str().unwrap_or_default().to_owned();
    let area = common::Area {
        province_code: text("provinceCode"),
        province_name: text("provinceName"),
        city_code: text("cityCode"),
        city_name: text("cityName"),
        district_code: text("districtCode"),
        district_name: text("districtName"),
    };
    Some(area).filter(|a| *a != common::Area::default())
}

pub fn fields(input: pb::AccidentInput) -> AccidentFields {
    let pb::AccidentInput {
        vehicle_id,
        driver_id,
        accident_time,
        address,
        area,
        point,
        description,
        severity,
        liability,
        injured_count,
        fatality_count,
        estimated_loss_fen,
        assessed_loss_fen,
        fixed_loss_code,
        insurance_policy_id,
        claim_no,
        claim_paid_fen,
        repair_order_id,
        images,
        documents,
        remark,
    } = input;
    AccidentFields {
        vehicle_id,
        driver_id,
        accident_time: accident_time.as_ref().and_then(datetime),
        address,
        area: area_to_json(area.as_ref()),
        point: point.map(|p| (p.longitude, p.latitude)),
        description,
        severity,
        liability,
        injured_count,
        fatality_count,
        estimated_loss_fen,
        assessed_loss_fen,
        fixed_loss_code,
        insurance_policy_id,
        claim_no,
        claim_paid_fen,
        repair_order_id,
        images: files_to_json(&images),
        documents: files_to_json(&documents),
        remark,
    }
}

/// A stored accident as the draft that would store it (the log's "before").
pub fn draft(row: &AccidentRow) -> Result<AccidentDraft, ServiceError> {
    Ok(AccidentDraft {
        vehicle_id: row.vehicle_id,
        driver_id: row.driver_id,
        accident_time: row.accident_time,
        address: row.address.clone(),
        area: row.area.clone(),
        point: row.lng.zip(row.lat),
        description: row.description.clone(),
        severity: known(row.severity)?,
        liability: known(row.liability)?,
        injured_count: row.injured_count,
        fatality_count: row.fatality_count,
        estimated_loss_fen: row.estimated_loss_fen,
        assessed_loss_fen: row.assessed_loss_fen,
        fixed_loss_code: row.fixed_loss_code.clone(),
        insurance_policy_id: row.insurance_policy_id.clone(),
        claim_no: row.claim_no.clone(),
        claim_paid_fen: row.claim_paid_fen,
        repair_order_id: row.repair_order_id.clone(),
        images: row.images.clone(),
        documents: row.documents.clone(),
        remark: row.remark.clone(),
    })
}

pub fn accident(row: AccidentRow, enterprise_id: uuid::Uuid) -> pb::Accident {
    let AccidentRow {
        id,
        org_id,
        org_name,
        created_by: _,
        case_no,
        vehicle_id,
        plate_number,
        vin,
        driver_id,
        driver_name,
        accident_time,
        address,
        area,
        lng,
        lat,
        description,
        severity,
        liability,
        status,
        injured_count,
        fatality_count,
        estimated_loss_fen,
        assessed_loss_fen,
        fixed_loss_code,
        insurance_policy_id,
        claim_no,
        claim_paid_fen,
        repair_order_id,
        images,
        documents,
        close_time,
        remark,
        created_by_name,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    pb::Accident {
        id: id.to_string(),
        case_no,
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        driver_id: driver_id.map(|d| d.to_string()).unwrap_or_default(),
        driver_name,
        accident_time: Some(timestamp(accident_time)),
        address,
        area: area_from_json(&area),
        point: lng.zip(lat).map(|(longitude, latitude)| common::GeoPoint {
            longitude,
            latitude,
        }),
        description,
        severity: i32::from(severity),
        liability: i32::from(liability),
        injured_count,
        fatality_count,
        estimated_loss_fen,
        assessed_loss_fen,
        fixed_loss_code: fixed_loss_code.unwrap_or_default(),
        insurance_policy_id,
        claim_no,
        claim_paid_fen,
        repair_order_id,
        status: i32::from(status),
        images: files_from_json(&images),
        documents: files_from_json(&documents),
        close_time: close_time.map(timestamp),
        remark,
        audit: Some(common::Audit {
            created_by: created_by_name,
            create_time: Some(timestamp(created_at)),
            updated_by: updated_by_name,
            update_time: Some(timestamp(updated_at)),
        }),
    }
}

pub fn log_entry(row: LogRow) -> common::OperationLogEntry {
    let LogRow {
        remark,
        operator_name,
        created_at,
    } = row;
    common::OperationLogEntry {
        remark,
        operator_name,
        operate_time: Some(timestamp(created_at)),
    }
}
