//! The traffic authority's violation query, as its documentation describes
//! it: `GET {url}/openapi/v1/violations` with `plate`, `startDate`,
//! `endDate` (Beijing days), `pageNo` and `pageSize`; every request signed
//! with the app key and secret (`X-App-Key`, `X-Timestamp`, `X-Nonce`,
//! `X-Signature`: the hex HMAC-SHA256 of `METHOD\nPATH\nQUERY\nAPP_KEY\n
//! TIMESTAMP\nNONCE`, QUERY the sent pairs sorted), a fresh nonce each time;
//! a 429 is retried after its `Retry-After`. In development the authority
//! is `fleetdesk-traffic-standin`, started by `fleetdesk all`.

use std::time::Duration;

use chrono::{DateTime, NaiveDate, Utc};
use hmac::{Hmac, Mac};
use serde::Deserialize;
use sha2::Sha256;

use super::domain::Incoming;

const PATH: &str = "/openapi/v1/violations";
/// The authority's largest page.
const PAGE_SIZE: usize = 50;
/// A 429 is retried this many times before the plate is given up for the round.
const RETRIES: u32 = 5;
/// The longest `Retry-After` waited for.
const MAX_WAIT: Duration = Duration::from_secs(60);

/// Where the authority is and the app's credentials
/// (`FLEETDESK_TRAFFIC_AUTHORITY_URL`, `_KEY`, `_SECRET`).
#[derive(Clone)]
pub struct AuthorityConfig {
    pub url: String,
    pub app_key: String,
    pub secret: String,
}

impl std::fmt::Debug for AuthorityConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthorityConfig")
            .field("url", &self.url)
            .field("app_key", &self.app_key)
            .finish_non_exhaustive()
    }
}

impl AuthorityConfig {
    /// From the environment; `None` when no URL is set (no fetching).
    pub fn from_env() -> Option<AuthorityConfig> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Some(AuthorityConfig {
            url: var("FLEETDESK_TRAFFIC_AUTHORITY_URL")?,
            app_key: var("FLEETDESK_TRAFFIC_AUTHORITY_KEY").unwrap_or_default(),
            secret: var("FLEETDESK_TRAFFIC_AUTHORITY_SECRET").unwrap_or_default(),
        })
    }
}

/// Why a fetch failed.
#[derive(Debug, thiserror::Error)]
pub enum FetchError {
    #[error("traffic authority unreachable: {0}")]
    Http(#[from] reqwest::Error),
    #[error("traffic authority answered {status}: {message}")]
    Refused { status: u16, message: String },
    #[error("traffic authority still rate limiting after {0} retries")]
    Throttled(u32),
}

#[derive(Debug, Deserialize)]
struct Envelope {
    code: i64,
    #[serde(default)]
    message: String,
    data: Option<Page>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Page {
    total: usize,
    records: Vec<Record>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Record {
    decision_no: String,
    plate: String,
    time: DateTime<chrono::FixedOffset>,
    #[serde(default)]
    address: String,
    lng: Option<f64>,
    lat: Option<f64>,
    #[serde(default)]
    city_code: String,
    act_code: String,
    #[serde(default)]
    act_text: String,
    fine_fen: i64,
    points: i32,
    #[serde(default)]
    authority: String,
}

impl From<Record> for Incoming {
    fn from(r: Record) -> Incoming {
        Incoming {
            decision_no: r.decision_no,
            plate: r.plate,
            time: r.time.with_timezone(&Utc),
            address: r.address,
            point: r.lng.zip(r.lat),
            city_code: r.city_code,
            offence_code: r.act_code,
            description: r.act_text,
            fine_fen: r.fine_fen,
            points: r.points,
            authority: r.authority,
        }
    }
}

/// A client of the authority.
#[derive(Debug, Clone)]
pub struct Authority {
    config: AuthorityConfig,
    http: reqwest::Client,
    page_size: usize,
}

/// `pairs` as sent: each pair form-encoded, sorted.
fn query_string(pairs: &[(&str, String)]) -> String {
    let mut encoded: Vec<String> = pairs
        .iter()
        .map(|(k, v)| serde_urlencoded::to_string([(k, v)]).unwrap_or_default())
        .collect();
    encoded.sort();
    encoded.join("&")
}

/// The request's signature.
fn signature(secret: &str, text: &str) -> String {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

impl Authority {
    pub fn new(config: AuthorityConfig) -> Result<Authority, FetchError> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(20))
            .build()?;
        Ok(Authority {
            config,
            http,
            page_size: PAGE_SIZE,
        })
    }

    /// Asks for pages of `size` (at most the authority's largest).
    pub fn with_page_size(mut self, size: usize) -> Authority {
        self.page_size = size.clamp(1, PAGE_SIZE);
        self
    }

    /// One signed page; a 429 waited out and retried with a new signature.
    async fn page(
        &self,
        plate: &str,
        (from, to): (NaiveDate, NaiveDate),
        page_no: usize,
    ) -> Result<Page, FetchError> {
        let query = query_string(&[
            ("plate", plate.to_owned()),
            ("startDate", from.format("%Y-%m-%d").to_string()),
            ("endDate", to.format("%Y-%m-%d").to_string()),
            ("pageNo", page_no.to_string()),
            ("pageSize", self.page_size.to_string()),
        ]);
        let url = format!("{}{PATH}?{query}", self.config.url.trim_end_matches('/'));
        for _ in 0..=RETRIES {
            let timestamp = Utc::now().timestamp().to_string();
            let nonce = uuid::Uuid::new_v4().simple().to_string();
            let text = format!(
                "GET\n{PATH}\n{query}\n{}\n{timestamp}\n{nonce}",
                self.config.app_key
            );
            let answer = self
                .http
                .get(&url)
                .header("X-App-Key", &self.config.app_key)
                .header("X-Timestamp", &timestamp)
                .header("X-Nonce", &nonce)
                .header("X-Signature", signature(&self.config.secret, &text))
                .send()
                .await?;
            let status = answer.status();
            if status == reqwest::StatusCode::TOO_MANY_REQUESTS {
                let wait = answer
                    .headers()
                    .get(reqwest::header::RETRY_AFTER)
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| v.trim().parse::<u64>().ok())
                    .map_or(Duration::from_secs(1), Duration::from_secs)
                    .min(MAX_WAIT);
                tracing::debug!(
                    wait_s = wait.as_secs(),
                    "Traffic authority rate limited; waiting."
                );
                tokio::time::sleep(wait).await;
                continue;
            }
            let body: Option<Envelope> = answer.json().await.ok();
            return match body {
                Some(Envelope {
                    code: 0,
                    data: Some(page),
                    ..
                }) if status.is_success() => Ok(page),
                other => Err(FetchError::Refused {
                    status: status.as_u16(),
                    message: other.map(|e| e.message).unwrap_or_default(),
                }),
            };
        }
        Err(FetchError::Throttled(RETRIES))
    }

    /// Every violation of `plate` on the Beijing days `from..=to`, page by page.
    pub async fn violations(
        &self,
        plate: &str,
        from: NaiveDate,
        to: NaiveDate,
    ) -> Result<Vec<Incoming>, FetchError> {
        let mut out = Vec::new();
        let mut page_no = 1;
        loop {
            let page = self.page(plate, (from, to), page_no).await?;
            let got = page.records.len();
            out.extend(page.records.into_iter().map(Incoming::from));
            if got == 0 || out.len() >= page.total {
                return Ok(out);
            }
            page_no += 1;
        }
    }
}
