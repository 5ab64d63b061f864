//! A session as the platform drives it (the OCPI receiver calls in here):
//!
//! 1. **Authorisation** of a card number or a recognised plate at a
//!    station: the card (through `cards::authorize`), then — in the card's
//!    tenant transaction, its row locked — the budget, and the first HOLD
//!    (card → hold of the coming session, key `hold:<id>:0`). The answer's
//!    `authorization_reference` is the session's id to be.
//! 2. **Session PUT**: the session row, from the authorisation and the
//!    station; a plate recognition it followed becomes STARTED.
//! 3. **Session PATCH** (and the PUT's figures): energy and cost so far,
//!    the meter values; when little is left on the hold it is topped up
//!    from the card (`hold:<id>:<n>`), and when the card (or budget, or the
//!    per-session cap) has nothing more the platform is told to STOP the
//!    session before the hold runs out.
//! 4. **CDR**: the settlement — min(cost, held) captured to the platform's
//!    revenue accounts part by part (`costs`), the rest released to the
//!    card, both under `settle:<id>` — and the `energy.session.settled`
//!    event. The capture goes through the platform's capture group
//!    (`ledger::capture_grouped`): the enterprise's settlements that arrive
//!    together are posted in one transaction of the group's own pool,
//!    committed before the session's transaction (which holds the session's
//!    row lock meanwhile, so two copies of a CDR never both settle). If the
//!    session's transaction then fails, the session is still charging and
//!    the CDR's retry settles it: the capture replays under its key and the
//!    release's card change is recorded once per transfer. A CDR with a
//!    negative charge or an end before its start is refused; a credit CDR
//!    takes a settlement back onto the card as a correction (`credit:<id>`,
//!    in the session's own transaction).
//!
//! Every step is idempotent: pushes are matched by the platform's ids,
//! stale updates (older `last_updated`) are ignored, a settled session
//! takes no second charging CDR (it is refused with the reason), and every
//! ledger key names the session and the step, so a retried push never
//! moves money twice.

use chrono::{DateTime, Utc};
use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, db, events, subjects};
use fleetdesk_ocpi::decimal::WH_PER_KWH;
use fleetdesk_ocpi::{
    AllowedType, Cdr, CdrDimensionType, ChargingPeriod, Price, Session, SessionPatch,
    SessionStatus as OcpiStatus, TokenType,
};
use fleetdesk_proto::energy::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::costs;
use super::domain::{
    self, AUTHORIZATION_TTL, AuthorizationStatus, Limits, SessionStatus, Shortfall, StartMethod,
};
use super::store::{self, MeterValue, NewAuthorization, NewSession, Progress, Settlement};
use crate::card_changes::domain::ChangeKind;
use crate::card_changes::store::{self as changes, NewChange};
use crate::cards::authorize::{self as card_check, Authorized, Credential, Refusal};
use crate::cards::domain::BudgetPeriod;
use crate::cards::store::{self as cards, CardRow};
use crate::cards::tokens;
use crate::codes::optional;
use crate::context::Actor;
use crate::ledger::{self, Posted, TransferError};
use crate::plate_scans::domain::ScanResult;
use crate::plate_scans::store as scans;
use crate::platform::Platform;
use crate::stations;

/// The platform acting in an enterprise: the actor of the card changes
/// sessions record.
fn platform_actor(enterprise_id: Uuid) -> Actor {
    Actor {
        enterprise_id,
        user_id: None,
        name: "系统".to_owned(),
        reach: ResolvedReach {
            all: true,
            org_ids: Vec::new(),
            own: None,
        },
        idempotency_key: None,
    }
}

/// What energy answers an authorisation request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// The session may start; its id to be and what was held.
    Allowed { id: Uuid, held_fen: i64 },
    Refused {
        allowed: AllowedType,
        reason: String,
    },
    /// No card answers to this number or plate.
    Unknown,
}

/// How OCPI names a refusal.
fn allowed_of(refusal: Refusal) -> AllowedType {
    match refusal {
        Refusal::NotRegistered | Refusal::Ambiguous | Refusal::StationNotAllowed => {
            AllowedType::NotAllowed
        }
        Refusal::CardUnavailable(_) | Refusal::AccountUnavailable(_) => AllowedType::Blocked,
        Refusal::NoBalance => AllowedType::NoCredit,
    }
}

/// A plate-scan result for a refusal.
fn scan_result_of(refusal: Refusal) -> ScanResult {
    match refusal {
        Refusal::NotRegistered | Refusal::Ambiguous => ScanResult::NotRegistered,
        Refusal::CardUnavailable(_)
        | Refusal::AccountUnavailable(_)
        | Refusal::StationNotAllowed => ScanResult::CardUnavailable,
        Refusal::NoBalance => ScanResult::InsufficientBalance,
    }
}

fn scan_result_of_shortfall(shortfall: Shortfall) -> ScanResult {
    match shortfall {
        Shortfall::Balance => ScanResult::InsufficientBalance,
        Shortfall::Budget | Shortfall::SessionCap => ScanResult::BudgetExceeded,
    }
}

