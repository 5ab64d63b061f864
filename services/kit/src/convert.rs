//! Conversions shared by every service's gRPC layer.

use chrono::{DateTime, Utc};
use uuid::Uuid;

use crate::error::ServiceError;

pub fn timestamp(at: DateTime<Utc>) -> prost_types::Timestamp {
    prost_types::Timestamp {
        seconds: at.timestamp(),
        nanos: at.timestamp_subsec_nanos() as i32,
    }
}

pub fn datetime(ts: &prost_types::Timestamp) -> Option<DateTime<Utc>> {
    DateTime::from_timestamp(ts.seconds, u32::try_from(ts.nanos).ok()?)
}

/// Parses an id field; a malformed id is reported as not found, like a
/// foreign one, so ids reveal nothing.
pub fn id(value: &str) -> Result<Uuid, ServiceError> {
    Uuid::parse_str(value).map_err(|_| ServiceError::not_found())
}

/// Page number and size from a request, clamped to the edge rules.
pub fn page(req: Option<&fleetdesk_proto::common::v1::PageRequest>) -> (i64, i64) {
    let page = req.map_or(1, |p| p.page).max(1);
    let size = req.map_or(20, |p| p.size);
    let size = if size <= 0 { 20 } else { size.min(100) };
    (i64::from(page), i64::from(size))
}

pub fn page_info(page: i64, size: i64, total: i64) -> fleetdesk_proto::common::v1::PageInfo {
    fleetdesk_proto::common::v1::PageInfo {
        page: i32::try_from(page).unwrap_or(i32::MAX),
        size: i32::try_from(size).unwrap_or(100),
        total,
    }
}
