//! Proto ↔ domain for opening.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_proto::energy::v1 as pb;

use super::domain::ApplicationStatus;
use super::store::{ApplicationQuery, ApplicationRow};
use crate::codes::optional;

pub fn application(row: ApplicationRow) -> pb::ChargingOpenApplication {
    let ApplicationRow {
        id,
        enterprise_id,
        enterprise_name,
        applicant_id,
        applicant_name,
        status,
        apply_time,
        contact_time,
        handler_name,
        decide_time,
        reject_reason,
        remark,
        approve_remark,
    } = row;
    pb::ChargingOpenApplication {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        enterprise_name,
        applicant_account_id: applicant_id.map(|a| a.to_string()).unwrap_or_default(),
        applicant_name,
        // Phones stay with org; the operator reaches the applicant through it.
        applicant_masked_phone: String::new(),
        status: optional::<ApplicationStatus>(Some(status)).map_or(0, ApplicationStatus::pb),
        apply_time: Some(timestamp(apply_time)),
        contact_time: contact_time.map(timestamp),
        handler_name,
        decide_time: decide_time.map(timestamp),
        reject_reason,
        remark,
        approve_remark,
    }
}

/// The list's filter checked, for the list and its export alike; the
/// enterprise is the caller's to set (`enterprise_id` only counts for the
/// operator, see `handlers::list`).
pub fn query(
    request: &pb::ListChargingOpenApplicationsRequest,
) -> Result<ApplicationQuery, ServiceError> {
    let pb::ListChargingOpenApplicationsRequest {
        page: _,
        statuses,
        apply_time,
        enterprise_id: _,
    } = request;
    Ok(ApplicationQuery {
        enterprise_id: None,
        statuses: statuses
            .iter()
            .map(|s| {
                ApplicationStatus::from_pb(*s)
                    .map(i16::from)
                    .ok_or_else(|| ServiceError::invalid("statuses", "筛选条件的取值无效"))
            })
            .collect::<Result<_, _>>()?,
        apply_time: TimeRange::parse("applyTime", apply_time.as_ref())?,
    })
}
