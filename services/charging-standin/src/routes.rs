//! HTTP: the platform's OCPI side — its versions, version details and
//! credentials module, and its modules (locations, tariffs, commands), all
//! behind the token B it registered with the eMSP — and the admin API that
//! tests, scripts and people drive sessions with.

use axum::Json;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use chrono::Duration;
use fleetdesk_ocpi::credentials::{
    DETAILS_PATH, Endpoint, InterfaceRole, ModuleId, VERSIONS_PATH, Version, VersionDetails,
};
use fleetdesk_ocpi::{
    CORRELATION_ID_HEADER, CPO_BASE, CommandResponse, CommandResponseType, Empty, Envelope,
    LIMIT_HEADER, Location, PageQuery, REQUEST_ID_HEADER, StopSession, TOTAL_COUNT_HEADER, Tariff,
    VERSION, next_link, status, token_of,
};
use serde::{Deserialize, Serialize};

use crate::platform::{StandIn, StandInError, StartRequest, StopCause};

impl StandIn {
    /// The platform's routes.
    pub fn router(&self) -> axum::Router {
        let ocpi = axum::Router::new()
            .route(VERSIONS_PATH, get(versions))
            .route(DETAILS_PATH, get(details))
            .route(&format!("{CPO_BASE}/credentials"), get(credentials))
            .route(&format!("{CPO_BASE}/locations"), get(locations))
            .route(&format!("{CPO_BASE}/locations/{{id}}"), get(location))
            .route(&format!("{CPO_BASE}/tariffs"), get(tariffs))
            .route(
                &format!("{CPO_BASE}/commands/STOP_SESSION"),
                post(stop_session),
            )
            .route_layer(middleware::from_fn_with_state(self.clone(), require_token));
        let admin = axum::Router::new()
            .route("/admin/locations", get(admin_locations))
            .route("/admin/sessions", get(admin_sessions).post(admin_start))
            .route("/admin/sessions/{id}", get(admin_session))
            .route("/admin/sessions/{id}/advance", post(admin_advance))
            .route("/admin/sessions/{id}/stop", post(admin_stop))
            .route("/admin/sessions/{id}/cdr", post(admin_resend_cdr));
        ocpi.merge(admin)
            .with_state(self.clone())
            .layer(middleware::from_fn(correlate))
    }
}

/// OCPI's refusal of a caller without the token B the platform registered.
async fn require_token(State(p): State<StandIn>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(token_of);
    if presented.as_deref() != Some(p.token_b()) {
        let body: Empty = Envelope::error(status::CLIENT_ERROR, "Unauthorized");
        return (StatusCode::UNAUTHORIZED, Json(body)).into_response();
    }
    next.run(request).await
}

async fn versions(State(p): State<StandIn>) -> Response {
    let versions = vec![Version {
        version: VERSION.to_owned(),
        url: format!("{}{DETAILS_PATH}", p.settings().public_url),
    }];
    Json(Envelope::success(versions)).into_response()
}

/// The modules the platform serves: credentials, locations and tariffs as
/// their sender, commands as receiver.
async fn details(State(p): State<StandIn>) -> Response {
    let base = format!("{}{CPO_BASE}", p.settings().public_url);
    let module = |identifier: ModuleId, role| Endpoint {
        url: format!("{base}/{identifier}"),
        identifier,
        role,
    };
    let details = VersionDetails {
        version: VERSION.to_owned(),
        endpoints: vec![
            module(ModuleId::Credentials, InterfaceRole::Sender),
            module(ModuleId::Locations, InterfaceRole::Sender),
            module(ModuleId::Tariffs, InterfaceRole::Sender),
            module(ModuleId::Commands, InterfaceRole::Receiver),
        ],
    };
    Json(Envelope::success(details)).into_response()
}

/// The platform's credentials (the eMSP's way to the platform). The
/// platform registers itself, so it takes no POST, PUT or DELETE.
async fn credentials(State(p): State<StandIn>) -> Response {
    Json(Envelope::success(p.credentials())).into_response()
}

/// One page of the list at `module` (a path under [`CPO_BASE`]) with OCPI's
/// paging headers: the total, the limit, and a `Link` to the next page.
fn page<T: Serialize>(p: &StandIn, module: &str, all: Vec<T>, query: &PageQuery) -> Response {
    let total = all.len();
    let limit = query.limit();
    let items: Vec<T> = all.into_iter().skip(query.offset).take(limit).collect();
    let mut headers = HeaderMap::new();
    headers.insert(TOTAL_COUNT_HEADER, HeaderValue::from(total));
    headers.insert(LIMIT_HEADER, HeaderValue::from(limit));
    let seen = query.offset + items.len();
    if !items.is_empty() && seen < total {
        let mut url = format!(
            "{}{CPO_BASE}/{module}?offset={seen}&limit={limit}",
            p.settings().public_url
        );
        for (name, at) in [("date_from", query.date_from), ("date_to", query.date_to)] {
            if let Some(at) = at {
                url.push_str(&format!(
                    "&{name}={}",
                    fleetdesk_ocpi::datetime::format(&at)
                ));
            }
        }
        if let Ok(link) = HeaderValue::from_str(&next_link(&url)) {
            headers.insert(header::LINK, link);
        }
    }
    (headers, Json(Envelope::success(items))).into_response()
}

