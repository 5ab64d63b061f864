//! How the charging platform registers with energy, as OCPI 2.2.1's
//! configuration modules have it: energy's versions (`GET /ocpi/versions`),
//! its 2.2.1 version details (`GET /ocpi/2.2.1`: every module it serves,
//! with its interface role) and the credentials module
//! (`{EMSP_BASE}/credentials`: GET, POST to register, PUT to update,
//! DELETE to unregister).
//!
//! Tokens: energy's configuration gives the bootstrap token A, good for
//! versions, details and one registration only. A registering platform
//! POSTs its token B and versions URL; energy fetches the platform's
//! versions and 2.2.1 details with B, keeps the modules it uses, and
//! answers a fresh token C, which the platform presents from then on.
//! The registration lives in `ocpi_registration` (one row: energy meets one
//! platform at a time) with B as given (energy sends it) and only SHA-256
//! digests of A and C (energy only ever compares them).
//!
//! The [`Registry`] keeps the registration in memory for the token check
//! and for everything that calls the platform (a [`Link`]), and reads it
//! again every few seconds and when an unknown token shows up, so every
//! energy process follows a registration made through any of them.

use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use axum::Json;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use chrono::{DateTime, Utc};
use fleetdesk_ocpi::credentials::{
    self as oc, Credentials, CredentialsRole, DETAILS_PATH, Endpoint, InterfaceRole, ModuleId,
    Role, VERSIONS_PATH, Version, VersionDetails,
};
use fleetdesk_ocpi::{
    BusinessDetails, COUNTRY, EMSP_BASE, Empty, Envelope, PLATE_SCAN_MODULE, VERSION, status,
    token_of,
};
use secrecy::{ExposeSecret as _, SecretString};
use sha2::{Digest as _, Sha256};
use sqlx::types::Json as Jsonb;
use sqlx_postgres::PgPool;
use tokio::sync::watch;

use crate::ledger::CaptureGroup;
use crate::platform::client::{Cpo, CpoEndpoints};
use crate::platform::{EMSP_PARTY_ID, Platform};

/// Energy's name in its credentials.
const BUSINESS_NAME: &str = "Fleetdesk";
/// How long an unknown token waits before it makes energy read the
/// registration again (a registration through another energy process).
const REREAD_AFTER: Duration = Duration::from_secs(1);

/// SHA-256 of a credentials token.
type Digest = [u8; 32];

fn digest(token: &str) -> Digest {
    Sha256::digest(token.as_bytes()).into()
}

/// A fresh token C: 32 random bytes in hex, the longest token OCPI allows.
fn new_token() -> String {
    hex::encode(rand::random::<[u8; 32]>())
}

/// The registered platform: how energy reaches it and the module routes
/// that serve it (built by the receiver on first use).
pub(super) struct Link {
    pub(super) platform: Platform,
    token_c: Digest,
    /// The row's `updated_at`: a new one is a new registration or update.
    revision: DateTime<Utc>,
    pub(super) routes: OnceLock<axum::Router>,
}

/// What energy knows of the registration at one moment.
#[derive(Clone, Default)]
pub(super) struct Snapshot {
    pub(super) link: Option<Arc<Link>>,
    /// The token A a registration has used.
    spent_a: Option<Digest>,
}

/// Whether two snapshots name the same registration.
pub(super) fn same_link(a: &Option<Arc<Link>>, b: &Option<Arc<Link>>) -> bool {
    match (a, b) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        (None, None) => true,
        (Some(_), None) | (None, Some(_)) => false,
    }
}

/// Who presented a request's token.
pub(super) enum Caller {
    /// The registered platform, by its token C.
    Party(Arc<Link>),
    /// Token A, not used for a registration yet.
    Bootstrap,
    /// Token A after a registration used it.
    SpentBootstrap,
}

/// The registration, shared by the receiver, the token check and the
/// background work that follows the platform.
#[derive(Clone)]
pub struct Registry {
    inner: Arc<Inner>,
}

struct Inner {
    pool: PgPool,
    /// Every link's capture group: one per process, kept across registrations.
    captures: CaptureGroup,
    http: reqwest::Client,
    token_a: Digest,
    /// Where the platform reaches energy: scheme, host and port.
    public_url: String,
    state: watch::Sender<Snapshot>,
    /// One registration change at a time in this process; between
    /// processes the row's conditional writes decide.
    changing: tokio::sync::Mutex<()>,
    /// When the registration was last read.
    read_at: Mutex<Instant>,
}

