//! Bulk imports at the edge (docs/ARCHITECTURE.md §3), shared by every
//! `POST .../import` and `GET .../import-template` route: the multipart
//! upload (one xls/xlsx file under 10 MB), staged in the object store for
//! the service that imports it (a file is too big for one gRPC message) and
//! removed after, the answer (4000 with the spec's error table
//! `{errorHeader, errorList}` when any row failed, nothing written) and the
//! template download.

use axum::extract::Multipart;
use axum::extract::multipart::MultipartRejection;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use bytes::{Bytes, BytesMut};
use fleetdesk_kit::ErrorCode;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as vehicle;
use serde::Serialize;
use utoipa::ToSchema;

use crate::envelope::{ApiError, Envelope};
use crate::files;
use crate::session::Principal;
use crate::state::AppState;

/// What an import answers when a row failed (spec: 导入失败).
pub const FAILED: &str = "导入失败，请根据错误信息修改后重新导入";

/// The multipart form of an import.
#[derive(Debug, ToSchema)]
#[allow(dead_code)]
pub struct ImportForm {
    /// One xls or xlsx file under 10 MB; its name must not contain `,` or `+`.
    #[schema(value_type = String, format = Binary)]
    pub file: Vec<u8>,
}

/// Rows written by a successful import.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportedBody {
    pub imported: i64,
}

/// The error table of a failed import (`data` of its 4000 answer).
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportErrorsBody {
    /// Column titles of the table: row number, column, reason.
    pub error_header: Vec<String>,
    pub error_list: Vec<ImportRowErrorBody>,
}

#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct ImportRowErrorBody {
    /// The spreadsheet's row number (the header is row 1).
    pub row: i64,
    /// The column title; empty for the whole row.
    pub column: String,
    pub reason: String,
}

