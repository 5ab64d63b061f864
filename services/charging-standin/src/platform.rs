//! The platform's state and its sessions: piles taken and freed, sessions
//! started by card or plate (camera push, then real-time authorisation),
//! advanced with session updates, stopped locally or by a STOP_SESSION,
//! and accounted for by a CDR.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Duration, Utc};
use fleetdesk_ocpi::credentials::{Credentials, CredentialsRole, Role, VERSIONS_PATH};
use fleetdesk_ocpi::decimal::WH_PER_KWH;
use fleetdesk_ocpi::{
    AllowedType, AuthMethod, BusinessDetails, COUNTRY, CURRENCY, Cdr, CdrLocation, CdrToken,
    ChargingPeriod, CommandResult, CommandResultType, ConnectorFormat, Decimal, EvsePatch,
    EvseStatus, GeoLocation, LocationReferences, PlateScan, Price, Session, SessionPatch,
    SessionStatus, TokenType, status,
};
use rand::Rng as _;
use serde::{Deserialize, Serialize};

use crate::emsp::{Emsp, EmspError};
use crate::meter::{Charge, Meter};
use crate::network::{Network, Pile, Station};

/// The platform's name in its credentials.
const BUSINESS_NAME: &str = "充电平台（模拟）";

/// How the platform is reached and meets the eMSP: the eMSP's versions URL
/// and bootstrap token A, handed over outside OCPI, and nothing else of
/// the eMSP — the rest comes from the credentials handshake.
#[derive(Debug, Clone)]
pub struct Settings {
    /// The platform's OCPI party id (country CN).
    pub party_id: String,
    /// Where the eMSP reaches the platform: scheme, host and port.
    pub public_url: String,
    /// The eMSP's versions endpoint.
    pub emsp_versions_url: String,
    /// The eMSP's bootstrap token (its token A), for the registration.
    pub token_a: String,
}

/// A session to start (tests, the admin API, the generator).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct StartRequest {
    /// Card number, or the plate when `by_plate`.
    pub token_uid: String,
    /// The station's camera recognised the plate `token_uid`.
    #[serde(default)]
    pub by_plate: bool,
    pub location_id: String,
    /// A free pile of the station when not given.
    #[serde(default)]
    pub evse_uid: Option<String>,
    /// Power drawn, at most the pile's.
    pub power_kw: u32,
    #[serde(default = "default_battery_kwh")]
    pub battery_kwh: u32,
    #[serde(default = "default_start_soc")]
    pub start_soc: u8,
}

fn default_battery_kwh() -> u32 {
    80
}

fn default_start_soc() -> u8 {
    30
}

/// Why a session ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum StopCause {
    /// The driver stopped at the pile.
    Local,
    /// The battery was full.
    Full,
    /// A STOP_SESSION command of the eMSP.
    Remote,
}

impl StopCause {
    fn remark(self) -> &'static str {
        match self {
            StopCause::Local => "LOCAL",
            StopCause::Full => "FULL",
            StopCause::Remote => "REMOTE",
        }
    }
}

/// A session as the platform sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SessionView {
    pub id: String,
    pub token_uid: String,
    pub token_type: TokenType,
    pub authorization_reference: String,
    pub location_id: String,
    pub evse_uid: String,
    pub status: SessionStatus,
    pub start: DateTime<Utc>,
    /// The session's clock: start plus the time charged.
    pub clock: DateTime<Utc>,
    pub energy_wh: i64,
    pub electricity_fen: i64,
    pub service_fee_fen: i64,
    pub total_fen: i64,
    pub soc: u8,
    pub stopped_by: Option<StopCause>,
    /// The eMSP acknowledged the CDR.
    pub cdr_delivered: bool,
}

/// What a start came to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "outcome", rename_all = "snake_case")]
pub enum StartOutcome {
    Charging {
        session: SessionView,
    },
    /// The eMSP refused; `allowed` is absent for a token it does not know.
    Refused {
        allowed: Option<AllowedType>,
        message: String,
    },
}

/// A request the platform cannot carry out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StandInError {
    UnknownLocation,
    UnknownSession,
    /// Every pile of the station (or the one asked for) is taken.
    NoFreePile,
    /// The session has ended.
    NotActive,
    Emsp(EmspError),
}

