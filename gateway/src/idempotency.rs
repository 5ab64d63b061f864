//! The `Idempotency-Key` header of creates, forwarded to the owning service
//! as gRPC metadata `idempotency-key` (kit::idempotency stores it).

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use fleetdesk_kit::idempotency::{HEADER, METADATA_KEY};

use crate::envelope::ApiError;

/// The request's key, if it sent one.
#[derive(Debug, Clone, Default)]
pub struct IdempotencyKey(pub Option<String>);

impl<S: Send + Sync> FromRequestParts<S> for IdempotencyKey {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let Some(value) = parts.headers.get(HEADER) else {
            return Ok(IdempotencyKey(None));
        };
        let key = value
            .to_str()
            .ok()
            .map(str::trim)
            .filter(|k| !k.is_empty() && k.len() <= 128)
            .ok_or_else(|| ApiError::invalid(HEADER, "幂等键须为 1 到 128 个可见 ASCII 字符"))?;
        Ok(IdempotencyKey(Some(key.to_owned())))
    }
}

impl IdempotencyKey {
    /// Puts the key on an outgoing request.
    pub fn apply<T>(&self, req: &mut tonic::Request<T>) -> Result<(), ApiError> {
        if let Some(key) = &self.0 {
            let value = key
                .parse()
                .map_err(|_| ApiError::invalid(HEADER, "幂等键须为 1 到 128 个可见 ASCII 字符"))?;
            req.metadata_mut().insert(METADATA_KEY, value);
        }
        Ok(())
    }

    /// The key of a write that must carry one (every money move): without
    /// it a retried request could move the money twice, so it is refused.
    pub fn required(&self) -> Result<String, ApiError> {
        self.0
            .clone()
            .ok_or_else(|| ApiError::invalid(HEADER, "请求缺少幂等键（Idempotency-Key）"))
    }
}
