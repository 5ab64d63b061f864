//! The endpoints the platform calls, each a thin call into its subject.
//! Every answer is an OCPI envelope: 1000 on success, 2001 for a body or
//! object energy cannot take, 2004 for an unknown token, 3000 when energy
//! failed (the platform retries).

use axum::Json;
use axum::body::Bytes;
use axum::extract::{Path, Query, Request, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, patch, post};
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_ocpi::{
    AuthorizationInfo, AuthorizeQuery, Cdr, CommandResult, CommandResultType, DisplayText,
    EMSP_BASE, Empty, Envelope, EvsePatch, LIMIT_HEADER, LocationReferences, PLATE_SCAN_MODULE,
    PageQuery, PlateScan, Session, SessionPatch, TOTAL_COUNT_HEADER, Token, WhitelistType, status,
    token_of,
};
use secrecy::{ExposeSecret as _, SecretString};
use serde::de::DeserializeOwned;
use uuid::Uuid;

use super::{EMSP_PARTY_ID, Platform, tokens};
use crate::plate_scans::recognition;
use crate::sessions::charging::{self, Answer};
use crate::stations::sync;

#[derive(Clone)]
struct Receiver {
    platform: Platform,
    token: SecretString,
}

pub fn router(platform: Platform, token: SecretString) -> axum::Router {
    let state = Receiver { platform, token };
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
        .route(
            &format!("{EMSP_BASE}/locations/{{country}}/{{party}}/{{location}}/{{evse}}"),
            patch(evse_status),
        )
        .route(
            &format!("{EMSP_BASE}/{PLATE_SCAN_MODULE}"),
            post(plate_scan),
        )
        .route(
            &format!("{EMSP_BASE}/commands/STOP_SESSION/{{id}}"),
            post(command_result),
        )
        .route_layer(middleware::from_fn_with_state(state.clone(), require_token))
        .with_state(state)
}

/// Compares without an early exit, so timing tells nothing of the token.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

async fn require_token(State(r): State<Receiver>, request: Request, next: Next) -> Response {
    let presented = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(token_of);
    let expected = r.token.expose_secret().as_bytes();
    if !presented.is_some_and(|t| same(t.as_bytes(), expected)) {
        return Failure(
            StatusCode::UNAUTHORIZED,
            status::CLIENT_ERROR,
            "Unauthorized".into(),
        )
        .into_response();
    }
    next.run(request).await
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
            ErrorCode::BadRequest => Failure(
                StatusCode::BAD_REQUEST,
                status::INVALID_PARAMETERS,
                err.message,
            ),
            ErrorCode::NotFound => Failure(
                StatusCode::NOT_FOUND,
                status::INVALID_PARAMETERS,
                "Unknown object".into(),
            ),
            ErrorCode::Conflict => Failure(StatusCode::CONFLICT, status::CLIENT_ERROR, err.message),
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

fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, Failure> {
    serde_json::from_slice(body).map_err(|e| {
        Failure(
            StatusCode::BAD_REQUEST,
            status::INVALID_PARAMETERS,
            format!("Unreadable body: {e}"),
        )
    })
}

fn acknowledged() -> Response {
    let body: Empty = Envelope::acknowledged();
    Json(body).into_response()
}

fn wrong_party() -> Failure {
    Failure(
        StatusCode::BAD_REQUEST,
        status::INVALID_PARAMETERS,
        "Unknown party".into(),
    )
}

async fn token_list(State(r): State<Receiver>, Query(query): Query<PageQuery>) -> Answered {
    let (page, total) = tokens::page(&r.platform.pool, &query).await?;
    let mut headers = HeaderMap::new();
    headers.insert(TOTAL_COUNT_HEADER, HeaderValue::from(total));
    headers.insert(LIMIT_HEADER, HeaderValue::from(query.limit()));
    Ok((headers, Json(Envelope::success(page))).into_response())
}

async fn authorize(
    State(r): State<Receiver>,
    Path(uid): Path<String>,
    Query(query): Query<AuthorizeQuery>,
    body: Bytes,
) -> Answered {
    let location: LocationReferences = parse(&body)?;
    let uid = uid.trim().to_owned();
    let answer = charging::authorize(&r.platform, &uid, query.kind, &location.location_id).await?;
    let (allowed, reference, text) = match answer {
        Answer::Allowed { id, held_fen } => (
            fleetdesk_ocpi::AllowedType::Allowed,
            Some(id.to_string()),
            format!(
                "已授权，预授权 {} 元",
                fleetdesk_kit::export_scope::yuan(held_fen)
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
    let session: Session = parse(&body)?;
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
    let patch: SessionPatch = parse(&body)?;
    if party != r.platform.cpo.party_id {
        return Err(wrong_party());
    }
    charging::patch(&r.platform, &party, &id, &patch).await?;
    Ok(acknowledged())
}

async fn cdr(State(r): State<Receiver>, body: Bytes) -> Answered {
    let raw: serde_json::Value = parse(&body)?;
    let cdr: Cdr = parse(&body)?;
    charging::settle(&r.platform, &cdr, &raw).await?;
    Ok(acknowledged())
}

async fn evse_status(
    State(r): State<Receiver>,
    Path((_country, party, location, evse)): Path<(String, String, String, String)>,
    body: Bytes,
) -> Answered {
    let patch: EvsePatch = parse(&body)?;
    if party != r.platform.cpo.party_id {
        return Err(wrong_party());
    }
    sync::ensure(&r.platform.pool, &r.platform.cpo, &location).await?;
    if !sync::evse_status(&r.platform.pool, &party, &location, &evse, &patch).await? {
        return Err(Failure(
            StatusCode::NOT_FOUND,
            status::UNKNOWN_LOCATION,
            "Unknown EVSE".into(),
        ));
    }
    Ok(acknowledged())
}

async fn plate_scan(State(r): State<Receiver>, body: Bytes) -> Answered {
    let scan: PlateScan = parse(&body)?;
    recognition::record(&r.platform, &scan).await?;
    Ok(acknowledged())
}

async fn command_result(
    State(r): State<Receiver>,
    Path(id): Path<String>,
    body: Bytes,
) -> Answered {
    let result: CommandResult = parse(&body)?;
    let id = Uuid::parse_str(id.trim()).map_err(|_| ServiceError::not_found())?;
    charging::command_result(
        &r.platform,
        id,
        result.result == CommandResultType::Accepted,
    )
    .await?;
    Ok(acknowledged())
}
