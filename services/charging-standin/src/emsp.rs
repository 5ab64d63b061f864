//! The platform's calls to the eMSP (energy): the registration handshake
//! (energy's versions and version details with the bootstrap token A, then
//! `POST credentials`), and then, with the token C energy answered, at the
//! URLs its version details listed: real-time authorisation, session
//! PUT/PATCH, CDRs, EVSE status, plate recognitions, command results, and
//! the token list it learns cards and plates from. Pushes are retried a
//! few times on a transport failure or server error, as a CPO does; the
//! eMSP must take a repeat as the same push.

use std::sync::{Arc, RwLock};
use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_ocpi::credentials::{
    self as oc, Credentials, InterfaceRole, ModuleId, Role, Version, VersionDetails,
};
use fleetdesk_ocpi::{
    AuthorizationInfo, CORRELATION_ID_HEADER, COUNTRY, Cdr, CommandResult, Empty, EvsePatch,
    LocationReferences, PLATE_SCAN_MODULE, PageQuery, PlateScan, REQUEST_ID_HEADER, Session,
    SessionPatch, TOTAL_COUNT_HEADER, Token, TokenType, VERSION, authorization, next_page, status,
};
use serde::de::DeserializeOwned;
use tokio::sync::watch;

/// Attempts of one push.
const ATTEMPTS: u32 = 3;

/// Why a call to the eMSP failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EmspError {
    /// No answer, or not an OCPI one.
    Transport(String),
    /// An OCPI answer with a status other than success.
    Refused { status_code: u32, message: String },
    /// The platform has not registered with the eMSP (yet).
    NotRegistered,
    /// The eMSP's versions or credentials are not what the platform needs.
    Unusable(String),
}

impl std::fmt::Display for EmspError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            EmspError::Transport(e) => write!(f, "eMSP unreachable: {e}"),
            EmspError::Refused {
                status_code,
                message,
            } => write!(f, "eMSP refused ({status_code}): {message}"),
            EmspError::NotRegistered => f.write_str("not registered with the eMSP yet"),
            EmspError::Unusable(e) => write!(f, "eMSP not usable: {e}"),
        }
    }
}

impl std::error::Error for EmspError {}

impl EmspError {
    /// Worth another attempt: the eMSP was down or failed on its side.
    pub(crate) fn retryable(&self) -> bool {
        match self {
            EmspError::Transport(_) => true,
            EmspError::Refused { status_code, .. } => *status_code >= status::SERVER_ERROR,
            EmspError::NotRegistered | EmspError::Unusable(_) => false,
        }
    }
}

/// The eMSP's modules the platform uses, as its version details list them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EmspEndpoints {
    pub credentials: String,
    pub tokens: String,
    pub sessions: String,
    pub cdrs: String,
    pub locations: String,
    pub plate_scans: String,
}

impl EmspEndpoints {
    /// The modules the platform needs of an eMSP, or the identifiers of
    /// those it lacks.
    pub fn of(details: &VersionDetails) -> Result<EmspEndpoints, Vec<ModuleId>> {
        let mut missing = Vec::new();
        let mut url = |id: ModuleId, role| match details.url(&id, role) {
            Some(u) => u.trim_end_matches('/').to_owned(),
            None => {
                missing.push(id);
                String::new()
            }
        };
        let endpoints = EmspEndpoints {
            credentials: url(ModuleId::Credentials, InterfaceRole::Sender),
            tokens: url(ModuleId::Tokens, InterfaceRole::Sender),
            sessions: url(ModuleId::Sessions, InterfaceRole::Receiver),
            cdrs: url(ModuleId::Cdrs, InterfaceRole::Receiver),
            locations: url(ModuleId::Locations, InterfaceRole::Receiver),
            plate_scans: url(
                ModuleId::Custom(PLATE_SCAN_MODULE.to_owned()),
                InterfaceRole::Receiver,
            ),
        };
        if missing.is_empty() {
            Ok(endpoints)
        } else {
            Err(missing)
        }
    }
}

/// The platform's registration with the eMSP.
#[derive(Debug)]
struct Connection {
    endpoints: EmspEndpoints,
    /// The `Authorization` header value (token C).
    auth: String,
}

