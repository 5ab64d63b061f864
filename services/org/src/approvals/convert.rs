//! Proto ↔ domain for approvals: rows onto the wire (the applicant's phone
//! masked), and the optional code filters off it.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::org::v1 as pb;

use super::domain::{Kind, State};
use super::store::{ApprovalRow, StepRow};
use crate::codes::optional;

/// A stored state on the wire (unspecified for a code this service does not know).
pub fn state_pb(code: i16) -> i32 {
    optional::<State>(Some(code)).map_or(0, State::pb)
}

fn kind_pb(code: i16) -> i32 {
    optional::<Kind>(Some(code)).map_or(0, Kind::pb)
}

pub fn approval(row: ApprovalRow, history: Vec<StepRow>) -> pb::Approval {
    let ApprovalRow {
        id,
        enterprise_id,
        kind,
        title,
        business_id,
        applicant_name,
        applicant_phone,
        plate_number,
        status,
        detail,
        applied_at,
        decided_at,
    } = row;
    pb::Approval {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        kind: kind_pb(kind),
        title,
        business_id,
        applicant_name,
        status: state_pb(status),
        detail_json: detail.to_string(),
        history: history.into_iter().map(step).collect(),
        apply_time: Some(timestamp(applied_at)),
        applicant_phone_masked: mask::centre(&applicant_phone),
        plate_number,
        decide_time: decided_at.map(timestamp),
    }
}

fn step(row: StepRow) -> pb::ApprovalStep {
    let StepRow {
        status,
        operator_id,
        operator_name,
        comment,
        created_at,
    } = row;
    pb::ApprovalStep {
        status: state_pb(status),
        operator_name,
        comment,
        operate_time: Some(timestamp(created_at)),
        operator_id: operator_id.map(|id| id.to_string()).unwrap_or_default(),
    }
}

/// An optional code filter: 0 means any; otherwise the code must be known.
pub fn filter<T>(
    field: &str,
    value: i32,
    parse: impl Fn(i32) -> Option<T>,
) -> Result<Option<T>, ServiceError> {
    if value == 0 {
        return Ok(None);
    }
    parse(value)
        .map(Some)
        .ok_or_else(|| ServiceError::invalid(field, "取值无效"))
}

/// The stored kind on the event (unspecified for a code this service does not know).
pub fn event_kind(code: i16) -> i32 {
    kind_pb(code)
}
