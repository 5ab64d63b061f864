//! Request extractors. Bodies and query strings are trimmed before they are
//! read, and every rejection is an envelope answer with code 4000. A NUL
//! character is refused here for every route at once: PostgreSQL cannot store
//! it in text, so it would otherwise surface as a server error deep inside.

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

/// The message of a value that holds a NUL character.
const NUL_MESSAGE: &str = "不能包含空字符";

/// The first field (dotted path, `[i]` for array items) whose name or string
/// value holds a NUL character.
pub fn field_with_nul(value: &serde_json::Value, at: &str) -> Option<String> {
    let join = |key: &str| {
        if at.is_empty() {
            key.to_owned()
        } else {
            format!("{at}.{key}")
        }
    };
    match value {
        serde_json::Value::String(s) => s.contains('\0').then(|| field_name(at)),
        serde_json::Value::Array(items) => items
            .iter()
            .enumerate()
            .find_map(|(i, item)| field_with_nul(item, &format!("{}[{i}]", field_name(at)))),
        serde_json::Value::Object(map) => map.iter().find_map(|(key, item)| {
            if key.contains('\0') {
                Some(field_name(at))
            } else {
                field_with_nul(item, &join(key))
            }
        }),
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => None,
    }
}

fn field_name(at: &str) -> String {
    if at.is_empty() {
        "body".to_owned()
    } else {
        at.to_owned()
    }
}

fn has_encoded_nul(raw: &str) -> bool {
    raw.as_bytes()
        .windows(3)
        .any(|w| w[0] == b'%' && w[1] == b'0' && w[2] == b'0')
}

/// Refuses a path or query string holding an encoded NUL (`%00`), for every
/// route and whichever extractor reads it, naming the query key that holds it.
pub async fn refuse_nul_in_uri(
    req: Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if has_encoded_nul(req.uri().path()) {
        return ApiError::invalid("path", NUL_MESSAGE).into_response();
    }
    if let Some(query) = req.uri().query().filter(|q| has_encoded_nul(q)) {
        let field = serde_urlencoded::from_str::<Vec<Pair>>(query)
            .ok()
            .and_then(|pairs| {
                pairs
                    .into_iter()
                    .find(|(k, v)| k.contains('\0') || v.contains('\0'))
                    .map(|(k, _)| {
                        if k.contains('\0') {
                            "query".to_owned()
                        } else {
                            k
                        }
                    })
            })
            .unwrap_or_else(|| "query".to_owned());
        return ApiError::invalid(&field, NUL_MESSAGE).into_response();
    }
    next.run(req).await
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
        // Every operation with a JSON body documents it as required: an absent
        // one must not read as `{}` (a move without its parent would move the
        // organisation to the top).
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Err(ApiError::invalid("body", "请求内容不能为空"));
        }
        let mut value: serde_json::Value = serde_json::from_slice(&bytes)
            .map_err(|_| ApiError::invalid("body", "请求内容不是有效的 JSON"))?;
        // Every body of the edge is an object; serde would also read a struct
        // from an array (`[]` as all defaults), which the schema forbids.
        if !value.is_object() {
            return Err(ApiError::invalid("body", "请求内容须为 JSON 对象"));
        }
        trim_json(&mut value);
        if let Some(field) = field_with_nul(&value, "") {
            return Err(ApiError::invalid(&field, NUL_MESSAGE));
        }
        serde_json::from_value(value)
            .map(TrimmedJson)
            .map_err(|e| body_error(&e))
    }
}

/// One `key=value` of a query string.
type Pair = (String, String);

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
        let (trimmed, empty): (Vec<Pair>, Vec<Pair>) = pairs
            .into_iter()
            .map(|(k, v)| (k, v.trim().to_owned()))
            .partition(|(_, v)| !v.is_empty());
        if let Some((key, _)) = trimmed
            .iter()
            .chain(&empty)
            .find(|(k, v)| k.contains('\0') || v.contains('\0'))
        {
            let field = if key.contains('\0') { "query" } else { key };
            return Err(ApiError::invalid(field, NUL_MESSAGE));
        }
        // An empty value reads as absent, but only where an empty value is
        // well-formed at all: `succeeded=` is not a yes or no.
        for (key, _) in &empty {
            let mut with_empty = trimmed.clone();
            with_empty.push((key.clone(), String::new()));
            let encoded = serde_urlencoded::to_string(&with_empty)
                .map_err(|_| ApiError::invalid("query", "查询参数格式有误"))?;
            if serde_urlencoded::from_str::<T>(&encoded).is_err() {
                return Err(ApiError::invalid(key, "查询参数格式有误"));
            }
        }
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
    fn a_nul_is_found_with_the_field_that_holds_it() {
        let clean = serde_json::json!({ "a": "x", "b": [1, "y"], "c": { "d": null } });
        assert_eq!(field_with_nul(&clean, ""), None);
        let nested = serde_json::json!({ "a": "x", "c": { "d": "p\u{0000}q" } });
        assert_eq!(field_with_nul(&nested, "").as_deref(), Some("c.d"));
        let in_list = serde_json::json!({ "ids": ["ok", "\u{0000}"] });
        assert_eq!(field_with_nul(&in_list, "").as_deref(), Some("ids[1]"));
        assert_eq!(
            field_with_nul(&serde_json::json!("\u{0000}"), "").as_deref(),
            Some("body")
        );
    }

    #[derive(Debug, serde::Deserialize)]
    #[serde(default)]
    struct AllOptional {
        remark: String,
    }

    impl Default for AllOptional {
        fn default() -> Self {
            AllOptional {
                remark: "default".into(),
            }
        }
    }

    async fn read(body: &'static str) -> Result<AllOptional, ApiError> {
        let req = Request::builder()
            .method("POST")
            .header("content-type", "application/json")
            .body(axum::body::Body::from(body))
            .unwrap();
        TrimmedJson::<AllOptional>::from_request(req, &())
            .await
            .map(|b| b.0)
    }

    #[tokio::test]
    async fn a_body_must_be_an_object_even_when_every_field_is_optional() {
        assert_eq!(read(r#"{"remark":" x "}"#).await.unwrap().remark, "x");
        assert_eq!(read("{}").await.unwrap().remark, "default");
        for bad in ["[]", "[\"x\"]", "3", "\"x\"", "null"] {
            assert!(read(bad).await.is_err(), "{bad} accepted");
        }
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
