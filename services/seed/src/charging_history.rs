//! A month of charging history of demo enterprise A, written through
//! energy's own session path — the calls its OCPI receiver makes when the
//! charging platform reports (`sessions::charging`): the authorisation
//! with its hold on the card, the session PUT, updates that top the hold
//! up, and the CDR that captures the cost to the platform's revenue
//! accounts and releases the rest. So the ledger stays double-entry, every
//! card change is recorded, and the dashboard, the session list, the
//! statements and the behaviour analysis read what the live path writes.
//!
//! The stations and tariffs are the local charging platform's (the
//! stand-in `make run` starts, party `SDC`), written through energy's
//! station and tariff stores as its sync would; the platform itself is not
//! called (every station is known, and no session runs out of money, so
//! energy never needs to send a stop).
//!
//! The card changes the sessions record are dated when each happened (the
//! path stamps them with the time it runs); ledger rows are left as booked.
//!
//! Deterministic plan (a generator seeded per day; the month before today,
//! Asia/Shanghai) and idempotent: a station energy knows (from a run
//! before, or synced from the platform since) is left as it is, and a
//! session whose number exists is skipped, so a run on a later day adds
//! only the days since. Session and ledger ids are energy's own (random),
//! as for live sessions.

use std::sync::Arc;
use std::time::Instant;

use chrono::{DateTime, Datelike, Duration, TimeZone, Utc};
use fleetdesk_charging_standin::meter::{Charge, Meter};
use fleetdesk_charging_standin::network::{self, Pile, Station};
use fleetdesk_charging_standin::tariff::shanghai;
use fleetdesk_energy::card_changes::domain::ChangeKind;
use fleetdesk_energy::ledger;
use fleetdesk_energy::platform::Platform;
use fleetdesk_energy::platform::client::{Cpo, CpoEndpoints};
use fleetdesk_energy::sessions::charging::{self, Answer};
use fleetdesk_kit::{db, demo_id};
use fleetdesk_ocpi::decimal::WH_PER_KWH;
use fleetdesk_ocpi::{
    AuthMethod, COUNTRY, CURRENCY, Cdr, CdrLocation, CdrToken, ChargingPeriod, ConnectorFormat,
    Decimal, GeoLocation, Price, Session, SessionPatch, SessionStatus, TokenType,
};
use sqlx_postgres::PgPool;

use crate::vehicle::Rng;

/// Days of history before today (today's sessions are the live platform's).
pub const HISTORY_DAYS: i64 = 30;
/// The local platform's party id (`fleetdesk_charging_standin::PARTY_ID`).
const PARTY_ID: &str = fleetdesk_charging_standin::PARTY_ID;
/// VAT the platform states on electricity and on the service fee, percent.
const ELECTRICITY_VAT_PERCENT: u32 = 13;
const SERVICE_VAT_PERCENT: u32 = 6;
/// Minutes between two session updates of the platform.
const UPDATE_MINUTES: i64 = 20;
/// Sessions charged side by side.
const STREAMS: usize = 2;

/// A demo card that charges.
#[derive(Debug, Clone, sqlx::FromRow)]
struct CardRow {
    card_no: String,
    kind: i16,
    plate_number: String,
}

/// One planned session.
#[derive(Debug, Clone)]
struct Planned {
    no: String,
    card: usize,
    station: usize,
    pile: usize,
    start: DateTime<Utc>,
    minutes: i64,
    charge: Charge,
}

/// What [`run`] did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    pub stations: usize,
    pub sessions: usize,
    pub skipped: usize,
    pub refused: usize,
    pub millis: u64,
}

