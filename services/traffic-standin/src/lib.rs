//! A local stand-in for the traffic authority's violation query (交管违法
//!查询开放接口): an HTTP API the vehicle target's fetch job calls once a day
//! per plate, answering the way such a provider does, so violations reach
//! the console end to end without the outside service.
//!
//! - `GET /openapi/v1/violations?plate&startDate&endDate&pageNo&pageSize` —
//!   one page of a plate's violations between two Beijing days (at most a
//!   year), newest first, `{"code":0,"data":{"total","pageNo","pageSize","records"}}`;
//!   the records are [`records`]' (stable per plate and day, new days adding
//!   new ones).
//! - Every request is signed: headers `X-App-Key`, `X-Timestamp` (Unix
//!   seconds), `X-Nonce` and `X-Signature`, the lowercase hex HMAC-SHA256,
//!   under the app's secret, of `METHOD\nPATH\nQUERY\nAPP_KEY\nTIMESTAMP\nNONCE`
//!   where QUERY is the request's `key=value` pairs, as sent, sorted. A
//!   request unsigned, badly signed, more than [`MAX_SKEW`] away from now or
//!   repeating a nonce seen within that window answers 401 with its reason.
//! - Each app key may make [`Settings::rate_limit`] requests per window;
//!   past that it answers 429 with `Retry-After` in whole seconds.
//!
//! Nothing here logs secrets or signatures.

pub mod records;

use std::collections::HashMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::Json;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{Days, NaiveDate, Utc};
use hmac::{Hmac, Mac};
use serde::Deserialize;
use serde_json::json;
use sha2::Sha256;
use tokio::net::TcpListener;

pub use records::Record;

/// The query's path.
pub const QUERY_PATH: &str = "/openapi/v1/violations";
/// How far a request's timestamp may be from now (and how long a nonce is kept).
pub const MAX_SKEW: Duration = Duration::from_secs(300);
/// Largest page the authority serves.
pub const MAX_PAGE_SIZE: usize = 50;
/// Longest span one query may cover.
const MAX_SPAN_DAYS: u64 = 366;

/// Requests an app key may make per window.
#[derive(Debug, Clone, Copy)]
pub struct RateLimit {
    pub requests: u32,
    pub per: Duration,
}

/// The stand-in's apps and limits.
#[derive(Debug, Clone)]
pub struct Settings {
    /// App key → secret.
    pub apps: HashMap<String, String>,
    pub rate_limit: RateLimit,
}

impl Settings {
    /// One app and the default limit (20 requests a second).
    pub fn single(app_key: &str, secret: &str) -> Settings {
        Settings {
            apps: HashMap::from([(app_key.to_owned(), secret.to_owned())]),
            rate_limit: RateLimit {
                requests: 20,
                per: Duration::from_secs(1),
            },
        }
    }
}

/// What the stand-in answered so far, for tests.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub served: u64,
    pub refused: u64,
    pub throttled: u64,
}

#[derive(Debug)]
struct Window {
    started: Instant,
    used: u32,
}

#[derive(Debug)]
struct Book {
    settings: Settings,
    /// Nonces seen, with when; forgotten after [`MAX_SKEW`].
    nonces: HashMap<String, Instant>,
    windows: HashMap<String, Window>,
    counts: Counts,
}

/// The authority. Cheap to clone; clones share their state, so a test can
/// change the limit or read the counts while it serves.
#[derive(Debug, Clone)]
pub struct StandIn {
    book: Arc<Mutex<Book>>,
}

impl StandIn {
    pub fn new(settings: Settings) -> StandIn {
        StandIn {
            book: Arc::new(Mutex::new(Book {
                settings,
                nonces: HashMap::new(),
                windows: HashMap::new(),
                counts: Counts::default(),
            })),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Book> {
        self.book.lock().expect("traffic stand-in state")
    }

    pub fn set_rate_limit(&self, limit: RateLimit) {
        let mut book = self.lock();
        book.settings.rate_limit = limit;
        book.windows.clear();
    }

    pub fn counts(&self) -> Counts {
        self.lock().counts
    }

    pub fn router(&self) -> axum::Router {
        axum::Router::new()
            .route(QUERY_PATH, get(query))
            .with_state(self.clone())
    }
}

/// Serves the authority on `listener` until `shutdown` completes.
pub async fn serve(
    listener: TcpListener,
    standin: StandIn,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    tracing::info!(addr = %listener.local_addr()?, "Traffic authority stand-in listening.");
    axum::serve(listener, standin.router())
        .with_graceful_shutdown(shutdown)
        .await
}

/// The text a request's signature covers.
pub fn string_to_sign(
    method: &str,
    path: &str,
    query: &str,
    app_key: &str,
    timestamp: &str,
    nonce: &str,
) -> String {
    let mut pairs: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
    pairs.sort_unstable();
    format!(
        "{method}\n{path}\n{}\n{app_key}\n{timestamp}\n{nonce}",
        pairs.join("&")
    )
}

fn failure(status: StatusCode, code: i64, message: &str) -> Response {
    (status, Json(json!({ "code": code, "message": message }))).into_response()
}

fn header_text<'a>(headers: &'a HeaderMap, name: &str) -> Option<&'a str> {
    headers
        .get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
}