impl std::fmt::Display for StandInError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            StandInError::UnknownLocation => f.write_str("unknown location"),
            StandInError::UnknownSession => f.write_str("unknown session"),
            StandInError::NoFreePile => f.write_str("no free pile"),
            StandInError::NotActive => f.write_str("session has ended"),
            StandInError::Emsp(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for StandInError {}

impl From<EmspError> for StandInError {
    fn from(e: EmspError) -> Self {
        StandInError::Emsp(e)
    }
}

/// A session on a pile.
#[derive(Debug)]
struct Running {
    id: String,
    token: CdrToken,
    authorization_reference: String,
    location_id: String,
    evse_uid: String,
    start: DateTime<Utc>,
    meter: Meter,
    periods: Vec<ChargingPeriod>,
    status: SessionStatus,
    stopped_by: Option<StopCause>,
    cdr: Option<Cdr>,
    cdr_delivered: bool,
}

impl Running {
    fn view(&self) -> SessionView {
        SessionView {
            id: self.id.clone(),
            token_uid: self.token.uid.clone(),
            token_type: self.token.kind,
            authorization_reference: self.authorization_reference.clone(),
            location_id: self.location_id.clone(),
            evse_uid: self.evse_uid.clone(),
            status: self.status,
            start: self.start,
            clock: self.meter.clock(),
            energy_wh: self.meter.energy_wh(),
            electricity_fen: self.meter.electricity_fen(),
            service_fee_fen: self.meter.service_fee_fen(),
            total_fen: self.meter.total_fen(),
            soc: self.meter.soc(),
            stopped_by: self.stopped_by,
            cdr_delivered: self.cdr_delivered,
        }
    }

    fn kwh(&self) -> Decimal {
        Decimal::from_scaled(self.meter.energy_wh(), WH_PER_KWH)
    }
}

type Shared = Arc<tokio::sync::Mutex<Running>>;

struct Inner {
    settings: Settings,
    /// Token B: what the eMSP presents to the platform, drawn at start.
    token_b: String,
    network: Network,
    emsp: Emsp,
    /// When the catalogue was published (its `last_updated`).
    published: DateTime<Utc>,
    /// Pile status by EVSE uid (unique across stations), with its time.
    evses: Mutex<HashMap<String, (EvseStatus, DateTime<Utc>)>>,
    sessions: Mutex<HashMap<String, Shared>>,
    /// Session ids of every STOP_SESSION received, in order.
    stop_commands: Mutex<Vec<String>>,
    /// Plate token uids by plate, learned from the eMSP's token list.
    plate_tokens: Mutex<HashMap<String, String>>,
    /// Numbers session and scan ids (from a random start, so a restarted
    /// platform does not repeat the ids of the same second).
    sequence: AtomicU64,
}

/// The platform. Cheap to clone; clones share it.
#[derive(Clone)]
pub struct StandIn {
    inner: Arc<Inner>,
}

impl std::fmt::Debug for StandIn {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StandIn")
            .field("party_id", &self.inner.settings.party_id)
            .finish_non_exhaustive()
    }
}

/// VAT on electricity in China, percent.
const ELECTRICITY_VAT_PERCENT: u32 = 13;
/// VAT on the charging service, percent.
const SERVICE_VAT_PERCENT: u32 = 6;

fn electricity_price(meter: &Meter) -> Price {
    Price::fen_with_vat(meter.electricity_fen(), ELECTRICITY_VAT_PERCENT)
}

fn service_price(meter: &Meter) -> Price {
    Price::fen_with_vat(meter.service_fee_fen(), SERVICE_VAT_PERCENT)
}

