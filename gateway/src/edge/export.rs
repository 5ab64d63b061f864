//! What a started export answers: the export record (the body the export
//! records list shows too), as the service's new job begins it.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::org::v1 as pb;
use serde::Serialize;
use utoipa::ToSchema;

use crate::edge::time::rfc3339;
use crate::envelope::{ApiError, OkWith};
use crate::session::Principal;

/// What the export button shows when a job was queued (docs/console-spec.md §1).
pub const STARTED: &str = "导出结果请到右上方个人信息下【导出记录】中查看下载结果";

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportRecordBody {
    pub id: String,
    pub name: String,
    /// The page the export came from, e.g. carFiles.
    pub module: String,
    /// 1 queued, 2 running, 3 succeeded, 4 failed, 5 expired, 6 cancelled.
    pub status: i32,
    pub requested_by_name: String,
    pub row_count: i64,
    /// Rows written so far (live progress while running).
    pub rows_done: i64,
    /// Rows the export will write; 0 until counted.
    pub rows_total: i64,
    pub failure_reason: String,
    pub request_time: String,
    /// Empty until finished.
    pub finish_time: String,
    /// After this the file is gone.
    pub expire_time: String,
    /// The file can be downloaded now.
    pub downloadable: bool,
    /// Where to download it; only in the detail, empty unless downloadable.
    pub download_url: String,
}

pub fn body(r: pb::ExportRecord, download_url: String) -> ExportRecordBody {
    ExportRecordBody {
        downloadable: r.status == pb::ExportStatus::Succeeded as i32 && !r.file_key.is_empty(),
        id: r.id,
        name: r.name,
        module: r.module,
        status: r.status,
        requested_by_name: r.requested_by_name,
        row_count: r.row_count,
        rows_done: r.rows_done,
        rows_total: r.rows_total,
        failure_reason: r.failure_reason,
        request_time: rfc3339(r.request_time.as_ref()),
        finish_time: rfc3339(r.finish_time.as_ref()),
        expire_time: rfc3339(r.expire_time.as_ref()),
        download_url,
    }
}

/// The record as the job now stands (org catches up through the job's events).
pub fn with_job(mut record: pb::ExportRecord, job: Option<common::ExportJob>) -> ExportRecordBody {
    if let Some(job) = job {
        let status = common::ExportJobStatus::try_from(job.status).unwrap_or_default();
        record.status = match status {
            common::ExportJobStatus::Unspecified | common::ExportJobStatus::Queued => {
                pb::ExportStatus::Pending
            }
            common::ExportJobStatus::Running => pb::ExportStatus::Running,
            common::ExportJobStatus::Succeeded => pb::ExportStatus::Succeeded,
            common::ExportJobStatus::Failed => pb::ExportStatus::Failed,
            common::ExportJobStatus::Cancelled => pb::ExportStatus::Cancelled,
        } as i32;
        record.rows_done = job.rows_done;
        record.rows_total = job.rows_total;
        if status == common::ExportJobStatus::Queued {
            record.file_key.clear();
            record.failure_reason.clear();
            record.finish_time = None;
            record.expire_time = None;
        }
    }
    body(record, String::new())
}

/// The record a just-started job begins as (org creates it from the job's
/// event a moment later).
pub fn started(job: common::ExportJob, principal: &Principal) -> ExportRecordBody {
    let record = pb::ExportRecord {
        id: job.id.clone(),
        enterprise_id: principal.enterprise_id.clone(),
        name: job.name.clone(),
        module: job.module.clone(),
        status: pb::ExportStatus::Pending as i32,
        request_time: job.request_time,
        ..Default::default()
    };
    with_job(record, Some(job))
}

/// The answer of a `POST .../export`: the record the service's new job
/// starts as, with the spec's text.
pub fn answer_started(
    job: Option<common::ExportJob>,
    principal: &Principal,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let job = job.ok_or_else(|| ApiError(ServiceError::of(fleetdesk_kit::ErrorCode::Internal)))?;
    Result::Ok(OkWith {
        msg: STARTED,
        data: started(job, principal),
    })
}

// A finished export's file as a signed link. No doc comment: it would
// become the schema's description in the contract.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportFileBody {
    /// The export's name.
    pub name: String,
    /// A signed download link, valid for 10 minutes.
    pub url: String,
}