/// A client of one eMSP. Cheap to clone; clones share the registration.
#[derive(Debug, Clone)]
pub struct Emsp {
    http: reqwest::Client,
    party_id: String,
    connection: Arc<RwLock<Option<Arc<Connection>>>>,
    registered: Arc<watch::Sender<bool>>,
}

impl Emsp {
    /// A client not registered yet ([`Emsp::register`]).
    pub fn new(party_id: &str) -> Emsp {
        Emsp {
            // Generous: the eMSP answers a burst of pushes (every pile of a
            // city at once) one capture at a time on its revenue account.
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(30))
                .build()
                .expect("HTTP client"),
            party_id: party_id.to_owned(),
            connection: Arc::new(RwLock::new(None)),
            registered: Arc::new(watch::Sender::new(false)),
        }
    }

    fn connection(&self) -> Result<Arc<Connection>, EmspError> {
        self.connection
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
            .ok_or(EmspError::NotRegistered)
    }

    /// Whether the platform has registered.
    pub fn is_registered(&self) -> bool {
        *self.registered.borrow()
    }

    /// Resolves once the platform has registered.
    pub async fn registered(&self) {
        let mut registered = self.registered.subscribe();
        // The sender lives as long as `self`.
        let _ = registered.wait_for(|r| *r).await;
    }

    /// One run of the credentials handshake: the eMSP's versions and 2.2.1
    /// details with `token_a`, then `ours` posted to its credentials module;
    /// from then on every call presents the token C it answered.
    pub async fn register(
        &self,
        versions_url: &str,
        token_a: &str,
        ours: &Credentials,
    ) -> Result<(), EmspError> {
        let bootstrap = authorization(token_a);
        let versions: Vec<Version> = self.get(versions_url, &bootstrap).await?;
        let version = oc::pick(&versions, VERSION)
            .ok_or_else(|| EmspError::Unusable(format!("no OCPI {VERSION} at {versions_url}")))?;
        let details: VersionDetails = self.get(&version.url, &bootstrap).await?;
        let endpoints = EmspEndpoints::of(&details).map_err(|missing| {
            let missing: Vec<String> = missing.iter().map(ToString::to_string).collect();
            EmspError::Unusable(format!("no {} module", missing.join(", ")))
        })?;
        let response = identified(self.http.post(&endpoints.credentials))
            .header(reqwest::header::AUTHORIZATION, &bootstrap)
            .json(ours)
            .send()
            .await
            .map_err(|e| EmspError::Transport(e.to_string()))?;
        let theirs: Credentials = answer(response).await?;
        oc::check_token(&theirs.token).map_err(|e| EmspError::Unusable(e.to_string()))?;
        if theirs.role(Role::Emsp).is_none() {
            return Err(EmspError::Unusable(
                "the credentials name no EMSP role".into(),
            ));
        }
        *self.connection.write().unwrap_or_else(|p| p.into_inner()) = Some(Arc::new(Connection {
            endpoints,
            auth: authorization(&theirs.token),
        }));
        self.registered.send_replace(true);
        Ok(())
    }

    async fn get<T: DeserializeOwned>(&self, url: &str, auth: &str) -> Result<T, EmspError> {
        let response = identified(self.http.get(url))
            .header(reqwest::header::AUTHORIZATION, auth)
            .send()
            .await
            .map_err(|e| EmspError::Transport(e.to_string()))?;
        answer(response).await
    }

    /// Asks whether `uid` may charge at `location`.
    pub async fn authorize(
        &self,
        uid: &str,
        kind: TokenType,
        location: &LocationReferences,
    ) -> Result<AuthorizationInfo, EmspError> {
        let c = self.connection()?;
        let url = format!("{}/{}/authorize", c.endpoints.tokens, encode(uid));
        let request = self
            .http
            .post(url)
            .query(&[("type", kind.as_query())])
            .json(location);
        // Not retried: a second request would be a second authorisation.
        self.call(&c, request).await
    }

    pub async fn put_session(&self, session: &Session) -> Result<(), EmspError> {
        let c = self.connection()?;
        let url = format!(
            "{}/{COUNTRY}/{}/{}",
            c.endpoints.sessions, self.party_id, session.id
        );
        self.push(&c, || self.http.put(&url).json(session)).await
    }

    pub async fn patch_session(&self, id: &str, patch: &SessionPatch) -> Result<(), EmspError> {
        let c = self.connection()?;
        let url = format!("{}/{COUNTRY}/{}/{id}", c.endpoints.sessions, self.party_id);
        self.push(&c, || self.http.patch(&url).json(patch)).await
    }

    pub async fn post_cdr(&self, cdr: &Cdr) -> Result<(), EmspError> {
        let c = self.connection()?;
        self.push(&c, || self.http.post(&c.endpoints.cdrs).json(cdr))
            .await
    }

    pub async fn patch_evse(
        &self,
        location_id: &str,
        evse_uid: &str,
        patch: &EvsePatch,
    ) -> Result<(), EmspError> {
        let c = self.connection()?;
        let url = format!(
            "{}/{COUNTRY}/{}/{location_id}/{evse_uid}",
            c.endpoints.locations, self.party_id
        );
        self.push(&c, || self.http.patch(&url).json(patch)).await
    }

    pub async fn post_plate_scan(&self, scan: &PlateScan) -> Result<(), EmspError> {
        let c = self.connection()?;
        self.push(&c, || self.http.post(&c.endpoints.plate_scans).json(scan))
            .await
    }

    /// Posts a command's result to the `response_url` the eMSP gave.
    pub async fn post_command_result(
        &self,
        response_url: &str,
        result: &CommandResult,
    ) -> Result<(), EmspError> {
        let c = self.connection()?;
        self.push(&c, || self.http.post(response_url).json(result))
            .await
    }

    /// Every token changed since `since` (all with `None`), page by page
    /// as the eMSP's `Link` headers lead (by offset when it sends none).
    pub async fn tokens(&self, since: Option<DateTime<Utc>>) -> Result<Vec<Token>, EmspError> {
        let c = self.connection()?;
        let mut tokens = Vec::new();
        let mut link: Option<String> = None;
        loop {
            let request = match link.take() {
                Some(url) => self.http.get(url),
                None => self.http.get(&c.endpoints.tokens).query(&PageQuery {
                    date_from: since,
                    offset: tokens.len(),
                    ..PageQuery::default()
                }),
            };
            let response = identified(request)
                .header(reqwest::header::AUTHORIZATION, &c.auth)
                .send()
                .await
                .map_err(|e| EmspError::Transport(e.to_string()))?;
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let total = header(TOTAL_COUNT_HEADER).and_then(|v| v.parse::<usize>().ok());
            let next = header(reqwest::header::LINK.as_str()).and_then(|l| next_page(&l));
            let page: Vec<Token> = answer(response).await?;
            let empty = page.is_empty();
            tokens.extend(page);
            if empty || total.is_none_or(|t| tokens.len() >= t) {
                return Ok(tokens);
            }
            link = next;
        }
    }

    async fn call<T: DeserializeOwned>(
        &self,
        c: &Connection,
        request: reqwest::RequestBuilder,
    ) -> Result<T, EmspError> {
        let response = identified(request)
            .header(reqwest::header::AUTHORIZATION, &c.auth)
            .send()
            .await
            .map_err(|e| EmspError::Transport(e.to_string()))?;
        answer(response).await
    }

    /// Sends a push, again after a short pause while it is worth it.
    async fn push<F>(&self, c: &Connection, request: F) -> Result<(), EmspError>
    where
        F: Fn() -> reqwest::RequestBuilder,
    {
        let mut attempt = 1;
        loop {
            match self.call::<serde_json::Value>(c, request()).await {
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

    /// PUTs `body` to `url` (one of the eMSP's) as the registered platform,
    /// once and as given: the HTTP status and the OCPI answer, whatever it
    /// says. Tests push objects with it as another CPO would write them
    /// (the standard's examples).
    pub async fn put_raw(
        &self,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<(u16, Empty), EmspError> {
        self.raw(self.http.put(url).json(body)).await
    }

    /// PATCHes `body` to `url`, as [`Emsp::put_raw`].
    pub async fn patch_raw(
        &self,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<(u16, Empty), EmspError> {
        self.raw(self.http.patch(url).json(body)).await
    }

    /// POSTs `body` to `url`, as [`Emsp::put_raw`].
    pub async fn post_raw(
        &self,
        url: &str,
        body: &serde_json::Value,
    ) -> Result<(u16, Empty), EmspError> {
        self.raw(self.http.post(url).json(body)).await
    }

    /// Sends `request` as the registered platform (its token, nothing
    /// else added) and answers the response as it came: tests read its
    /// headers.
    pub async fn send_raw(
        &self,
        request: impl FnOnce(&reqwest::Client) -> reqwest::RequestBuilder,
    ) -> Result<reqwest::Response, EmspError> {
        let c = self.connection()?;
        request(&self.http)
            .header(reqwest::header::AUTHORIZATION, &c.auth)
            .send()
            .await
            .map_err(|e| EmspError::Transport(e.to_string()))
    }

    /// GETs `url` as the registered platform: the HTTP status and the OCPI
    /// answer (its data as JSON).
    pub async fn get_raw(&self, url: &str) -> Result<(u16, Empty), EmspError> {
        self.raw(self.http.get(url)).await
    }

    /// DELETEs `url`, as [`Emsp::put_raw`].
    pub async fn delete_raw(&self, url: &str) -> Result<(u16, Empty), EmspError> {
        self.raw(self.http.delete(url)).await
    }

    async fn raw(&self, request: reqwest::RequestBuilder) -> Result<(u16, Empty), EmspError> {
        let c = self.connection()?;
        let response = identified(request)
            .header(reqwest::header::AUTHORIZATION, &c.auth)
            .send()
            .await
            .map_err(|e| EmspError::Transport(e.to_string()))?;
        let http = response.status().as_u16();
        let envelope: Empty = response
            .json()
            .await
            .map_err(|_| EmspError::Transport(format!("HTTP {http}, not an OCPI answer")))?;
        Ok((http, envelope))
    }
}

/// A request as OCPI sends each: its own `X-Request-ID`, and the
/// `X-Correlation-ID` of the exchange it starts.
fn identified(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    let id = || format!("{:032x}", rand::random::<u128>());
    request
        .header(REQUEST_ID_HEADER, id())
        .header(CORRELATION_ID_HEADER, id())
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
    use fleetdesk_ocpi::credentials::{ModuleId, VersionDetails};

    use super::EmspEndpoints;

    #[test]
    fn the_emsps_endpoints_are_taken_from_its_version_details() {
        let details: VersionDetails = serde_json::from_str(
            r#"{ "version": "2.2.1", "endpoints": [
                { "identifier": "credentials", "role": "SENDER", "url": "http://e/ocpi/emsp/2.2.1/credentials" },
                { "identifier": "tokens", "role": "SENDER", "url": "http://e/ocpi/emsp/2.2.1/tokens" },
                { "identifier": "sessions", "role": "RECEIVER", "url": "http://e/ocpi/emsp/2.2.1/sessions" },
                { "identifier": "cdrs", "role": "RECEIVER", "url": "http://e/ocpi/emsp/2.2.1/cdrs" },
                { "identifier": "locations", "role": "RECEIVER", "url": "http://e/ocpi/emsp/2.2.1/locations" },
                { "identifier": "x-plate-scans", "role": "RECEIVER", "url": "http://e/ocpi/emsp/2.2.1/x-plate-scans" }
            ] }"#,
        )
        .unwrap();
        let endpoints = EmspEndpoints::of(&details).unwrap();
        assert_eq!(endpoints.tokens, "http://e/ocpi/emsp/2.2.1/tokens");
        assert_eq!(
            endpoints.plate_scans,
            "http://e/ocpi/emsp/2.2.1/x-plate-scans"
        );
    }

    #[test]
    fn an_emsp_listing_a_module_in_the_wrong_role_lacks_it() {
        let details: VersionDetails = serde_json::from_str(
            r#"{ "version": "2.2.1", "endpoints": [
                { "identifier": "credentials", "role": "RECEIVER", "url": "http://e/credentials" },
                { "identifier": "tokens", "role": "RECEIVER", "url": "http://e/tokens" }
            ] }"#,
        )
        .unwrap();
        let missing = EmspEndpoints::of(&details).unwrap_err();
        assert_eq!(
            missing,
            vec![
                ModuleId::Tokens,
                ModuleId::Sessions,
                ModuleId::Cdrs,
                ModuleId::Locations,
                ModuleId::Custom("x-plate-scans".to_owned()),
            ]
        );
    }

    #[test]
    fn plates_are_percent_encoded_in_paths() {
        assert_eq!(super::encode("粤B"), "%E7%B2%A4B");
        assert_eq!(super::encode("CARD-01"), "CARD-01");
    }
}
