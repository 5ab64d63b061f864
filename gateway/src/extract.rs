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
pub(crate) type Pair = (String, String);

/// The one reading of a query string every extractor shares: each value
/// trimmed, and a key given an empty value dropped, whatever its type — a
/// console sends `probeNo=` for a filter field the user cleared, and a
/// cleared filter means no filter. A value that is there must still read as
/// its type (`probeNo=abc` is refused by the field's reader), and so must a
/// value of spaces only (`page=+`): it is kept aside in `blank`, refused by
/// a number's, a date's, a flag's or a code's reader as an empty value is,
/// and otherwise (text) no filter.
pub(crate) fn query_pairs(raw: &str) -> Result<QueryPairs, ApiError> {
    let pairs: Vec<Pair> =
        serde_urlencoded::from_str(raw).map_err(|_| ApiError::invalid("query", QUERY_MALFORMED))?;
    let mut read = QueryPairs::default();
    for (key, value) in pairs {
        if key.contains('\0') {
            return Err(ApiError::invalid("query", NUL_MESSAGE));
        }
        if value.contains('\0') {
            return Err(ApiError::invalid(&key, NUL_MESSAGE));
        }
        // What a pasted or typed value carries around it; other control
        // characters (a vertical tab) are no space a user typed.
        let trimmed = value.trim_matches([' ', '\t', '\r', '\n']);
        if !trimmed.is_empty() {
            read.given.push((key, trimmed.to_owned()));
        } else if !value.is_empty() {
            read.blank.push(key);
        }
    }
    Ok(read)
}

/// A query string as [`query_pairs`] reads it.
#[derive(Debug, Default)]
pub(crate) struct QueryPairs {
    /// Every key with a value, trimmed, in order.
    pub given: Vec<Pair>,
    /// Keys given spaces only, once per occurrence.
    pub blank: Vec<String>,
}

impl QueryPairs {
    /// The pairs with each blank key given `""`, the way a type's reader
    /// judges a value of spaces only; `None` when no key is blank.
    pub fn blanks_as_empty(&self) -> Option<Vec<Pair>> {
        (!self.blank.is_empty()).then(|| {
            let blanks = self.blank.iter().map(|key| (key.clone(), String::new()));
            self.given.iter().cloned().chain(blanks).collect()
        })
    }
}

const QUERY_MALFORMED: &str = "查询参数格式有误";

/// What the document says about [`query_pairs`]: the info text states it,
/// and every optional query parameter whose schema does not already admit an
/// empty text (numbers, flags, enums, lists of them) takes an empty value
/// (`allowEmptyValue`). Text and lists of text admit `""` as they are: marking
/// them too only makes fuzzers call a wrapper's mutations invalid input. A
/// required parameter given empty is missing, so it is left as is.
pub(crate) fn document_empty_query_values(doc: &mut utoipa::openapi::OpenApi) {
    use utoipa::openapi::path::ParameterIn;
    use utoipa::openapi::{Required, extensions::Extensions};
    let description = doc.info.description.get_or_insert_with(String::new);
    if !description.is_empty() {
        description.push(' ');
    }
    description.push_str(EMPTY_QUERY_VALUE_RULE);
    for item in doc.paths.paths.values_mut() {
        let operations = [
            &mut item.get,
            &mut item.put,
            &mut item.post,
            &mut item.delete,
            &mut item.patch,
        ];
        for operation in operations.into_iter().flatten() {
            let parameters = operation.parameters.iter_mut().flatten();
            for parameter in parameters.filter(|p| {
                matches!(p.parameter_in, ParameterIn::Query)
                    && !matches!(p.required, Required::True)
                    && !admits_empty_text(&serde_json::to_value(&p.schema).unwrap_or_default())
            }) {
                // utoipa has no field for it; extensions are written out as given.
                parameter
                    .extensions
                    .get_or_insert_with(Extensions::default)
                    .insert("allowEmptyValue".to_owned(), serde_json::Value::Bool(true));
            }
        }
    }
}

