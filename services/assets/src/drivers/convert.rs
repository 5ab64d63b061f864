//! Proto ↔ domain for drivers: the input and filter off the wire, the row
//! onto it with its personal data masked. Inputs are destructured field by
//! field, so a new proto field breaks the build here until it is handled.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::{datetime, timestamp};
use fleetdesk_kit::ids::Phone;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use uuid::Uuid;

use super::domain::{
    self, DriverDraft, DriverFields, DriverStatus, IdCardValidity, Image, Kept, LicenceClass,
};
use super::store::{DriverQuery, DriverRow};
use crate::codes::optional;

pub fn fields(input: pb::DriverInput) -> DriverFields {
    let pb::DriverInput {
        org_id,
        name,
        phone,
        id_number,
        employee_no,
        licence_class,
        licence_first_issue_time,
        licence_expire_time,
        licence_front,
        licence_back,
        id_card_front,
        id_card_back,
        status,
        hire_time,
        remark,
        address,
        id_card_expire_time,
        id_card_long_term,
    } = input;
    DriverFields {
        org_id,
        name,
        phone,
        id_number,
        employee_no,
        licence_class: LicenceClass::from_pb(licence_class),
        licence_first_issue_time: licence_first_issue_time.as_ref().and_then(datetime),
        licence_expire_time: licence_expire_time.as_ref().and_then(datetime),
        address,
        licence_front: Image::from_ref(licence_front),
        licence_back: Image::from_ref(licence_back),
        id_card_front: Image::from_ref(id_card_front),
        id_card_back: Image::from_ref(id_card_back),
        id_card_expire_time: id_card_expire_time.as_ref().and_then(datetime),
        id_card_long_term,
        status: DriverStatus::from_pb(status),
        hire_time: hire_time.as_ref().and_then(datetime),
        remark,
    }
}

fn codes<T>(
    field: &str,
    values: &[i32],
    parse: impl Fn(i32) -> Option<T>,
) -> Result<Vec<i16>, ServiceError>
where
    i16: From<T>,
{
    values
        .iter()
        .map(|v| parse(*v).map(i16::from))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(|| ServiceError::invalid(field, "筛选条件的取值无效"))
}

pub fn query(filter: Option<pb::DriverFilter>) -> Result<DriverQuery, ServiceError> {
    let pb::DriverFilter {
        org_ids,
        name,
        phone,
        employee_no,
        statuses,
        licence_classes,
        has_vehicle,
        licence_expire_time,
        plate_numbers,
    } = filter.unwrap_or_default();
    let org_ids = org_ids
        .iter()
        .map(|o| Uuid::parse_str(o.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid("orgIds", "所选组织不存在"))?;
    let phone = phone.trim();
    let phone = if phone.is_empty() {
        None
    } else {
        Some(Phone::parse(phone).map_err(|e| e.on("phone"))?.into_inner())
    };
    Ok(DriverQuery {
        org_ids,
        name,
        phone,
        employee_no,
        statuses: codes("statuses", &statuses, DriverStatus::from_pb)?,
        licence_classes: codes("licenceClasses", &licence_classes, LicenceClass::from_pb)?,
        has_vehicle,
        licence_expire_time: TimeRange::parse("licenceExpireTime", licence_expire_time.as_ref())?,
        plates: list::batch("plateNumbers", &plate_numbers)?,
    })
}

/// The stored driver as a checked draft (to compare an edit with, and to
/// reveal from). A stored row always passed the checks once.
pub fn draft(row: &DriverRow) -> Result<DriverDraft, ServiceError> {
    DriverDraft::parse(
        DriverFields {
            org_id: row.org_id.to_string(),
            name: row.name.clone(),
            phone: row.phone.clone(),
            id_number: row.id_number.clone(),
            employee_no: row.employee_no.clone(),
            licence_class: optional(Some(row.licence_class)),
            licence_first_issue_time: None,
            licence_expire_time: row.licence_expire_time,
            address: row.address.clone(),
            licence_front: row.licence_front.as_ref().map(|j| j.0.clone()),
            licence_back: row.licence_back.as_ref().map(|j| j.0.clone()),
            id_card_front: row.id_card_front.as_ref().map(|j| j.0.clone()),
            id_card_back: row.id_card_back.as_ref().map(|j| j.0.clone()),
            id_card_expire_time: None,
            id_card_long_term: false,
            status: optional(Some(row.status)),
            hire_time: row.hire_time,
            remark: row.remark.clone(),
        },
        None,
    )
    .map(|mut d| {
        // Skipped above so an old first-issue date never fails the "not in
        // the future" rule; kept as stored.
        d.licence_first_issue_time = row.licence_first_issue_time;
        // Likewise the ID card's end: kept as stored, never re-judged
        // against today's 20-year horizon.
        d.id_card = IdCardValidity::from_columns(row.id_card_expire_time, row.id_card_long_term);
        d
    })
}

/// What an update keeps when its input leaves the personal fields empty.
pub fn kept(row: &DriverRow) -> Kept {
    Kept {
        phone: row.phone.clone(),
        id_number: row.id_number.clone(),
        address: row.address.clone(),
        licence_front: row.licence_front.as_ref().map(|j| j.0.clone()),
        licence_back: row.licence_back.as_ref().map(|j| j.0.clone()),
        id_card_front: row.id_card_front.as_ref().map(|j| j.0.clone()),
        id_card_back: row.id_card_back.as_ref().map(|j| j.0.clone()),
    }
}

/// The driver as the caller sees it: phone, ID number and address masked,
/// images named but without their keys.
pub fn driver(row: DriverRow, enterprise_id: Uuid) -> pb::Driver {
    let id_text = |id: Option<Uuid>| id.map(|i| i.to_string()).unwrap_or_default();
    let image = |i: &Option<sqlx::types::Json<Image>>| i.as_ref().map(|j| j.0.masked());
    pb::Driver {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        org_id: row.org_id.to_string(),
        org_name: row.org_name,
        name: row.name,
        masked_phone: domain::masked_phone(&row.phone),
        masked_id_number: domain::masked_id_number(&row.id_number),
        employee_no: row.employee_no,
        licence_class: optional::<LicenceClass>(Some(row.licence_class))
            .map_or(0, LicenceClass::pb),
        licence_first_issue_time: row.licence_first_issue_time.map(timestamp),
        licence_expire_time: row.licence_expire_time.map(timestamp),
        licence_front: image(&row.licence_front),
        licence_back: image(&row.licence_back),
        id_card_front: image(&row.id_card_front),
        id_card_back: image(&row.id_card_back),
        status: optional::<DriverStatus>(Some(row.status)).map_or(0, DriverStatus::pb),
        hire_time: row.hire_time.map(timestamp),
        bound_vehicle_id: id_text(row.bound_vehicle_id),
        bound_plate_number: row.bound_plate_number.unwrap_or_default(),
        remark: row.remark,
        audit: Some(common::Audit {
            created_by: id_text(row.created_by),
            create_time: Some(timestamp(row.created_at)),
            updated_by: id_text(row.updated_by),
            update_time: Some(timestamp(row.updated_at)),
        }),
        masked_address: domain::masked_address(&row.address),
        id_card_expire_time: row.id_card_expire_time.map(timestamp),
        id_card_long_term: row.id_card_long_term,
    }
}