/// The limits on what a session of `card` may hold now.
async fn limits(conn: &mut PgConnection, card: &CardRow) -> Result<Limits, ServiceError> {
    let period = optional::<BudgetPeriod>(Some(card.budget_period)).unwrap_or(BudgetPeriod::None);
    let budget_left_fen = match domain::period_start(period, Utc::now()) {
        Some(since) => {
            Some(card.budget_limit_fen - store::budget_used(conn, card.id, since).await?)
        }
        None => None,
    };
    Ok(Limits {
        balance_fen: card.balance_fen,
        per_session_limit_fen: card.per_session_limit_fen,
        budget_left_fen,
    })
}

/// Holds `amount` of the card for session `id` under `key` and records the
/// card's CONSUME (not again on a replay); the limit that stopped it when
/// the card's balance moved since it was read.
async fn hold(
    conn: &mut PgConnection,
    enterprise: Uuid,
    card: &CardRow,
    id: Uuid,
    amount: i64,
    key: &str,
) -> Result<Result<(), Shortfall>, ServiceError> {
    let posted = match ledger::hold(conn, enterprise, card.ledger_account_id, id, amount, key).await
    {
        Ok(posted) => posted,
        Err(TransferError::Insufficient { .. }) => return Ok(Err(Shortfall::Balance)),
        Err(err) => return Err(err.into()),
    };
    if !posted.replayed {
        record_change(conn, enterprise, card, ChangeKind::Consume, &posted, id).await?;
    }
    Ok(Ok(()))
}

/// Records the card's side of a posted hold or release as an amount change,
/// once per transfer: a settlement retried after its capture committed in
/// the group's transaction records the release then, and only then.
async fn record_change(
    conn: &mut PgConnection,
    enterprise: Uuid,
    card: &CardRow,
    kind: ChangeKind,
    posted: &Posted,
    session_id: Uuid,
) -> Result<(), ServiceError> {
    let Some(entry) = posted.entry(card.ledger_account_id) else {
        return Ok(());
    };
    changes::record_once(
        conn,
        &platform_actor(enterprise),
        &NewChange {
            card,
            kind,
            amount_fen: entry.amount_fen.abs(),
            balance_after_fen: entry.balance_after_fen,
            transfer_id: posted.transfer_id,
            session_id: Some(session_id),
            remark: "",
        },
    )
    .await?;
    Ok(())
}

/// Decides an authorisation request of `uid` (a card number, or a plate
/// for `TokenType::Other`) at the platform's location `location_id`.
pub async fn authorize(
    p: &Platform,
    uid: &str,
    kind: TokenType,
    location_id: &str,
) -> Result<Answer, ServiceError> {
    stations::sync::ensure(&p.pool, &p.cpo, location_id).await?;
    let station_id = stations::domain::station_id(&p.cpo.party_id, location_id);
    // A plate token's uid names its plate (`cards::tokens`).
    let plate = match kind {
        TokenType::Other => tokens::plate_of(uid)?,
        TokenType::Rfid | TokenType::AppUser | TokenType::AdHocUser => String::new(),
    };
    let credential = match kind {
        TokenType::Other => Credential::Plate(&plate),
        TokenType::Rfid | TokenType::AppUser | TokenType::AdHocUser => Credential::CardNo(uid),
    };
    // Whose card: the uid arrives without an enterprise.
    let mut tx = db::begin_service(&p.pool).await?;
    let found = card_check::authorize(&mut tx, None, credential, Some(station_id)).await?;
    let card = match found {
        Ok(card) => card,
        Err(refusal) => {
            if kind == TokenType::Other {
                scans::decide_pending(
                    &mut tx,
                    &plate,
                    location_id,
                    Utc::now() - AUTHORIZATION_TTL,
                    scan_result_of(refusal),
                    None,
                )
                .await?;
            }
            tx.commit().await?;
            return Ok(refused(refusal));
        }
    };
    db::end_read(tx);
    let enterprise = card.enterprise_id;
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    // The card's row locked: its status, balance and budget hold still
    // until this hold is written (another authorisation waits here).
    let row = cards::get(&mut tx, &platform_actor(enterprise), card.card_id, true).await?;
    let card: Authorized =
        match card_check::authorize(&mut tx, Some(enterprise), credential, Some(station_id)).await?
        {
            Ok(card) if card.card_id == row.id => card,
            Ok(_) => {
                return Ok(Answer::Refused {
                    allowed: AllowedType::NotAllowed,
                    reason: Refusal::Ambiguous.reason(),
                });
            }
            Err(refusal) => {
                if kind == TokenType::Other {
                    scans::decide_pending(
                        &mut tx,
                        &plate,
                        location_id,
                        Utc::now() - AUTHORIZATION_TTL,
                        scan_result_of(refusal),
                        None,
                    )
                    .await?;
                }
                tx.commit().await?;
                return Ok(refused(refusal));
            }
        };
    let first = match limits(&mut tx, &row).await?.first_hold() {
        Ok(amount) => amount,
        Err(shortfall) => {
            if kind == TokenType::Other {
                let result = scan_result_of_shortfall(shortfall);
                let window_start = Utc::now() - AUTHORIZATION_TTL;
                scans::decide_pending(&mut tx, &plate, location_id, window_start, result, None)
                    .await?;
            }
            tx.commit().await?;
            return Ok(Answer::Refused {
                allowed: AllowedType::NoCredit,
                reason: shortfall.reason().to_owned(),
            });
        }
    };
    let id = Uuid::new_v4();
    let scan = if kind == TokenType::Other {
        let window_start = Utc::now() - AUTHORIZATION_TTL;
        scans::claim_pending(&mut tx, &plate, location_id, window_start, id).await?
    } else {
        None
    };
    store::insert_authorization(
        &mut tx,
        &NewAuthorization {
            id,
            enterprise_id: enterprise,
            card_id: card.card_id,
            card_ledger_account_id: card.card_ledger_account_id,
            start_method: StartMethod::of(kind),
            token_uid: uid,
            party_id: &p.cpo.party_id,
            location_id,
            station_id: Some(station_id),
            held_fen: first,
            plate_scan_id: scan,
            expires_at: Utc::now() + AUTHORIZATION_TTL,
        },
    )
    .await?;
    if let Err(shortfall) = hold(
        &mut tx,
        enterprise,
        &row,
        id,
        first,
        &format!("hold:{id}:0"),
    )
    .await?
    {
        return Ok(Answer::Refused {
            allowed: AllowedType::NoCredit,
            reason: shortfall.reason().to_owned(),
        });
    }
    tx.commit().await?;
    tracing::info!(authorization = %id, held_fen = first, "Charging authorised.");
    Ok(Answer::Allowed {
        id,
        held_fen: first,
    })
}

