//! Who may call which route. Each handler declares its access in its
//! `#[utoipa::path(security(..))]`, right next to the route:
//!
//! - `security(())` — public;
//! - `security(("token" = []))` — any signed-in user;
//! - `security(("token" = ["a", "b"]))` — a signed-in user holding any of the values.
//!
//! At start-up the OpenAPI document is read into an [`AccessTable`]; the
//! [`enforce`] middleware looks every request up by its matched route. A route
//! with no declaration is refused (fail closed) and fails the tests.

use std::collections::BTreeMap;

use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::Method;
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fleetdesk_kit::{ErrorCode, ServiceError};

use crate::envelope::ApiError;
use crate::extract::session_token;
use crate::session::{self, Principal};
use crate::state::AppState;

/// The name of the security scheme in the OpenAPI document.
pub const SCHEME: &str = "token";

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Access {
    Public,
    SignedIn,
    AnyOf(Vec<String>),
}

#[derive(Debug, Default)]
pub struct AccessTable {
    routes: BTreeMap<(String, String), Access>,
}

const METHODS: [&str; 8] = [
    "get", "put", "post", "delete", "options", "head", "patch", "trace",
];

impl AccessTable {
    /// Reads every operation's security; errors name operations without one.
    pub fn from_openapi(doc: &utoipa::openapi::OpenApi) -> Result<AccessTable, String> {
        let json = serde_json::to_value(doc).map_err(|e| e.to_string())?;
        let mut table = AccessTable::default();
        let mut undeclared = Vec::new();
        let paths = json
            .get("paths")
            .and_then(|p| p.as_object())
            .cloned()
            .unwrap_or_default();
        for (path, item) in paths {
            for method in METHODS {
                let Some(op) = item.get(method) else { continue };
                match op.get("security").and_then(|s| s.as_array()) {
                    Some(requirements) => {
                        table.routes.insert(
                            (method.to_uppercase(), path.clone()),
                            access_of(requirements),
                        );
                    }
                    None => undeclared.push(format!("{} {path}", method.to_uppercase())),
                }
            }
        }
        if undeclared.is_empty() {
            Ok(table)
        } else {
            Err(format!(
                "routes without an access decision: {}",
                undeclared.join(", ")
            ))
        }
    }

    pub fn get(&self, method: &Method, path: &str) -> Option<&Access> {
        self.routes
            .get(&(method.as_str().to_owned(), path.to_owned()))
    }

    /// Every (method, path, access), for tests and the catalogue.
    pub fn entries(&self) -> impl Iterator<Item = (&str, &str, &Access)> {
        self.routes
            .iter()
            .map(|((m, p), a)| (m.as_str(), p.as_str(), a))
    }
}

fn access_of(requirements: &[serde_json::Value]) -> Access {
    let mut scopes = Vec::new();
    for requirement in requirements {
        let Some(map) = requirement.as_object() else {
            continue;
        };
        if map.is_empty() {
            return Access::Public;
        }
        if let Some(values) = map.get(SCHEME).and_then(|v| v.as_array()) {
            scopes.extend(values.iter().filter_map(|v| v.as_str().map(str::to_owned)));
        }
    }
    if scopes.is_empty() {
        Access::SignedIn
    } else {
        Access::AnyOf(scopes)
    }
}

/// Checks the route's access before the handler runs; puts the [`Principal`]
/// into the request for handlers that need it.
pub async fn enforce(State(state): State<AppState>, mut req: Request, next: Next) -> Response {
    let Some(path) = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_owned())
    else {
        return next.run(req).await;
    };
    let Some(access) = state.access.get(req.method(), &path).cloned() else {
        tracing::error!(%path, "Route has no access decision; refused.");
        return ApiError::code(ErrorCode::Internal).into_response();
    };
    if access == Access::Public {
        return next.run(req).await;
    }
    let Some(token) = session_token(req.headers()) else {
        return ApiError::code(ErrorCode::Unauthenticated).into_response();
    };
    let principal = match session::resolve(&state, &token).await {
        Ok(p) => p,
        Err(err) => return ApiError(err).into_response(),
    };
    if let Access::AnyOf(values) = &access
        && !principal.has_any(values)
    {
        tracing::info!(%path, user_id = %principal.user_id, "Permission missing.");
        return ApiError::code(ErrorCode::Forbidden).into_response();
    }
    req.extensions_mut().insert(principal);
    next.run(req).await
}

impl<S: Send + Sync> FromRequestParts<S> for Principal {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        parts
            .extensions
            .get::<Principal>()
            .cloned()
            .ok_or_else(|| ApiError(ServiceError::unauthenticated()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_requirements_read_as_access() {
        assert_eq!(access_of(&[serde_json::json!({})]), Access::Public);
        assert_eq!(
            access_of(&[serde_json::json!({ "token": [] })]),
            Access::SignedIn
        );
        assert_eq!(
            access_of(&[serde_json::json!({ "token": ["a", "b"] })]),
            Access::AnyOf(vec!["a".into(), "b".into()])
        );
    }
}
