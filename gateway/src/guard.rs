//! The access check of every declared route, before its handler: the
//! route's [`Access`] from the table, the session behind the token resolved
//! to a [`Person`](crate::session::Person) or
//! [`Principal`](crate::session::Principal) and put into
//! the request for the handler. A route open only to some enterprises (its
//! [`EnterpriseRule`](crate::access::EnterpriseRule): B2B or not, the order
//! centre's list) refuses the others with 9999 here, in one place.

use axum::extract::{MatchedPath, Request, State};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use fleetdesk_kit::ErrorCode;

use crate::access::Access;
use crate::envelope::{self, ApiError};
use crate::extract::session_token;
use crate::session;
use crate::state::AppState;

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
        let allowed = state.access.methods_of(&path);
        if allowed.is_empty() {
            tracing::error!(%path, "Route has no access decision; refused.");
            return ApiError::code(ErrorCode::Internal).into_response();
        }
        // A declared path asked with a method it does not answer (TRACE,
        // OPTIONS, GET on a write-only path…).
        return envelope::method_not_allowed(&allowed);
    };
    if access == Access::Public {
        return next.run(req).await;
    }
    let Some(token) = session_token(req.headers()) else {
        return ApiError::code(ErrorCode::Unauthenticated).into_response();
    };
    if access == Access::Personal {
        match session::resolve_person(&state, &token).await {
            Ok(person) => req.extensions_mut().insert(person),
            Err(err) => return ApiError(err).into_response(),
        };
        return next.run(req).await;
    }
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
    if let Some(rule) = state.access.enterprise_rule(req.method(), &path)
        && !rule.admits(&principal.flags)
    {
        tracing::info!(%path, enterprise_id = %principal.enterprise_id, ?rule, "Route not open to this enterprise.");
        return ApiError::code(ErrorCode::Forbidden).into_response();
    }
    req.extensions_mut().insert(principal);
    next.run(req).await
}
