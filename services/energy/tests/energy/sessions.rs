//! Charging sessions end to end: the energy service (gRPC and its OCPI
//! receiver on port 0) and the charging-platform stand-in driving it over
//! HTTP as the operator's platform would — authorisation and hold, session
//! updates, STOP_SESSION, CDR and capture — on a fresh database per test.

use crate::support;

use std::time::Duration;

use fleetdesk_charging_standin::{
    SessionView, StandIn, StandInError, StartOutcome, StartRequest, StopCause,
};
use fleetdesk_kit::db;
use fleetdesk_ocpi::{AllowedType, SessionStatus};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;
use support::Tenant;
use support::platform::{Charging, charging, charging_on, network_with};
use uuid::Uuid;

/// The first station of the stand-in with plate cameras.
fn station(platform: &StandIn) -> String {
    platform
        .network()
        .stations
        .iter()
        .find(|s| s.plate_recognition)
        .unwrap()
        .location_id
        .clone()
}

fn start(card_or_plate: &str, location_id: &str, power_kw: u32) -> StartRequest {
    StartRequest {
        token_uid: card_or_plate.to_owned(),
        by_plate: false,
        location_id: location_id.to_owned(),
        evse_uid: None,
        power_kw,
        battery_kwh: 400,
        start_soc: 10,
    }
}

/// The last week to the next one: every list's required range.
fn around_now() -> common::TimeRange {
    let now = chrono::Utc::now();
    common::TimeRange {
        start: Some(fleetdesk_kit::convert::timestamp(
            now - chrono::Duration::days(7),
        )),
        end: Some(fleetdesk_kit::convert::timestamp(
            now + chrono::Duration::days(7),
        )),
    }
}

impl Charging {
    /// A card of `t`'s Shanghai organisation with `balance_fen` on it (moved
    /// down the tree from the main account), bound to vehicle `vehicle` or,
    /// when None, to the tenant's driver; its number.
    async fn shanghai_card(
        &self,
        t: &Tenant,
        vehicle: Option<usize>,
        balance_fen: i64,
        budget: Option<(pb::BudgetPeriod, i64)>,
    ) -> pb::ChargingCard {
        let s = &self.stack;
        let account = s.account_of(t, t.shanghai).await;
        let (holder_kind, vehicle_id, driver_id) = match vehicle {
            Some(i) => (
                pb::CardHolderKind::Vehicle,
                t.vehicles[i].0.to_string(),
                String::new(),
            ),
            None => (
                pb::CardHolderKind::Driver,
                String::new(),
                t.driver.to_string(),
            ),
        };
        let (budget_period, budget_limit_fen) =
            budget.map_or((pb::BudgetPeriod::None, 0), |(p, l)| (p, l));
        let card = s
            .client
            .clone()
            .create_charging_card(
                s.req(
                    t,
                    pb::CreateChargingCardRequest {
                        card: Some(pb::ChargingCardInput {
                            org_id: t.shanghai.to_string(),
                            account_id: account.id.clone(),
                            kind: pb::ChargingCardKind::Physical as i32,
                            card_no: format!("CN{}", &Uuid::new_v4().simple().to_string()[..12])
                                .to_uppercase(),
                            holder_kind: holder_kind as i32,
                            vehicle_id,
                            driver_id,
                            budget_period: budget_period as i32,
                            budget_limit_fen,
                            ..Default::default()
                        }),
                    },
                ),
            )
            .await
            .unwrap()
            .into_inner()
            .card
            .unwrap();
        if balance_fen > 0 {
            s.funded_shanghai(t, balance_fen).await;
            s.client
                .clone()
                .change_charging_card_amount(s.req(
                    t,
                    pb::ChangeChargingCardAmountRequest {
                        card_id: card.id.clone(),
                        kind: pb::CardAmountChangeKind::TopUp as i32,
                        amount_fen: balance_fen,
                        remark: String::new(),
                        idempotency_key: Uuid::new_v4().to_string(),
                    },
                ))
                .await
                .unwrap();
        }
        card
    }

