//! Sessions for a development stack: the platform keeps starting sessions
//! for the fleet the eMSP answers for, about `sessions_per_minute`, and
//! drives each one with updates until the battery reaches the driver's
//! target.
//!
//! A driver tops up for 3 to 15 minutes (a break between runs) or until
//! the battery is full, whichever comes first, so that settled sessions
//! show soon after a stack starts.
//!
//! It learns the fleet the way a CPO does, from the eMSP's token list
//! (`GET tokens`, then only what changed): RFID tokens are cards, OTHER
//! tokens are plates of vehicle-bound cards (sharing the card's
//! `group_id`). A plate is sent to a station of its city with cameras and
//! starts by recognition; a card swipes at a station of its plate's city
//! (any station when the card has no vehicle). A card issued (or
//! unfrozen) while it runs charges first, as a new card is used soon; now
//! and then it tries a token the eMSP no longer honours, so refusals
//! happen too.

use std::collections::{HashMap, VecDeque};
use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_ocpi::{Token, TokenType};
use rand::Rng as _;
use rand::SeedableRng as _;
use rand::rngs::StdRng;

use crate::network::Station;
use crate::platform::{StandIn, StartOutcome, StartRequest, StopCause};

/// How busy the generated fleet is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Generation {
    /// Mean sessions started per minute.
    pub sessions_per_minute: f64,
    /// Seconds between two updates of a session.
    pub update_secs: u64,
    /// Most generated sessions running at once.
    pub max_active: usize,
}

impl Generation {
    pub fn new(sessions_per_minute: f64) -> Generation {
        Generation {
            sessions_per_minute,
            update_secs: 30,
            max_active: 25,
        }
    }
}

/// How often the token list is asked for changes.
const TOKEN_SYNC: Duration = Duration::from_secs(15);
/// Chance that a start tries a token marked invalid.
const INVALID_CHANCE: f64 = 0.05;

/// A generated session and when the driver stops it.
#[derive(Debug)]
struct Generated {
    group: String,
    ends_at: DateTime<Utc>,
    last_update: DateTime<Utc>,
}

/// Runs until dropped (with the platform's server).
pub async fn run(platform: StandIn, generation: Generation) {
    let mut rng = StdRng::from_entropy();
    let mut tokens: HashMap<String, Token> = HashMap::new();
    // Tokens that became valid after the first sync, to charge first.
    let mut fresh: VecDeque<String> = VecDeque::new();
    let mut synced: Option<DateTime<Utc>> = None;
    let mut last_sync = tokio::time::Instant::now() - TOKEN_SYNC;
    let mut active: HashMap<String, Generated> = HashMap::new();
    let mean_gap = 60.0 / generation.sessions_per_minute.max(0.01);
    let mut next_start = tokio::time::Instant::now();
    let mut tick = tokio::time::interval(Duration::from_secs(1));
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        tick.tick().await;
        if last_sync.elapsed() >= TOKEN_SYNC {
            last_sync = tokio::time::Instant::now();
            // Inclusive `date_from`: the newest token is asked for again.
            match platform.emsp().tokens(synced).await {
                Ok(changed) => {
                    for token in changed {
                        let was_valid = tokens.get(&token.uid).is_some_and(|t| t.valid);
                        if synced.is_some() && token.valid && !was_valid {
                            fresh.push_back(token.uid.clone());
                        }
                        synced = synced.max(Some(token.last_updated));
                        tokens.insert(token.uid.clone(), token);
                    }
                }
                Err(err) => tracing::debug!(error = %err, "Token list not available yet."),
            }
        }
        update(&platform, &generation, &mut active).await;
        if tokio::time::Instant::now() >= next_start {
            let gap = mean_gap * rng.gen_range(0.5..1.5);
            next_start = tokio::time::Instant::now() + Duration::from_secs_f64(gap);
            if active.len() < generation.max_active {
                start(&platform, &tokens, &mut fresh, &mut active, &mut rng).await;
            }
        }
        platform.redeliver_cdrs().await;
        platform
            .forget_ended(Utc::now() - chrono::Duration::hours(1))
            .await;
    }
}

