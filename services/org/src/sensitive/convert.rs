//! Proto ↔ domain for sensitive data: the type and subject off the wire,
//! an audit row onto it.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::org::v1 as pb;

use super::domain::{SensitiveType, SubjectKind};
use super::store::LogRow;
use crate::codes::optional;

/// A sensitive-view type from a request: one of the types, never unspecified.
pub fn sensitive_type(value: i32) -> Result<SensitiveType, ServiceError> {
    SensitiveType::from_pb(value)
        .ok_or_else(|| ServiceError::invalid("sensitiveType", "敏感信息类型无效"))
}

/// The subject of a reveal: a member when unspecified.
pub fn reveal_subject(value: i32) -> Result<SubjectKind, ServiceError> {
    if value == pb::SensitiveSubjectKind::Unspecified as i32 {
        return Ok(SubjectKind::Member);
    }
    SubjectKind::from_pb(value)
        .ok_or_else(|| ServiceError::invalid("subjectKind", "敏感信息对象类型无效"))
}

/// The subject of a recorded view: only another service's (a driver's).
pub fn recorded_subject(value: i32) -> Result<SubjectKind, ServiceError> {
    let invalid = || ServiceError::invalid("subjectKind", "敏感信息对象类型无效");
    match SubjectKind::from_pb(value).ok_or_else(invalid)? {
        SubjectKind::Driver => Ok(SubjectKind::Driver),
        SubjectKind::Member | SubjectKind::Approval | SubjectKind::Feedback => Err(invalid()),
    }
}

pub fn log(row: LogRow) -> pb::SensitiveViewLog {
    let LogRow {
        id,
        sensitive_type,
        subject_kind,
        subject_id,
        log_content,
        page_url,
        source_module,
        viewer_id,
        viewer_name,
        ip,
        viewed_at,
    } = row;
    pb::SensitiveViewLog {
        id: id.to_string(),
        sensitive_type: optional::<SensitiveType>(Some(sensitive_type))
            .map_or(0, SensitiveType::pb),
        log_content,
        page_url,
        source_module,
        viewer_name,
        ip,
        view_time: Some(timestamp(viewed_at)),
        subject_kind: optional::<SubjectKind>(Some(subject_kind)).map_or(0, SubjectKind::pb),
        subject_id: subject_id.to_string(),
        viewer_id: viewer_id.map(|id| id.to_string()).unwrap_or_default(),
    }
}