#[derive(Debug, sqlx::FromRow)]
struct RegistrationRow {
    party_id: String,
    endpoints: Jsonb<Vec<Endpoint>>,
    token_b: String,
    token_c_hash: Option<Vec<u8>>,
    token_a_hash: Vec<u8>,
    updated_at: DateTime<Utc>,
}

const COLUMNS: &str = "party_id, endpoints, token_b, token_c_hash, token_a_hash, updated_at";

/// The platform as a registration describes it, checked and fetched.
struct Connected {
    role: CredentialsRole,
    versions_url: String,
    endpoints: Vec<Endpoint>,
    token_b: String,
}

impl Registry {
    /// The registry with the registration as stored.
    pub(super) async fn open(
        pool: PgPool,
        captures: CaptureGroup,
        token_a: &SecretString,
        public_url: String,
    ) -> anyhow::Result<Registry> {
        let registry = Registry {
            inner: Arc::new(Inner {
                pool,
                captures,
                http: reqwest::Client::builder()
                    .timeout(Duration::from_secs(10))
                    .build()?,
                token_a: digest(token_a.expose_secret()),
                public_url,
                state: watch::Sender::new(Snapshot::default()),
                changing: tokio::sync::Mutex::new(()),
                read_at: Mutex::new(Instant::now()),
            }),
        };
        registry.reload().await?;
        Ok(registry)
    }

    /// Follows the registration as it changes.
    pub(super) fn subscribe(&self) -> watch::Receiver<Snapshot> {
        self.inner.state.subscribe()
    }

    /// Reads the registration again (another process may have changed it).
    pub(super) async fn reload(&self) -> Result<(), sqlx::Error> {
        *self.inner.read_at.lock().unwrap_or_else(|p| p.into_inner()) = Instant::now();
        let row: Option<RegistrationRow> =
            sqlx::query_as(&format!("select {COLUMNS} from ocpi_registration"))
                .fetch_optional(&self.inner.pool)
                .await?;
        self.apply(row);
        Ok(())
    }

    /// Publishes the registration `row` holds, keeping the current link
    /// (its routes, the work following it) when it is the same one.
    fn apply(&self, row: Option<RegistrationRow>) {
        self.inner.state.send_if_modified(|current| {
            let Some(row) = row else {
                let changed = current.link.is_some() || current.spent_a.is_some();
                *current = Snapshot::default();
                return changed;
            };
            let spent_a = Digest::try_from(row.token_a_hash.as_slice()).ok();
            let token_c = row
                .token_c_hash
                .as_deref()
                .and_then(|h| Digest::try_from(h).ok());
            let unchanged = match (&current.link, token_c) {
                (Some(link), Some(c)) => link.token_c == c && link.revision == row.updated_at,
                (None, None) => true,
                (Some(_), None) | (None, Some(_)) => false,
            };
            if unchanged && current.spent_a == spent_a {
                return false;
            }
            if !unchanged {
                current.link = token_c.and_then(|c| self.link(&row, c).map(Arc::new));
            }
            current.spent_a = spent_a;
            true
        });
    }

    fn link(&self, row: &RegistrationRow, token_c: Digest) -> Option<Link> {
        let details = VersionDetails {
            version: VERSION.to_owned(),
            endpoints: row.endpoints.0.clone(),
        };
        let endpoints = match CpoEndpoints::of(&details) {
            Ok(endpoints) => endpoints,
            Err(missing) => {
                // Checked at registration; only a hand-edited row gets here.
                tracing::error!(?missing, "The stored registration lacks modules; ignored.");
                return None;
            }
        };
        let cpo = Cpo::new(
            self.inner.http.clone(),
            endpoints,
            &row.token_b,
            &row.party_id,
        );
        Some(Link {
            platform: Platform::new(
                self.inner.pool.clone(),
                cpo,
                self.inner.public_url.clone(),
                self.inner.captures.clone(),
            ),
            token_c,
            revision: row.updated_at,
            routes: OnceLock::new(),
        })
    }