/// Writes the demo charging history (idempotent); nothing ends after `now`.
/// Needs the demo cards (`crate::energy`); without them it does nothing.
pub async fn run(pool: &PgPool, now: DateTime<Utc>) -> anyhow::Result<Report> {
    let started = Instant::now();
    let eid = demo_id("enterprise:a");
    let mut report = Report::default();
    let mut tx = db::begin_tenant(pool, eid).await?;
    let cards: Vec<CardRow> = sqlx::query_as(
        "select card_no, kind, plate_number from charging_card \
         where enterprise_id = $1 and status = 1 order by card_no",
    )
    .bind(eid)
    .fetch_all(&mut *tx)
    .await?;
    db::end_read(tx);
    if cards.is_empty() {
        tracing::info!("No demo charging cards; no charging history.");
        return Ok(report);
    }

    let network = network::network();
    let published = now - Duration::days(HISTORY_DAYS + 10);
    report.stations = stations(pool, &network, published).await?;

    let cpo = Cpo::new(
        reqwest::Client::new(),
        CpoEndpoints {
            locations: String::new(),
            tariffs: String::new(),
            commands: String::new(),
        },
        "",
        PARTY_ID,
    );
    // The sessions' captures are grouped on a pool of their own, as the
    // service's are: the two streams wait for them holding `pool`'s two.
    let group_pool = sqlx_postgres::PgPoolOptions::new()
        .max_connections(ledger::CAPTURE_POOL)
        .connect_lazy_with(pool.connect_options().as_ref().clone());
    let captures = ledger::CaptureGroup::new(group_pool, ledger::CAPTURE_GROUP_SIZE);
    let platform = Platform::new(pool.clone(), cpo, String::new(), captures);
    // Two streams, a card's sessions all in one (in time order), as two
    // platform workers would push them.
    let planned = plan(&cards, &network, now);
    let streams = (0..STREAMS).map(|k| {
        let mine: Vec<&Planned> = planned.iter().filter(|s| s.card % STREAMS == k).collect();
        let (platform, cards, network) = (&platform, &cards, &network);
        async move {
            let mut done = Report::default();
            for s in mine {
                if known(pool, &s.no).await? {
                    done.skipped += 1;
                } else if charge(platform, &cards[s.card], &network.stations[s.station], s).await? {
                    done.sessions += 1;
                } else {
                    done.refused += 1;
                }
            }
            Ok::<_, anyhow::Error>(done)
        }
    });
    for done in futures::future::try_join_all(streams).await? {
        report.sessions += done.sessions;
        report.skipped += done.skipped;
        report.refused += done.refused;
    }
    let numbers: Vec<String> = planned.iter().map(|s| s.no.clone()).collect();
    change_times(pool, &numbers).await?;
    report.millis = started.elapsed().as_millis() as u64;
    tracing::info!(
        stations = report.stations,
        sessions = report.sessions,
        skipped = report.skipped,
        refused = report.refused,
        "Demo charging history loaded."
    );
    Ok(report)
}