    async fn card_balance(&self, t: &Tenant, card_id: &str) -> i64 {
        let s = &self.stack;
        s.client
            .clone()
            .get_charging_card(s.req(
                t,
                pb::GetChargingCardRequest {
                    card_id: card_id.to_owned(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .card
            .unwrap()
            .balance_fen
    }

    async fn sessions(&self, t: &Tenant) -> pb::ListChargingSessionsResponse {
        let s = &self.stack;
        s.client
            .clone()
            .list_charging_sessions(s.req(
                t,
                pb::ListChargingSessionsRequest {
                    page: Some(common::PageRequest { page: 1, size: 100 }),
                    start_time: Some(around_now()),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner()
    }

    async fn scans(&self, t: &Tenant) -> Vec<pb::PlateScanRecord> {
        let s = &self.stack;
        s.client
            .clone()
            .list_plate_scan_records(s.req(
                t,
                pb::ListPlateScanRecordsRequest {
                    page: Some(common::PageRequest { page: 1, size: 100 }),
                    scan_time: Some(around_now()),
                    ..Default::default()
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .records
    }

    /// Starts a session that must be authorised.
    async fn charge(&self, request: StartRequest) -> SessionView {
        match self.platform.start_session(request).await.unwrap() {
            StartOutcome::Charging { session } => session,
            refused => panic!("not authorised: {refused:?}"),
        }
    }

    /// Counts of ledger transfers of `kind` (the ledger's code) whose key names `session`.
    async fn transfers(&self, t: &Tenant, kind: i16, session: &str) -> i64 {
        let mut tx = db::begin_service(&self.stack.owner).await.unwrap();
        sqlx::query_scalar(
            "select count(*) from ledger_transfer where enterprise_id = $1 and kind = $2 \
             and idempotency_key like '%' || $3 || '%'",
        )
        .bind(t.enterprise)
        .bind(kind)
        .bind(session)
        .fetch_one(&mut *tx)
        .await
        .unwrap()
    }
}

/// Waits (up to 10 s) until `check` holds.
async fn eventually<F, Fut>(what: &str, mut check: F)
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    for _ in 0..100 {
        if check().await {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what} did not happen within 10 s");
}

/// Ledger codes (energy-core's): account kinds and a transfer kind.
const FUNDING: i16 = 5;
const HOLD: i16 = 4;
/// The revenue accounts: electricity, service, time, parking, fixed, reservation.
const REVENUE: std::ops::RangeInclusive<i16> = 6..=11;
const CAPTURE: i16 = 6;
const CORRECTION: i16 = 8;

impl Charging {
    /// Every ledger account of `t`: (kind, balance, sum of its entries).
    async fn ledger(&self, t: &Tenant) -> Vec<(i16, i64, i64)> {
        let mut tx = db::begin_service(&self.stack.owner).await.unwrap();
        sqlx::query_as(
            "select a.kind, a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
             where e.account_id = a.id), 0)::bigint from ledger_account a where a.enterprise_id = $1",
        )
        .bind(t.enterprise)
        .fetch_all(&mut *tx)
        .await
        .unwrap()
    }
}

fn sum_of(ledger: &[(i16, i64, i64)], kind: i16) -> i64 {
    ledger.iter().filter(|a| a.0 == kind).map(|a| a.1).sum()
}

fn revenue_of(ledger: &[(i16, i64, i64)]) -> i64 {
    ledger
        .iter()
        .filter(|a| REVENUE.contains(&a.0))
        .map(|a| a.1)
        .sum()
}

#[tokio::test]
async fn five_hundred_captures_racing_a_thousand_allocations_keep_the_books_and_the_money() {
    let c = charging_on(network_with(520).0).await;
    let a = c.stack.a.clone();
    let location = station(&c.platform);
    // 25 cards of 1,100.00 元, 20 sessions each, every session holding 50.00 元.
    let mut cards = Vec::new();
    for _ in 0..25 {
        cards.push(c.shanghai_card(&a, None, 110_000, None).await);
    }
    // Money for the allocations that race the captures on the same tree.
    c.stack.top_up(&a, 1_000_000).await;
    let before = c.ledger(&a).await;
    let tree = support::StormTree::of(&c.stack, &a).await;
    let mut started = Vec::new();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..500usize {
        let platform = c.platform.clone();
        let request = start(&cards[i % cards.len()].card_no, &location, 60);
        tasks.spawn(async move { platform.start_session(request).await });
        // At most 20 authorisations in flight (energy's pool).
        while tasks.len() >= 20 || (i == 499 && !tasks.is_empty()) {
            match tasks.join_next().await.unwrap().unwrap().unwrap() {
                StartOutcome::Charging { session } => started.push(session),
                refused => panic!("{refused:?}"),
            }
        }
    }
    assert_eq!(started.len(), 500);
    // 5 to 20 minutes at 60 kW: at most about 40.00 元, within the hold.
    for (i, s) in started.iter().enumerate() {
        c.platform
            .advance(&s.id, chrono::Duration::minutes(5 + (i % 4) as i64 * 5))
            .await
            .unwrap();
    }
    // Every session ends at once: 500 CDRs, 500 captures and releases,
    // while a thousand allocations and reclaims move money on the same tree.
    let mut captures = tokio::task::JoinSet::new();
    for s in &started {
        let platform = c.platform.clone();
        let id = s.id.clone();
        captures.spawn(async move { platform.stop(&id, StopCause::Local).await });
    }
    let settle = async {
        let mut cost = 0;
        while let Some(done) = captures.join_next().await {
            let view = done.unwrap().unwrap();
            assert!(view.cdr_delivered, "{view:?}");
            cost += view.total_fen;
        }
        cost
    };
    let (cost, moved) = tokio::join!(settle, support::allocation_storm(&c.stack, &a, &tree, 1000));
    assert!(moved > 300, "only {moved} of 1000 allocations moved");
    let after = c.ledger(&a).await;
    for (_, balance, entries) in &after {
        assert_eq!(
            balance, entries,
            "a balance differs from the sum of its entries"
        );
    }
    assert!(
        after
            .iter()
            .all(|(kind, balance, _)| *kind == FUNDING || *balance >= 0)
    );
    // No money made or lost: the books still sum to zero around the same
    // funding, nothing is held any more, and the revenue is what the sessions cost.
    assert_eq!(after.iter().map(|a| a.1).sum::<i64>(), 0);
    assert_eq!(sum_of(&after, FUNDING), sum_of(&before, FUNDING));
    assert_eq!(sum_of(&after, HOLD), 0);
    assert_eq!(revenue_of(&after), cost);
    let listed = c.sessions(&a).await;
    let totals = listed.totals.unwrap();
    assert_eq!(totals.session_count, 500);
    assert_eq!(totals.total_fen, cost);
    assert!(
        listed.sessions.iter().all(
            |s| s.status == pb::ChargingSessionStatus::Settled as i32 && s.uncollected_fen == 0
        )
    );
    let mut on_cards = 0;
    for card in &cards {
        on_cards += c.card_balance(&a, &card.id).await;
    }
    assert_eq!(110_000 * cards.len() as i64 - on_cards, cost);
}

#[tokio::test]
async fn a_session_whose_hold_runs_out_is_stopped_and_never_captured_above_the_budget() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let location = station(&c.platform);
    // One card limited by its balance (80.00 元), one by its monthly budget
    // (60.00 元 of the 500.00 元 on it).
    let poor = c.shanghai_card(&a, Some(0), 8_000, None).await;
    let budgeted = c
        .shanghai_card(
            &a,
            Some(1),
            50_000,
            Some((pb::BudgetPeriod::Monthly, 6_000)),
        )
        .await;
    let by_balance = c.charge(start(&poor.card_no, &location, 120)).await;
    let by_budget = c.charge(start(&budgeted.card_no, &location, 120)).await;
    // 120 kW at about 2 元/kWh: 4 元 a minute, so the hold runs out within the hour.
    for session in [&by_balance, &by_budget] {
        for _ in 0..60 {
            match c
                .platform
                .advance(&session.id, chrono::Duration::minutes(1))
                .await
            {
                Ok(_) => {}
                Err(StandInError::NotActive) => break,
                Err(err) => panic!("{err}"),
            }
            if c.platform.stop_commands().contains(&session.id) {
                break;
            }
        }
        assert!(
            c.platform.stop_commands().contains(&session.id),
            "no STOP_SESSION for {}",
            session.id
        );
        let platform = c.platform.clone();
        let id = session.id.clone();
        eventually("the remote stop and its CDR", || {
            let platform = platform.clone();
            let id = id.clone();
            async move {
                platform.session(&id).await.is_some_and(|s| {
                    s.status == SessionStatus::Completed
                        && s.stopped_by == Some(StopCause::Remote)
                        && s.cdr_delivered
                })
            }
        })
        .await;
    }
    let listed = c.sessions(&a).await.sessions;
    let of = |card: &pb::ChargingCard| {
        listed
            .iter()
            .find(|s| s.card_id == card.id)
            .unwrap()
            .clone()
    };
    let (balance_session, budget_session) = (of(&poor), of(&budgeted));
    for s in [&balance_session, &budget_session] {
        assert_eq!(s.status, pb::ChargingSessionStatus::Settled as i32);
        assert!(s.total_fen <= s.held_fen, "{s:?}");
        assert!(!s.stop_reason.is_empty());
    }
    assert!(balance_session.total_fen <= 8_000);
    assert!(budget_session.total_fen <= 6_000);
    // The card paid exactly what was captured and never went below zero.
    assert_eq!(
        c.card_balance(&a, &poor.id).await,
        8_000 - balance_session.total_fen
    );
    assert_eq!(
        c.card_balance(&a, &budgeted.id).await,
        50_000 - budget_session.total_fen
    );
    // Another session may hold only what the budget has left: the stop
    // leaves up to two updates' spending unspent, and how much that is
    // depends on the hour's tariff. Too little to start is a refusal.
    let left = 6_000 - budget_session.total_fen;
    let again = c
        .platform
        .start_session(start(&budgeted.card_no, &location, 60))
        .await
        .unwrap();
    if left < fleetdesk_energy::sessions::domain::MIN_START_FEN {
        assert!(
            matches!(
                again,
                StartOutcome::Refused {
                    allowed: Some(AllowedType::NoCredit),
                    ..
                }
            ),
            "{again:?} with {left} fen left"
        );
    } else {
        assert!(
            matches!(again, StartOutcome::Charging { .. }),
            "{again:?} with {left} fen left"
        );
        // What the card's sessions and open authorisations hold now, past
        // what the first session spent.
        let held = {
            let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
            let since = chrono::DateTime::<chrono::Utc>::UNIX_EPOCH;
            let card = Uuid::parse_str(&budgeted.id).unwrap();
            fleetdesk_energy::sessions::store::budget_used(&mut tx, card, since)
                .await
                .unwrap()
                - budget_session.total_fen
        };
        assert!(held > 0 && held <= left, "held {held} of {left} left");
    }
}

#[tokio::test]
async fn a_frozen_or_cancelled_card_cannot_start_a_session() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let location = station(&c.platform);
    let frozen = c.shanghai_card(&a, Some(0), 10_000, None).await;
    let cancelled = c.shanghai_card(&a, None, 10_000, None).await;
    let s = &c.stack;
    s.client
        .clone()
        .freeze_charging_card(s.req(
            &a,
            pb::FreezeChargingCardRequest {
                card_id: frozen.id.clone(),
                reason: "测试".into(),
            },
        ))
        .await
        .unwrap();
    s.client
        .clone()
        .cancel_charging_card(s.req(
            &a,
            pb::CancelChargingCardRequest {
                card_id: cancelled.id.clone(),
                lost: false,
                reason: "测试".into(),
                idempotency_key: Uuid::new_v4().to_string(),
            },
        ))
        .await
        .unwrap();
    for card_no in [&frozen.card_no, &cancelled.card_no] {
        let answer = c
            .platform
            .start_session(start(card_no, &location, 60))
            .await
            .unwrap();
        assert!(
            matches!(
                answer,
                StartOutcome::Refused {
                    allowed: Some(AllowedType::Blocked),
                    ..
                }
            ),
            "{answer:?}"
        );
    }
    // By plate: the camera's recognition is recorded as refused.
    let mut by_plate = start(&a.vehicles[0].1, &location, 60);
    by_plate.by_plate = true;
    let answer = c.platform.start_session(by_plate).await.unwrap();
    assert!(
        matches!(
            answer,
            StartOutcome::Refused {
                allowed: Some(AllowedType::Blocked),
                ..
            }
        ),
        "{answer:?}"
    );
    let scans = c.scans(&a).await;
    assert_eq!(scans.len(), 1);
    assert_eq!(scans[0].result, pb::PlateScanResult::CardUnavailable as i32);
    assert_eq!(scans[0].card_id, frozen.id);
    // No session, no hold: the frozen card kept its money.
    assert_eq!(c.sessions(&a).await.totals.unwrap().session_count, 0);
    assert_eq!(c.card_balance(&a, &frozen.id).await, 10_000);
}

#[tokio::test]
async fn a_cdr_posted_twice_captures_once() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let location = station(&c.platform);
    let card = c.shanghai_card(&a, Some(0), 20_000, None).await;
    // Started by plate: the recognition leads to the session.
    let mut request = start(&a.vehicles[0].1, &location, 60);
    request.by_plate = true;
    let session = c.charge(request).await;
    c.platform
        .advance(&session.id, chrono::Duration::minutes(20))
        .await
        .unwrap();
    let ended = c
        .platform
        .stop(&session.id, StopCause::Local)
        .await
        .unwrap();
    let balance = c.card_balance(&a, &card.id).await;
    assert_eq!(balance, 20_000 - ended.total_fen);
    c.platform.resend_cdr(&session.id).await.unwrap();
    c.platform.resend_cdr(&session.id).await.unwrap();
    assert_eq!(c.card_balance(&a, &card.id).await, balance);
    let listed = c.sessions(&a).await;
    assert_eq!(listed.totals.unwrap().total_fen, ended.total_fen);
    let row = &listed.sessions[0];
    assert_eq!(row.session_no, session.id);
    assert_eq!(row.energy_wh, ended.energy_wh);
    assert_eq!(row.electricity_fen + row.service_fee_fen, ended.total_fen);
    assert_eq!(row.plate_number, a.vehicles[0].1);
    assert_eq!(row.vehicle_id, a.vehicles[0].0.to_string());
    assert_eq!(row.start_method, pb::StartMethod::PlateScan as i32);
    assert_eq!(row.start_soc_percent, Some(10));
    assert!(row.end_soc_percent.unwrap() > 10);
    assert_eq!(c.transfers(&a, CAPTURE, &row.id).await, 1);
    let scans = c.scans(&a).await;
    assert_eq!(scans[0].result, pb::PlateScanResult::Started as i32);
    assert_eq!(scans[0].session_id, row.id);
}

#[tokio::test]
async fn tenant_b_sees_none_of_a_sessions_or_scans() {
    let c = charging().await;
    let (a, b) = (c.stack.a.clone(), c.stack.b.clone());
    let location = station(&c.platform);
    c.shanghai_card(&a, Some(0), 20_000, None).await;
    let mut request = start(&a.vehicles[0].1, &location, 60);
    request.by_plate = true;
    let session = c.charge(request).await;
    c.platform
        .stop(&session.id, StopCause::Local)
        .await
        .unwrap();
    assert_eq!(c.sessions(&a).await.sessions.len(), 1);
    assert_eq!(c.scans(&a).await.len(), 1);
    assert!(c.sessions(&b).await.sessions.is_empty());
    assert_eq!(c.sessions(&b).await.totals.unwrap().session_count, 0);
    assert!(c.scans(&b).await.is_empty());
    let id = c.sessions(&a).await.sessions[0].id.clone();
    let s = &c.stack;
    let err = s
        .client
        .clone()
        .get_charging_session(s.req(&b, pb::GetChargingSessionRequest { session_id: id }))
        .await
        .unwrap_err();
    assert_eq!(err.code(), tonic::Code::NotFound);
}

// --- CDRs that would move money wrongly ------------------------------------

/// A session's row as settlement leaves it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, sqlx::FromRow)]
struct Booked {
    status: i16,
    electricity_fen: i64,
    service_fee_fen: i64,
    time_fee_fen: i64,
    fixed_fee_fen: i64,
    cost_fen: i64,
    cost_excl_vat_fen: i64,
    total_fen: i64,
    refunded_fen: i64,
}

impl Charging {
    /// A session of `card_no` charged for `minutes` and stopped at the
    /// pile, its CDR not sent yet (tests amend it first).
    async fn ended_unsent(&self, card_no: &str, minutes: i64) -> SessionView {
        let location = station(&self.platform);
        let session = self.charge(start(card_no, &location, 60)).await;
        self.platform
            .advance(&session.id, chrono::Duration::minutes(minutes))
            .await
            .unwrap();
        self.platform
            .stop_keeping_cdr(&session.id, StopCause::Local)
            .await
            .unwrap()
    }

    async fn booked(&self, t: &Tenant, session_no: &str) -> Booked {
        let mut tx = db::begin_service(&self.stack.owner).await.unwrap();
        sqlx::query_as(
            "select status, electricity_fen, service_fee_fen, time_fee_fen, fixed_fee_fen, cost_fen, \
             cost_excl_vat_fen, total_fen, refunded_fen from charging_session \
             where enterprise_id = $1 and session_no = $2",
        )
        .bind(t.enterprise)
        .bind(session_no)
        .fetch_one(&mut *tx)
        .await
        .unwrap()
    }

    /// Balance of `t`'s revenue account of `kind`.
    async fn revenue(&self, t: &Tenant, kind: i16) -> i64 {
        let ledger = self.ledger(t).await;
        sum_of(&ledger, kind)
    }
}

/// The OCPI status code the eMSP refused a push with.
fn refused_with(result: Result<SessionView, StandInError>) -> (u32, String) {
    match result {
        Err(StandInError::Emsp(fleetdesk_charging_standin::emsp::EmspError::Refused {
            status_code,
            message,
        })) => (status_code, message),
        other => panic!("not refused: {other:?}"),
    }
}

fn yuan(fen: i64) -> fleetdesk_ocpi::Price {
    fleetdesk_ocpi::Price::fen_with_vat(fen, 13)
}

#[tokio::test]
async fn a_cdr_with_a_negative_total_or_ending_before_its_start_is_refused_and_changes_nothing() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let card = c.shanghai_card(&a, Some(0), 20_000, None).await;
    let session = c.ended_unsent(&card.card_no, 20).await;
    let held = c.card_balance(&a, &card.id).await;
    assert!(held < 20_000, "the session holds money");
    let books = c.ledger(&a).await;

    let sent = c.platform.amend_cdr(&session.id, |_| {}).await.unwrap();
    c.platform
        .amend_cdr(&session.id, |cdr| {
            cdr.total_cost = yuan(-sent.total_cost.to_fen().unwrap())
        })
        .await
        .unwrap();
    let (code, message) = refused_with(c.platform.resend_cdr(&session.id).await);
    assert_eq!(code, 2001, "{message}");
    assert!(message.contains("total_cost"), "{message}");

    c.platform
        .amend_cdr(&session.id, |cdr| {
            cdr.total_cost = sent.total_cost.clone();
            cdr.end_date_time = cdr.start_date_time - chrono::Duration::minutes(1);
        })
        .await
        .unwrap();
    let (code, message) = refused_with(c.platform.resend_cdr(&session.id).await);
    assert_eq!(code, 2001, "{message}");
    assert!(message.contains("end_date_time"), "{message}");

    // Nothing moved: the session still charges on its hold, nothing captured.
    assert_eq!(c.card_balance(&a, &card.id).await, held);
    assert_eq!(c.ledger(&a).await, books);
    let row = c.booked(&a, &session.id).await;
    assert_eq!(
        row.status,
        pb::ChargingSessionStatus::Charging as i32 as i16
    );
    let listed = c.sessions(&a).await;
    assert_eq!(c.transfers(&a, CAPTURE, &listed.sessions[0].id).await, 0);

    // The platform's corrected CDR then settles it as usual.
    c.platform
        .amend_cdr(&session.id, |cdr| cdr.end_date_time = sent.end_date_time)
        .await
        .unwrap();
    c.platform.resend_cdr(&session.id).await.unwrap();
    let total = sent.total_cost.to_fen().unwrap();
    assert_eq!(c.card_balance(&a, &card.id).await, 20_000 - total);
    assert_eq!(c.booked(&a, &session.id).await.total_fen, total);
}

#[tokio::test]
async fn time_and_fixed_costs_are_booked_as_themselves_with_the_vat_sent() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let card = c.shanghai_card(&a, Some(0), 20_000, None).await;
    let session = c.ended_unsent(&card.card_no, 15).await;
    let (time, fixed) = (yuan(318), fleetdesk_ocpi::Price::fen_with_vat(226, 6));
    let cdr = c
        .platform
        .amend_cdr(&session.id, |cdr| {
            cdr.total_cost = cdr.total_cost.plus(&time).unwrap().plus(&fixed).unwrap();
            cdr.total_time_cost = Some(time.clone());
            cdr.total_fixed_cost = Some(fixed.clone());
        })
        .await
        .unwrap();
    c.platform.resend_cdr(&session.id).await.unwrap();

    let electricity = cdr.total_energy_cost.as_ref().unwrap().to_fen().unwrap();
    let service = cdr.x_total_service_fee.as_ref().unwrap().to_fen().unwrap();
    let total = cdr.total_cost.to_fen().unwrap();
    assert_eq!(total, electricity + service + 318 + 226);
    let row = c.booked(&a, &session.id).await;
    assert_eq!(
        row,
        Booked {
            status: pb::ChargingSessionStatus::Settled as i32 as i16,
            electricity_fen: electricity,
            service_fee_fen: service,
            time_fee_fen: 318,
            fixed_fee_fen: 226,
            cost_fen: total,
            cost_excl_vat_fen: cdr.total_cost.excl_vat_fen().unwrap(),
            total_fen: total,
            refunded_fen: 0,
        }
    );
    assert!(
        row.cost_excl_vat_fen < total,
        "VAT as sent, not excl = incl"
    );
    // One capture, a leg per part, each on the revenue account of its kind.
    for (kind, fen) in [(6, electricity), (7, service), (8, 318), (10, 226)] {
        assert_eq!(c.revenue(&a, kind).await, fen, "revenue kind {kind}");
    }
    assert_eq!(c.card_balance(&a, &card.id).await, 20_000 - total);
}

#[tokio::test]
async fn a_credit_cdr_takes_a_settlement_back_once_and_a_second_charge_is_refused() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let card = c.shanghai_card(&a, Some(0), 20_000, None).await;
    let session = c.ended_unsent(&card.card_no, 20).await;
    let cdr = c.platform.amend_cdr(&session.id, |_| {}).await.unwrap();
    c.platform.resend_cdr(&session.id).await.unwrap();
    let total = cdr.total_cost.to_fen().unwrap();
    assert_eq!(c.card_balance(&a, &card.id).await, 20_000 - total);
    let id = c.sessions(&a).await.sessions[0].id.clone();

    // Another charging CDR for the settled session: refused, with the reason.
    let mut second = cdr.clone();
    second.id = format!("{}-2", cdr.id);
    let err = c.platform.post_cdr(&second).await.unwrap_err();
    let (code, message) = refused_with(Err(err));
    assert!((2000..3000).contains(&code), "{code}");
    assert!(message.contains("credit CDR"), "{message}");

    // A credit of part of it is refused; the whole credit is applied once.
    let mut credit = cdr.clone();
    credit.id = format!("{}-C", cdr.id);
    credit.credit = Some(true);
    credit.credit_reference_id = Some(cdr.id.clone());
    credit.total_cost = yuan(-100);
    let (code, _) = refused_with(Err(c.platform.post_cdr(&credit).await.unwrap_err()));
    assert_eq!(code, 2001);
    credit.total_cost = yuan(-total);
    c.platform.post_cdr(&credit).await.unwrap();
    c.platform.post_cdr(&credit).await.unwrap();
    assert_eq!(c.card_balance(&a, &card.id).await, 20_000);
    assert_eq!(c.transfers(&a, CORRECTION, &id).await, 1);
    assert_eq!(
        c.transfers(&a, CAPTURE, &id).await,
        1,
        "the capture stays as it was"
    );
    let row = c.booked(&a, &session.id).await;
    assert_eq!(
        row.status,
        pb::ChargingSessionStatus::Refunded as i32 as i16
    );
    assert_eq!((row.total_fen, row.refunded_fen), (total, total));
    let books = c.ledger(&a).await;
    assert_eq!(revenue_of(&books), 0);
    for (_, balance, entries) in &books {
        assert_eq!(balance, entries);
    }
    // A second credit of the same CDR, or a charge after it, is refused.
    credit.id = format!("{}-C2", cdr.id);
    refused_with(Err(c.platform.post_cdr(&credit).await.unwrap_err()));
    refused_with(Err(c.platform.post_cdr(&second).await.unwrap_err()));
    assert_eq!(c.card_balance(&a, &card.id).await, 20_000);
}

// --- the OCPI 2.2.1 specification's own Session and CDR examples ------------

/// An example object of the OCPI 2.2.1 specification (v2.2.1-d2), as published.
fn example(name: &str) -> serde_json::Value {
    let path = format!(
        "{}/../ocpi/tests/examples/{name}.json",
        // At run time: a binary reused from another checkout reads this one's files.
        std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR")
    );
    serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap()
}

/// Sets the fields at `pointer`s (identifiers that must name objects the
/// receiver knows: the platform's party, a station, a pile, a card).
fn naming(mut object: serde_json::Value, known: &[(&str, &str)]) -> serde_json::Value {
    for (pointer, value) in known {
        *object
            .pointer_mut(pointer)
            .unwrap_or_else(|| panic!("{pointer}")) = (*value).into();
    }
    object
}

impl Charging {
    fn receiver_url(&self, path: &str) -> String {
        format!(
            "http://127.0.0.1:{}{}/{path}",
            self.stack.ocpi_port.unwrap(),
            fleetdesk_ocpi::EMSP_BASE
        )
    }

    /// A station of the stand-in and one of its piles.
    fn pile(&self) -> (String, String) {
        let station = &self.platform.network().stations[0];
        (
            station.location_id.clone(),
            station.piles[0].evse_uid.clone(),
        )
    }

    /// The specification's CDR example, of `card_no` at [`Charging::pile`].
    fn example_cdr(&self, card_no: &str) -> serde_json::Value {
        let (location, evse) = self.pile();
        naming(
            example("cdr_example"),
            &[
                ("/country_code", "CN"),
                ("/party_id", fleetdesk_charging_standin::PARTY_ID),
                ("/cdr_token/uid", card_no),
                ("/cdr_location/id", location.as_str()),
                ("/cdr_location/evse_uid", evse.as_str()),
                ("/currency", "CNY"),
                ("/tariffs/0/currency", "CNY"),
            ],
        )
    }
}

#[tokio::test]
async fn the_specifications_session_and_cdr_examples_are_accepted_and_stored() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let card = c.shanghai_card(&a, Some(0), 20_000, None).await;
    let (location, evse) = c.pile();
    let party = fleetdesk_charging_standin::PARTY_ID;
    let emsp = c.platform.emsp();
    let known = [
        ("/country_code", "CN"),
        ("/party_id", party),
        ("/cdr_token/uid", card.card_no.as_str()),
        ("/location_id", location.as_str()),
        ("/evse_uid", evse.as_str()),
        ("/currency", "CNY"),
    ];

    // A session started on a whitelisted token (no authorisation asked).
    let started = naming(example("session_example_1_simple_start"), &known);
    let (http, answer) = emsp
        .put_raw(
            &c.receiver_url(&format!("sessions/CN/{party}/101")),
            &started,
        )
        .await
        .unwrap();
    assert_eq!((http, answer.status_code), (200, 1000), "{answer:?}");
    // A short finished session, then the published patches of a session.
    let finished = naming(example("session_example_2_short_finished"), &known);
    let (_, answer) = emsp
        .put_raw(
            &c.receiver_url(&format!("sessions/CN/{party}/102")),
            &naming(finished, &[("/id", "102")]),
        )
        .await
        .unwrap();
    assert_eq!(answer.status_code, 1000, "{answer:?}");
    for patch in [
        "session_patch_example_charging_period",
        "session_patch_example_total_cost",
    ] {
        let (_, answer) = emsp
            .patch_raw(
                &c.receiver_url(&format!("sessions/CN/{party}/102")),
                &example(patch),
            )
            .await
            .unwrap();
        assert_eq!(answer.status_code, 1000, "{patch}: {answer:?}");
    }
    // The CDR: a time-priced session, no session_id, WHITELIST.
    let cdr = c.example_cdr(&card.card_no);
    let (_, answer) = emsp.post_raw(&c.receiver_url("cdrs"), &cdr).await.unwrap();
    assert_eq!(answer.status_code, 1000, "{answer:?}");

    let charging = pb::ChargingSessionStatus::Charging as i32 as i16;
    assert_eq!(c.booked(&a, "101").await.status, charging);
    let second = c.booked(&a, "102").await;
    assert_eq!(second.status, charging, "a session ends with its CDR");
    // The newer patch (08:16:02) applied; the older one (08:11) left alone.
    assert_eq!(second.cost_fen, 88);
    // The CDR settled a session of its own, booked as time: nothing was
    // held (the platform never asked), so it is the platform's uncollected.
    let booked = c.booked(&a, "CDR-12345").await;
    assert_eq!(
        booked.status,
        pb::ChargingSessionStatus::Settled as i32 as i16
    );
    assert_eq!((booked.time_fee_fen, booked.electricity_fen), (440, 0));
    assert_eq!((booked.cost_fen, booked.cost_excl_vat_fen), (440, 400));
    assert_eq!(booked.total_fen, 0);
    // Session 101 holds what its cost so far needs; nothing was captured.
    let books = c.ledger(&a).await;
    assert_eq!(revenue_of(&books), 0);
    assert!(
        c.card_balance(&a, &card.id).await < 20_000,
        "101 holds money"
    );
}

#[tokio::test]
async fn the_receiver_follows_ocpi_transport_ids_statuses_locations_and_paging() {
    let c = charging().await;
    let a = c.stack.a.clone();
    let card = c.shanghai_card(&a, Some(0), 20_000, None).await;
    c.shanghai_card(&a, Some(1), 10_000, None).await;
    let party = fleetdesk_charging_standin::PARTY_ID;
    let emsp = c.platform.emsp();
    let cdr = c.example_cdr(&card.card_no);
    let post = |body: serde_json::Value| {
        let url = c.receiver_url("cdrs");
        move |http: &reqwest::Client| {
            http.post(url)
                .header("X-Request-ID", "req-1")
                .header("X-Correlation-ID", "corr-1")
                .json(&body)
        }
    };

    // A new CDR: 201, where energy keeps it, the ids repeated.
    let created = emsp.send_raw(post(cdr.clone())).await.unwrap();
    assert_eq!(created.status().as_u16(), 201);
    let header = |r: &reqwest::Response, name: &str| {
        r.headers().get(name).unwrap().to_str().unwrap().to_owned()
    };
    assert_eq!(header(&created, "X-Request-ID"), "req-1");
    assert_eq!(header(&created, "X-Correlation-ID"), "corr-1");
    let location_url = header(&created, "Location");
    assert!(location_url.ends_with("/cdrs/12345"), "{location_url}");
    let envelope: serde_json::Value = created.json().await.unwrap();
    let timestamp = envelope["timestamp"].as_str().unwrap();
    assert!(
        timestamp.len() <= 25 && timestamp.ends_with('Z'),
        "{timestamp}"
    );
    // The same CDR again: 200. The Location answers it as it was sent.
    let again = emsp.send_raw(post(cdr.clone())).await.unwrap();
    assert_eq!(again.status().as_u16(), 200);
    let (http, got) = emsp.get_raw(&location_url).await.unwrap();
    assert_eq!((http, got.status_code), (200, 1000));
    assert_eq!(got.data.unwrap()["id"], "12345");
    // Ids are made up when a request comes without.
    let bare = emsp
        .send_raw(|http| http.get(c.receiver_url("cdrs/unknown")))
        .await
        .unwrap();
    assert_eq!(bare.status().as_u16(), 404);
    assert!(!header(&bare, "X-Request-ID").is_empty());

    // JSON that is not a session: the OCPI layer answers it, HTTP 200.
    let (http, answer) = emsp
        .put_raw(
            &c.receiver_url(&format!("sessions/CN/{party}/x1")),
            &serde_json::json!({"id": "x1"}),
        )
        .await
        .unwrap();
    assert_eq!((http, answer.status_code), (200, 2001));
    let not_json = emsp
        .send_raw(|http| {
            http.put(c.receiver_url(&format!("sessions/CN/{party}/x1")))
                .header("Content-Type", "application/json")
                .body("{not json")
        })
        .await
        .unwrap();
    assert_eq!(not_json.status().as_u16(), 400);
    // A business rule broken (money of another currency): 2001, HTTP 200.
    let mut euros = cdr.clone();
    euros["id"] = "12346".into();
    euros["currency"] = "EUR".into();
    let refused = emsp.send_raw(post(euros)).await.unwrap();
    assert_eq!(refused.status().as_u16(), 200);
    let body: serde_json::Value = refused.json().await.unwrap();
    assert_eq!(body["status_code"], 2001);
    // An authorisation without LocationReferences: 2002.
    let uid = card.card_no.clone();
    let (http, answer) = emsp
        .post_raw(
            &c.receiver_url(&format!("tokens/{uid}/authorize?type=RFID")),
            &serde_json::Value::Null,
        )
        .await
        .unwrap();
    assert_eq!(
        (http, answer.status_code),
        (200, 2001),
        "null is no location either"
    );
    let empty = emsp
        .send_raw(|http| http.post(c.receiver_url(&format!("tokens/{uid}/authorize"))))
        .await
        .unwrap();
    assert_eq!(empty.status().as_u16(), 200);
    let body: serde_json::Value = empty.json().await.unwrap();
    assert_eq!(body["status_code"], 2002);

    // The token list pages with a Link to the next page and its headers.
    let page = emsp
        .send_raw(|http| http.get(c.receiver_url("tokens?limit=1")))
        .await
        .unwrap();
    assert_eq!(header(&page, "X-Limit"), "1");
    let total: usize = header(&page, "X-Total-Count").parse().unwrap();
    assert!(total >= 3, "two cards and a plate: {total}");
    let next = fleetdesk_ocpi::next_page(&header(&page, "Link")).unwrap();
    assert!(next.ends_with("tokens?offset=1&limit=1"), "{next}");
    let tokens: Vec<fleetdesk_ocpi::Token> = emsp.tokens(None).await.unwrap();
    assert_eq!(tokens.len(), total);
    for t in &tokens {
        assert!(
            t.uid.bytes().all(|b| b.is_ascii_graphic()) && t.uid.len() <= 36,
            "{}",
            t.uid
        );
    }
    // A plate token's uid is ASCII; the plate is its visual number.
    assert!(
        tokens
            .iter()
            .any(|t| t.kind == fleetdesk_ocpi::TokenType::Other
                && t.visual_number.as_deref() == Some(a.vehicles[0].1.as_str()))
    );
}
