//! Uploads into the object store, signed download links, and the download
//! of finished exports.

use axum::body::Body;
use axum::extract::multipart::{Field, MultipartRejection};
use axum::extract::{DefaultBodyLimit, Multipart, Path, State};
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::org::v1 as pb;
use serde::{Deserialize, Serialize};
use utoipa::{IntoParams, ToSchema};
use utoipa_axum::router::OpenApiRouter;
use utoipa_axum::routes;

use crate::edge::export::ExportFileBody;
use crate::envelope::{ApiError, ApiResult, Envelope, OkWith};
use crate::extract::TrimmedQuery;
use crate::files::{self, Purpose};
use crate::session::Principal;
use crate::state::AppState;

pub fn router() -> OpenApiRouter<AppState> {
    // Uploads may exceed the general body limit, up to the largest purpose's
    // size (plus room for the multipart framing).
    let upload_limit = usize::try_from(files::max_upload_bytes()).unwrap_or(usize::MAX) + 64 * 1024;
    OpenApiRouter::new()
        .routes(routes!(upload))
        .layer(DefaultBodyLimit::max(upload_limit))
        .routes(routes!(download))
        .routes(routes!(export_file))
}

/// The multipart form of an upload.
#[derive(Debug, ToSchema)]
#[allow(dead_code)]
pub struct UploadForm {
    /// The file; its name must not contain `,` or `+`.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
    /// feedback (png/jpeg/jpg/webp/gif, < 5 MB), import (xls/xlsx, < 10 MB),
    /// avatar (images, < 2 MB), driver (ID card and licence images, < 5 MB),
    /// evidence (alarm and accident images, < 5 MB) or document (images and
    /// pdf, < 10 MB).
    pub purpose: String,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct FileBody {
    /// Where the file is stored; what other requests name (e.g. attachmentKeys).
    pub key: String,
    /// The stored name.
    pub name: String,
    pub size: u64,
    pub content_type: String,
    /// A signed download link, valid for 10 minutes.
    pub url: String,
}

fn now() -> i64 {
    chrono::Utc::now().timestamp()
}

fn read_error(purpose: Option<Purpose>) -> ApiError {
    let largest = files::PURPOSES
        .iter()
        .copied()
        .max_by_key(|p| p.max_mb)
        .expect("purposes");
    ApiError(purpose.unwrap_or(largest).too_large())
}

/// Reads a file field, refusing more than `limit` bytes.
async fn read_file(mut field: Field<'_>, limit: u64) -> Result<Option<Bytes>, ()> {
    let mut buffer = BytesMut::new();
    while let Some(chunk) = field.chunk().await.map_err(|_| ())? {
        buffer.extend_from_slice(&chunk);
        if buffer.len() as u64 > limit {
            return Ok(None);
        }
    }
    Ok(Some(buffer.freeze()))
}

#[utoipa::path(
    post, path = "/files", tag = "files",
    request_body(content = UploadForm, content_type = "multipart/form-data"),
    responses((status = 200, description = "Stored; key, name, size, type and a signed download link", body = Envelope<FileBody>)),
    security(("token" = []))
)]
async fn upload(
    State(state): State<AppState>,
    principal: Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<OkWith<FileBody>, ApiError> {
    let no_file = || ApiError::invalid("file", "请先选择上传文件");
    let mut multipart = multipart.map_err(|_| no_file())?;
    let mut purpose_name: Option<String> = None;
    let mut file: Option<(String, Bytes)> = None;
    loop {
        let field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(_) => return Err(read_error(purpose_name.as_deref().and_then(files::purpose))),
        };
        match field.name() {
            Some("purpose") => {
                let text = field
                    .text()
                    .await
                    .map_err(|_| ApiError::invalid("purpose", "用途无效"))?;
                purpose_name = Some(text.trim().to_owned());
            }
            Some("file") => {
                let name = field.file_name().unwrap_or_default().trim().to_owned();
                let known = purpose_name.as_deref().and_then(files::purpose);
                let limit = known.map_or_else(files::max_upload_bytes, |p| p.max_bytes());
                match read_file(field, limit).await {
                    Ok(Some(bytes)) => file = Some((name, bytes)),
                    Ok(None) | Err(()) => return Err(read_error(known)),
                }
            }
            _ => {}
        }
    }
    let purpose = purpose_name
        .as_deref()
        .and_then(files::purpose)
        .ok_or_else(|| {
            ApiError::invalid("purpose", format!("用途只能是 {}", files::purpose_names()))
        })?;
    let (name, bytes) = file.ok_or_else(no_file)?;
    purpose.check_name(&name)?;
    if bytes.len() as u64 >= purpose.max_bytes() {
        return Err(ApiError(purpose.too_large()));
    }
    if bytes.is_empty() {
        return Err(ApiError::invalid("file", "上传文件不能为空"));
    }
    purpose.check_content(&name, &bytes)?;
    let key = files::new_key(&principal.enterprise_id, &purpose, &name);
    let size = bytes.len() as u64;
    state.files.put(&key, bytes).await?;
    tracing::info!(purpose = purpose.name, size, "File uploaded.");
    Ok(OkWith {
        msg: "上传成功",
        data: FileBody {
            url: state.links.link(&key, now()),
            name: files::key_name(&key).to_owned(),
            content_type: files::content_type(&key).to_owned(),
            size,
            key,
        },
    })
}

