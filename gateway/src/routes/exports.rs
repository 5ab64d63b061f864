//! Export records (/downloadRecord): what was exported, its status, live
//! progress and the download link once the file is ready; cancel and retry,
//! which go to the service that runs the job after org confirmed the caller
//! sees the record. Every signed-in user sees the records within their data
//! scope. Also the exports the gateway starts (`POST .../export`), which
//! answer the new record at once.

use axum::extract::{Path, State};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::common::v1::export_job_service_client::ExportJobServiceClient;
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use tonic::transport::Channel;
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedQuery;
use crate::routes::system::status_field;
use crate::routes::users::UserListQuery;
use crate::routes::{paging, rfc3339};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_export_records))
        .routes(routes!(get_export_record))
        .routes(routes!(cancel_export_record))
        .routes(routes!(retry_export_record))
        .routes(routes!(export_users))
}

/// What the export button shows when a job was queued (spec §1).
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

fn body(r: pb::ExportRecord, download_url: String) -> ExportRecordBody {
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

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct ExportQuery {
    /// Page from 1.
    pub page: Option<i32>,
    /// 5, 10, 20, 50 or 100 (default 20).
    pub size: Option<i32>,
    /// 1 queued, 2 running, 3 succeeded, 4 failed, 5 expired, 6 cancelled.
    pub status: Option<i32>,
    /// One page's exports only.
    pub module: Option<String>,
}

#[utoipa::path(
    get, path = "/export-records", tag = "exports",
    params(ExportQuery),
    responses((status = 200, description = "Export records of the enterprise, newest first", body = Envelope<Page<ExportRecordBody>>)),
    security(("token" = []))
)]
async fn list_export_records(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<ExportQuery>,
) -> ApiResult<Page<ExportRecordBody>> {
    let request = pb::ListExportRecordsRequest {
        page: Some(paging(query.page, query.size)?),
        status: query.status.unwrap_or(0),
        module: query.module.unwrap_or_default(),
    };
    let answer = state
        .org()
        .list_export_records(state.as_user(&principal, request))
        .await?
        .into_inner();
    Result::Ok(Ok(Page {
        list: answer
            .records
            .into_iter()
            .map(|r| body(r, String::new()))
            .collect(),
        total: answer.page.map_or(0, |p| p.total),
    }))
}

#[utoipa::path(
    get, path = "/export-records/{id}", tag = "exports",
    params(("id" = String, Path, description = "Export record id")),
    responses((status = 200, description = "One export record with its status and download link", body = Envelope<ExportRecordBody>)),
    security(("token" = []))
)]
async fn get_export_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ExportRecordBody> {
    let answer = state
        .org()
        .get_export_record(state.as_user(&principal, pb::GetExportRecordRequest { id }))
        .await?
        .into_inner();
    Result::Ok(Ok(body(
        answer.record.unwrap_or_default(),
        answer.download_url,
    )))
}

/// The record as org has it; 4004 when the caller does not see it.
async fn visible_record(
    state: &AppState,
    principal: &Principal,
    id: String,
) -> Result<pb::ExportRecord, ApiError> {
    let answer = state
        .org()
        .get_export_record(state.as_user(principal, pb::GetExportRecordRequest { id }))
        .await?
        .into_inner();
    answer
        .record
        .ok_or_else(|| ApiError(ServiceError::not_found()))
}

/// The export jobs API of the service that runs a record's job.
fn jobs_of(state: &AppState, domain: &str) -> Result<ExportJobServiceClient<Channel>, ApiError> {
    let channel = match domain {
        "org" => state.upstreams.org.clone(),
        "vehicle" => state.upstreams.vehicle.clone(),
        "energy" => state.upstreams.energy.clone(),
        "finance" => state.upstreams.finance.clone(),
        other => {
            tracing::error!(domain = other, "Export record of an unknown service.");
            return Err(ApiError(ServiceError::not_found()));
        }
    };
    Result::Ok(ExportJobServiceClient::new(channel))
}

/// The record as the job now stands (org catches up through the job's events).
fn with_job(mut record: pb::ExportRecord, job: Option<common::ExportJob>) -> ExportRecordBody {
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

#[utoipa::path(
    post, path = "/export-records/{id}/cancel", tag = "exports",
    params(("id" = String, Path, description = "Export record id")),
    responses((status = 200, description = "Cancelled (a queued export at once, a running one after its current page); 4009 when it already ended", body = Envelope<ExportRecordBody>)),
    security(("token" = []))
)]
async fn cancel_export_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ExportRecordBody> {
    let record = visible_record(&state, &principal, id).await?;
    let answer = jobs_of(&state, &record.domain)?
        .cancel_export_job(state.as_user(
            &principal,
            common::CancelExportJobRequest {
                id: record.id.clone(),
            },
        ))
        .await?
        .into_inner();
    Result::Ok(Ok(with_job(record, answer.job)))
}

#[utoipa::path(
    post, path = "/export-records/{id}/retry", tag = "exports",
    params(("id" = String, Path, description = "Export record id")),
    responses((status = 200, description = "Queued again with the same filters; 4009 while it is still queued or running", body = Envelope<ExportRecordBody>)),
    security(("token" = []))
)]
async fn retry_export_record(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let record = visible_record(&state, &principal, id).await?;
    let answer = jobs_of(&state, &record.domain)?
        .retry_export_job(state.as_user(
            &principal,
            common::RetryExportJobRequest {
                id: record.id.clone(),
            },
        ))
        .await?
        .into_inner();
    Result::Ok(OkWith {
        msg: STARTED,
        data: with_job(record, answer.job),
    })
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

#[utoipa::path(
    post, path = "/system/users/export", tag = "system",
    params(UserListQuery),
    responses((status = 200, description = "The export record of the users list with the list's filters (paging ignored); the file follows in export records", body = Envelope<ExportRecordBody>)),
    security(("token" = ["as:sys:user:getList"]))
)]
async fn export_users(
    State(state): State<AppState>,
    principal: Principal,
    TrimmedQuery(query): TrimmedQuery<UserListQuery>,
) -> Result<OkWith<ExportRecordBody>, ApiError> {
    let status = match query.status {
        None => 0,
        some => status_field(some)?,
    };
    let request = pb::ExportUsersRequest {
        name_contains: query.name.unwrap_or_default(),
        org_id: query.org_id.unwrap_or_default(),
        role_id: query.role_id.unwrap_or_default(),
        status,
    };
    let answer = state
        .org()
        .export_users(state.as_user(&principal, request))
        .await?
        .into_inner();
    answer_started(answer.job, &principal)
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
