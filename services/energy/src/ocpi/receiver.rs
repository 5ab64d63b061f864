//! The endpoints the platform calls, each a thin call into its subject.
//! Every answer is an OCPI envelope, with OCPI's HTTP convention: a request
//! that reached the OCPI layer is answered HTTP 200 (201 for an object new
//! here) whatever its OCPI status — 1000 on success, 2001 for an object
//! energy cannot take or a business rule it breaks (the reason in
//! `status_message`), 2002 for an authorisation without location, 2004 for
//! an unknown token (HTTP 404, as the standard says), 3000 when energy
//! failed (HTTP 500: the platform retries); HTTP 400 only for a body that
//! is not JSON, 401 for a token energy does not know. Every answer repeats
//! the request's `X-Request-ID` and `X-Correlation-ID`.

use axum::Extension;
use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use chrono::{DateTime, Utc};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_ocpi::{
    AuthorizationInfo, AuthorizeQuery, CORRELATION_ID_HEADER, Cdr, CommandResult,
    CommandResultType, Connector, ConnectorPatch, DisplayText, EMSP_BASE, Empty, Envelope, Evse,
    EvsePatch, LIMIT_HEADER, Location, LocationPatch, LocationReferences, PLATE_SCAN_MODULE,
    PageQuery, PlateScan, PushedLevel, REQUEST_ID_HEADER, Session, SessionPatch,
    TOTAL_COUNT_HEADER, Tariff, Token, WhitelistType, complete_location_push, complete_tariff_push,
    next_link, status,
};
use serde::de::DeserializeOwned;
use std::sync::Arc;
use tower::ServiceExt as _;
use uuid::Uuid;

use super::credentials::{self, Caller, Link, Refusal, Registry};
use crate::cards::tokens;
use crate::plate_scans::recognition;
use crate::platform::{EMSP_PARTY_ID, Platform};
use crate::sessions::charging::{self, Answer};
use crate::stations::push::{self, Pushed};
use crate::stations::sync;

/// The module routes' state: the registered platform.
#[derive(Clone)]
struct Receiver {
    platform: Platform,
}

/// Versions, version details and credentials (`credentials`, behind token
/// A or C), and every other path behind the registered platform's token C
/// ([`require_token`]), served by that registration's module routes.
pub fn router(registry: Registry) -> axum::Router {
    let modules = axum::Router::new()
        .fallback(registered)
        .layer(middleware::from_fn_with_state(
            registry.clone(),
            require_token,
        ));
    credentials::router(registry)
        .fallback_service(modules)
        .layer(middleware::from_fn(correlate))
}

/// Repeats the request's `X-Request-ID` and `X-Correlation-ID` on its
/// answer (new ones when it came without).
async fn correlate(request: Request, next: Next) -> Response {
    let request_id = id_or_new(request.headers(), REQUEST_ID_HEADER);
    let correlation_id = id_or_new(request.headers(), CORRELATION_ID_HEADER);
    let mut response = next.run(request).await;
    let headers = response.headers_mut();
    headers.insert(REQUEST_ID_HEADER, request_id);
    headers.insert(CORRELATION_ID_HEADER, correlation_id);
    response
}

fn id_or_new(headers: &HeaderMap, name: &str) -> HeaderValue {
    headers.get(name).cloned().unwrap_or_else(|| {
        HeaderValue::from_str(&Uuid::new_v4().to_string()).expect("a uuid is ASCII")
    })
}

