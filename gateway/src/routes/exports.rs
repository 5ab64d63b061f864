//! Export records (/downloadRecord): what was exported, its status and the
//! download link once the file is ready. Every signed-in user sees the
//! records of their enterprise.

use axum::extract::{Path, State};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::envelope::{ApiResult, Envelope, Ok, Page};
use crate::extract::TrimmedQuery;
use crate::routes::{paging, rfc3339};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    OpenApiRouter::new()
        .routes(routes!(list_export_records))
        .routes(routes!(get_export_record))
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExportRecordBody {
    pub id: String,
    pub name: String,
    /// The page the export came from, e.g. carFiles.
    pub module: String,
    /// 1 queued, 2 running, 3 succeeded, 4 failed, 5 expired.
    pub status: i32,
    pub requested_by_name: String,
    pub row_count: i64,
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
    /// 1 queued, 2 running, 3 succeeded, 4 failed, 5 expired.
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
