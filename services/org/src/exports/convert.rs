//! Proto ↔ domain for export records: a row onto the wire, the status
//! filter off it, and where a finished record's file is fetched.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::org::v1 as pb;

use super::domain::ExportStatus;
use super::store::ExportRow;
use crate::codes::optional;

pub fn record(row: ExportRow) -> pb::ExportRecord {
    let ExportRow {
        id,
        enterprise_id,
        name,
        module,
        status,
        requested_by,
        requested_by_name,
        row_count,
        file_key,
        failure_reason,
        created_at,
        finished_at,
        expires_at,
        rows_done,
        rows_total,
        domain,
    } = row;
    pb::ExportRecord {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        name,
        module,
        status: optional::<ExportStatus>(Some(status)).map_or(0, ExportStatus::pb),
        requested_by: requested_by.map(|id| id.to_string()).unwrap_or_default(),
        row_count,
        file_key,
        failure_reason,
        request_time: Some(timestamp(created_at)),
        finish_time: finished_at.map(timestamp),
        requested_by_name,
        expire_time: expires_at.map(timestamp),
        rows_done,
        rows_total,
        domain,
    }
}

/// The list's status filter: 0 means any; otherwise one of the statuses.
pub fn status_filter(value: i32) -> Result<Option<ExportStatus>, ServiceError> {
    if value == 0 {
        return Ok(None);
    }
    ExportStatus::from_pb(value)
        .map(Some)
        .ok_or_else(|| ServiceError::invalid("status", "导出状态无效"))
}

/// Where a finished record's file is fetched: an edge path that checks the
/// session and the tenant again before it streams the file. Empty until the
/// file exists, and after it expired.
pub fn download_url(record: &pb::ExportRecord) -> String {
    if record.status == ExportStatus::Succeeded.pb() && !record.file_key.is_empty() {
        format!("/api/v1/export-records/{}/file", record.id)
    } else {
        String::new()
    }
}
