//! One error-code enum for every service. Each code maps to exactly one gRPC
//! status and one edge code, so the gateway never guesses what went wrong.

use tonic::{Code, Status};
use tonic_types::{ErrorDetails, FieldViolation, StatusExt};

/// The machine reason of an error, shared by services and the gateway.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ErrorCode {
    /// Input failed validation; field violations say which.
    BadRequest,
    /// No session, or it is invalid or expired.
    Unauthenticated,
    /// The session was ended elsewhere (logout, password change).
    SessionEnded,
    /// The caller lacks the permission.
    Forbidden,
    /// Missing, or owned by another tenant.
    NotFound,
    /// State changed or duplicate.
    Conflict,
    /// A limit was hit; retry later.
    TooManyRequests,
    /// An upstream is not serving.
    Unavailable,
    /// A bug or an unexpected failure; details are only logged.
    Internal,
}

impl ErrorCode {
    /// Every code, for exhaustive tests and tables.
    pub const ALL: [ErrorCode; 9] = [
        ErrorCode::BadRequest,
        ErrorCode::Unauthenticated,
        ErrorCode::SessionEnded,
        ErrorCode::Forbidden,
        ErrorCode::NotFound,
        ErrorCode::Conflict,
        ErrorCode::TooManyRequests,
        ErrorCode::Unavailable,
        ErrorCode::Internal,
    ];

    /// The reason string carried in the gRPC `ErrorInfo` detail.
    pub fn reason(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "BAD_REQUEST",
            ErrorCode::Unauthenticated => "UNAUTHENTICATED",
            ErrorCode::SessionEnded => "SESSION_ENDED",
            ErrorCode::Forbidden => "FORBIDDEN",
            ErrorCode::NotFound => "NOT_FOUND",
            ErrorCode::Conflict => "CONFLICT",
            ErrorCode::TooManyRequests => "TOO_MANY_REQUESTS",
            ErrorCode::Unavailable => "UNAVAILABLE",
            ErrorCode::Internal => "INTERNAL",
        }
    }

    fn from_reason(reason: &str) -> Option<ErrorCode> {
        ErrorCode::ALL.into_iter().find(|c| c.reason() == reason)
    }

    /// The gRPC status code.
    pub fn grpc_code(self) -> Code {
        match self {
            ErrorCode::BadRequest => Code::InvalidArgument,
            ErrorCode::Unauthenticated | ErrorCode::SessionEnded => Code::Unauthenticated,
            ErrorCode::Forbidden => Code::PermissionDenied,
            ErrorCode::NotFound => Code::NotFound,
            ErrorCode::Conflict => Code::FailedPrecondition,
            ErrorCode::TooManyRequests => Code::ResourceExhausted,
            ErrorCode::Unavailable => Code::Unavailable,
            ErrorCode::Internal => Code::Internal,
        }
    }

    /// The code of the edge envelope (docs/ARCHITECTURE.md §3).
    pub fn edge_code(self) -> u32 {
        match self {
            ErrorCode::BadRequest => 4000,
            ErrorCode::Unauthenticated => 1001,
            ErrorCode::SessionEnded => 1016,
            ErrorCode::Forbidden => 9999,
            ErrorCode::NotFound => 4004,
            ErrorCode::Conflict => 4009,
            ErrorCode::TooManyRequests => 4029,
            ErrorCode::Unavailable => 5003,
            ErrorCode::Internal => 5000,
        }
    }

    /// The HTTP status that goes with the edge code.
    pub fn http_status(self) -> u16 {
        match self {
            ErrorCode::BadRequest => 400,
            ErrorCode::Unauthenticated | ErrorCode::SessionEnded => 401,
            ErrorCode::Forbidden => 403,
            ErrorCode::NotFound => 404,
            ErrorCode::Conflict => 409,
            ErrorCode::TooManyRequests => 429,
            ErrorCode::Unavailable => 503,
            ErrorCode::Internal => 500,
        }
    }

    /// The message users see when the service gave none it may show.
    pub fn default_message(self) -> &'static str {
        match self {
            ErrorCode::BadRequest => "请求参数有误",
            ErrorCode::Unauthenticated => "登录已失效，请重新登录",
            ErrorCode::SessionEnded => "您的登录已在别处结束，请重新登录",
            ErrorCode::Forbidden => "您没有访问权限，请联系系统管理员添加",
            ErrorCode::NotFound => "数据不存在",
            ErrorCode::Conflict => "数据已变更，请刷新后重试",
            ErrorCode::TooManyRequests => "操作过于频繁，请稍后再试",
            ErrorCode::Unavailable | ErrorCode::Internal => "服务异常，请更换条件或稍后重试",
        }
    }

    /// Best guess for a status that carries no `ErrorInfo` (e.g. from tonic itself).
    fn from_grpc_code(code: Code) -> ErrorCode {
        match code {
            Code::InvalidArgument | Code::OutOfRange => ErrorCode::BadRequest,
            Code::Unauthenticated => ErrorCode::Unauthenticated,
            Code::PermissionDenied => ErrorCode::Forbidden,
            Code::NotFound => ErrorCode::NotFound,
            Code::AlreadyExists | Code::FailedPrecondition | Code::Aborted => ErrorCode::Conflict,
            Code::ResourceExhausted => ErrorCode::TooManyRequests,
            Code::Unavailable | Code::DeadlineExceeded | Code::Cancelled => ErrorCode::Unavailable,
            Code::Ok | Code::Unknown | Code::Internal | Code::Unimplemented | Code::DataLoss => {
                ErrorCode::Internal
            }
        }
    }
}