/// Why a request is refused before it is served.
enum Refusal {
    Unauthorized(&'static str),
    Throttled(u64),
}

/// Checks the signature, freshness, nonce and limit of a request.
fn admit(book: &mut Book, method: &str, uri: &Uri, headers: &HeaderMap) -> Result<(), Refusal> {
    let (Some(app_key), Some(timestamp), Some(nonce), Some(signature)) = (
        header_text(headers, "x-app-key"),
        header_text(headers, "x-timestamp"),
        header_text(headers, "x-nonce"),
        header_text(headers, "x-signature"),
    ) else {
        return Err(Refusal::Unauthorized("missing signature headers"));
    };
    let Some(secret) = book.settings.apps.get(app_key) else {
        return Err(Refusal::Unauthorized("unknown app key"));
    };
    let text = string_to_sign(
        method,
        uri.path(),
        uri.query().unwrap_or(""),
        app_key,
        timestamp,
        nonce,
    );
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    let Ok(given) = hex::decode(signature) else {
        return Err(Refusal::Unauthorized("bad signature"));
    };
    if mac.verify_slice(&given).is_err() {
        return Err(Refusal::Unauthorized("bad signature"));
    }
    let Ok(sent) = timestamp.parse::<i64>() else {
        return Err(Refusal::Unauthorized("bad timestamp"));
    };
    let skew = Utc::now().timestamp().abs_diff(sent);
    if skew > MAX_SKEW.as_secs() {
        return Err(Refusal::Unauthorized("stale timestamp"));
    }
    let now = Instant::now();
    book.nonces
        .retain(|_, seen| now.duration_since(*seen) <= MAX_SKEW);
    if book.nonces.contains_key(nonce) {
        return Err(Refusal::Unauthorized("replayed nonce"));
    }
    book.nonces.insert(nonce.to_owned(), now);
    let limit = book.settings.rate_limit;
    let window = book.windows.entry(app_key.to_owned()).or_insert(Window {
        started: now,
        used: 0,
    });
    if now.duration_since(window.started) >= limit.per {
        window.started = now;
        window.used = 0;
    }
    if window.used >= limit.requests {
        let left = limit.per.saturating_sub(now.duration_since(window.started));
        return Err(Refusal::Throttled(left.as_secs_f64().ceil().max(1.0) as u64));
    }
    window.used += 1;
    Ok(())
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Query {
    #[serde(default)]
    plate: String,
    start_date: Option<String>,
    end_date: Option<String>,
    page_no: Option<usize>,
    page_size: Option<usize>,
}

fn day(text: Option<&str>, default: NaiveDate) -> Option<NaiveDate> {
    match text {
        None | Some("") => Some(default),
        Some(t) => NaiveDate::parse_from_str(t, "%Y-%m-%d").ok(),
    }
}

async fn query(
    State(s): State<StandIn>,
    method: axum::http::Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response {
    let admitted = {
        let mut book = s.lock();
        let admitted = admit(&mut book, method.as_str(), &uri, &headers);
        match &admitted {
            Ok(()) => book.counts.served += 1,
            Err(Refusal::Unauthorized(_)) => book.counts.refused += 1,
            Err(Refusal::Throttled(_)) => book.counts.throttled += 1,
        }
        admitted
    };
    match admitted {
        Ok(()) => {}
        Err(Refusal::Unauthorized(why)) => {
            return failure(StatusCode::UNAUTHORIZED, 40_101, why);
        }
        Err(Refusal::Throttled(seconds)) => {
            let mut answer = failure(StatusCode::TOO_MANY_REQUESTS, 42_900, "rate limited");
            answer
                .headers_mut()
                .insert(header::RETRY_AFTER, seconds.into());
            return answer;
        }
    }
    let Ok(q) = serde_urlencoded::from_str::<Query>(uri.query().unwrap_or("")) else {
        return failure(StatusCode::BAD_REQUEST, 40_001, "bad query");
    };
    let plate = q.plate.trim();
    if plate.is_empty() {
        return failure(StatusCode::BAD_REQUEST, 40_002, "plate required");
    }
    let now = Utc::now();
    let today = records::beijing_day(now);
    let Some(to) = day(q.end_date.as_deref(), today) else {
        return failure(StatusCode::BAD_REQUEST, 40_003, "bad endDate");
    };
    let Some(from) = day(
        q.start_date.as_deref(),
        to.checked_sub_days(Days::new(365)).unwrap_or(to),
    ) else {
        return failure(StatusCode::BAD_REQUEST, 40_003, "bad startDate");
    };
    if from > to || (to - from).num_days() > i64::try_from(MAX_SPAN_DAYS).unwrap_or(i64::MAX) {
        return failure(StatusCode::BAD_REQUEST, 40_004, "date span over a year");
    }
    let page_no = q.page_no.unwrap_or(1).max(1);
    let page_size = q.page_size.unwrap_or(20).clamp(1, MAX_PAGE_SIZE);
    let all = records::between(plate, from, to.min(today), now);
    let page: Vec<&Record> = all
        .iter()
        .skip((page_no - 1).saturating_mul(page_size))
        .take(page_size)
        .collect();
    Json(json!({
        "code": 0,
        "message": "ok",
        "data": {
            "total": all.len(),
            "pageNo": page_no,
            "pageSize": page_size,
            "records": page,
        }
    }))
    .into_response()
}