    /// Who presented the token of `headers`; None for no token or an
    /// unknown one.
    pub(super) async fn caller(&self, headers: &HeaderMap) -> Option<Caller> {
        let token = presented(headers)?;
        let token = digest(&token);
        if let Some(caller) = self.known(&token) {
            return Some(caller);
        }
        if self.due_for_reread() {
            if let Err(err) = self.reload().await {
                tracing::warn!(error = %err, "OCPI registration not read.");
            }
            return self.known(&token);
        }
        None
    }

    fn known(&self, token: &Digest) -> Option<Caller> {
        let state = self.inner.state.borrow();
        if let Some(link) = state.link.as_ref().filter(|l| l.token_c == *token) {
            return Some(Caller::Party(link.clone()));
        }
        (*token == self.inner.token_a).then(|| {
            if state.spent_a.as_ref() == Some(token) {
                Caller::SpentBootstrap
            } else {
                Caller::Bootstrap
            }
        })
    }

    /// True at most once per [`REREAD_AFTER`], so unknown tokens cannot
    /// make energy read the registration on every request.
    fn due_for_reread(&self) -> bool {
        let mut read_at = self.inner.read_at.lock().unwrap_or_else(|p| p.into_inner());
        if read_at.elapsed() < REREAD_AFTER {
            return false;
        }
        *read_at = Instant::now();
        true
    }

    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.inner.public_url)
    }

    /// Energy's credentials, with the token the platform is to present.
    fn credentials(&self, token: String) -> Credentials {
        Credentials {
            token,
            url: self.url(VERSIONS_PATH),
            roles: vec![CredentialsRole {
                role: Role::Emsp,
                business_details: BusinessDetails::named(BUSINESS_NAME),
                party_id: EMSP_PARTY_ID.to_owned(),
                country_code: COUNTRY.to_owned(),
            }],
        }
    }

    /// Checks the platform's credentials and fetches, with its token B,
    /// its versions and the details of 2.2.1.
    async fn connect(&self, theirs: Credentials) -> Result<Connected, Refusal> {
        oc::check_token(&theirs.token).map_err(|e| invalid(format!("Token: {e}")))?;
        let role = cpo_role(&theirs).map_err(invalid)?;
        let http = &self.inner.http;
        let versions = Cpo::versions(http, &theirs.url, &theirs.token)
            .await
            .map_err(|e| cannot_use(&format!("GET {}: {e:#}", theirs.url)))?;
        let Some(version) = oc::pick(&versions, VERSION) else {
            return Err(Refusal::ocpi(
                oc::status::UNSUPPORTED_VERSION,
                format!("Unsupported version: energy speaks OCPI {VERSION} only"),
            ));
        };
        let details = Cpo::version_details(http, &version.url, &theirs.token)
            .await
            .map_err(|e| cannot_use(&format!("GET {}: {e:#}", version.url)))?;
        if let Err(missing) = CpoEndpoints::of(&details) {
            let missing: Vec<String> = missing.iter().map(ToString::to_string).collect();
            return Err(Refusal::ocpi(
                oc::status::NO_MATCHING_ENDPOINTS,
                format!("Unable to find expected endpoints: {}", missing.join(", ")),
            ));
        }
        Ok(Connected {
            role,
            versions_url: theirs.url,
            endpoints: details.endpoints,
            token_b: theirs.token,
        })
    }

    /// POST: registers the platform presenting token A.
    async fn register(&self, theirs: Credentials) -> Result<Credentials, Refusal> {
        let _one = self.inner.changing.lock().await;
        let platform = self.connect(theirs).await?;
        let token_c = new_token();
        // A token A registers once: the row keeps the one it used, and
        // only a different (newly issued) token A replaces it.
        let row: Option<RegistrationRow> = sqlx::query_as(&format!(
            "insert into ocpi_registration \
               (country_code, party_id, business_name, versions_url, endpoints, token_b, \
                token_c_hash, token_a_hash) \
             values ($1, $2, $3, $4, $5, $6, $7, $8) \
             on conflict (id) do update set \
               country_code = excluded.country_code, party_id = excluded.party_id, \
               business_name = excluded.business_name, versions_url = excluded.versions_url, \
               endpoints = excluded.endpoints, token_b = excluded.token_b, \
               token_c_hash = excluded.token_c_hash, token_a_hash = excluded.token_a_hash, \
               registered_at = now() \
             where ocpi_registration.token_a_hash <> excluded.token_a_hash \
             returning {COLUMNS}"
        ))
        .bind(&platform.role.country_code)
        .bind(&platform.role.party_id)
        .bind(&platform.role.business_details.name)
        .bind(&platform.versions_url)
        .bind(Jsonb(&platform.endpoints))
        .bind(&platform.token_b)
        .bind(digest(&token_c).as_slice())
        .bind(self.inner.token_a.as_slice())
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(|e| failed(&e))?;
        let Some(row) = row else {
            return Err(Refusal::not_allowed("Already registered"));
        };
        self.apply(Some(row));
        tracing::info!(party = %platform.role.party_id, "Charging platform registered.");
        Ok(self.credentials(token_c))
    }

    /// PUT: the registered platform's new credentials (a new token B, its
    /// endpoints again); energy answers a new token C.
    async fn update(&self, link: &Link, theirs: Credentials) -> Result<Credentials, Refusal> {
        let _one = self.inner.changing.lock().await;
        let platform = self.connect(theirs).await?;
        let token_c = new_token();
        let row: Option<RegistrationRow> = sqlx::query_as(&format!(
            "update ocpi_registration set \
               country_code = $1, party_id = $2, business_name = $3, versions_url = $4, \
               endpoints = $5, token_b = $6, token_c_hash = $7 \
             where token_c_hash = $8 \
             returning {COLUMNS}"
        ))
        .bind(&platform.role.country_code)
        .bind(&platform.role.party_id)
        .bind(&platform.role.business_details.name)
        .bind(&platform.versions_url)
        .bind(Jsonb(&platform.endpoints))
        .bind(&platform.token_b)
        .bind(digest(&token_c).as_slice())
        .bind(link.token_c.as_slice())
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(|e| failed(&e))?;
        let Some(row) = row else {
            return Err(Refusal::not_allowed("Not registered"));
        };
        self.apply(Some(row));
        tracing::info!(party = %platform.role.party_id, "Charging platform updated its credentials.");
        Ok(self.credentials(token_c))
    }

    /// DELETE: the platform unregisters; its token C stops working.
    async fn unregister(&self, link: &Link) -> Result<(), Refusal> {
        let _one = self.inner.changing.lock().await;
        let row: Option<RegistrationRow> = sqlx::query_as(&format!(
            "update ocpi_registration set token_c_hash = null where token_c_hash = $1 \
             returning {COLUMNS}"
        ))
        .bind(link.token_c.as_slice())
        .fetch_optional(&self.inner.pool)
        .await
        .map_err(|e| failed(&e))?;
        let Some(row) = row else {
            return Err(Refusal::not_allowed("Not registered"));
        };
        self.apply(Some(row));
        tracing::info!(party = %link.platform.cpo.party_id, "Charging platform unregistered.");
        Ok(())
    }
}