fn refused(refusal: Refusal) -> Answer {
    match refusal {
        Refusal::NotRegistered => Answer::Unknown,
        other => Answer::Refused {
            allowed: allowed_of(other),
            reason: other.reason(),
        },
    }
}

// --- session updates --------------------------------------------------------

/// What one push says of a running session.
#[derive(Debug, Clone, Default)]
struct Update {
    energy_wh: Option<i64>,
    cost_fen: Option<i64>,
    service_fee_fen: Option<i64>,
    end_time: Option<DateTime<Utc>>,
    meter_values: Vec<MeterValue>,
    last_updated: Option<DateTime<Utc>>,
}

fn fen(price: Option<&Price>) -> Option<i64> {
    price.and_then(Price::to_fen)
}

fn invalid(what: &str) -> ServiceError {
    ServiceError::invalid(what, format!("{what} 无法识别"))
}

/// The meter values of charging periods.
fn meter_values(periods: &[ChargingPeriod]) -> Vec<MeterValue> {
    periods
        .iter()
        .map(|p| MeterValue {
            period_start: p.start_date_time,
            energy_wh: p
                .volume(CdrDimensionType::Energy)
                .and_then(|v| v.to_scaled(WH_PER_KWH))
                .unwrap_or(0),
            power_w: p
                .volume(CdrDimensionType::Power)
                .and_then(|v| v.to_scaled(WH_PER_KWH)),
            soc: p
                .volume(CdrDimensionType::StateOfCharge)
                .and_then(|v| v.to_scaled(0))
                .and_then(|v| i16::try_from(v.clamp(0, 100)).ok()),
            tariff_id: p.tariff_id.clone().unwrap_or_default(),
        })
        .collect()
}

/// The SOC of the latest period that reports one.
fn last_soc(values: &[MeterValue]) -> Option<i16> {
    values
        .iter()
        .filter(|v| v.soc.is_some())
        .max_by_key(|v| v.period_start)
        .and_then(|v| v.soc)
}

fn update_of_session(s: &Session) -> Result<Update, ServiceError> {
    Ok(Update {
        energy_wh: Some(s.kwh.to_scaled(WH_PER_KWH).ok_or_else(|| invalid("kwh"))?),
        cost_fen: fen(s.total_cost.as_ref()),
        service_fee_fen: fen(s.x_total_service_fee.as_ref()),
        end_time: s.end_date_time,
        meter_values: meter_values(&s.charging_periods),
        last_updated: Some(s.last_updated),
    })
}

fn update_of_patch(p: &SessionPatch) -> Result<Update, ServiceError> {
    Ok(Update {
        energy_wh: match &p.kwh {
            Some(kwh) => Some(kwh.to_scaled(WH_PER_KWH).ok_or_else(|| invalid("kwh"))?),
            None => None,
        },
        cost_fen: fen(p.total_cost.as_ref()),
        service_fee_fen: fen(p.x_total_service_fee.as_ref()),
        end_time: p.end_date_time,
        meter_values: meter_values(&p.charging_periods),
        last_updated: Some(p.last_updated),
    })
}

/// A session PUT: the session created from its authorisation, or — when it
/// is known already — its figures updated.
pub async fn put(p: &Platform, session: &Session) -> Result<(), ServiceError> {
    if session.party_id != p.cpo.party_id {
        return Err(invalid("party_id"));
    }
    in_yuan(&session.currency)?;
    let update = update_of_session(session)?;
    let mut tx = db::begin_service(&p.pool).await?;
    let known = store::session_key(&mut tx, &session.party_id, &session.id).await?;
    db::end_read(tx);
    let (id, enterprise) = match known {
        Some(key) => key,
        None => create(p, session).await?,
    };
    apply(p, id, enterprise, update).await
}

/// A session PATCH.
pub async fn patch(
    p: &Platform,
    party_id: &str,
    session_no: &str,
    patch: &SessionPatch,
) -> Result<(), ServiceError> {
    let update = update_of_patch(patch)?;
    let mut tx = db::begin_service(&p.pool).await?;
    let known = store::session_key(&mut tx, party_id, session_no).await?;
    db::end_read(tx);
    let (id, enterprise) = known.ok_or_else(ServiceError::not_found)?;
    apply(p, id, enterprise, update).await
}

