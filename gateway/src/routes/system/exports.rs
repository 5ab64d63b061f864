//! Export records (/downloadRecord): what was exported, its status, live
//! progress and the download link once the file is ready; cancel and retry,
//! which go to the service that runs the job after org confirmed the caller
//! sees the record. Every signed-in user sees the records within their data
//! scope.

use axum::extract::{Path, State};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::common::v1::lean::ExportJobServiceClient;
use fleetdesk_proto::org::v1 as pb;
use serde::Deserialize;
use utoipa::IntoParams;
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::{ExportRecordBody, STARTED, body, with_job};
use crate::edge::paging::paging;
use crate::envelope::{ApiError, ApiResult, Envelope, Ok, OkWith, Page};
use crate::extract::TrimmedQuery;
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_export_records))
        .routes(routes!(get_export_record))
        .routes(routes!(cancel_export_record))
        .routes(routes!(retry_export_record))
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
fn jobs_of(state: &AppState, domain: &str) -> Result<ExportJobServiceClient, ApiError> {
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