/// The token an `Authorization` header carries.
fn presented(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(token_of)
}

/// The CPO role of a platform's credentials, party id upper-cased (OCPI
/// compares party ids and country codes case-insensitively).
fn cpo_role(theirs: &Credentials) -> Result<CredentialsRole, String> {
    let Some(role) = theirs.role(Role::Cpo) else {
        return Err("No CPO role: energy registers charge point operators".to_owned());
    };
    let party_id = role.party_id.trim().to_ascii_uppercase();
    if party_id.is_empty()
        || party_id.len() > 3
        || !party_id.bytes().all(|b| b.is_ascii_alphanumeric())
    {
        return Err(format!("Invalid party_id {:?}", role.party_id));
    }
    let country_code = role.country_code.trim().to_ascii_uppercase();
    if country_code.len() != 2 || !country_code.bytes().all(|b| b.is_ascii_alphabetic()) {
        return Err(format!("Invalid country_code {:?}", role.country_code));
    }
    Ok(CredentialsRole {
        role: Role::Cpo,
        business_details: role.business_details.clone(),
        party_id,
        country_code,
    })
}

/// The modules energy serves in 2.2.1, under `public_url`.
fn endpoints(public_url: &str) -> Vec<Endpoint> {
    let module = |identifier: ModuleId, role| Endpoint {
        url: format!("{public_url}{EMSP_BASE}/{identifier}"),
        identifier,
        role,
    };
    vec![
        module(ModuleId::Credentials, InterfaceRole::Sender),
        module(ModuleId::Tokens, InterfaceRole::Sender),
        module(ModuleId::Sessions, InterfaceRole::Receiver),
        module(ModuleId::Cdrs, InterfaceRole::Receiver),
        module(ModuleId::Locations, InterfaceRole::Receiver),
        module(ModuleId::Tariffs, InterfaceRole::Receiver),
        module(ModuleId::Commands, InterfaceRole::Receiver),
        module(
            ModuleId::Custom(PLATE_SCAN_MODULE.to_owned()),
            InterfaceRole::Receiver,
        ),
    ]
}

