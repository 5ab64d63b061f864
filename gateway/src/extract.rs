//! Request extractors. Bodies and query strings are trimmed before they are
//! read, and every rejection is an envelope answer with code 4000.

use std::net::SocketAddr;

use axum::body::Bytes;
use axum::extract::{ConnectInfo, FromRef, FromRequest, FromRequestParts, Request};
use axum::http::request::Parts;
use serde::de::DeserializeOwned;

use crate::envelope::ApiError;
use crate::state::AppState;

/// Trims every string in a JSON value, nested ones too.
pub fn trim_json(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::String(s) => {
            let trimmed = s.trim();
            if trimmed.len() != s.len() {
                *s = trimmed.to_owned();
            }
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(trim_json),
        serde_json::Value::Object(map) => map.values_mut().for_each(trim_json),
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {}
    }
}

/// Explains a serde error in terms a user can act on, naming the field when known.
fn body_error(err: &serde_json::Error) -> ApiError {
    let text = err.to_string();
    // serde names a missing field as "missing field `x`".
    if let Some(field) = text
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    {
        return ApiError::invalid(field, format!("缺少字段 {field}"));
    }
    ApiError::invalid("body", "请求内容格式有误")
}

/// A JSON body with every string trimmed.
#[derive(Debug)]
pub struct TrimmedJson<T>(pub T);

impl<S, T> FromRequest<S> for TrimmedJson<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request(req: Request, state: &S) -> Result<Self, Self::Rejection> {
        let bytes = Bytes::from_request(req, state)
            .await
            .map_err(|_| ApiError::invalid("body", "请求内容过大或无法读取"))?;
        let mut value: serde_json::Value = if bytes.is_empty() {
            serde_json::Value::Object(Default::default())
        } else {
            serde_json::from_slice(&bytes)
                .map_err(|_| ApiError::invalid("body", "请求内容不是有效的 JSON"))?
        };
        trim_json(&mut value);
        serde_json::from_value(value)
            .map(TrimmedJson)
            .map_err(|e| body_error(&e))
    }
}

/// Query parameters with every value trimmed.
#[derive(Debug)]
pub struct TrimmedQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for TrimmedQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let raw = parts.uri.query().unwrap_or("");
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw)
            .map_err(|_| ApiError::invalid("query", "查询参数格式有误"))?;
        let trimmed: Vec<(String, String)> = pairs
            .into_iter()
            .map(|(k, v)| (k, v.trim().to_owned()))
            .filter(|(_, v)| !v.is_empty())
            .collect();
        let encoded = serde_urlencoded::to_string(&trimmed)
            .map_err(|_| ApiError::invalid("query", "查询参数格式有误"))?;
        serde_urlencoded::from_str(&encoded)
            .map(TrimmedQuery)
            .map_err(|e| {
                let text = e.to_string();
                let field = text
                    .strip_prefix("missing field `")
                    .and_then(|r| r.split('`').next())
                    .unwrap_or("query");
                ApiError::invalid(field, "查询参数格式有误")
            })
    }
}

/// Where a request came from, for limits and the login log.
#[derive(Debug, Clone, Default)]
pub struct ClientMeta {
    pub ip: String,
    pub user_agent: String,
}

impl<S> FromRequestParts<S> for ClientMeta
where
    AppState: FromRef<S>,
    S: Send + Sync,
{
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let state = AppState::from_ref(state);
        let forwarded = state
            .trust_forwarded_for
            .then(|| {
                parts
                    .headers
                    .get("x-forwarded-for")
                    .and_then(|v| v.to_str().ok())
            })
            .flatten()
            .and_then(|v| v.split(',').next())
            .map(|v| v.trim().to_owned());
        let peer = parts
            .extensions
            .get::<ConnectInfo<SocketAddr>>()
            .map(|c| c.0.ip().to_string());
        Ok(ClientMeta {
            ip: forwarded.or(peer).unwrap_or_default(),
            user_agent: parts
                .headers
                .get(axum::http::header::USER_AGENT)
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .chars()
                .take(512)
                .collect(),
        })
    }
}

/// The session token of a request: the `token` header, else `Authorization: Bearer`.
pub fn session_token(headers: &axum::http::HeaderMap) -> Option<String> {
    let non_blank = |v: &str| Some(v.trim()).filter(|t| !t.is_empty()).map(str::to_owned);
    let from_token = headers
        .get("token")
        .and_then(|v| v.to_str().ok())
        .and_then(non_blank);
    from_token.or_else(|| {
        headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .and_then(non_blank)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nested_strings_are_trimmed_and_other_values_kept() {
        let mut v = serde_json::json!({ "a": "  x ", "b": [" y", { "c": "z  " }], "n": 3, "t": true, "e": null });
        trim_json(&mut v);
        assert_eq!(
            v,
            serde_json::json!({ "a": "x", "b": ["y", { "c": "z" }], "n": 3, "t": true, "e": null })
        );
    }

    #[test]
    fn the_token_header_wins_over_bearer_and_blank_is_none() {
        let mut h = axum::http::HeaderMap::new();
        assert_eq!(session_token(&h), None);
        h.insert("authorization", "Bearer b".parse().unwrap());
        assert_eq!(session_token(&h).as_deref(), Some("b"));
        h.insert("token", " t ".parse().unwrap());
        assert_eq!(session_token(&h).as_deref(), Some("t"));
        h.insert("token", "  ".parse().unwrap());
        assert_eq!(session_token(&h).as_deref(), Some("b"));
    }
}