/// Writes the session the platform started: on energy's authorisation
/// (its `authorization_reference`), or — a token the platform let charge
/// without asking (`WHITELIST`, or a reference energy never gave) — on the
/// token's card, holding nothing yet: its first update takes a hold or
/// stops it. (id, enterprise).
async fn create(p: &Platform, session: &Session) -> Result<(Uuid, Uuid), ServiceError> {
    let reference = session
        .authorization_reference
        .as_deref()
        .and_then(|r| Uuid::parse_str(r.trim()).ok());
    let mut tx = db::begin_service(&p.pool).await?;
    let enterprise = match reference {
        Some(reference) => store::authorization_enterprise(&mut tx, reference).await?,
        None => None,
    };
    db::end_read(tx);
    match (reference, enterprise) {
        (Some(reference), Some(enterprise)) => {
            create_authorised(p, session, reference, enterprise).await
        }
        _ => create_unasked(p, session).await,
    }
}

/// A session on a token energy was not asked about: its card, found by the
/// token as an authorisation finds it, must be usable.
async fn create_unasked(p: &Platform, session: &Session) -> Result<(Uuid, Uuid), ServiceError> {
    stations::sync::ensure(&p.pool, &p.cpo, &session.location_id).await?;
    let station_id = stations::domain::station_id(&p.cpo.party_id, &session.location_id);
    let token = &session.cdr_token;
    let plate = match token.kind {
        TokenType::Other => Some(tokens::plate_of(&token.uid)?),
        TokenType::Rfid | TokenType::AppUser | TokenType::AdHocUser => None,
    };
    let credential = match &plate {
        Some(plate) => Credential::Plate(plate),
        None => Credential::CardNo(&token.uid),
    };
    let mut tx = db::begin_service(&p.pool).await?;
    let found = card_check::authorize(&mut tx, None, credential, Some(station_id)).await?;
    db::end_read(tx);
    let card = found.map_err(|refusal| {
        ServiceError::invalid(
            "cdr_token",
            format!(
                "token {} may not charge here ({}); energy authorises every session in real time",
                token.uid,
                refusal.reason()
            ),
        )
    })?;
    let enterprise = card.enterprise_id;
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    if let Some(key) = store::session_key(&mut tx, &session.party_id, &session.id).await? {
        return Ok(key);
    }
    let id = Uuid::new_v4();
    let row = cards::get(&mut tx, &platform_actor(enterprise), card.card_id, false).await?;
    insert(
        &mut tx,
        session,
        id,
        enterprise,
        &row,
        StartMethod::of(token.kind),
        0,
    )
    .await?;
    tx.commit().await?;
    tracing::info!(session = %id, session_no = %session.id, "Charging session started without an authorisation.");
    Ok((id, enterprise))
}

/// A session on an authorisation energy gave.
async fn create_authorised(
    p: &Platform,
    session: &Session,
    reference: Uuid,
    enterprise: Uuid,
) -> Result<(Uuid, Uuid), ServiceError> {
    stations::sync::ensure(&p.pool, &p.cpo, &session.location_id).await?;
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    let auth = store::lock_authorization(&mut tx, reference)
        .await?
        .ok_or_else(|| invalid("authorization_reference"))?;
    // A racing PUT of the same session wrote it while this one waited.
    if let Some(key) = store::session_key(&mut tx, &session.party_id, &session.id).await? {
        return Ok(key);
    }
    let status: AuthorizationStatus =
        optional(Some(auth.status)).unwrap_or(AuthorizationStatus::Expired);
    let held_fen = match status {
        AuthorizationStatus::Open => auth.held_fen,
        // Started on another session, or expired and released: this session
        // holds nothing yet; its first update takes what it needs or stops it.
        AuthorizationStatus::Started | AuthorizationStatus::Expired => 0,
    };
    let id = match status {
        AuthorizationStatus::Open | AuthorizationStatus::Expired => auth.id,
        AuthorizationStatus::Started => Uuid::new_v4(),
    };
    let card = cards::get(&mut tx, &platform_actor(enterprise), auth.card_id, false).await?;
    let start_method = optional(Some(auth.start_method)).unwrap_or(StartMethod::CardSwipe);
    insert(
        &mut tx,
        session,
        id,
        enterprise,
        &card,
        start_method,
        held_fen,
    )
    .await?;
    if status == AuthorizationStatus::Open {
        store::set_authorization_status(&mut tx, auth.id, AuthorizationStatus::Started).await?;
        if let Some(scan) = auth.plate_scan_id {
            scans::started(&mut tx, scan, id).await?;
        }
    }
    tx.commit().await?;
    tracing::info!(session = %id, session_no = %session.id, "Charging session started.");
    Ok((id, enterprise))
}