// --- HTTP ---------------------------------------------------------------------

/// An OCPI refusal: the HTTP status and the envelope's status code.
pub(super) struct Refusal(StatusCode, u32, String);

impl Refusal {
    fn ocpi(code: u32, message: impl Into<String>) -> Refusal {
        // The request reached the OCPI layer: OCPI's code, not HTTP's, says
        // what went wrong.
        Refusal(StatusCode::OK, code, message.into())
    }

    pub(super) fn unauthorized(message: &str) -> Refusal {
        Refusal(
            StatusCode::UNAUTHORIZED,
            status::CLIENT_ERROR,
            message.to_owned(),
        )
    }

    fn not_allowed(message: &str) -> Refusal {
        Refusal(
            StatusCode::METHOD_NOT_ALLOWED,
            status::CLIENT_ERROR,
            message.to_owned(),
        )
    }
}

impl IntoResponse for Refusal {
    fn into_response(self) -> Response {
        let body: Empty = Envelope::error(self.1, self.2);
        (self.0, Json(body)).into_response()
    }
}

fn invalid(message: String) -> Refusal {
    Refusal(StatusCode::BAD_REQUEST, status::INVALID_PARAMETERS, message)
}

fn cannot_use(message: &str) -> Refusal {
    tracing::warn!(%message, "Registering platform's API not usable.");
    Refusal::ocpi(
        oc::status::UNABLE_TO_USE_CLIENT_API,
        format!("Unable to use the client's API: {message}"),
    )
}

fn failed(err: &sqlx::Error) -> Refusal {
    tracing::error!(error = %err, "OCPI registration not stored.");
    Refusal(
        StatusCode::INTERNAL_SERVER_ERROR,
        status::SERVER_ERROR,
        "Server error, retry later".to_owned(),
    )
}

type Answered = Result<Response, Refusal>;

fn success<T: serde::Serialize>(data: T) -> Response {
    Json(Envelope::success(data)).into_response()
}

/// Versions, version details and credentials, each checking the token
/// itself (token A is good here, and only here).
pub(super) fn router(registry: Registry) -> axum::Router {
    axum::Router::new()
        .route(VERSIONS_PATH, get(versions))
        .route(DETAILS_PATH, get(details))
        .route(
            &format!("{EMSP_BASE}/credentials"),
            get(show).post(register).put(update).delete(unregister),
        )
        .with_state(registry)
}

/// Token A (while unspent) or the platform's token C.
async fn configuring(r: &Registry, headers: &HeaderMap) -> Result<(), Refusal> {
    match r.caller(headers).await {
        Some(Caller::Party(_) | Caller::Bootstrap) => Ok(()),
        Some(Caller::SpentBootstrap) | None => Err(Refusal::unauthorized("Unauthorized")),
    }
}

async fn versions(State(r): State<Registry>, headers: HeaderMap) -> Answered {
    configuring(&r, &headers).await?;
    Ok(success(vec![Version {
        version: VERSION.to_owned(),
        url: r.url(DETAILS_PATH),
    }]))
}

async fn details(State(r): State<Registry>, headers: HeaderMap) -> Answered {
    configuring(&r, &headers).await?;
    Ok(success(VersionDetails {
        version: VERSION.to_owned(),
        endpoints: endpoints(&r.inner.public_url),
    }))
}

async fn show(State(r): State<Registry>, headers: HeaderMap) -> Answered {
    configuring(&r, &headers).await?;
    let token = presented(&headers).unwrap_or_default();
    Ok(success(r.credentials(token)))
}

fn parse(body: &[u8]) -> Result<Credentials, Refusal> {
    serde_json::from_slice(body).map_err(|e| invalid(format!("Unreadable credentials: {e}")))
}

