//! The platform's calls to the eMSP (energy): real-time authorisation,
//! session PUT/PATCH, CDRs, EVSE status, plate recognitions, command
//! results, and the token list it learns cards and plates from. Pushes are
//! retried a few times on a transport failure or server error, as a CPO
//! does; the eMSP must take a repeat as the same push.

use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_ocpi::{
    AuthorizationInfo, COUNTRY, Cdr, CommandResult, EMSP_BASE, Empty, EvsePatch,
    LocationReferences, PLATE_SCAN_MODULE, PageQuery, PlateScan, Session, SessionPatch,
    TOTAL_COUNT_HEADER, Token, TokenType, authorization, status,
};
use serde::de::DeserializeOwned;

/// Attempts of one push.
const ATTEMPTS: u32 = 3;

/// Why a call to the eMSP failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmspError {
    /// No answer, or not an OCPI one.
    Transport(String),
    /// An OCPI answer with a status other than success.
    Refused { status_code: u32, message: String },
}

impl std::fmt::Display for EmspError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmspError::Transport(e) => write!(f, "eMSP unreachable: {e}"),
            EmspError::Refused {
                status_code,
                message,
            } => write!(f, "eMSP refused ({status_code}): {message}"),
        }
    }
}

impl std::error::Error for EmspError {}

impl EmspError {
    /// Worth another attempt: the eMSP was down or failed on its side.
    fn retryable(&self) -> bool {
        match self {
            EmspError::Transport(_) => true,
            EmspError::Refused { status_code, .. } => *status_code >= status::SERVER_ERROR,
        }
    }
}

/// A client of one eMSP.
#[derive(Debug, Clone)]
pub struct Emsp {
    http: reqwest::Client,
    /// Scheme, host and port, e.g. `http://127.0.0.1:8091`.
    base: String,
    /// The `Authorization` header value.
    auth: String,
    party_id: String,
}

impl Emsp {
    pub fn new(base: &str, token: &str, party_id: &str) -> Emsp {
        Emsp {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()
                .expect("HTTP client"),
            base: base.trim_end_matches('/').to_owned(),
            auth: authorization(token),
            party_id: party_id.to_owned(),
        }
    }

    fn url(&self, path: &str) -> String {
        format!("{}{EMSP_BASE}/{path}", self.base)
    }

    /// Asks whether `uid` may charge at `location`.
    pub async fn authorize(
        &self,
        uid: &str,
        kind: TokenType,
        location: &LocationReferences,
    ) -> Result<AuthorizationInfo, EmspError> {
        let url = self.url(&format!("tokens/{}/authorize", encode(uid)));
        let request = self
            .http
            .post(url)
            .query(&[("type", kind.as_query())])
            .json(location);
        // Not retried: a second request would be a second authorisation.
        self.call(request).await
    }

    pub async fn put_session(&self, session: &Session) -> Result<(), EmspError> {
        let url = self.url(&format!(
            "sessions/{COUNTRY}/{}/{}",
            self.party_id, session.id
        ));
        self.push(|| self.http.put(&url).json(session)).await
    }

    pub async fn patch_session(&self, id: &str, patch: &SessionPatch) -> Result<(), EmspError> {
        let url = self.url(&format!("sessions/{COUNTRY}/{}/{id}", self.party_id));
        self.push(|| self.http.patch(&url).json(patch)).await
    }

    pub async fn post_cdr(&self, cdr: &Cdr) -> Result<(), EmspError> {
        let url = self.url("cdrs");
        self.push(|| self.http.post(&url).json(cdr)).await
    }

    pub async fn patch_evse(
        &self,
        location_id: &str,
        evse_uid: &str,
        patch: &EvsePatch,
    ) -> Result<(), EmspError> {
        let url = self.url(&format!(
            "locations/{COUNTRY}/{}/{location_id}/{evse_uid}",
            self.party_id
        ));
        self.push(|| self.http.patch(&url).json(patch)).await
    }

    pub async fn post_plate_scan(&self, scan: &PlateScan) -> Result<(), EmspError> {
        let url = self.url(PLATE_SCAN_MODULE);
        self.push(|| self.http.post(&url).json(scan)).await
    }

    /// Posts a command's result to the `response_url` the eMSP gave.
    pub async fn post_command_result(
        &self,
        response_url: &str,
        result: &CommandResult,
    ) -> Result<(), EmspError> {
        self.push(|| self.http.post(response_url).json(result))
            .await
    }

    /// Every token changed since `since` (all with `None`), page by page.
    pub async fn tokens(&self, since: Option<DateTime<Utc>>) -> Result<Vec<Token>, EmspError> {
        let mut tokens = Vec::new();
        loop {
            let query = PageQuery {
                date_from: since,
                offset: tokens.len(),
                ..PageQuery::default()
            };
            let response = self
                .http
                .get(self.url("tokens"))
                .header(reqwest::header::AUTHORIZATION, &self.auth)
                .query(&query)
                .send()
                .await
                .map_err(|e| EmspError::Transport(e.to_string()))?;
            let total = response
                .headers()
                .get(TOTAL_COUNT_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok());
            let page: Vec<Token> = answer(response).await?;
            let empty = page.is_empty();
            tokens.extend(page);
            if empty || total.is_none_or(|t| tokens.len() >= t) {
                return Ok(tokens);
            }
        }
    }

    async fn call<T: DeserializeOwned>(
        &self,
        request: reqwest::RequestBuilder,
    ) -> Result<T, EmspError> {
        let response = request
            .header(reqwest::header::AUTHORIZATION, &self.auth)
            .send()
            .await
            .map_err(|e| EmspError::Transport(e.to_string()))?;
        answer(response).await
    }

    /// Sends a push, again after a short pause while it is worth it.
    async fn push<F>(&self, request: F) -> Result<(), EmspError>
    where
        F: Fn() -> reqwest::RequestBuilder,
    {
        let mut attempt = 1;
        loop {
            match self.call::<serde_json::Value>(request()).await {
                Ok(_) => return Ok(()),
                Err(err) if attempt < ATTEMPTS && err.retryable() => {
                    tracing::debug!(error = %err, attempt, "Push failed; retrying.");
                    tokio::time::sleep(Duration::from_millis(200 * u64::from(attempt))).await;
                    attempt += 1;
                }
                Err(err) => return Err(err),
            }
        }
    }
}

/// The data of an OCPI answer, or why there is none.
async fn answer<T: DeserializeOwned>(response: reqwest::Response) -> Result<T, EmspError> {
    let http = response.status();
    let envelope: Empty = response
        .json()
        .await
        .map_err(|_| EmspError::Transport(format!("HTTP {http}, not an OCPI answer")))?;
    if !envelope.is_success() {
        return Err(EmspError::Refused {
            status_code: envelope.status_code,
            message: envelope.status_message.unwrap_or_default(),
        });
    }
    serde_json::from_value(envelope.data.unwrap_or(serde_json::Value::Null))
        .map_err(|e| EmspError::Transport(format!("unreadable answer: {e}")))
}

/// A token uid in a path segment (plates carry Chinese characters).
fn encode(uid: &str) -> String {
    let mut out = String::with_capacity(uid.len() * 3);
    for b in uid.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn plates_are_percent_encoded_in_paths() {
        assert_eq!(super::encode("粤B"), "%E7%B2%A4B");
        assert_eq!(super::encode("CARD-01"), "CARD-01");
    }
}