/// Dates the card changes of the sessions `numbers` when they happened:
/// the session path records them at the time it runs (here, the seed's),
/// so the card's amount-change list would show a month of history as
/// made at once. A hold (CONSUME) at the session's start and each top-up
/// an update later, the release of the rest (REFUND) at its end. Only the
/// records' times move; their amounts and the ledger are as booked.
async fn change_times(pool: &PgPool, numbers: &[String]) -> anyhow::Result<()> {
    let mut tx = db::begin_service(pool).await?;
    sqlx::query(
        "update card_amount_change c set created_at = t.at from ( \
           select c2.id, case when c2.kind = $3 then least(s.start_time + \
             (row_number() over (partition by c2.session_id, c2.kind \
               order by c2.created_at, c2.id) - 1) * make_interval(mins => $4), \
             coalesce(s.end_time, s.start_time)) \
           else coalesce(s.end_time, s.start_time) end as at \
           from card_amount_change c2 join charging_session s on s.id = c2.session_id \
           where s.party_id = $1 and s.session_no = any($2)) t \
         where c.id = t.id and c.created_at <> t.at",
    )
    .bind(PARTY_ID)
    .bind(numbers)
    .bind(i16::from(ChangeKind::Consume))
    .bind(UPDATE_MINUTES as i32)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// Whether the platform's session `no` is known to energy already.
async fn known(pool: &PgPool, no: &str) -> anyhow::Result<bool> {
    let mut tx = db::begin_service(pool).await?;
    let known: bool = sqlx::query_scalar(
        "select exists(select 1 from charging_session where party_id = $1 and session_no = $2)",
    )
    .bind(PARTY_ID)
    .bind(no)
    .fetch_one(&mut *tx)
    .await?;
    db::end_read(tx);
    Ok(known)
}

/// The platform's tariffs and stations energy does not know yet, as its
/// sync writes them; the number of stations written.
async fn stations(
    pool: &PgPool,
    network: &network::Network,
    published: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let mut tx = db::begin_service(pool).await?;
    let mut unknown = Vec::new();
    for station in &network.stations {
        if !fleetdesk_energy::stations::store::known(&mut tx, PARTY_ID, &station.location_id)
            .await?
        {
            unknown.push(station);
        }
    }
    if unknown.is_empty() {
        db::end_read(tx);
        return Ok(0);
    }
    for plan in &network.tariffs {
        let tariff = plan.to_ocpi(PARTY_ID, published);
        let periods = fleetdesk_energy::tariffs::domain::periods(&tariff)
            .map_err(|e| anyhow::anyhow!("tariff {}: {e}", tariff.id))?;
        fleetdesk_energy::tariffs::store::upsert(&mut tx, &tariff, &periods).await?;
    }
    let mut written = 0;
    for station in unknown {
        let location = station.to_ocpi(PARTY_ID, published, |_| {
            (fleetdesk_ocpi::EvseStatus::Available, published)
        });
        let draft = fleetdesk_energy::stations::domain::draft(&location)
            .map_err(|e| anyhow::anyhow!("station {}: {e}", location.id))?;
        fleetdesk_energy::stations::store::upsert(&mut tx, &draft, &location).await?;
        written += 1;
    }
    tx.commit().await?;
    Ok(written)
}

/// The sessions of the month, oldest first: a few a day,
/// at night (valley prices), around noon and in the evening; each at a
/// station of the card's city on a DC pile mostly.
fn plan(cards: &[CardRow], network: &network::Network, now: DateTime<Utc>) -> Vec<Planned> {
    let today = now.with_timezone(&shanghai()).date_naive();
    let mut out = Vec::new();
    for back in (1..=HISTORY_DAYS).rev() {
        let day = today - Duration::days(back);
        // A day's sessions depend on the day alone: a run on a later day
        // finds the days it shares with an earlier run's as they were.
        let mut rng =
            Rng::new(0xC4A2_6E00 ^ (u64::from(day.num_days_from_ce().unsigned_abs()) << 16));
        let count = 4 + rng.below(4) as usize;
        let midnight = shanghai()
            .from_local_datetime(&day.and_hms_opt(0, 0, 0).unwrap_or_default())
            .single()
            .map(|t| t.with_timezone(&Utc))
            .unwrap_or(now);
        for n in 0..count {
            let card = rng.below(cards.len() as u64) as usize;
            let minute = match rng.below(10) {
                0..=3 => (22 * 60 + rng.below(8 * 60)) % (24 * 60),
                4..=6 => 11 * 60 + rng.below(3 * 60),
                _ => 17 * 60 + rng.below(4 * 60),
            } as i64;
            let start =
                midnight + Duration::minutes(minute) + Duration::seconds(rng.below(60) as i64);
            let plate = &cards[card].plate_number;
            let local: Vec<usize> = network
                .stations
                .iter()
                .enumerate()
                .filter(|(_, s)| {
                    !plate.is_empty() && s.plate_prefixes.iter().any(|p| plate.starts_with(p))
                })
                .map(|(i, _)| i)
                .collect();
            let station = if local.is_empty() {
                rng.below(network.stations.len() as u64) as usize
            } else {
                local[rng.below(local.len() as u64) as usize]
            };
            let piles = &network.stations[station].piles;
            let dc: Vec<usize> = (0..piles.len()).filter(|i| piles[*i].dc).collect();
            let pile = if !dc.is_empty() && rng.chance(94) {
                dc[rng.below(dc.len() as u64) as usize]
            } else {
                rng.below(piles.len() as u64) as usize
            };
            let max_kw = i64::from(piles[pile].max_kw);
            let power_w = if piles[pile].dc {
                max_kw * (55 + rng.below(35) as i64) * 10
            } else {
                max_kw * 1000
            };
            let minutes = if piles[pile].dc {
                25 + rng.below(50) as i64
            } else {
                90 + rng.below(60) as i64
            };
            let charge = Charge {
                power_w,
                battery_wh: (50 + rng.below(50) as i64) * 1000,
                start_soc: (10 + rng.below(40)) as u8,
            };
            if start + Duration::minutes(minutes + 5) > now {
                continue;
            }
            let local_start = start.with_timezone(&shanghai());
            out.push(Planned {
                // The platform's order number: local start time and a sequence.
                no: format!("{}{:06}", local_start.format("%Y%m%d%H%M%S"), 900_000 + n),
                card,
                station,
                pile,
                start,
                minutes,
                charge,
            });
        }
    }
    out.sort_by_key(|s| s.start);
    out
}

fn electricity_price(meter: &Meter) -> Price {
    Price::fen_with_vat(meter.electricity_fen(), ELECTRICITY_VAT_PERCENT)
}

fn service_price(meter: &Meter) -> Price {
    Price::fen_with_vat(meter.service_fee_fen(), SERVICE_VAT_PERCENT)
}

fn total_price(meter: &Meter) -> anyhow::Result<Price> {
    electricity_price(meter)
        .plus(&service_price(meter))
        .ok_or_else(|| anyhow::anyhow!("prices do not add up"))
}

fn kwh(meter: &Meter) -> Decimal {
    Decimal::from_scaled(meter.energy_wh(), WH_PER_KWH)
}

/// Charges one planned session through energy's session path; false when
/// energy refused the card.
async fn charge(
    p: &Platform,
    card: &CardRow,
    station: &Station,
    s: &Planned,
) -> anyhow::Result<bool> {
    let pile: &Pile = &station.piles[s.pile];
    let kind = if card.kind == 2 {
        TokenType::AppUser
    } else {
        TokenType::Rfid
    };
    let reference = match charging::authorize(p, &card.card_no, kind, &station.location_id).await? {
        Answer::Allowed { id, .. } => id,
        Answer::Refused { .. } | Answer::Unknown => return Ok(false),
    };
    let token = CdrToken {
        country_code: COUNTRY.to_owned(),
        party_id: fleetdesk_energy::platform::EMSP_PARTY_ID.to_owned(),
        uid: card.card_no.clone(),
        kind,
        contract_id: format!(
            "CN-{}-{}",
            fleetdesk_energy::platform::EMSP_PARTY_ID,
            card.card_no
        ),
    };
    let plan = Arc::clone(&station.tariff);
    let mut meter = Meter::new(s.charge, plan, s.start);
    let mut periods: Vec<ChargingPeriod> = vec![meter.opening_period()];
    charging::put(
        p,
        &Session {
            country_code: COUNTRY.to_owned(),
            party_id: PARTY_ID.to_owned(),
            id: s.no.clone(),
            start_date_time: s.start,
            end_date_time: None,
            kwh: kwh(&meter),
            cdr_token: token.clone(),
            auth_method: AuthMethod::AuthRequest,
            authorization_reference: Some(reference.to_string()),
            location_id: station.location_id.clone(),
            evse_uid: pile.evse_uid.clone(),
            connector_id: Pile::CONNECTOR_ID.to_owned(),
            meter_id: None,
            currency: CURRENCY.to_owned(),
            charging_periods: periods.clone(),
            total_cost: Some(Price::fen_with_vat(0, ELECTRICITY_VAT_PERCENT)),
            x_total_service_fee: Some(Price::fen_with_vat(0, SERVICE_VAT_PERCENT)),
            status: SessionStatus::Active,
            last_updated: s.start,
        },
    )
    .await?;
    // Updates every few minutes until the planned end or a full battery.
    let end = s.start + Duration::minutes(s.minutes);
    while meter.clock() < end && !meter.is_full() {
        let step = Duration::minutes(UPDATE_MINUTES).min(end - meter.clock());
        let new = meter.advance(step);
        periods.extend(new.iter().cloned());
        charging::patch(
            p,
            PARTY_ID,
            &s.no,
            &SessionPatch {
                kwh: Some(kwh(&meter)),
                end_date_time: None,
                charging_periods: new,
                total_cost: Some(total_price(&meter)?),
                x_total_service_fee: Some(service_price(&meter)),
                status: None,
                last_updated: meter.clock(),
            },
        )
        .await?;
    }
    let end = meter.clock();
    // The platform's stop causes (`domain::stop_reason` reads them).
    let remark = if meter.is_full() { "FULL" } else { "LOCAL" };
    charging::patch(
        p,
        PARTY_ID,
        &s.no,
        &SessionPatch {
            kwh: Some(kwh(&meter)),
            end_date_time: Some(end),
            charging_periods: Vec::new(),
            total_cost: Some(total_price(&meter)?),
            x_total_service_fee: Some(service_price(&meter)),
            status: Some(SessionStatus::Completed),
            last_updated: end,
        },
    )
    .await?;
    let hours = Decimal::from_scaled((end - s.start).num_seconds() * 10_000 / 3600, 4);
    let cdr = Cdr {
        country_code: COUNTRY.to_owned(),
        party_id: PARTY_ID.to_owned(),
        id: format!("CDR{}", s.no),
        start_date_time: s.start,
        end_date_time: end,
        session_id: Some(s.no.clone()),
        cdr_token: token,
        auth_method: AuthMethod::AuthRequest,
        authorization_reference: Some(reference.to_string()),
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
            evse_uid: pile.evse_uid.clone(),
            evse_id: format!("CN*{PARTY_ID}*E{}", pile.evse_uid),
            connector_id: Pile::CONNECTOR_ID.to_owned(),
            connector_standard: pile.standard(),
            connector_format: ConnectorFormat::Cable,
            connector_power_type: pile.power_type(),
        },
        meter_id: None,
        currency: CURRENCY.to_owned(),
        tariffs: vec![station.tariff.to_ocpi(PARTY_ID, s.start)],
        charging_periods: periods,
        signed_data: None,
        total_cost: total_price(&meter)?,
        total_fixed_cost: None,
        total_energy: kwh(&meter),
        total_energy_cost: Some(electricity_price(&meter)),
        total_time: hours,
        total_time_cost: None,
        total_parking_time: None,
        total_parking_cost: None,
        total_reservation_cost: None,
        x_total_service_fee: Some(service_price(&meter)),
        remark: Some(remark.to_owned()),
        invoice_reference_id: None,
        credit: None,
        credit_reference_id: None,
        home_charging_compensation: None,
        last_updated: end,
    };
    let body = serde_json::to_value(&cdr)?;
    charging::settle(p, &cdr, &body).await?;
    Ok(true)
}