/// Repeats the request's `X-Request-ID` and `X-Correlation-ID` on its answer.
async fn correlate(request: Request, next: Next) -> Response {
    let ids = [REQUEST_ID_HEADER, CORRELATION_ID_HEADER]
        .map(|name| (name, request.headers().get(name).cloned()));
    let mut response = next.run(request).await;
    for (name, value) in ids {
        if let Some(value) = value {
            response.headers_mut().insert(name, value);
        }
    }
    response
}

fn locations_of(p: &StandIn, query: &PageQuery) -> Vec<Location> {
    p.network()
        .stations
        .iter()
        .map(|s| {
            s.to_ocpi(&p.settings().party_id, p.published(), |uid| {
                p.evse_status(uid)
            })
        })
        .filter(|l| {
            query.date_from.is_none_or(|from| latest(l) >= from)
                && query.date_to.is_none_or(|to| latest(l) < to)
        })
        .collect()
}

/// When anything of a location last changed (an EVSE's status included).
fn latest(l: &Location) -> chrono::DateTime<chrono::Utc> {
    l.evses
        .iter()
        .map(|e| e.last_updated)
        .fold(l.last_updated, chrono::DateTime::max)
}

async fn locations(State(p): State<StandIn>, Query(query): Query<PageQuery>) -> Response {
    page(&p, "locations", locations_of(&p, &query), &query)
}

async fn location(State(p): State<StandIn>, Path(id): Path<String>) -> Response {
    match locations_of(&p, &PageQuery::default())
        .into_iter()
        .find(|l| l.id == id)
    {
        Some(l) => Json(Envelope::success(l)).into_response(),
        None => {
            let body: Empty = Envelope::error(status::UNKNOWN_LOCATION, "Unknown location");
            (StatusCode::NOT_FOUND, Json(body)).into_response()
        }
    }
}

async fn tariffs(State(p): State<StandIn>, Query(query): Query<PageQuery>) -> Response {
    let all: Vec<Tariff> = p
        .network()
        .tariffs
        .iter()
        .map(|t| t.to_ocpi(&p.settings().party_id, p.published()))
        .collect();
    page(&p, "tariffs", all, &query)
}

async fn stop_session(
    State(p): State<StandIn>,
    Json(command): Json<StopSession>,
) -> Json<Envelope<CommandResponse>> {
    let known = p.command_stop(&command.session_id, command.response_url);
    Json(Envelope::success(CommandResponse {
        result: if known {
            CommandResponseType::Accepted
        } else {
            CommandResponseType::UnknownSession
        },
        timeout: 30,
        message: None,
    }))
}

// --- admin ------------------------------------------------------------------

fn admin_error(err: &StandInError) -> Response {
    let code = match err {
        StandInError::UnknownLocation | StandInError::UnknownSession => StatusCode::NOT_FOUND,
        StandInError::NoFreePile | StandInError::NotActive => StatusCode::CONFLICT,
        StandInError::Emsp(_) => StatusCode::BAD_GATEWAY,
    };
    (code, Json(serde_json::json!({ "error": err.to_string() }))).into_response()
}

fn admin<T: Serialize>(result: Result<T, StandInError>) -> Response {
    match result {
        Ok(value) => Json(value).into_response(),
        Err(err) => admin_error(&err),
    }
}

/// A station as a script picks one to start a session at.
#[derive(Debug, Serialize)]
struct AdminLocation {
    location_id: String,
    name: String,
    city: &'static str,
    plate_recognition: bool,
    piles: usize,
}

async fn admin_locations(State(p): State<StandIn>) -> Response {
    let all: Vec<AdminLocation> = p
        .network()
        .stations
        .iter()
        .map(|s| AdminLocation {
            location_id: s.location_id.clone(),
            name: s.name.clone(),
            city: s.city,
            plate_recognition: s.plate_recognition,
            piles: s.piles.len(),
        })
        .collect();
    Json(all).into_response()
}

async fn admin_sessions(State(p): State<StandIn>) -> Response {
    Json(p.sessions().await).into_response()
}

async fn admin_start(State(p): State<StandIn>, Json(request): Json<StartRequest>) -> Response {
    admin(p.start_session(request).await)
}

async fn admin_session(State(p): State<StandIn>, Path(id): Path<String>) -> Response {
    admin(p.session(&id).await.ok_or(StandInError::UnknownSession))
}

#[derive(Debug, Deserialize)]
struct Advance {
    minutes: u32,
}

async fn admin_advance(
    State(p): State<StandIn>,
    Path(id): Path<String>,
    Json(advance): Json<Advance>,
) -> Response {
    admin(
        p.advance(&id, Duration::minutes(i64::from(advance.minutes)))
            .await,
    )
}

async fn admin_stop(State(p): State<StandIn>, Path(id): Path<String>) -> Response {
    admin(p.stop(&id, StopCause::Local).await)
}

async fn admin_resend_cdr(State(p): State<StandIn>, Path(id): Path<String>) -> Response {
    admin(p.resend_cdr(&id).await)
}