/// Electricity and service together, each part's VAT its own.
fn total_price(meter: &Meter) -> Price {
    electricity_price(meter)
        .plus(&service_price(meter))
        .expect("fen amounts read back as fen")
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

impl StandIn {
    /// The platform with its stations ([`crate::network::network`]).
    pub fn new(settings: Settings) -> StandIn {
        StandIn::with_network(settings, crate::network::network())
    }

    /// The platform with other stations (tests that need more piles).
    pub fn with_network(settings: Settings, network: Network) -> StandIn {
        let now = Utc::now();
        let evses = network
            .stations
            .iter()
            .flat_map(|s| s.piles.iter())
            .map(|p| (p.evse_uid.clone(), (EvseStatus::Available, now)))
            .collect();
        let emsp = Emsp::new(&settings.party_id);
        let token_b: String = rand::thread_rng()
            .r#gen::<[u8; 24]>()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        StandIn {
            inner: Arc::new(Inner {
                settings,
                token_b,
                network,
                emsp,
                published: now,
                evses: Mutex::new(evses),
                sessions: Mutex::new(HashMap::new()),
                stop_commands: Mutex::new(Vec::new()),
                plate_tokens: Mutex::new(HashMap::new()),
                sequence: AtomicU64::new(rand::thread_rng().gen_range(0..1_000_000)),
            }),
        }
    }

    pub fn settings(&self) -> &Settings {
        &self.inner.settings
    }

    pub fn network(&self) -> &Network {
        &self.inner.network
    }

    /// The token the eMSP presents to the platform (OCPI's token B).
    pub fn token_b(&self) -> &str {
        &self.inner.token_b
    }

    /// The platform's credentials, as it registers them with the eMSP.
    pub fn credentials(&self) -> Credentials {
        Credentials {
            token: self.inner.token_b.clone(),
            url: format!("{}{VERSIONS_PATH}", self.inner.settings.public_url),
            roles: vec![CredentialsRole {
                role: Role::Cpo,
                business_details: BusinessDetails::named(BUSINESS_NAME),
                party_id: self.inner.settings.party_id.clone(),
                country_code: COUNTRY.to_owned(),
            }],
        }
    }

    /// Registers with the eMSP (the credentials handshake), again after a
    /// pause while the eMSP is not reachable or fails on its side; a
    /// refusal ends it.
    pub async fn register(&self) -> Result<(), EmspError> {
        let settings = &self.inner.settings;
        let mut pause = std::time::Duration::from_millis(200);
        loop {
            let attempt = self
                .inner
                .emsp
                .register(
                    &settings.emsp_versions_url,
                    &settings.token_a,
                    &self.credentials(),
                )
                .await;
            match attempt {
                Ok(()) => {
                    tracing::info!(url = %settings.emsp_versions_url, "Registered with the eMSP.");
                    return Ok(());
                }
                Err(err) if err.retryable() => {
                    tracing::debug!(error = %err, "eMSP not ready for the registration; retrying.");
                    tokio::time::sleep(pause).await;
                    pause = (pause * 2).min(std::time::Duration::from_secs(5));
                }
                Err(err) => {
                    tracing::error!(error = %err, "Registration with the eMSP refused.");
                    return Err(err);
                }
            }
        }
    }

    /// Resolves once the platform has registered with the eMSP.
    pub async fn registered(&self) {
        self.inner.emsp.registered().await;
    }

    /// Whether the platform has registered with the eMSP.
    pub fn is_registered(&self) -> bool {
        self.inner.emsp.is_registered()
    }

    /// The platform's client of the eMSP.
    pub fn emsp(&self) -> &Emsp {
        &self.inner.emsp
    }

    pub(crate) fn published(&self) -> DateTime<Utc> {
        self.inner.published
    }

    /// A pile's status and when it last changed.
    pub fn evse_status(&self, evse_uid: &str) -> (EvseStatus, DateTime<Utc>) {
        lock(&self.inner.evses)
            .get(evse_uid)
            .copied()
            .unwrap_or((EvseStatus::Unknown, self.inner.published))
    }

    /// Session ids of every STOP_SESSION received, in order.
    pub fn stop_commands(&self) -> Vec<String> {
        lock(&self.inner.stop_commands).clone()
    }

    pub async fn session(&self, id: &str) -> Option<SessionView> {
        let shared = self.shared(id).ok()?;
        Some(shared.lock().await.view())
    }

    /// Every session the platform has seen, active and ended.
    pub async fn sessions(&self) -> Vec<SessionView> {
        let all: Vec<Shared> = lock(&self.inner.sessions).values().cloned().collect();
        let mut views = Vec::with_capacity(all.len());
        for s in all {
            views.push(s.lock().await.view());
        }
        views.sort_by(|a, b| a.start.cmp(&b.start).then(a.id.cmp(&b.id)));
        views
    }

    fn shared(&self, id: &str) -> Result<Shared, StandInError> {
        lock(&self.inner.sessions)
            .get(id)
            .cloned()
            .ok_or(StandInError::UnknownSession)
    }

    /// The uid of the plate token whose `visual_number` is `plate`, as the
    /// eMSP's token list has it (asked again when the plate is new).
    async fn plate_token(&self, plate: &str) -> Result<Option<String>, StandInError> {
        let known = |plates: &HashMap<String, String>| plates.get(plate).cloned();
        if let Some(uid) = known(&lock(&self.inner.plate_tokens)) {
            return Ok(Some(uid));
        }
        let tokens = self.inner.emsp.tokens(None).await?;
        let mut plates = lock(&self.inner.plate_tokens);
        for t in tokens.into_iter().filter(|t| t.kind == TokenType::Other) {
            if let Some(visual) = t.visual_number {
                plates.insert(visual, t.uid);
            }
        }
        Ok(known(&plates))
    }

    /// Takes a free pile: the one asked for, else the first free one of
    /// the kind the power needs (DC above 7 kW), else any free one.
    fn take_pile<'a>(
        &self,
        station: &'a Station,
        wanted: Option<&str>,
        power_kw: u32,
    ) -> Result<&'a Pile, StandInError> {
        let mut evses = lock(&self.inner.evses);
        let free = |p: &&Pile| {
            evses
                .get(&p.evse_uid)
                .is_some_and(|(s, _)| *s == EvseStatus::Available)
        };
        let pile = match wanted {
            Some(uid) => station.pile(uid).filter(free),
            None => station
                .piles
                .iter()
                .filter(free)
                .find(|p| p.dc == (power_kw > 7))
                .or_else(|| station.piles.iter().find(free)),
        }
        .ok_or(StandInError::NoFreePile)?;
        // Held while the driver is being authorised; not published.
        evses.insert(pile.evse_uid.clone(), (EvseStatus::Reserved, Utc::now()));
        Ok(pile)
    }

    /// Sets a pile's status and tells the eMSP (in the background: a pile
    /// status is not worth holding a session up for).
    fn set_pile(&self, location_id: &str, evse_uid: &str, status: EvseStatus, publish: bool) {
        let now = Utc::now();
        lock(&self.inner.evses).insert(evse_uid.to_owned(), (status, now));
        if publish {
            let emsp = self.inner.emsp.clone();
            let (location_id, evse_uid) = (location_id.to_owned(), evse_uid.to_owned());
            tokio::spawn(async move {
                let patch = EvsePatch::status(status, now);
                if let Err(err) = emsp.patch_evse(&location_id, &evse_uid, &patch).await {
                    tracing::debug!(error = %err, %evse_uid, "EVSE status not delivered.");
                }
            });
        }
    }

    /// Starts a session: the camera's push for a plate, the real-time
    /// authorisation, then the session PUT.
    pub async fn start_session(&self, request: StartRequest) -> Result<StartOutcome, StandInError> {
        let station = self
            .inner
            .network
            .station(&request.location_id)
            .ok_or(StandInError::UnknownLocation)?;
        let pile = self.take_pile(station, request.evse_uid.as_deref(), request.power_kw)?;
        let outcome = self.start_on(station, pile, &request).await;
        if !matches!(outcome, Ok(StartOutcome::Charging { .. })) {
            self.set_pile(
                &station.location_id,
                &pile.evse_uid,
                EvseStatus::Available,
                false,
            );
        }
        outcome
    }

    async fn start_on(
        &self,
        station: &Station,
        pile: &Pile,
        request: &StartRequest,
    ) -> Result<StartOutcome, StandInError> {
        let party = &self.inner.settings.party_id;
        let kind = if request.by_plate {
            let scan = PlateScan {
                country_code: COUNTRY.to_owned(),
                party_id: party.clone(),
                id: format!("SCAN{}", self.session_no(Utc::now())),
                location_id: station.location_id.clone(),
                evse_uid: pile.evse_uid.clone(),
                plate: request.token_uid.clone(),
                scanned_at: Utc::now(),
            };
            if let Err(err) = self.inner.emsp.post_plate_scan(&scan).await {
                tracing::warn!(error = %err, "Plate recognition not delivered.");
            }
            TokenType::Other
        } else {
            TokenType::Rfid
        };
        let uid = if request.by_plate {
            match self.plate_token(&request.token_uid).await? {
                Some(uid) => uid,
                None => {
                    return Ok(StartOutcome::Refused {
                        allowed: None,
                        message: "no token of the eMSP carries this plate".to_owned(),
                    });
                }
            }
        } else {
            request.token_uid.clone()
        };
        let location = LocationReferences {
            location_id: station.location_id.clone(),
            evse_uids: vec![pile.evse_uid.clone()],
        };
        let info = match self.inner.emsp.authorize(&uid, kind, &location).await {
            Ok(info) => info,
            Err(EmspError::Refused {
                status_code: status::UNKNOWN_TOKEN,
                message,
            }) => {
                return Ok(StartOutcome::Refused {
                    allowed: None,
                    message,
                });
            }
            Err(err) => return Err(err.into()),
        };
        let reference = match (info.allowed, info.authorization_reference) {
            (AllowedType::Allowed, Some(reference)) => reference,
            (allowed, _) => {
                return Ok(StartOutcome::Refused {
                    allowed: Some(allowed),
                    message: info.info.map(|t| t.text).unwrap_or_default(),
                });
            }
        };
        let start = Utc::now();
        let charge = Charge {
            power_w: i64::from(request.power_kw.min(pile.max_kw)) * 1000,
            battery_wh: i64::from(request.battery_kwh.max(1)) * 1000,
            start_soc: request.start_soc.min(100),
        };
        let meter = Meter::new(charge, station.tariff.clone(), start);
        let running = Running {
            id: self.session_no(start),
            token: CdrToken {
                country_code: info.token.country_code.clone(),
                party_id: info.token.party_id.clone(),
                uid: uid.clone(),
                kind,
                contract_id: info.token.contract_id.clone(),
            },
            authorization_reference: reference,
            location_id: station.location_id.clone(),
            evse_uid: pile.evse_uid.clone(),
            start,
            periods: vec![meter.opening_period()],
            meter,
            status: SessionStatus::Active,
            stopped_by: None,
            cdr: None,
            cdr_delivered: false,
        };
        let session = Session {
            country_code: COUNTRY.to_owned(),
            party_id: party.clone(),
            id: running.id.clone(),
            start_date_time: start,
            end_date_time: None,
            kwh: running.kwh(),
            cdr_token: running.token.clone(),
            auth_method: AuthMethod::AuthRequest,
            authorization_reference: Some(running.authorization_reference.clone()),
            location_id: station.location_id.clone(),
            evse_uid: pile.evse_uid.clone(),
            connector_id: Pile::CONNECTOR_ID.to_owned(),
            meter_id: None,
            currency: CURRENCY.to_owned(),
            charging_periods: running.periods.clone(),
            total_cost: Some(Price::fen_with_vat(0, ELECTRICITY_VAT_PERCENT)),
            x_total_service_fee: Some(Price::fen_with_vat(0, SERVICE_VAT_PERCENT)),
            status: SessionStatus::Active,
            last_updated: start,
        };
        // The pile does not start a session the eMSP has not taken.
        self.inner.emsp.put_session(&session).await?;
        self.set_pile(
            &station.location_id,
            &pile.evse_uid,
            EvseStatus::Charging,
            true,
        );
        let view = running.view();
        lock(&self.inner.sessions).insert(
            running.id.clone(),
            Arc::new(tokio::sync::Mutex::new(running)),
        );
        tracing::info!(session = %view.id, location = %view.location_id, "Session started.");
        Ok(StartOutcome::Charging { session: view })
    }

    /// Charges for `elapsed` and sends the session update (energy and cost
    /// so far, the new charging periods).
    pub async fn advance(&self, id: &str, elapsed: Duration) -> Result<SessionView, StandInError> {
        let shared = self.shared(id)?;
        let mut running = shared.lock().await;
        if running.status != SessionStatus::Active {
            return Err(StandInError::NotActive);
        }
        let periods = running.meter.advance(elapsed);
        running.periods.extend(periods.iter().cloned());
        let patch = SessionPatch {
            kwh: Some(running.kwh()),
            end_date_time: None,
            charging_periods: periods,
            total_cost: Some(total_price(&running.meter)),
            x_total_service_fee: Some(service_price(&running.meter)),
            status: None,
            last_updated: running.meter.clock(),
        };
        self.inner.emsp.patch_session(id, &patch).await?;
        Ok(running.view())
    }

    /// Ends a session: the final update, then the CDR. Stopping an ended
    /// session answers it as it is.
    pub async fn stop(&self, id: &str, cause: StopCause) -> Result<SessionView, StandInError> {
        self.end(id, cause, true).await
    }

    /// Ends a session and keeps its CDR unsent, as when the push failed:
    /// tests amend it ([`StandIn::amend_cdr`]) before [`StandIn::resend_cdr`].
    pub async fn stop_keeping_cdr(
        &self,
        id: &str,
        cause: StopCause,
    ) -> Result<SessionView, StandInError> {
        self.end(id, cause, false).await
    }

    /// Changes an ended session's CDR before it is sent (again).
    pub async fn amend_cdr(&self, id: &str, change: impl FnOnce(&mut Cdr)) -> Option<Cdr> {
        let shared = self.shared(id).ok()?;
        let mut running = shared.lock().await;
        let cdr = running.cdr.as_mut()?;
        change(cdr);
        Some(cdr.clone())
    }

    /// Posts `cdr` to the eMSP as it is (a credit CDR, say).
    pub async fn post_cdr(&self, cdr: &Cdr) -> Result<(), StandInError> {
        Ok(self.inner.emsp.post_cdr(cdr).await?)
    }

    async fn end(
        &self,
        id: &str,
        cause: StopCause,
        deliver: bool,
    ) -> Result<SessionView, StandInError> {
        let shared = self.shared(id)?;
        let mut running = shared.lock().await;
        if running.status != SessionStatus::Active {
            return Ok(running.view());
        }
        running.status = SessionStatus::Completed;
        running.stopped_by = Some(cause);
        let end = running.meter.clock();
        let patch = SessionPatch {
            kwh: Some(running.kwh()),
            end_date_time: Some(end),
            charging_periods: Vec::new(),
            total_cost: Some(total_price(&running.meter)),
            x_total_service_fee: Some(service_price(&running.meter)),
            status: Some(SessionStatus::Completed),
            last_updated: end,
        };
        let station = self
            .inner
            .network
            .station(&running.location_id)
            .ok_or(StandInError::UnknownLocation)?;
        running.cdr = Some(self.cdr(&running, station, cause));
        self.set_pile(
            &running.location_id,
            &running.evse_uid,
            EvseStatus::Available,
            true,
        );
        if let Err(err) = self.inner.emsp.patch_session(id, &patch).await {
            tracing::warn!(error = %err, session = %id, "Final session update not delivered.");
        }
        if deliver {
            self.deliver_cdr(&mut running).await?;
        }
        tracing::info!(session = %id, cause = cause.remark(), "Session ended.");
        Ok(running.view())
    }

    async fn deliver_cdr(&self, running: &mut Running) -> Result<(), StandInError> {
        let Some(cdr) = &running.cdr else {
            return Err(StandInError::NotActive);
        };
        self.inner.emsp.post_cdr(cdr).await?;
        running.cdr_delivered = true;
        Ok(())
    }

    /// Posts an ended session's CDR again (as a CPO does when it never saw
    /// the answer).
    pub async fn resend_cdr(&self, id: &str) -> Result<SessionView, StandInError> {
        let shared = self.shared(id)?;
        let mut running = shared.lock().await;
        self.deliver_cdr(&mut running).await?;
        Ok(running.view())
    }

    /// Posts the CDRs the eMSP has not acknowledged yet.
    pub async fn redeliver_cdrs(&self) {
        let all: Vec<Shared> = lock(&self.inner.sessions).values().cloned().collect();
        for shared in all {
            let mut running = shared.lock().await;
            if running.cdr.is_some()
                && !running.cdr_delivered
                && let Err(err) = self.deliver_cdr(&mut running).await
            {
                tracing::debug!(error = %err, session = %running.id, "CDR still not delivered.");
            }
        }
    }

    /// Forgets sessions that ended (with their CDR delivered) before `before`.
    pub async fn forget_ended(&self, before: DateTime<Utc>) {
        let all: Vec<(String, Shared)> = lock(&self.inner.sessions)
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect();
        let mut done = Vec::new();
        for (id, shared) in all {
            let running = shared.lock().await;
            if running.cdr_delivered && running.meter.clock() < before {
                done.push(id);
            }
        }
        let mut sessions = lock(&self.inner.sessions);
        for id in done {
            sessions.remove(&id);
        }
    }

    /// A STOP_SESSION of the eMSP: whether the session is known; the stop
    /// and its result to `response_url` follow in the background.
    pub fn command_stop(&self, id: &str, response_url: String) -> bool {
        lock(&self.inner.stop_commands).push(id.to_owned());
        if self.shared(id).is_err() {
            return false;
        }
        let platform = self.clone();
        let id = id.to_owned();
        tokio::spawn(async move {
            let result = match platform.stop(&id, StopCause::Remote).await {
                Ok(_) => CommandResultType::Accepted,
                Err(err) => {
                    tracing::warn!(error = %err, session = %id, "Remote stop failed.");
                    CommandResultType::Failed
                }
            };
            let answer = CommandResult {
                result,
                message: None,
            };
            if let Err(err) = platform
                .inner
                .emsp
                .post_command_result(&response_url, &answer)
                .await
            {
                tracing::warn!(error = %err, session = %id, "Command result not delivered.");
            }
        });
        true
    }

    /// An order number as the platform prints it: local time and a
    /// sequence number.
    fn session_no(&self, at: DateTime<Utc>) -> String {
        let n = self.inner.sequence.fetch_add(1, Ordering::Relaxed) % 1_000_000;
        format!(
            "{}{n:06}",
            at.with_timezone(&crate::tariff::shanghai())
                .format("%Y%m%d%H%M%S")
        )
    }

    fn cdr(&self, running: &Running, station: &Station, cause: StopCause) -> Cdr {
        let pile = station.pile(&running.evse_uid);
        let end = running.meter.clock();
        let hours = Decimal::from_scaled((end - running.start).num_seconds() * 10_000 / 3600, 4);
        Cdr {
            country_code: COUNTRY.to_owned(),
            party_id: self.inner.settings.party_id.clone(),
            id: format!("CDR{}", running.id),
            start_date_time: running.start,
            end_date_time: end,
            session_id: Some(running.id.clone()),
            cdr_token: running.token.clone(),
            auth_method: AuthMethod::AuthRequest,
            authorization_reference: Some(running.authorization_reference.clone()),
            cdr_location: CdrLocation {
                id: station.location_id.clone(),
                name: Some(station.name.clone()),
                address: station.address.clone(),
                city: station.city.to_owned(),
                postal_code: None,
                state: None,
                country: "CHN".to_owned(),
                coordinates: GeoLocation {
                    latitude: format!("{:.6}", station.lat),
                    longitude: format!("{:.6}", station.lng),
                },
                evse_uid: running.evse_uid.clone(),
                evse_id: format!("CN*{}*E{}", self.inner.settings.party_id, running.evse_uid),
                connector_id: Pile::CONNECTOR_ID.to_owned(),
                connector_standard: pile
                    .map_or(fleetdesk_ocpi::ConnectorType::GbtDc, Pile::standard),
                connector_format: ConnectorFormat::Cable,
                connector_power_type: pile.map_or(fleetdesk_ocpi::PowerType::Dc, Pile::power_type),
            },
            meter_id: None,
            currency: CURRENCY.to_owned(),
            tariffs: vec![
                station
                    .tariff
                    .to_ocpi(&self.inner.settings.party_id, self.inner.published),
            ],
            charging_periods: running.periods.clone(),
            signed_data: None,
            total_cost: total_price(&running.meter),
            total_fixed_cost: None,
            total_energy: running.kwh(),
            total_energy_cost: Some(electricity_price(&running.meter)),
            total_time: hours,
            total_time_cost: None,
            total_parking_time: None,
            total_parking_cost: None,
            total_reservation_cost: None,
            x_total_service_fee: Some(service_price(&running.meter)),
            remark: Some(cause.remark().to_owned()),
            invoice_reference_id: None,
            credit: None,
            credit_reference_id: None,
            home_charging_compensation: None,
            last_updated: end,
        }
    }
}