/// The module routes for one registration.
fn modules(platform: Platform) -> axum::Router {
    let state = Receiver { platform };
    axum::Router::new()
        .route(&format!("{EMSP_BASE}/tokens"), get(token_list))
        .route(
            &format!("{EMSP_BASE}/tokens/{{uid}}/authorize"),
            post(authorize),
        )
        .route(
            &format!("{EMSP_BASE}/sessions/{{country}}/{{party}}/{{id}}"),
            patch(session_patch).put(session_put),
        )
        .route(&format!("{EMSP_BASE}/cdrs"), post(cdr))
        .route(&format!("{EMSP_BASE}/cdrs/{{id}}"), get(cdr_get))
        .route(
            &format!("{EMSP_BASE}/locations/{{country}}/{{party}}/{{location}}/{{evse}}"),
            patch(evse_status),
        )
        .route(
            &format!("{EMSP_BASE}/locations/{{country}}/{{party}}/{{location}}"),
            get(location_get).put(location_put).patch(location_patch),
        )
        .route(
            &format!("{EMSP_BASE}/locations/{{country}}/{{party}}/{{location}}/{{evse}}"),
            get(evse_get).put(evse_put),
        )
        .route(
            &format!(
                "{EMSP_BASE}/locations/{{country}}/{{party}}/{{location}}/{{evse}}/{{connector}}"
            ),
            get(connector_get).put(connector_put).patch(connector_patch),
        )
        .route(
            &format!("{EMSP_BASE}/tariffs/{{country}}/{{party}}/{{tariff}}"),
            get(tariff_get).put(tariff_put).delete(tariff_delete),
        )
        .route(
            &format!("{EMSP_BASE}/{PLATE_SCAN_MODULE}"),
            post(plate_scan),
        )
        .route(
            &format!("{EMSP_BASE}/commands/STOP_SESSION/{{id}}"),
            post(command_result),
        )
        .with_state(state)
}

/// Hands a request [`require_token`] let through to the module routes of
/// the registration whose token it carries.
async fn registered(Extension(link): Extension<Arc<Link>>, request: Request) -> Response {
    let routes = link
        .routes
        .get_or_init(|| modules(link.platform.clone()))
        .clone();
    match routes.oneshot(request).await {
        Ok(response) => response,
        Err(never) => match never {},
    }
}

/// Lets through the registered platform's token C only: token A is for
/// versions and credentials (OCPI answers it 401 elsewhere), and an
/// unknown token is 401 too.
async fn require_token(
    State(registry): State<Registry>,
    mut request: Request,
    next: Next,
) -> Response {
    match registry.caller(request.headers()).await {
        Some(Caller::Party(link)) => {
            request.extensions_mut().insert(link);
            next.run(request).await
        }
        Some(Caller::Bootstrap | Caller::SpentBootstrap) => {
            Refusal::unauthorized("Token A is for registration only").into_response()
        }
        None => Refusal::unauthorized("Unauthorized").into_response(),
    }
}

/// An OCPI error answer.
struct Failure(StatusCode, u32, String);

impl IntoResponse for Failure {
    fn into_response(self) -> Response {
        let body: Empty = Envelope::error(self.1, self.2);
        (self.0, Json(body)).into_response()
    }
}

impl From<ServiceError> for Failure {
    fn from(err: ServiceError) -> Failure {
        match err.code {
            // Business rules: the request reached OCPI, so HTTP 200.
            ErrorCode::BadRequest => {
                Failure(StatusCode::OK, status::INVALID_PARAMETERS, err.message)
            }
            ErrorCode::Conflict => Failure(StatusCode::OK, status::CLIENT_ERROR, err.message),
            ErrorCode::NotFound => Failure(
                StatusCode::NOT_FOUND,
                status::INVALID_PARAMETERS,
                "Unknown object".into(),
            ),
            ErrorCode::Unauthenticated
            | ErrorCode::SessionEnded
            | ErrorCode::Forbidden
            | ErrorCode::TooManyRequests
            | ErrorCode::Unavailable
            | ErrorCode::Internal => Failure(
                StatusCode::INTERNAL_SERVER_ERROR,
                status::SERVER_ERROR,
                "Server error, retry later".into(),
            ),
        }
    }
}

type Answered = Result<Response, Failure>;

fn acknowledged() -> Response {
    let body: Empty = Envelope::acknowledged();
    Json(body).into_response()
}

fn wrong_party() -> Failure {
    invalid("Unknown party".into())
}