/// Sends the updates that are due and stops sessions at their target.
async fn update(
    platform: &StandIn,
    generation: &Generation,
    active: &mut HashMap<String, Generated>,
) {
    let now = Utc::now();
    let due: Vec<String> = active
        .iter()
        .filter(|(_, g)| (now - g.last_update).num_seconds() >= generation.update_secs as i64)
        .map(|(id, _)| id.clone())
        .collect();
    for id in due {
        let Some(generated) = active.get_mut(&id) else {
            continue;
        };
        let elapsed = now - generated.last_update;
        generated.last_update = now;
        let ends_at = generated.ends_at;
        let finished = match platform.advance(&id, elapsed).await {
            Ok(view) if view.soc >= 100 || now >= ends_at => {
                let cause = if view.soc >= 100 {
                    StopCause::Full
                } else {
                    StopCause::Local
                };
                if let Err(err) = platform.stop(&id, cause).await {
                    tracing::debug!(error = %err, session = %id, "Stop not delivered; the CDR is retried.");
                }
                true
            }
            Ok(_) => false,
            // Ended by the eMSP (STOP_SESSION) or gone.
            Err(
                crate::platform::StandInError::NotActive
                | crate::platform::StandInError::UnknownSession,
            ) => true,
            Err(err) => {
                tracing::debug!(error = %err, session = %id, "Session update not delivered.");
                false
            }
        };
        if finished {
            active.remove(&id);
        }
    }
}

/// The group of a token: its card.
fn group(token: &Token) -> String {
    token.group_id.clone().unwrap_or_else(|| token.uid.clone())
}

/// Starts one session for a token of the fleet, if there is one to start.
async fn start(
    platform: &StandIn,
    tokens: &HashMap<String, Token>,
    fresh: &mut VecDeque<String>,
    active: &mut HashMap<String, Generated>,
    rng: &mut StdRng,
) {
    let busy: Vec<String> = active.values().map(|g| g.group.clone()).collect();
    let idle = |t: &Token| !busy.contains(&group(t));
    let token = loop {
        match fresh.pop_front() {
            Some(uid) => match tokens.get(&uid) {
                Some(t) if t.valid && idle(t) => break Some(t),
                Some(_) | None => continue,
            },
            None => break None,
        }
    };
    let token = match token {
        Some(t) => t,
        None => {
            let want_valid = !rng.gen_bool(INVALID_CHANCE);
            let candidates: Vec<&Token> = tokens
                .values()
                .filter(|t| t.valid == want_valid && idle(t))
                .collect();
            if candidates.is_empty() {
                return;
            }
            candidates[rng.gen_range(0..candidates.len())]
        }
    };
    let by_plate = token.kind == TokenType::Other;
    // The plate of the token's card, for its city.
    // A plate token shows its plate as `visual_number` (its uid is ASCII).
    let plate = if by_plate {
        token.visual_number.clone()
    } else {
        tokens
            .values()
            .find(|t| {
                t.kind == TokenType::Other && t.group_id == token.group_id && t.group_id.is_some()
            })
            .and_then(|t| t.visual_number.clone())
    };
    if by_plate && plate.is_none() {
        return;
    }
    let Some(station) = station_for(platform, plate.as_deref(), by_plate, rng) else {
        return;
    };
    let dc_power = station
        .piles
        .iter()
        .filter(|p| p.dc)
        .map(|p| p.max_kw)
        .max()
        .unwrap_or(7);
    let power_kw = if rng.gen_bool(0.85) {
        (f64::from(dc_power) * rng.gen_range(0.55..0.9)) as u32
    } else {
        7
    };
    let request = StartRequest {
        // The camera reads the plate; the platform finds its token.
        token_uid: if by_plate {
            plate.clone().unwrap_or_default()
        } else {
            token.uid.clone()
        },
        by_plate,
        location_id: station.location_id.clone(),
        evse_uid: None,
        power_kw,
        battery_kwh: rng.gen_range(50..=110),
        start_soc: rng.gen_range(10..=55),
    };
    match platform.start_session(request).await {
        Ok(StartOutcome::Charging { session }) => {
            active.insert(
                session.id,
                Generated {
                    group: group(token),
                    ends_at: session.start + chrono::Duration::minutes(rng.gen_range(3..=15)),
                    last_update: session.start,
                },
            );
        }
        Ok(StartOutcome::Refused { allowed, message }) => {
            tracing::info!(token = %token.uid, ?allowed, %message, "Session refused.");
        }
        Err(err) => tracing::debug!(error = %err, "Session not started."),
    }
}

/// A station of the plate's city (with cameras when starting by plate),
/// else any station that fits.
fn station_for<'a>(
    platform: &'a StandIn,
    plate: Option<&str>,
    by_plate: bool,
    rng: &mut StdRng,
) -> Option<&'a Station> {
    let fits: Vec<&Station> = platform
        .network()
        .stations
        .iter()
        .filter(|s| !by_plate || s.plate_recognition)
        .collect();
    let local: Vec<&Station> = fits
        .iter()
        .copied()
        .filter(|s| plate.is_some_and(|p| s.plate_prefixes.iter().any(|x| p.starts_with(x))))
        .collect();
    let pool = if local.is_empty() { fits } else { local };
    (!pool.is_empty()).then(|| pool[rng.gen_range(0..pool.len())])
}