/// Reads the one file of an import form: present, one only, xls/xlsx, under
/// 10 MB, not empty.
pub async fn read_file(
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<(String, Bytes), ApiError> {
    let purpose = files::purpose("import").expect("the import purpose exists");
    let no_file = || ApiError::invalid("file", "请先选择上传文件");
    let mut multipart = multipart.map_err(|_| no_file())?;
    let mut found: Option<(String, Bytes)> = None;
    loop {
        let mut field = match multipart.next_field().await {
            Ok(Some(field)) => field,
            Ok(None) => break,
            Err(_) => return Err(ApiError(purpose.too_large())),
        };
        if field.name() != Some("file") {
            continue;
        }
        if found.is_some() {
            return Err(ApiError::invalid("file", "每次只能上传一个文件"));
        }
        let name = field.file_name().unwrap_or_default().trim().to_owned();
        purpose.check_name(&name)?;
        let mut buffer = BytesMut::new();
        while let Some(chunk) = field
            .chunk()
            .await
            .map_err(|_| ApiError(purpose.too_large()))?
        {
            buffer.extend_from_slice(&chunk);
            if buffer.len() as u64 >= purpose.max_bytes() {
                return Err(ApiError(purpose.too_large()));
            }
        }
        found = Some((name, buffer.freeze()));
    }
    let (name, bytes) = found.ok_or_else(no_file)?;
    if bytes.is_empty() {
        return Err(ApiError::invalid("file", "上传文件不能为空"));
    }
    Ok((name, bytes))
}

/// Largest body of an import route: the file's limit plus room for the
/// multipart framing (the general body limit is smaller).
pub fn body_limit() -> usize {
    let file = files::purpose("import").map_or(0, |p| p.max_bytes());
    usize::try_from(file).unwrap_or(usize::MAX) + 64 * 1024
}

/// An import file in the object store, under the caller's enterprise.
#[derive(Debug, Clone)]
pub struct Staged {
    pub key: String,
    pub name: String,
}

/// Reads the form's file ([`read_file`]) and stores it for the service.
async fn stage(
    state: &AppState,
    principal: &Principal,
    multipart: Result<Multipart, MultipartRejection>,
) -> Result<Staged, ApiError> {
    let (name, bytes) = read_file(multipart).await?;
    let purpose = files::purpose("import").expect("the import purpose exists");
    let key = files::new_key(&principal.enterprise_id, &purpose, &name);
    state.files.put(&key, bytes).await?;
    Ok(Staged { key, name })
}

/// The whole of a `POST .../import`: stages the form's file, lets the
/// owning service import it by key (`import`), removes the staged file
/// whatever the outcome, and answers.
pub async fn run<F, Fut>(
    state: &AppState,
    principal: &Principal,
    multipart: Result<Multipart, MultipartRejection>,
    import: F,
) -> Result<Response, ApiError>
where
    F: FnOnce(Staged) -> Fut,
    Fut: Future<Output = Result<common::ImportResult, ApiError>>,
{
    let staged = stage(state, principal, multipart).await?;
    let result = import(staged.clone()).await;
    discard(state, &staged).await;
    Ok(answer(result?))
}

/// Removes a staged file once the service has read it (best effort: a
/// left-over file is harmless and named by nothing).
async fn discard(state: &AppState, staged: &Staged) {
    if let Err(err) = state.files.delete(&staged.key).await {
        tracing::warn!(error = %err.message, "Staged import file not removed.");
    }
}

/// The answer of an import: 200 with the rows written, or 4000 with the
/// error table when nothing was written.
fn answer(result: common::ImportResult) -> Response {
    if result.error_list.is_empty() {
        return (
            StatusCode::OK,
            axum::Json(Envelope {
                code: 200,
                msg: "导入成功".to_owned(),
                data: ImportedBody {
                    imported: result.imported,
                },
            }),
        )
            .into_response();
    }
    let data = ImportErrorsBody {
        error_header: result.error_header,
        error_list: result
            .error_list
            .into_iter()
            .map(|e| ImportRowErrorBody {
                row: e.row,
                column: e.column,
                reason: e.reason,
            })
            .collect(),
    };
    (
        StatusCode::BAD_REQUEST,
        axum::Json(Envelope {
            code: ErrorCode::BadRequest.edge_code(),
            msg: FAILED.to_owned(),
            data,
        }),
    )
        .into_response()
}

/// An import template as a download.
pub fn template(template: common::ImportTemplate) -> Response {
    (
        StatusCode::OK,
        [
            (
                header::CONTENT_TYPE,
                files::content_type(&template.file_name).to_owned(),
            ),
            (
                header::CONTENT_DISPOSITION,
                files::content_disposition(&template.file_name),
            ),
            (header::CACHE_CONTROL, "private, no-store".to_owned()),
        ],
        template.content,
    )
        .into_response()
}

/// An import template of the vehicle service (vehicles, drivers), as a download.
pub async fn import_template(
    state: &AppState,
    principal: &Principal,
    kind: vehicle::ImportKind,
) -> Result<Response, ApiError> {
    let answer = state
        .assets()
        .get_import_template(state.as_user(
            principal,
            vehicle::GetImportTemplateRequest { kind: kind as i32 },
        ))
        .await?
        .into_inner();
    Result::Ok(template(common::ImportTemplate {
        file_name: answer.file_name,
        content: answer.content,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body(response: Response) -> (u16, serde_json::Value) {
        let status = response.status().as_u16();
        let bytes = axum::body::to_bytes(response.into_body(), usize::MAX)
            .await
            .unwrap();
        (status, serde_json::from_slice(&bytes).unwrap())
    }

    #[tokio::test]
    async fn a_failed_import_is_4000_with_the_error_table() {
        let (status, json) = body(answer(common::ImportResult {
            imported: 0,
            error_header: vec!["行号".into(), "列名".into(), "错误原因".into()],
            error_list: vec![common::ImportRowError {
                row: 7,
                column: "车牌号".into(),
                reason: "车牌号格式不正确".into(),
            }],
        }))
        .await;
        assert_eq!(status, 400);
        assert_eq!(json["code"], 4000);
        assert_eq!(json["msg"], FAILED);
        assert_eq!(json["data"]["errorHeader"][2], "错误原因");
        assert_eq!(
            json["data"]["errorList"][0],
            serde_json::json!({"row": 7, "column": "车牌号", "reason": "车牌号格式不正确"})
        );
        let (status, json) = body(answer(kit_imported(12))).await;
        assert_eq!(status, 200);
        assert_eq!(json["data"]["imported"], 12);
    }

    fn kit_imported(n: i64) -> common::ImportResult {
        fleetdesk_kit::import::imported(n)
    }
}