/// Whether a query parameter's schema takes `""` as it is: free text, or a
/// list of free text (`plate=` is one empty item).
pub(crate) fn admits_empty_text(schema: &serde_json::Value) -> bool {
    match schema["type"].as_str() {
        Some("string") => schema.get("enum").is_none() && schema.get("minLength").is_none(),
        Some("array") => admits_empty_text(&schema["items"]),
        _ => false,
    }
}

/// The convention of [`query_pairs`], as the document states it.
pub(crate) const EMPTY_QUERY_VALUE_RULE: &str = "Query parameters: every value is trimmed. A \
     parameter given an empty value (`probeNo=`, a cleared filter) is the same as leaving it out, \
     whatever its type; a value that is there but does not read as its type is refused with 4000 \
     naming the parameter, and so is a value of spaces only (`page=+`) unless the parameter is text, \
     where it is no filter.";

/// Query parameters with every value trimmed and empty ones left out
/// ([`query_pairs`]), for queries that are not lists.
#[derive(Debug)]
pub struct TrimmedQuery<T>(pub T);

impl<S, T> FromRequestParts<S> for TrimmedQuery<T>
where
    T: DeserializeOwned,
    S: Send + Sync,
{
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let read = query_pairs(parts.uri.query().unwrap_or(""))?;
        let refused =
            |pairs: &[Pair], e| ApiError::invalid(&refused_key::<T>(pairs, &e), QUERY_MALFORMED);
        if let Some(probe) = read.blanks_as_empty() {
            read_pairs::<T>(&probe).map_err(|e| refused(&probe, e))?;
        }
        read_pairs(&read.given)
            .map(TrimmedQuery)
            .map_err(|e| refused(&read.given, e))
    }
}

fn read_pairs<T: DeserializeOwned>(pairs: &[Pair]) -> Result<T, serde_urlencoded::de::Error> {
    let encoded = serde_urlencoded::to_string(pairs).unwrap_or_default();
    serde_urlencoded::from_str(&encoded)
}

const MAX_KEYS_TRIED: usize = 64;