#[derive(Debug, Deserialize, IntoParams)]
#[into_params(parameter_in = Query)]
pub struct DownloadQuery {
    /// The file's key.
    pub key: Option<String>,
    /// Unix seconds after which the link is refused.
    pub expires: Option<i64>,
    /// HMAC-SHA256 of key and expires, hex.
    pub sig: Option<String>,
}

/// Streams a stored file. Public by signature: the link itself is the
/// permission, issued only to members of the key's enterprise.
#[utoipa::path(
    get, path = "/files/download", tag = "files",
    params(DownloadQuery),
    responses(
        (status = 200, description = "The file's bytes; 4004 for a bad or expired link or a missing file", content_type = "application/octet-stream", body = String)
    ),
    security(())
)]
async fn download(
    State(state): State<AppState>,
    TrimmedQuery(query): TrimmedQuery<DownloadQuery>,
) -> Result<Response, ApiError> {
    let (Some(key), Some(expires), Some(sig)) = (query.key, query.expires, query.sig) else {
        return Err(ApiError(files::gone()));
    };
    if !state.links.verify(&key, expires, &sig, now()) {
        return Err(ApiError(files::gone()));
    }
    let found = state.files.get(&key).await?;
    let size = found.meta.size;
    let name = files::key_name(&key);
    Ok((
        StatusCode::OK,
        [
            (header::CONTENT_TYPE, files::content_type(name).to_owned()),
            (header::CONTENT_LENGTH, size.to_string()),
            (
                header::CONTENT_DISPOSITION,
                files::content_disposition(name),
            ),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        Body::from_stream(found.into_stream()),
    )
        .into_response())
}

#[utoipa::path(
    get, path = "/export-records/{id}/file", tag = "exports",
    params(("id" = String, Path, description = "Export record id")),
    responses((status = 200, description = "A signed download link of the finished export's file", body = Envelope<ExportFileBody>)),
    security(("token" = []))
)]
async fn export_file(
    State(state): State<AppState>,
    principal: Principal,
    Path(id): Path<String>,
) -> ApiResult<ExportFileBody> {
    let answer = state
        .org()
        .get_export_record(state.as_user(&principal, pb::GetExportRecordRequest { id }))
        .await?
        .into_inner();
    let record = answer.record.unwrap_or_default();
    let status = pb::ExportStatus::try_from(record.status).unwrap_or_default();
    match status {
        pb::ExportStatus::Succeeded => {}
        pb::ExportStatus::Expired => return Err(ApiError(files::gone())),
        pb::ExportStatus::Failed => {
            return Err(ApiError(ServiceError::new(
                ErrorCode::Conflict,
                "导出失败，没有可下载的文件",
            )));
        }
        _ => {
            return Err(ApiError(ServiceError::new(
                ErrorCode::Conflict,
                "导出尚未完成",
            )));
        }
    }
    if record.file_key.is_empty() || !state.files.exists(&record.file_key).await? {
        return Err(ApiError(files::gone()));
    }
    Ok(crate::envelope::Ok(ExportFileBody {
        url: state.links.link(&record.file_key, now()),
        name: record.name,
    }))
}