/// Writes session `id` of `card` at the platform's connector, holding `held_fen`.
async fn insert(
    tx: &mut PgConnection,
    session: &Session,
    id: Uuid,
    enterprise_id: Uuid,
    card: &CardRow,
    start_method: StartMethod,
    held_fen: i64,
) -> Result<(), ServiceError> {
    let place = stations::store::connector(
        &mut *tx,
        &session.party_id,
        &session.location_id,
        &session.evse_uid,
    )
    .await?;
    let values = meter_values(&session.charging_periods);
    let first_soc = values
        .iter()
        .filter(|v| v.soc.is_some())
        .min_by_key(|v| v.period_start)
        .and_then(|v| v.soc);
    store::insert_session(
        tx,
        &NewSession {
            id,
            enterprise_id,
            org_id: card.org_id,
            account_id: card.account_id,
            card_id: card.id,
            card_no: card.card_no.clone(),
            card_ledger_account_id: card.ledger_account_id,
            vehicle_id: card.vehicle_id,
            plate_number: card.plate_number.clone(),
            driver_id: card.driver_id,
            driver_name: card.driver_name.clone(),
            station_id: place.as_ref().map(|c| c.station_id),
            station_name: place
                .as_ref()
                .map(|c| c.station_name.clone())
                .unwrap_or_default(),
            city_name: place
                .as_ref()
                .map(|c| c.city_name.clone())
                .unwrap_or_default(),
            pile_no: place
                .as_ref()
                .map(|c| c.pile_no.clone())
                .unwrap_or_default(),
            connector_no: place
                .as_ref()
                .map(|c| c.connector_id.clone())
                .unwrap_or_else(|| session.connector_id.clone()),
            connector_type: place.as_ref().map(|c| c.connector_type).filter(|t| *t > 0),
            start_method,
            party_id: session.party_id.clone(),
            session_no: session.id.clone(),
            start_time: session.start_date_time,
            held_fen,
            hold_count: i32::from(held_fen > 0),
            start_soc: first_soc,
            last_updated: session.start_date_time,
        },
    )
    .await
}

/// Applies an update of session `id`: its figures and meter values, then
/// the money — a top-up of the hold, or a stop when nothing more may be
/// held. A settled session or an older update changes nothing.
async fn apply(
    p: &Platform,
    id: Uuid,
    enterprise: Uuid,
    update: Update,
) -> Result<(), ServiceError> {
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    let s = store::lock(&mut tx, id).await?;
    let status: Option<SessionStatus> = optional(Some(s.status));
    if status != Some(SessionStatus::Charging)
        || update.last_updated.is_some_and(|at| at < s.last_updated)
    {
        return Ok(());
    }
    store::insert_meter_values(&mut tx, enterprise, id, &update.meter_values).await?;
    let cost = update.cost_fen.unwrap_or(s.cost_fen).max(0);
    let service = update
        .service_fee_fen
        .unwrap_or(s.service_fee_fen)
        .clamp(0, cost);
    let mut held = s.held_fen;
    let mut stop_due = s.stop_requested_at.is_some() && s.stop_sent_at.is_none();
    // Once the platform has ended it (an end time), only the CDR settles it.
    if update.end_time.is_none() && s.end_time.is_none() {
        let card = cards::get(&mut tx, &platform_actor(enterprise), s.card_id, true).await?;
        let limits = limits(&mut tx, &card).await?;
        let decision = domain::on_update(held, s.cost_fen, cost, &limits);
        let mut stop = decision.stop;
        if decision.extend_fen > 0 {
            let key = format!("hold:{id}:{}", s.hold_count);
            match hold(&mut tx, enterprise, &card, id, decision.extend_fen, &key).await? {
                Ok(()) => {
                    store::add_hold(&mut tx, id, decision.extend_fen).await?;
                    held += decision.extend_fen;
                }
                Err(shortfall) => stop = stop.or(Some(shortfall)),
            }
        }
        if let Some(shortfall) = stop
            && s.stop_requested_at.is_none()
        {
            store::request_stop(&mut tx, id, &domain::stopped_because(shortfall)).await?;
            stop_due = true;
            tracing::info!(session = %id, held_fen = held, cost_fen = cost, "Hold runs out; stopping the session.");
        }
    }
    store::set_progress(
        &mut tx,
        id,
        &Progress {
            energy_wh: update.energy_wh.unwrap_or(s.energy_wh),
            electricity_fen: cost - service,
            service_fee_fen: service,
            cost_fen: cost,
            end_soc: last_soc(&update.meter_values).or(s.end_soc),
            end_time: update.end_time.or(s.end_time),
            last_updated: update.last_updated.unwrap_or(s.last_updated),
        },
    )
    .await?;
    tx.commit().await?;
    if stop_due {
        spawn_stop(p.clone(), id, enterprise, s.session_no);
    }
    Ok(())
}

/// Tells the platform to stop a session, in the background (the push that
/// found it due is answered at once); a stop the platform does not accept
/// is sent again by the sweeper.
pub fn spawn_stop(p: Platform, id: Uuid, enterprise: Uuid, session_no: String) {
    tokio::spawn(async move {
        if let Err(err) = send_stop(&p, id, enterprise, &session_no).await {
            tracing::warn!(session = %id, error = %err, "Stop not delivered; it is sent again later.");
        }
    });
}

async fn send_stop(
    p: &Platform,
    id: Uuid,
    enterprise: Uuid,
    session_no: &str,
) -> Result<(), ServiceError> {
    let accepted = p
        .cpo
        .stop_session(session_no, &p.command_result_url(id))
        .await
        .map_err(|e| ServiceError::new(fleetdesk_kit::ErrorCode::Unavailable, e.to_string()))?;
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    store::set_stop_sent(&mut tx, id, accepted).await?;
    tx.commit().await?;
    tracing::info!(session = %id, accepted, "STOP_SESSION sent.");
    Ok(())
}