async fn register(State(r): State<Registry>, headers: HeaderMap, body: Bytes) -> Answered {
    match r.caller(&headers).await {
        Some(Caller::Bootstrap) => Ok(success(r.register(parse(&body)?).await?)),
        Some(Caller::Party(_) | Caller::SpentBootstrap) => {
            Err(Refusal::not_allowed("Already registered"))
        }
        None => Err(Refusal::unauthorized("Unauthorized")),
    }
}

async fn update(State(r): State<Registry>, headers: HeaderMap, body: Bytes) -> Answered {
    match r.caller(&headers).await {
        Some(Caller::Party(link)) => Ok(success(r.update(&link, parse(&body)?).await?)),
        Some(Caller::Bootstrap | Caller::SpentBootstrap) => {
            Err(Refusal::not_allowed("Not registered"))
        }
        None => Err(Refusal::unauthorized("Unauthorized")),
    }
}

async fn unregister(State(r): State<Registry>, headers: HeaderMap) -> Answered {
    match r.caller(&headers).await {
        Some(Caller::Party(link)) => {
            r.unregister(&link).await?;
            let body: Empty = Envelope::acknowledged();
            Ok(Json(body).into_response())
        }
        Some(Caller::Bootstrap | Caller::SpentBootstrap) => {
            Err(Refusal::not_allowed("Not registered"))
        }
        None => Err(Refusal::unauthorized("Unauthorized")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credentials(party_id: &str, country_code: &str, role: Role) -> Credentials {
        Credentials {
            token: "b".to_owned(),
            url: "http://cpo/ocpi/versions".to_owned(),
            roles: vec![CredentialsRole {
                role,
                business_details: BusinessDetails::named("Operator"),
                party_id: party_id.to_owned(),
                country_code: country_code.to_owned(),
            }],
        }
    }

    #[test]
    fn the_cpo_role_is_taken_with_its_party_id_upper_cased() {
        let role = cpo_role(&credentials("sdc", "cn", Role::Cpo)).unwrap();
        assert_eq!(role.party_id, "SDC");
        assert_eq!(role.country_code, "CN");
        assert_eq!(role.business_details.name, "Operator");
    }

    #[test]
    fn credentials_without_a_cpo_role_are_refused() {
        assert!(cpo_role(&credentials("SDC", "CN", Role::Emsp)).is_err());
    }

    #[test]
    fn party_ids_and_country_codes_must_have_the_standards_shape() {
        assert!(cpo_role(&credentials("SDCX", "CN", Role::Cpo)).is_err());
        assert!(cpo_role(&credentials("", "CN", Role::Cpo)).is_err());
        assert!(cpo_role(&credentials("S-C", "CN", Role::Cpo)).is_err());
        assert!(cpo_role(&credentials("SDC", "CHN", Role::Cpo)).is_err());
        assert!(cpo_role(&credentials("SDC", "C1", Role::Cpo)).is_err());
    }

    #[test]
    fn energys_version_details_list_each_module_with_its_role() {
        let details = VersionDetails {
            version: VERSION.to_owned(),
            endpoints: endpoints("http://e:8091"),
        };
        let url = |id: ModuleId, role| details.url(&id, role).map(str::to_owned);
        assert_eq!(
            url(ModuleId::Tokens, InterfaceRole::Sender).as_deref(),
            Some("http://e:8091/ocpi/emsp/2.2.1/tokens")
        );
        for id in [
            ModuleId::Sessions,
            ModuleId::Cdrs,
            ModuleId::Locations,
            ModuleId::Commands,
            ModuleId::Custom(PLATE_SCAN_MODULE.to_owned()),
        ] {
            assert!(url(id.clone(), InterfaceRole::Receiver).is_some(), "{id}");
            assert!(url(id, InterfaceRole::Sender).is_none());
        }
        assert_eq!(
            url(ModuleId::Credentials, InterfaceRole::Sender).as_deref(),
            Some("http://e:8091/ocpi/emsp/2.2.1/credentials")
        );
    }

    #[test]
    fn fresh_tokens_are_valid_credentials_tokens_and_differ() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(oc::check_token(&a), Ok(()));
        assert_eq!(a.len(), oc::MAX_TOKEN_LEN);
        assert_ne!(a, b);
    }
}