async fn token_list(State(r): State<Receiver>, Query(query): Query<PageQuery>) -> Answered {
    let (page, total) = tokens::page(&r.platform.pool, &query).await?;
    let mut headers = HeaderMap::new();
    headers.insert(TOTAL_COUNT_HEADER, HeaderValue::from(total));
    headers.insert(LIMIT_HEADER, HeaderValue::from(query.limit()));
    let seen = query.offset + page.len();
    if !page.is_empty() && (seen as i64) < total {
        // The next page with the same filters, as OCPI pagination wants.
        let mut url = r
            .platform
            .url(&format!("tokens?offset={seen}&limit={}", query.limit()));
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
    Ok((headers, Json(Envelope::success(page))).into_response())
}

async fn authorize(
    State(r): State<Receiver>,
    Path(uid): Path<String>,
    Query(query): Query<AuthorizeQuery>,
    body: Bytes,
) -> Answered {
    // No location, nothing to decide by (cards may be limited to stations).
    if body.iter().all(u8::is_ascii_whitespace) {
        return Err(Failure(
            StatusCode::OK,
            status::NOT_ENOUGH_INFORMATION,
            "LocationReferences are needed to authorise a token".into(),
        ));
    }
    let location: LocationReferences = object(&body)?;
    let uid = uid.trim().to_owned();
    let answer = charging::authorize(&r.platform, &uid, query.kind, &location.location_id).await?;
    let (allowed, reference, text) = match answer {
        Answer::Allowed { id, held_fen } => (
            fleetdesk_ocpi::AllowedType::Allowed,
            Some(id.to_string()),
            format!(
                "已授权，预授权 {} 元",
                fleetdesk_kit::export::scope::yuan(held_fen)
            ),
        ),
        Answer::Refused { allowed, reason } => (allowed, None, reason),
        Answer::Unknown => {
            return Err(Failure(
                StatusCode::NOT_FOUND,
                status::UNKNOWN_TOKEN,
                "Unknown token".into(),
            ));
        }
    };
    let info = AuthorizationInfo {
        allowed,
        token: Token {
            country_code: fleetdesk_ocpi::COUNTRY.to_owned(),
            party_id: EMSP_PARTY_ID.to_owned(),
            uid: uid.clone(),
            kind: query.kind,
            contract_id: format!("CN-{EMSP_PARTY_ID}-{uid}"),
            visual_number: Some(uid),
            issuer: "Fleetdesk".to_owned(),
            group_id: None,
            valid: allowed == fleetdesk_ocpi::AllowedType::Allowed,
            whitelist: WhitelistType::Never,
            language: Some(tokens::LANGUAGE.to_owned()),
            default_profile_type: None,
            energy_contract: None,
            last_updated: chrono::Utc::now(),
        },
        location: Some(location),
        authorization_reference: reference,
        info: Some(DisplayText::zh(text)),
    };
    Ok(Json(Envelope::success(info)).into_response())
}

async fn session_put(
    State(r): State<Receiver>,
    Path((_country, party, id)): Path<(String, String, String)>,
    body: Bytes,
) -> Answered {
    let session: Session = object(&body)?;
    if session.party_id != party || session.id != id {
        return Err(wrong_party());
    }
    charging::put(&r.platform, &session).await?;
    Ok(acknowledged())
}

async fn session_patch(
    State(r): State<Receiver>,
    Path((_country, party, id)): Path<(String, String, String)>,
    body: Bytes,
) -> Answered {
    let patch: SessionPatch = object(&body)?;
    if party != r.platform.cpo.party_id {
        return Err(wrong_party());
    }
    charging::patch(&r.platform, &party, &id, &patch).await?;
    Ok(acknowledged())
}

/// A CDR: 201 with where energy keeps it (`Location`), 200 for the same
/// CDR again.
async fn cdr(State(r): State<Receiver>, body: Bytes) -> Answered {
    let cdr: Cdr = object(&body)?;
    let raw: serde_json::Value = object(&body)?;
    let created = charging::settle(&r.platform, &cdr, &raw).await?;
    let status = if created {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    let mut response = (status, acknowledged()).into_response();
    let url = r.platform.url(&format!("cdrs/{}", encode_segment(&cdr.id)));
    if let Ok(location) = HeaderValue::from_str(&url) {
        response.headers_mut().insert(header::LOCATION, location);
    }
    Ok(response)
}

/// A CDR energy received, as it was sent.
async fn cdr_get(State(r): State<Receiver>, Path(id): Path<String>) -> Answered {
    let party = r.platform.cpo.party_id.clone();
    let body = charging::cdr_of(&r.platform, &party, &id)
        .await?
        .ok_or_else(|| {
            Failure(
                StatusCode::NOT_FOUND,
                status::CLIENT_ERROR,
                "Unknown CDR".into(),
            )
        })?;
    Ok(Json(Envelope::success(body)).into_response())
}

/// `text` as one path segment.
fn encode_segment(text: &str) -> String {
    text.bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
                (b as char).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}

/// An EVSE PATCH, a status push above all.
async fn evse_status(
    State(r): State<Receiver>,
    Path((_country, party, location, evse)): Path<(String, String, String, String)>,
    body: Bytes,
) -> Answered {
    let patch: EvsePatch = object(&body)?;
    let party = r.party(&party)?;
    sync::ensure(&r.platform.pool, &r.platform.cpo, &location).await?;
    stored(push::patch_evse(&r.platform.pool, &party, &location, &evse, patch).await?)
}

async fn plate_scan(State(r): State<Receiver>, body: Bytes) -> Answered {
    let scan: PlateScan = object(&body)?;
    recognition::record(&r.platform, &scan).await?;
    Ok(acknowledged())
}

async fn command_result(
    State(r): State<Receiver>,
    Path(id): Path<String>,
    body: Bytes,
) -> Answered {
    let result: CommandResult = object(&body)?;
    let id = Uuid::parse_str(id.trim()).map_err(|_| ServiceError::not_found())?;
    charging::command_result(
        &r.platform,
        id,
        result.result == CommandResultType::Accepted,
    )
    .await?;
    Ok(acknowledged())
}

// --- Locations and Tariffs receivers -----------------------------------------
//
// The platform's pushes of its locations (a Location, EVSE or Connector PUT
// or PATCHed) and tariffs (PUT, DELETE), and GETs of what energy stored, as
// OCPI 2.2.1's receiver interfaces have them: HTTP 201 for an object new
// here, 200 otherwise; a body that is JSON but not the object is answered
// 2001 with HTTP 200 (it reached the OCPI layer), one that is not JSON
// HTTP 400; an object that is not here HTTP 404 (2003 for a location). A
// PUT body is read liberally ([`pushed`]: a missing `last_updated` is the
// time of receipt, a connector's missing power type is what its standard
// implies); a PATCH must carry its `last_updated`, which orders it.

impl Receiver {
    /// The registered platform's party id when `party` (case aside) is it.
    fn party(&self, party: &str) -> Result<String, Failure> {
        let ours = &self.platform.cpo.party_id;
        if party.eq_ignore_ascii_case(ours) {
            Ok(ours.clone())
        } else {
            Err(Failure(
                StatusCode::OK,
                status::INVALID_PARAMETERS,
                format!("Unknown party {party}: this platform is {ours}"),
            ))
        }
    }
}

/// The body as an OCPI object of type `T`.
fn object<T: DeserializeOwned>(body: &[u8]) -> Result<T, Failure> {
    let json: serde_json::Value = serde_json::from_slice(body).map_err(|e| {
        Failure(
            StatusCode::BAD_REQUEST,
            status::INVALID_PARAMETERS,
            format!("Not JSON: {e}"),
        )
    })?;
    serde_json::from_value(json).map_err(|e| invalid(format!("Not a valid object: {e}")))
}

/// A pushed Location, EVSE, Connector or Tariff (a PUT body) as a `T`,
/// read liberally: `complete` first fills in, at the time energy received
/// it, what real platforms (and the standard's own examples) leave out
/// ([`fleetdesk_ocpi::complete_location_push`]). A body that is not JSON
/// is answered as by [`object`].
fn pushed<T: DeserializeOwned>(
    body: &[u8],
    complete: impl FnOnce(&mut serde_json::Value, DateTime<Utc>),
) -> Result<T, Failure> {
    let mut json: serde_json::Value = object(body)?;
    complete(&mut json, Utc::now());
    serde_json::from_value(json).map_err(|e| invalid(format!("Not a valid object: {e}")))
}

/// A pushed object of the Locations module at `level`.
fn pushed_location<T: DeserializeOwned>(body: &[u8], level: PushedLevel) -> Result<T, Failure> {
    pushed(body, |json, received| {
        complete_location_push(level, json, received)
    })
}

fn invalid(reason: String) -> Failure {
    Failure(StatusCode::OK, status::INVALID_PARAMETERS, reason)
}

/// Country code, party id and id of a pushed object must be the URL's.
fn same_ids(object: [&str; 3], url: [&str; 3]) -> Result<(), Failure> {
    let [country, party, id] = object;
    if country.eq_ignore_ascii_case(url[0]) && party.eq_ignore_ascii_case(url[1]) && id == url[2] {
        Ok(())
    } else {
        Err(invalid(format!(
            "The object is {country}/{party}/{id}, the URL {}/{}/{}",
            url[0], url[1], url[2]
        )))
    }
}

fn unknown_location() -> Failure {
    Failure(
        StatusCode::NOT_FOUND,
        status::UNKNOWN_LOCATION,
        "Unknown location".into(),
    )
}

/// The answer to a push.
fn stored(pushed: Pushed) -> Answered {
    match pushed {
        Pushed::Stored { created } => {
            let code = if created {
                StatusCode::CREATED
            } else {
                StatusCode::OK
            };
            let body: Empty = Envelope::acknowledged();
            Ok((code, Json(body)).into_response())
        }
        Pushed::Invalid(reason) => Err(invalid(reason)),
        Pushed::Unknown => Err(unknown_location()),
    }
}

fn found<T: serde::Serialize>(object: Option<T>, unknown: fn() -> Failure) -> Answered {
    match object {
        Some(object) => Ok(Json(Envelope::success(object)).into_response()),
        None => Err(unknown()),
    }
}

type LocationPath = Path<(String, String, String)>;
type EvsePath = Path<(String, String, String, String)>;
type ConnectorPath = Path<(String, String, String, String, String)>;

async fn location_put(
    State(r): State<Receiver>,
    Path((country, party, location_id)): LocationPath,
    body: Bytes,
) -> Answered {
    let mut location: Location = pushed_location(&body, PushedLevel::Location)?;
    let ids = [
        location.country_code.as_str(),
        &location.party_id,
        &location.id,
    ];
    same_ids(ids, [&country, &party, &location_id])?;
    location.party_id = r.party(&party)?;
    stored(push::put_location(&r.platform.pool, &location).await?)
}

async fn location_patch(
    State(r): State<Receiver>,
    Path((_country, party, location_id)): LocationPath,
    body: Bytes,
) -> Answered {
    let patch: LocationPatch = object(&body)?;
    let party = r.party(&party)?;
    sync::ensure(&r.platform.pool, &r.platform.cpo, &location_id).await?;
    stored(push::patch_location(&r.platform.pool, &party, &location_id, patch).await?)
}

async fn location_get(
    State(r): State<Receiver>,
    Path((_country, party, location_id)): LocationPath,
) -> Answered {
    let party = r.party(&party).map_err(|_| unknown_location())?;
    found(
        push::location(&r.platform.pool, &party, &location_id).await?,
        unknown_location,
    )
}

async fn evse_put(
    State(r): State<Receiver>,
    Path((_country, party, location_id, evse_uid)): EvsePath,
    body: Bytes,
) -> Answered {
    let evse: Evse = pushed_location(&body, PushedLevel::Evse)?;
    if evse.uid != evse_uid {
        return Err(invalid(format!(
            "The EVSE is {}, the URL {evse_uid}",
            evse.uid
        )));
    }
    let party = r.party(&party)?;
    sync::ensure(&r.platform.pool, &r.platform.cpo, &location_id).await?;
    stored(push::put_evse(&r.platform.pool, &party, &location_id, evse).await?)
}

async fn evse_get(
    State(r): State<Receiver>,
    Path((_country, party, location_id, evse_uid)): EvsePath,
) -> Answered {
    let party = r.party(&party).map_err(|_| unknown_location())?;
    let location = push::location(&r.platform.pool, &party, &location_id).await?;
    let evse = location.and_then(|l| l.evse(&evse_uid).cloned());
    found(evse, unknown_location)
}

async fn connector_put(
    State(r): State<Receiver>,
    Path((_country, party, location_id, evse_uid, connector_id)): ConnectorPath,
    body: Bytes,
) -> Answered {
    let connector: Connector = pushed_location(&body, PushedLevel::Connector)?;
    if connector.id != connector_id {
        return Err(invalid(format!(
            "The connector is {}, the URL {connector_id}",
            connector.id
        )));
    }
    let party = r.party(&party)?;
    sync::ensure(&r.platform.pool, &r.platform.cpo, &location_id).await?;
    let pushed =
        push::put_connector(&r.platform.pool, &party, &location_id, &evse_uid, connector).await?;
    stored(pushed)
}

async fn connector_patch(
    State(r): State<Receiver>,
    Path((_country, party, location_id, evse_uid, connector_id)): ConnectorPath,
    body: Bytes,
) -> Answered {
    let patch: ConnectorPatch = object(&body)?;
    let party = r.party(&party)?;
    sync::ensure(&r.platform.pool, &r.platform.cpo, &location_id).await?;
    let pushed = push::patch_connector(
        &r.platform.pool,
        &party,
        &location_id,
        &evse_uid,
        &connector_id,
        patch,
    )
    .await?;
    stored(pushed)
}

async fn connector_get(
    State(r): State<Receiver>,
    Path((_country, party, location_id, evse_uid, connector_id)): ConnectorPath,
) -> Answered {
    let party = r.party(&party).map_err(|_| unknown_location())?;
    let location = push::location(&r.platform.pool, &party, &location_id).await?;
    let connector = location.and_then(|l| {
        l.evse(&evse_uid)
            .and_then(|e| e.connector(&connector_id))
            .cloned()
    });
    found(connector, unknown_location)
}

fn unknown_tariff() -> Failure {
    Failure(
        StatusCode::NOT_FOUND,
        status::CLIENT_ERROR,
        "Unknown tariff".into(),
    )
}

async fn tariff_put(
    State(r): State<Receiver>,
    Path((country, party, tariff_id)): LocationPath,
    body: Bytes,
) -> Answered {
    let mut tariff: Tariff = pushed(&body, complete_tariff_push)?;
    let ids = [tariff.country_code.as_str(), &tariff.party_id, &tariff.id];
    same_ids(ids, [&country, &party, &tariff_id])?;
    tariff.party_id = r.party(&party)?;
    stored(push::put_tariff(&r.platform.pool, &tariff).await?)
}

async fn tariff_delete(
    State(r): State<Receiver>,
    Path((_country, party, tariff_id)): LocationPath,
) -> Answered {
    let party = r.party(&party)?;
    // Gone either way: a repeated DELETE is answered as the first.
    push::delete_tariff(&r.platform.pool, &party, &tariff_id).await?;
    Ok(acknowledged())
}

async fn tariff_get(
    State(r): State<Receiver>,
    Path((_country, party, tariff_id)): LocationPath,
) -> Answered {
    let party = r.party(&party).map_err(|_| unknown_tariff())?;
    found(
        push::tariff(&r.platform.pool, &party, &tariff_id).await?,
        unknown_tariff,
    )
}