/// The platform's result of a STOP_SESSION for session `id`: a stop it
/// could not carry out is sent again.
pub async fn command_result(p: &Platform, id: Uuid, accepted: bool) -> Result<(), ServiceError> {
    let mut tx = db::begin_service(&p.pool).await?;
    let enterprise = store::session_enterprise(&mut tx, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    db::end_read(tx);
    if !accepted {
        let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
        store::set_stop_sent(&mut tx, id, false).await?;
        tx.commit().await?;
    }
    Ok(())
}

// --- CDRs -------------------------------------------------------------------

/// The session a CDR accounts for, as a PUT would have reported it (for a
/// CDR whose session the platform never reported).
fn session_of(cdr: &Cdr, session_no: &str) -> Session {
    Session {
        country_code: cdr.country_code.clone(),
        party_id: cdr.party_id.clone(),
        id: session_no.to_owned(),
        start_date_time: cdr.start_date_time,
        end_date_time: None,
        kwh: fleetdesk_ocpi::Decimal::from_scaled(0, 0),
        cdr_token: cdr.cdr_token.clone(),
        auth_method: cdr.auth_method,
        authorization_reference: cdr.authorization_reference.clone(),
        location_id: cdr.cdr_location.id.clone(),
        evse_uid: cdr.cdr_location.evse_uid.clone(),
        connector_id: cdr.cdr_location.connector_id.clone(),
        meter_id: cdr.meter_id.clone(),
        currency: cdr.currency.clone(),
        charging_periods: cdr.charging_periods.iter().take(1).cloned().collect(),
        total_cost: None,
        x_total_service_fee: None,
        status: OcpiStatus::Active,
        last_updated: cdr.start_date_time,
    }
}

/// Energy books fen: an amount in another currency is refused, never
/// read as yuan.
fn in_yuan(currency: &str) -> Result<(), ServiceError> {
    if currency
        .trim()
        .eq_ignore_ascii_case(fleetdesk_ocpi::CURRENCY)
    {
        Ok(())
    } else {
        Err(ServiceError::invalid(
            "currency",
            format!(
                "currency {currency} is not the contract's {}",
                fleetdesk_ocpi::CURRENCY
            ),
        ))
    }
}

/// A CDR refused for what it says: nothing of it is stored or booked.
fn refused_cdr(refusal: costs::Refusal) -> ServiceError {
    ServiceError::invalid(refusal.field(), refusal.message())
}

/// Settles the session of a CDR: its cost booked part by part — min(cost,
/// held) captured to the revenue accounts, the rest released to the card —
/// or, for a credit CDR, the settlement it names taken back. A CDR that
/// would move money wrongly (a negative charge, an end before the start)
/// is refused and changes nothing; the same CDR again changes nothing; a
/// second charging CDR for a settled session is refused with the reason.
pub async fn settle(
    p: &Platform,
    cdr: &Cdr,
    body: &serde_json::Value,
) -> Result<bool, ServiceError> {
    if cdr.party_id != p.cpo.party_id {
        return Err(invalid("party_id"));
    }
    in_yuan(&cdr.currency)?;
    if cdr.is_credit() {
        return credit(p, cdr, body).await;
    }
    // Checked before anything is written, against the CDR's own start; the
    // session's start is checked again once it is known.
    costs::billed(cdr, cdr.start_date_time).map_err(refused_cdr)?;
    let energy_wh = cdr
        .total_energy
        .to_scaled(WH_PER_KWH)
        .filter(|wh| *wh >= 0)
        .ok_or_else(|| invalid("total_energy"))?;
    let mut tx = db::begin_service(&p.pool).await?;
    // Without `session_id` (a CPO without the Sessions module), the session
    // its fields name, or a session of its own.
    let session_no = match &cdr.session_id {
        Some(no) => no.clone(),
        None => {
            let authorization = cdr
                .authorization_reference
                .as_deref()
                .and_then(|r| Uuid::parse_str(r.trim()).ok());
            let station = stations::domain::station_id(&p.cpo.party_id, &cdr.cdr_location.id);
            store::session_no_matching(
                &mut tx,
                &cdr.party_id,
                authorization,
                station,
                cdr.start_date_time,
            )
            .await?
            .unwrap_or_else(|| format!("CDR-{}", cdr.id))
        }
    };
    let known = store::session_key(&mut tx, &cdr.party_id, &session_no).await?;
    db::end_read(tx);
    let (id, enterprise) = match known {
        Some(key) => key,
        None => create(p, &session_of(cdr, &session_no)).await?,
    };
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    let s = store::lock(&mut tx, id).await?;
    match optional::<SessionStatus>(Some(s.status)) {
        Some(SessionStatus::Charging) => {}
        // The same CDR again (a CPO that missed our answer): done already.
        _ if s.cdr_id.as_deref() == Some(cdr.id.as_str()) => return Ok(false),
        Some(SessionStatus::Settled | SessionStatus::Abnormal) => {
            return Err(ServiceError::new(
                fleetdesk_kit::ErrorCode::Conflict,
                format!(
                    "session {} was settled by CDR {}; to change it, send a credit CDR for that CDR first",
                    s.session_no,
                    s.cdr_id.as_deref().unwrap_or("-"),
                ),
            ));
        }
        Some(SessionStatus::Refunded) | None => {
            return Err(ServiceError::new(
                fleetdesk_kit::ErrorCode::Conflict,
                format!(
                    "session {} was settled and credited; energy takes no new charge for it",
                    s.session_no
                ),
            ));
        }
    }
    let billed = costs::billed(cdr, s.start_time).map_err(refused_cdr)?;
    store::insert_cdr(&mut tx, &cdr.party_id, &cdr.id, enterprise, id, body).await?;
    let values = meter_values(&cdr.charging_periods);
    store::insert_meter_values(&mut tx, enterprise, id, &values).await?;
    let (captured, uncollected) = domain::capture(billed.total_fen, s.held_fen);
    let card = cards::get(&mut tx, &platform_actor(enterprise), s.card_id, true).await?;
    cards::mark_used(&mut tx, enterprise, card.id, captured, cdr.end_date_time).await?;
    let stop_reason = if s.stop_reason.is_empty() {
        domain::stop_reason(cdr.remark.as_deref()).to_owned()
    } else {
        s.stop_reason.clone()
    };
    let settlement = Settlement {
        end_time: cdr.end_date_time,
        energy_wh,
        costs: billed.costs,
        cost_fen: billed.total_fen,
        cost_excl_vat_fen: billed.total_excl_vat_fen,
        captured_fen: captured,
        uncollected_fen: uncollected,
        end_soc: last_soc(&values),
        stop_reason,
        cdr_id: cdr.id.clone(),
        statement_month: domain::statement_month(cdr.end_date_time),
    };
    store::settle(&mut tx, id, &settlement).await?;
    events::enqueue(
        &mut tx,
        subjects::ENERGY_SESSION_SETTLED,
        &pb::ChargingSessionSettled {
            session_id: id.to_string(),
            enterprise_id: enterprise.to_string(),
            org_id: card.org_id.to_string(),
            card_id: card.id.to_string(),
            vehicle_id: card.vehicle_id.map(|v| v.to_string()).unwrap_or_default(),
            energy_wh,
            total_fen: captured,
            uncollected_fen: uncollected,
            end_time: Some(fleetdesk_kit::convert::timestamp(cdr.end_date_time)),
        },
    )
    .await?;
    // The money last, grouped with the enterprise's other settlements (its
    // revenue accounts are the rows they all credit) and committed in the
    // group's transaction before this one. Should this one then fail, the
    // session is still charging and the CDR's retry settles it: the
    // capture replays under its key and the release's card change is
    // written once, by its transfer.
    let settled = ledger::capture_grouped(
        &p.captures,
        &mut tx,
        enterprise,
        card.ledger_account_id,
        id,
        &billed.costs.captured(captured),
        &settle_key(id),
    )
    .await
    .map_err(ServiceError::from)?;
    if let Some(first) = settled.captured.as_ref().filter(|c| c.replayed)
        && credited_fen(first) != captured
    {
        // A retry whose CDR bills otherwise than the capture made for it.
        return Err(ServiceError::new(
            fleetdesk_kit::ErrorCode::Conflict,
            format!(
                "session {} was captured for {} already; resend the CDR that was captured",
                s.session_no,
                fleetdesk_kit::export::scope::yuan(credited_fen(first)),
            ),
        ));
    }
    if let Some(released) = settled.released.as_ref() {
        record_change(&mut tx, enterprise, &card, ChangeKind::Refund, released, id).await?;
    }
    tx.commit().await?;
    tracing::info!(session = %id, captured_fen = captured, uncollected_fen = uncollected, "Charging session settled.");
    Ok(true)
}

/// A CDR of `party_id` as it was received, if energy has it.
pub async fn cdr_of(
    p: &Platform,
    party_id: &str,
    cdr_id: &str,
) -> Result<Option<serde_json::Value>, ServiceError> {
    let mut tx = db::begin_service(&p.pool).await?;
    let body = store::cdr_body(&mut tx, party_id, cdr_id).await?;
    db::end_read(tx);
    Ok(body)
}

/// What a capture credited the revenue accounts, in all.
fn credited_fen(capture: &Posted) -> i64 {
    capture
        .entries
        .iter()
        .map(|e| e.amount_fen)
        .filter(|fen| *fen > 0)
        .sum()
}

/// The ledger key of a session's settlement (its capture and release).
fn settle_key(session: Uuid) -> String {
    format!("settle:{session}")
}

/// A credit CDR: the settlement of the CDR it names taken back whole — the
/// capture's revenue legs back onto the card in one CORRECTION, the session
/// refunded. A credit of anything else, or of part of a CDR, is refused.
async fn credit(p: &Platform, cdr: &Cdr, body: &serde_json::Value) -> Result<bool, ServiceError> {
    let amount = costs::credited(cdr).map_err(|_| {
        ServiceError::invalid(
            "total_cost",
            "a credit CDR carries the negated total_cost of the CDR it credits",
        )
    })?;
    let original = cdr
        .credit_reference_id
        .as_deref()
        .filter(|r| !r.trim().is_empty())
        .ok_or_else(|| {
            ServiceError::invalid(
                "credit_reference_id",
                "a credit CDR names the CDR it credits in credit_reference_id",
            )
        })?;
    let mut tx = db::begin_service(&p.pool).await?;
    let found = store::cdr_session(&mut tx, &cdr.party_id, original).await?;
    db::end_read(tx);
    let (id, enterprise) = found.ok_or_else(|| {
        ServiceError::invalid(
            "credit_reference_id",
            format!("CDR {original} is unknown: energy settled no CDR of that id"),
        )
    })?;
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    let s = store::lock(&mut tx, id).await?;
    if let Some(earlier) = store::credit_of(&mut tx, &cdr.party_id, original).await? {
        if earlier == cdr.id {
            return Ok(false);
        }
        return Err(ServiceError::new(
            fleetdesk_kit::ErrorCode::Conflict,
            format!("CDR {original} was credited already, by CDR {earlier}"),
        ));
    }
    if s.cdr_id.as_deref() != Some(original) {
        return Err(ServiceError::invalid(
            "credit_reference_id",
            format!("CDR {original} did not settle its session; it cannot be credited"),
        ));
    }
    if amount != s.cost_fen {
        return Err(ServiceError::invalid(
            "total_cost",
            format!(
                "a credit CDR takes back the whole CDR it credits: total_cost must be -{}",
                fleetdesk_kit::export::scope::yuan(s.cost_fen)
            ),
        ));
    }
    let card = cards::get(&mut tx, &platform_actor(enterprise), s.card_id, true).await?;
    let capture = ledger::find_transfer(
        &mut tx,
        enterprise,
        ledger::TransferKind::Capture,
        &settle_key(id),
    )
    .await
    .map_err(ServiceError::from)?;
    let reversed = match &capture {
        Some(capture) => Some(
            ledger::reverse_capture(
                &mut tx,
                enterprise,
                card.ledger_account_id,
                capture,
                &format!("credit:{id}"),
                &format!("credit CDR {}", cdr.id),
            )
            .await
            .map_err(ServiceError::from)?,
        ),
        None => None,
    };
    store::insert_cdr(&mut tx, &cdr.party_id, &cdr.id, enterprise, id, body).await?;
    store::credit(
        &mut tx,
        &store::NewCorrection {
            party_id: &cdr.party_id,
            cdr_id: &cdr.id,
            enterprise_id: enterprise,
            session_id: id,
            credited_cdr_id: original,
            amount_fen: s.total_fen,
            transfer_id: reversed.as_ref().map(|r| r.transfer_id),
        },
    )
    .await?;
    if let Some(posted) = reversed.as_ref().filter(|r| !r.replayed) {
        record_change(&mut tx, enterprise, &card, ChangeKind::Refund, posted, id).await?;
    }
    tx.commit().await?;
    tracing::info!(session = %id, credited_fen = s.total_fen, cdr = %cdr.id, "Charging session credited.");
    Ok(true)
}

// --- the sweeper ------------------------------------------------------------

/// Releases the holds of authorisations no session followed, closes plate
/// recognitions no session followed, and sends stops again that the
/// platform has not accepted.
pub async fn sweep(p: &Platform) -> Result<(), ServiceError> {
    let now = Utc::now();
    let mut tx = db::begin_service(&p.pool).await?;
    let expired = store::expired_authorizations(&mut tx, now, 200).await?;
    scans::fail_stale(&mut tx, now - AUTHORIZATION_TTL).await?;
    let stops = store::due_stops(&mut tx, now - chrono::Duration::seconds(30), 200).await?;
    tx.commit().await?;
    for (id, enterprise) in expired {
        expire(p, id, enterprise).await?;
    }
    for (id, enterprise) in stops {
        let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
        let s = store::lock(&mut tx, id).await?;
        db::end_read(tx);
        if let Err(err) = send_stop(p, id, enterprise, &s.session_no).await {
            tracing::warn!(session = %id, error = %err, "Stop still not delivered.");
        }
    }
    Ok(())
}

async fn expire(p: &Platform, id: Uuid, enterprise: Uuid) -> Result<(), ServiceError> {
    let mut tx = db::begin_tenant(&p.pool, enterprise).await?;
    let Some(auth) = store::lock_authorization(&mut tx, id).await? else {
        return Ok(());
    };
    if optional::<AuthorizationStatus>(Some(auth.status)) != Some(AuthorizationStatus::Open) {
        return Ok(());
    }
    let card = cards::get(&mut tx, &platform_actor(enterprise), auth.card_id, true).await?;
    let released = ledger::release(
        &mut tx,
        enterprise,
        auth.card_ledger_account_id,
        id,
        &format!("release:{id}"),
    )
    .await
    .map_err(ServiceError::from)?;
    if let Some(posted) = released.filter(|r| !r.replayed) {
        record_change(&mut tx, enterprise, &card, ChangeKind::Refund, &posted, id).await?;
    }
    store::set_authorization_status(&mut tx, id, AuthorizationStatus::Expired).await?;
    if let Some(scan) = auth.plate_scan_id {
        scans::set_result(&mut tx, scan, ScanResult::PileFailed).await?;
    }
    tx.commit().await?;
    tracing::info!(authorization = %id, "Authorisation expired without a session; hold released.");
    Ok(())
}
