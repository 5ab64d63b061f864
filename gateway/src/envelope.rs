//! The edge envelope `{code, msg, data}` with a matching HTTP status
//! (docs/ARCHITECTURE.md §3). Every answer of `/api` goes through here.

use axum::Json;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use fleetdesk_kit::{ErrorCode, FieldError, ServiceError};
use serde::Serialize;
use utoipa::ToSchema;

/// Every response body.
#[derive(Debug, Serialize, ToSchema)]
pub struct Envelope<T> {
    /// 200 on success; otherwise an edge error code.
    pub code: u32,
    /// Human-readable message, in Chinese.
    pub msg: String,
    pub data: T,
}

/// A page of a list.
#[derive(Debug, Serialize, ToSchema)]
pub struct Page<T> {
    pub list: Vec<T>,
    pub total: i64,
}

/// Details of a failed validation.
#[derive(Debug, Serialize, ToSchema)]
pub struct ValidationData {
    pub fields: Vec<FieldErrorBody>,
}

#[derive(Debug, Serialize, ToSchema)]
pub struct FieldErrorBody {
    pub field: String,
    pub message: String,
}

/// Empty `data` of answers that carry nothing.
#[derive(Debug, Serialize, ToSchema)]
pub struct Empty {}

/// A successful answer.
#[derive(Debug)]
pub struct Ok<T>(pub T);

impl<T: Serialize> IntoResponse for Ok<T> {
    fn into_response(self) -> Response {
        json(&Envelope {
            code: 200,
            msg: "成功".to_owned(),
            data: self.0,
        })
    }
}

/// A JSON answer, as `axum::Json` writes it but into a plain `Vec`: Json
/// writes through a `BytesMut` grown from 128 bytes, one bounds-checked
/// `put_slice` per token, which cost a fifth of the gateway's instructions
/// on a page of 20 vehicles.
fn json<T: Serialize>(value: &T) -> Response {
    let mut body = Vec::with_capacity(4096);
    match serde_json::to_writer(&mut body, value) {
        Result::Ok(()) => (
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body,
        )
            .into_response(),
        Err(err) => (
            StatusCode::INTERNAL_SERVER_ERROR,
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("text/plain; charset=utf-8"),
            )],
            err.to_string(),
        )
            .into_response(),
    }
}

/// A successful answer whose `msg` the console shows (e.g. 修改密码成功).
#[derive(Debug)]
pub struct OkWith<T> {
    pub msg: &'static str,
    pub data: T,
}

impl<T: Serialize> IntoResponse for OkWith<T> {
    fn into_response(self) -> Response {
        json(&Envelope {
            code: 200,
            msg: self.msg.to_owned(),
            data: self.data,
        })
    }
}

/// A failed answer: a service error rendered as the envelope.
#[derive(Debug)]
pub struct ApiError(pub ServiceError);

pub type ApiResult<T> = Result<Ok<T>, ApiError>;

impl From<ServiceError> for ApiError {
    fn from(err: ServiceError) -> Self {
        ApiError(err)
    }
}

impl From<tonic::Status> for ApiError {
    fn from(status: tonic::Status) -> Self {
        ApiError(ServiceError::from_status(&status))
    }
}

impl ApiError {
    pub fn invalid(field: &str, message: impl Into<String>) -> ApiError {
        ApiError(ServiceError::invalid(field, message))
    }

    pub fn code(code: ErrorCode) -> ApiError {
        ApiError(ServiceError::of(code))
    }
}

fn fields_body(fields: &[FieldError]) -> Vec<FieldErrorBody> {
    fields
        .iter()
        .map(|f| FieldErrorBody {
            field: f.field.clone(),
            message: f.message.clone(),
        })
        .collect()
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let err = self.0;
        let status = StatusCode::from_u16(err.code.http_status())
            .unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        // A 4000 always lists its fields; a 4009 when it names the value
        // that is taken (an account name, an organisation code), so a form
        // can mark that field as it marks a 4000's.
        let data = match err.code {
            ErrorCode::BadRequest => serde_json::json!({ "fields": fields_body(&err.fields) }),
            ErrorCode::Conflict if !err.fields.is_empty() => {
                serde_json::json!({ "fields": fields_body(&err.fields) })
            }
            _ => serde_json::Value::Null,
        };
        let body = Envelope {
            code: err.code.edge_code(),
            msg: err.message,
            data,
        };
        let mut response = (status, Json(body)).into_response();
        if let Some(secs) = err
            .retry_after_secs
            .filter(|_| err.code == ErrorCode::TooManyRequests)
        {
            response
                .headers_mut()
                .insert(header::RETRY_AFTER, HeaderValue::from(secs));
        }
        response
    }
}

/// The edge code of a method a path does not answer (HTTP 405). Not a service
/// error: only the edge routes by method.
pub const METHOD_NOT_ALLOWED: u32 = 4005;

/// 405 in the envelope, with the `Allow` header listing what the path answers.
pub fn method_not_allowed(allowed: &[&str]) -> Response {
    let body = Envelope {
        code: METHOD_NOT_ALLOWED,
        msg: "不支持该请求方法".to_owned(),
        data: serde_json::Value::Null,
    };
    let mut response = (StatusCode::METHOD_NOT_ALLOWED, Json(body)).into_response();
    if let Result::Ok(allow) = HeaderValue::from_str(&allowed.join(", ")) {
        response.headers_mut().insert(header::ALLOW, allow);
    }
    response
}