/// The key a refusal is about: a missing one as serde names it, else the
/// first key without which the query reads (serde's own text names no key).
fn refused_key<T: DeserializeOwned>(pairs: &[Pair], err: &serde_urlencoded::de::Error) -> String {
    let text = err.to_string();
    if let Some(field) = text
        .strip_prefix("missing field `")
        .and_then(|r| r.split('`').next())
    {
        return field.to_owned();
    }
    // Each try reads the whole query again: bounded, as the query is the caller's.
    if pairs.len() > MAX_KEYS_TRIED {
        return "query".to_owned();
    }
    pairs
        .iter()
        .map(|(key, _)| key)
        .find(|key| {
            let without: Vec<Pair> = pairs.iter().filter(|(k, _)| k != *key).cloned().collect();
            read_pairs::<T>(&without).is_ok()
        })
        .cloned()
        .unwrap_or_else(|| "query".to_owned())
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
    fn query_values_are_trimmed_empty_ones_left_out_and_blank_ones_kept_aside() {
        let read = query_pairs("page=+&probeNo=&size=%20%20&plate=%20%E7%B2%A4B1%20&n=2").unwrap();
        let pair = |k: &str, v: &str| (k.to_owned(), v.to_owned());
        assert_eq!(read.given, [pair("plate", "粤B1"), pair("n", "2")]);
        assert_eq!(read.blank, ["page", "size"]);
        assert_eq!(
            read.blanks_as_empty().unwrap(),
            [
                pair("plate", "粤B1"),
                pair("n", "2"),
                pair("page", ""),
                pair("size", "")
            ]
        );
        assert!(
            query_pairs("n=2&probeNo=")
                .unwrap()
                .blanks_as_empty()
                .is_none()
        );
    }

    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Probe {
        page: Option<u32>,
        plate: Option<String>,
    }

    fn probe(query: &str) -> Result<Probe, ApiError> {
        let mut parts = axum::http::Request::get(format!("/x?{query}"))
            .body(())
            .unwrap()
            .into_parts()
            .0;
        futures::executor::block_on(TrimmedQuery::<Probe>::from_request_parts(&mut parts, &()))
            .map(|q| q.0)
    }

    #[test]
    fn spaces_only_are_refused_for_a_number_and_no_filter_for_text() {
        let refused = probe("page=+").unwrap_err();
        assert_eq!(refused.0.fields[0].field, "page");
        let read = probe("plate=+&page=").unwrap();
        assert_eq!((read.page, read.plate), (None, None));
        assert_eq!(probe("page=%202%20").unwrap().page, Some(2));
    }

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

    #[derive(Debug, PartialEq, serde::Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct LogFilter {
        succeeded: Option<bool>,
        user_id: Option<i64>,
        #[serde(default)]
        user_name: String,
    }

    async fn read_query(raw: &str) -> Result<LogFilter, ApiError> {
        let req = Request::builder()
            .uri(format!("/logs?{raw}"))
            .body(())
            .unwrap();
        let (mut parts, ()) = req.into_parts();
        TrimmedQuery::<LogFilter>::from_request_parts(&mut parts, &())
            .await
            .map(|q| q.0)
    }

    #[tokio::test]
    async fn a_query_key_given_empty_is_left_out_whatever_its_type() {
        let absent = read_query("").await.unwrap();
        assert_eq!(
            absent,
            LogFilter {
                succeeded: None,
                user_id: None,
                user_name: String::new()
            }
        );
        assert_eq!(
            read_query("succeeded=&userId=&userName=+").await.unwrap(),
            absent
        );
        let given = read_query("succeeded=true&userId=7&userName=+a+")
            .await
            .unwrap();
        assert_eq!(
            (given.succeeded, given.user_id, given.user_name.as_str()),
            (Some(true), Some(7), "a")
        );
    }

    #[tokio::test]
    async fn a_query_value_that_does_not_read_is_refused_naming_its_key() {
        for (raw, key) in [
            ("userId=abc&userName=a", "userId"),
            ("userName=a&succeeded=maybe", "succeeded"),
            ("userId=%00", "userId"),
        ] {
            let err = read_query(raw).await.unwrap_err();
            assert_eq!(err.0.fields[0].field, key, "{raw}");
            assert!(
                err.0.fields[0].message.chars().any(|c| c > '\u{2e80}'),
                "{raw}: the message is for a Chinese reader"
            );
        }
    }

    #[test]
    fn the_document_lets_every_optional_query_parameter_be_empty() {
        let doc = crate::api().1;
        assert!(
            doc.info
                .description
                .as_deref()
                .unwrap_or("")
                .contains(EMPTY_QUERY_VALUE_RULE)
        );
        let json = serde_json::to_value(&doc).unwrap();
        let mut marked = Vec::new();
        for (path, item) in json["paths"].as_object().unwrap() {
            for (method, op) in item.as_object().unwrap() {
                for p in op["parameters"].as_array().into_iter().flatten() {
                    let optional_query = p["in"] == "query" && p["required"] != true;
                    let allows_empty = p.get("allowEmptyValue") == Some(&serde_json::json!(true));
                    let empty_admitted = allows_empty || admits_empty_text(&p["schema"]);
                    let at = format!("{method} {path} {}", p["name"]);
                    assert_eq!(optional_query && empty_admitted, optional_query, "{at}");
                    assert!(!allows_empty || optional_query, "{at}");
                    if allows_empty {
                        marked.push(at);
                    }
                }
            }
        }
        for typed in [
            "get /api/v1/temperature/alarms \"probeNo\"",
            "get /api/v1/vehicles \"status\"",
            "get /api/v1/vehicles \"sort\"",
            "get /api/v1/vehicles \"hasDriver\"",
            "get /api/v1/finance/bills \"channel\"",
        ] {
            assert!(marked.iter().any(|m| m == typed), "{typed}");
        }
        for text in [
            "get /api/v1/vehicles \"plate\"",
            "get /api/v1/vehicles \"keyword\"",
        ] {
            assert!(!marked.iter().any(|m| m == text), "{text}");
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
