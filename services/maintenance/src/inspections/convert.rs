//! Annual inspections between proto and domain, by destructuring: a new
//! proto field fails to compile here until it is handled.

use chrono::NaiveDate;
use fleetdesk_assets::vehicles::convert::files_from_json;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::codes::{known, optional};
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{TimeRange, batch};
use fleetdesk_proto::vehicle::v1 as pb;

use super::domain::{Class, Outcome, Standing};
use super::store::{InspectionQuery, InspectionRow, RecordRow};
use crate::filters::uuids;
use crate::odometer::day_start;
use crate::plans::convert::audit;

/// A list request's filter judged on `today`, checked (organisations not
/// yet expanded); the export reads it the same way.
pub fn filter(
    req: &pb::ListAnnualInspectionsRequest,
    today: NaiveDate,
) -> Result<InspectionQuery, ServiceError> {
    let pb::ListAnnualInspectionsRequest {
        page: _,
        plate_numbers,
        vins,
        org_ids,
        statuses,
        expire_time,
    } = req;
    Ok(InspectionQuery {
        plates: batch("plateNumbers", plate_numbers)?,
        vins: batch("vins", vins)?,
        org_ids: uuids("orgIds", org_ids)?,
        standings: statuses
            .iter()
            .filter_map(|s| Standing::from_pb(*s))
            .collect(),
        due: TimeRange::parse("expireTime", expire_time.as_ref())?,
        today,
    })
}

pub fn inspection(
    row: InspectionRow,
    enterprise: uuid::Uuid,
    today: NaiveDate,
) -> Result<pb::AnnualInspection, ServiceError> {
    let InspectionRow {
        id,
        org_id,
        org_name,
        vehicle_id,
        plate_number,
        vin,
        register_time,
        inspection_class,
        due_date,
        last_inspected_at,
        last_result,
        last_station,
        last_odometer_m,
        last_cost_fen,
        last_images,
        last_remark,
        updated_by_name,
        created_at,
        updated_at,
    } = row;
    let class: Class = known(inspection_class)?;
    let result: Option<Outcome> = optional(last_result);
    let standing = Standing::of(due_date, today);
    // A Beijing day on the wire is its start.
    let day = |d: Option<NaiveDate>| d.map(|d| timestamp(day_start(d)));
    Ok(pb::AnnualInspection {
        id: id.to_string(),
        enterprise_id: enterprise.to_string(),
        org_id: org_id.to_string(),
        org_name: org_name.unwrap_or_default(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        vin,
        register_time: register_time.map(timestamp),
        last_inspection_time: last_inspected_at.map(timestamp),
        expire_time: day(due_date),
        status: standing.to_pb().into(),
        remaining_days: due_date
            .map(|d| i32::try_from((d - today).num_days()).unwrap_or(i32::MAX))
            .unwrap_or_default(),
        station_name: last_station,
        licence_images: files_from_json(&last_images),
        remark: last_remark,
        audit: Some(audit(
            String::new(),
            created_at,
            updated_by_name,
            updated_at,
        )),
        inspection_class: class.pb(),
        last_result: result.map_or(0, Outcome::pb),
        last_odometer_m,
        last_cost_fen,
    })
}

pub fn record(row: RecordRow) -> Result<pb::InspectionRecord, ServiceError> {
    let RecordRow {
        id,
        vehicle_id,
        plate_number,
        inspected_at,
        result,
        station_name,
        odometer_m,
        cost_fen,
        images,
        remark,
        previous_due_date,
        due_date,
        operator_name,
        created_at,
    } = row;
    let result: Outcome = known(result)?;
    let day = |d: Option<NaiveDate>| d.map(|d| timestamp(day_start(d)));
    Ok(pb::InspectionRecord {
        id: id.to_string(),
        vehicle_id: vehicle_id.to_string(),
        plate_number,
        inspection_time: Some(timestamp(inspected_at)),
        result: result.pb(),
        station_name,
        odometer_m,
        cost_fen,
        images: files_from_json(&images),
        remark,
        previous_expire_time: day(previous_due_date),
        expire_time: day(due_date),
        operator_name,
        create_time: Some(timestamp(created_at)),
    })
}