/// A field that failed validation, with a message a user can read.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct FieldError {
    pub field: String,
    pub message: String,
}

/// A service error: a code, a user-facing message, and optional detail.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{code:?}: {message}")]
pub struct ServiceError {
    pub code: ErrorCode,
    pub message: String,
    pub fields: Vec<FieldError>,
    /// For `TooManyRequests`: seconds until a retry may succeed.
    pub retry_after_secs: Option<u64>,
}

const DOMAIN: &str = "fleetdesk";

impl ServiceError {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        ServiceError {
            code,
            message: message.into(),
            fields: Vec::new(),
            retry_after_secs: None,
        }
    }

    /// An error with the code's default user message.
    pub fn of(code: ErrorCode) -> Self {
        ServiceError::new(code, code.default_message())
    }

    pub fn not_found() -> Self {
        ServiceError::of(ErrorCode::NotFound)
    }

    pub fn forbidden() -> Self {
        ServiceError::of(ErrorCode::Forbidden)
    }

    pub fn unauthenticated() -> Self {
        ServiceError::of(ErrorCode::Unauthenticated)
    }

    /// A validation failure of one field.
    pub fn invalid(field: &str, message: impl Into<String>) -> Self {
        let message = message.into();
        ServiceError {
            code: ErrorCode::BadRequest,
            message: message.clone(),
            fields: vec![FieldError {
                field: field.to_owned(),
                message,
            }],
            retry_after_secs: None,
        }
    }

    /// A value that is taken (a duplicate name, code or number): a 4009
    /// that names its field as [`ServiceError::invalid`] names a 4000's.
    pub fn taken(field: &str, message: impl Into<String>) -> Self {
        ServiceError {
            code: ErrorCode::Conflict,
            ..ServiceError::invalid(field, message)
        }
    }

    /// A logged internal error; the user sees only the generic text.
    pub fn internal(cause: &(dyn std::error::Error + 'static)) -> Self {
        tracing::error!(error = %display_chain(cause), "Internal error.");
        ServiceError::of(ErrorCode::Internal)
    }

    /// Reads the code, message and fields back out of a gRPC status.
    pub fn from_status(status: &Status) -> Self {
        let details = status.get_error_details();
        let code = details
            .error_info()
            .filter(|info| info.domain == DOMAIN)
            .and_then(|info| ErrorCode::from_reason(&info.reason))
            .unwrap_or_else(|| ErrorCode::from_grpc_code(status.code()));
        let fields = details
            .bad_request()
            .map(|br| {
                br.field_violations
                    .iter()
                    .map(|v| FieldError {
                        field: v.field.clone(),
                        message: v.description.clone(),
                    })
                    .collect()
            })
            .unwrap_or_default();
        let retry_after_secs = details
            .retry_info()
            .and_then(|r| r.retry_delay)
            .map(|d| d.as_secs().max(1));
        // Messages of codes that did not come from our services are not for users.
        let from_us = details
            .error_info()
            .is_some_and(|info| info.domain == DOMAIN);
        let message = if from_us && !status.message().is_empty() {
            status.message().to_owned()
        } else {
            code.default_message().to_owned()
        };
        ServiceError {
            code,
            message,
            fields,
            retry_after_secs,
        }
    }
}

impl From<ServiceError> for Status {
    fn from(err: ServiceError) -> Status {
        let mut details = ErrorDetails::with_error_info(
            err.code.reason(),
            DOMAIN,
            std::collections::HashMap::<String, String>::new(),
        );
        if !err.fields.is_empty() {
            details.set_bad_request(
                err.fields
                    .iter()
                    .map(|f| FieldViolation::new(f.field.clone(), f.message.clone()))
                    .collect::<Vec<_>>(),
            );
        }
        if let Some(secs) = err.retry_after_secs {
            details.set_retry_info(Some(std::time::Duration::from_secs(secs)));
        }
        Status::with_error_details(err.code.grpc_code(), err.message, details)
    }
}

impl From<sqlx::Error> for ServiceError {
    fn from(err: sqlx::Error) -> Self {
        match &err {
            sqlx::Error::RowNotFound => ServiceError::not_found(),
            // Out of connections or the server out of reach: worth a retry
            // (5003), and the log says where to look.
            sqlx::Error::PoolTimedOut | sqlx::Error::PoolClosed | sqlx::Error::Io(_) => {
                tracing::warn!(
                    error = %display_chain(&err),
                    "PostgreSQL unavailable: every pooled connection busy, the server's \
                     max_connections reached, or the server unreachable."
                );
                ServiceError::of(ErrorCode::Unavailable)
            }
            sqlx::Error::Database(db) => {
                // The SQLSTATE is what an operator searches for: it goes
                // into the log as a field of its own, never only as text.
                let sqlstate = db.code().unwrap_or_default().into_owned();
                if is_transient(&sqlstate) {
                    tracing::warn!(
                        %sqlstate,
                        error = %display_chain(&err),
                        "PostgreSQL refused for now (a restart, a failover, a lost \
                         connection or a lost race); the caller may retry."
                    );
                    return ServiceError::of(ErrorCode::Unavailable);
                }
                tracing::error!(
                    %sqlstate,
                    constraint = db.constraint().unwrap_or_default(),
                    table = db.table().unwrap_or_default(),
                    error = %display_chain(&err),
                    "Internal error."
                );
                ServiceError::of(ErrorCode::Internal)
            }
            _ => ServiceError::internal(&err),
        }
    }
}

/// SQLSTATEs that say "not now" rather than "never": a connection lost or
/// refused (class 08), the server shutting down or starting (57P01-57P03),
/// too many connections (53300), and a serialisation failure or deadlock
/// (40001, 40P01), whose transaction rolled back whole.
fn is_transient(sqlstate: &str) -> bool {
    sqlstate.starts_with("08")
        || matches!(
            sqlstate,
            "57P01" | "57P02" | "57P03" | "53300" | "40001" | "40P01"
        )
}

/// `a: b: c` for an error and its sources.
pub fn display_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut out = err.to_string();
    let mut source = err.source();
    while let Some(s) = source {
        out.push_str(": ");
        out.push_str(&s.to_string());
        source = s.source();
    }
    out
}

/// A violated constraint (unique, foreign key, check) as the error `on`
/// names for it — typically a 4009 naming the field — and any other
/// database error as itself (a logged 500 where it must be).
pub fn on_constraint(
    err: sqlx::Error,
    on: impl FnOnce(&str) -> Option<ServiceError>,
) -> ServiceError {
    let named = match &err {
        sqlx::Error::Database(db) => db.constraint().and_then(on),
        _ => None,
    };
    named.unwrap_or_else(|| ServiceError::from(err))
}

/// [`on_constraint`] on a query's result.
pub trait ResultExt<T> {
    fn on_constraint(
        self,
        on: impl FnOnce(&str) -> Option<ServiceError>,
    ) -> Result<T, ServiceError>;
}

impl<T> ResultExt<T> for Result<T, sqlx::Error> {
    fn on_constraint(
        self,
        on: impl FnOnce(&str) -> Option<ServiceError>,
    ) -> Result<T, ServiceError> {
        self.map_err(|err| on_constraint(err, on))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_code_survives_a_round_trip_through_grpc() {
        for code in ErrorCode::ALL {
            let mut err = ServiceError::new(code, "说明");
            err.fields.push(FieldError {
                field: "phone".into(),
                message: "请输入正确的手机号".into(),
            });
            err.retry_after_secs = Some(42);
            let back = ServiceError::from_status(&Status::from(err.clone()));
            assert_eq!(back.code, code);
            assert_eq!(back.message, "说明");
            assert_eq!(back.fields, err.fields);
            assert_eq!(back.retry_after_secs, Some(42));
        }
    }

    #[test]
    fn edge_codes_follow_the_architecture_table() {
        let table: Vec<(u32, u16)> = ErrorCode::ALL
            .iter()
            .map(|c| (c.edge_code(), c.http_status()))
            .collect();
        assert_eq!(
            table,
            vec![
                (4000, 400),
                (1001, 401),
                (1016, 401),
                (9999, 403),
                (4004, 404),
                (4009, 409),
                (4029, 429),
                (5003, 503),
                (5000, 500)
            ]
        );
    }

    #[test]
    fn foreign_status_messages_are_not_shown_to_users() {
        let status = Status::internal("panic at src/foo.rs:12 with secret");
        let err = ServiceError::from_status(&status);
        assert_eq!(err.code, ErrorCode::Internal);
        assert_eq!(err.message, "服务异常，请更换条件或稍后重试");
    }
}
