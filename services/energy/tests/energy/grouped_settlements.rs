//! CDRs settle through the capture group (`sessions::charging::settle` →
//! `ledger::capture_grouped`), end to end: the charging-platform stand-in
//! drives energy's OCPI receiver as in `sessions.rs`. A settlement whose
//! own transaction fails after its capture committed is settled by the
//! CDR's retry exactly once (a retry billing otherwise is refused), and 200 CDRs of one enterprise settled at
//! once beside 500 allocations keep every rule of the ledger.

use crate::support;

use fleetdesk_charging_standin::{SessionView, StartOutcome, StartRequest, StopCause};
use fleetdesk_energy::card_changes::domain::ChangeKind;
use fleetdesk_energy::ledger::{AccountKind, TransferKind};
use fleetdesk_kit::db;
use fleetdesk_proto::energy::v1 as pb;
use support::Tenant;
use support::platform::{Charging, charging_on, network_with};
use uuid::Uuid;

/// A card of `t`'s Shanghai organisation with `fen` on it.
async fn card(c: &Charging, t: &Tenant, fen: i64) -> pb::ChargingCard {
    c.card(t, &[t.east, t.shanghai], None, fen).await
}

/// A session of `card_no` at `location`, charged `minutes` at 60 kW.
async fn charged(c: &Charging, card_no: &str, location: &str, minutes: i64) -> SessionView {
    let started = c
        .platform
        .start_session(StartRequest {
            token_uid: card_no.to_owned(),
            by_plate: false,
            location_id: location.to_owned(),
            evse_uid: None,
            power_kw: 60,
            battery_kwh: 400,
            start_soc: 10,
        })
        .await
        .unwrap();
    let StartOutcome::Charging { session } = started else {
        panic!("not authorised: {started:?}");
    };
    c.platform
        .advance(&session.id, chrono::Duration::minutes(minutes))
        .await
        .unwrap();
    session
}

/// What one session left in energy's books, read as the owner.
#[derive(Debug, PartialEq, Eq)]
struct Left {
    status: i16,
    total_fen: i64,
    card_fen: i64,
    /// (transfer kind, count) of the transfers keyed `settle:<id>`.
    settle_transfers: Vec<(i16, i64)>,
    /// (change kind, amount, balance after) of the card's changes.
    changes: Vec<(i16, i64, i64)>,
}

async fn left(c: &Charging, t: &Tenant, session_no: &str, card_id: &str) -> Left {
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    let (id, status, total_fen): (Uuid, i16, i64) = sqlx::query_as(
        "select id, status, total_fen from charging_session \
         where enterprise_id = $1 and session_no = $2",
    )
    .bind(t.enterprise)
    .bind(session_no)
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    let card_fen: i64 = sqlx::query_scalar(
        "select a.balance_fen from charging_card c join ledger_account a \
         on a.id = c.ledger_account_id where c.id = $1",
    )
    .bind(Uuid::parse_str(card_id).unwrap())
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    let settle_transfers = sqlx::query_as(
        "select kind, count(*) from ledger_transfer where enterprise_id = $1 \
         and idempotency_key = $2 group by kind order by kind",
    )
    .bind(t.enterprise)
    .bind(format!("settle:{id}"))
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let changes = sqlx::query_as(
        "select kind, amount_fen, balance_after_fen from card_amount_change \
         where session_id = $1 order by created_at, kind",
    )
    .bind(id)
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    db::end_read(tx);
    Left {
        status,
        total_fen,
        card_fen,
        settle_transfers,
        changes,
    }
}

/// The sum of `t`'s revenue accounts.
async fn revenue(c: &Charging, t: &Tenant) -> i64 {
    let kinds: Vec<i16> = [
        AccountKind::PlatformRevenue,
        AccountKind::ServiceFeeRevenue,
        AccountKind::TimeFeeRevenue,
        AccountKind::ParkingFeeRevenue,
        AccountKind::FixedFeeRevenue,
        AccountKind::ReservationFeeRevenue,
    ]
    .into_iter()
    .map(i16::from)
    .collect();
    sqlx::query_scalar(
        "select coalesce(sum(balance_fen), 0)::bigint from ledger_account \
         where enterprise_id = $1 and kind = any($2)",
    )
    .bind(t.enterprise)
    .bind(&kinds)
    .fetch_one(&c.stack.owner)
    .await
    .unwrap()
}

/// Makes every commit of the settlement of session `session_no` fail
/// until [`stop_failing`]: a deferred trigger on the session's row, so the
/// failure comes after everything the settlement does, its capture
/// included. The sequence counts the failed commits (it moves outside
/// the failing transactions).
async fn fail_settling(c: &Charging, session_no: &str) {
    for statement in [
        "create sequence settle_failures".to_owned(),
        format!(
            "create function fail_settling() returns trigger language plpgsql \
             security definer as $$ begin \
               if new.session_no = '{session_no}' and new.status <> old.status then \
                 perform nextval('settle_failures'); \
                 raise exception 'the settlement''s commit fails (test)'; \
               end if; return new; end $$"
        ),
        "create constraint trigger fail_settling after update on charging_session \
         deferrable initially deferred for each row execute function fail_settling()"
            .to_owned(),
    ] {
        sqlx::query(&statement)
            .execute(&c.stack.owner)
            .await
            .unwrap();
    }
}

/// Ends [`fail_settling`]; how many commits failed.
async fn stop_failing(c: &Charging) -> i64 {
    let owner = &c.stack.owner;
    sqlx::query("drop trigger fail_settling on charging_session")
        .execute(owner)
        .await
        .unwrap();
    sqlx::query_scalar("select case when is_called then last_value else 0 end from settle_failures")
        .fetch_one(owner)
        .await
        .unwrap()
}

#[tokio::test]
async fn a_settlement_failing_after_its_grouped_capture_is_settled_once_by_the_retry() {
    let (network, location) = network_with(4);
    let c = charging_on(network).await;
    let a = c.stack.a.clone();
    // Two like sessions: one settled cleanly, one whose settlement fails
    // at its commit, after the group committed its capture.
    let clean_card = card(&c, &a, 20_000).await;
    let failing_card = card(&c, &a, 20_000).await;
    let clean = charged(&c, &clean_card.card_no, &location, 20).await;
    let failing = charged(&c, &failing_card.card_no, &location, 20).await;
    let revenue_before = revenue(&c, &a).await;
    c.platform.stop(&clean.id, StopCause::Local).await.unwrap();
    let clean_left = left(&c, &a, &clean.id, &clean_card.id).await;

    fail_settling(&c, &failing.id).await;
    c.platform
        .stop_keeping_cdr(&failing.id, StopCause::Local)
        .await
        .unwrap();
    // The stand-in tries a few times before it gives up.
    assert!(c.platform.resend_cdr(&failing.id).await.is_err());
    // Half done: the capture and the release committed in the group's
    // transaction, the session still charging, no refund recorded yet.
    let half = left(&c, &a, &failing.id, &failing_card.id).await;
    assert_eq!(half.status, pb::ChargingSessionStatus::Charging as i16);
    assert_eq!(
        half.settle_transfers,
        vec![
            (i16::from(TransferKind::Capture), 1),
            (i16::from(TransferKind::Release), 1)
        ]
    );
    let refund = i16::from(ChangeKind::Refund);
    assert!(half.changes.iter().all(|ch| ch.0 != refund), "{half:?}");
    assert!(stop_failing(&c).await >= 1);

    // A retry that bills otherwise than what was captured is refused and
    // changes nothing: the session would not match its capture.
    let sent = c.platform.amend_cdr(&failing.id, |_| {}).await.unwrap();
    let billed = sent.total_cost.to_fen().unwrap();
    c.platform
        .amend_cdr(&failing.id, |cdr| {
            cdr.total_cost = fleetdesk_ocpi::Price::fen_with_vat(billed - 100, 13)
        })
        .await
        .unwrap();
    let refused = c.platform.resend_cdr(&failing.id).await.unwrap_err();
    assert!(
        format!("{refused:?}").contains("was captured for"),
        "{refused:?}"
    );
    assert_eq!(left(&c, &a, &failing.id, &failing_card.id).await, half);
    c.platform
        .amend_cdr(&failing.id, |cdr| cdr.total_cost = sent.total_cost.clone())
        .await
        .unwrap();

    // The CPO's retry settles it; a further copy changes nothing.
    let ended = c.platform.resend_cdr(&failing.id).await.unwrap();
    assert!(ended.cdr_delivered);
    c.platform.resend_cdr(&failing.id).await.unwrap();
    let failing_left = left(&c, &a, &failing.id, &failing_card.id).await;

    // Each as after one clean settle: settled for what the CDR billed,
    // the card charged that once, one capture and one release, its holds
    // and one refund recorded on the card.
    for (session, card, books) in [
        (&clean, &clean_card, &clean_left),
        (&ended, &failing_card, &failing_left),
    ] {
        let id = &session.id;
        let listed = c
            .stack
            .client
            .clone()
            .get_charging_card(c.stack.req(
                &a,
                pb::GetChargingCardRequest {
                    card_id: card.id.clone(),
                },
            ))
            .await
            .unwrap()
            .into_inner()
            .card
            .unwrap();
        assert_eq!(
            books.status,
            pb::ChargingSessionStatus::Settled as i16,
            "{id}"
        );
        assert!(books.total_fen > 0, "{id}");
        assert_eq!(books.card_fen, 20_000 - books.total_fen, "{id}");
        assert_eq!(listed.balance_fen, books.card_fen, "{id}");
        assert_eq!(books.settle_transfers, half.settle_transfers, "{id}");
        let (refunds, holds): (Vec<&(i16, i64, i64)>, Vec<_>) =
            books.changes.iter().partition(|ch| ch.0 == refund);
        assert_eq!(refunds.len(), 1, "{id}: {books:?}");
        assert!(
            holds
                .iter()
                .all(|ch| ch.0 == i16::from(ChangeKind::Consume)),
            "{id}: {books:?}"
        );
        // The refund gives back what was held and not captured, last.
        let held: i64 = holds.iter().map(|ch| ch.1).sum();
        assert_eq!(held - refunds[0].1, books.total_fen, "{id}: {books:?}");
        assert_eq!(refunds[0].2, books.card_fen, "{id}: {books:?}");
    }
    assert_eq!(
        revenue(&c, &a).await - revenue_before,
        clean_left.total_fen + failing_left.total_fen
    );
    let mut tx = db::begin_service(&c.stack.owner).await.unwrap();
    assert_eq!(fleetdesk_ledger::verify(&mut tx).await.unwrap(), vec![]);
    db::end_read(tx);
}

const SESSIONS: usize = 200;
const CARDS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn two_hundred_cdrs_settled_at_once_beside_allocations_are_grouped_and_keep_the_ledger() {
    let (network, location) = network_with(SESSIONS + 10);
    let c = charging_on(network).await;
    let a = c.stack.a.clone();
    // 20 cards of 600.00 元, 10 sessions each, every session holding 50.00 元.
    let mut cards = Vec::new();
    for _ in 0..CARDS {
        cards.push(card(&c, &a, 60_000).await);
    }
    // Money for the allocations that race the settlements on the same tree.
    c.stack.top_up(&a, 1_000_000).await;
    let revenue_before = revenue(&c, &a).await;
    let tree = support::StormTree::of(&c.stack, &a).await;
    let mut started = Vec::new();
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..SESSIONS {
        let platform = c.platform.clone();
        let request = StartRequest {
            token_uid: cards[i % CARDS].card_no.clone(),
            by_plate: false,
            location_id: location.clone(),
            evse_uid: None,
            power_kw: 60,
            battery_kwh: 400,
            start_soc: 10,
        };
        tasks.spawn(async move { platform.start_session(request).await });
        // At most 20 authorisations in flight (energy's pool).
        while tasks.len() >= 20 || (i == SESSIONS - 1 && !tasks.is_empty()) {
            match tasks.join_next().await.unwrap().unwrap().unwrap() {
                StartOutcome::Charging { session } => started.push(session),
                refused => panic!("{refused:?}"),
            }
        }
    }
    for (i, s) in started.iter().enumerate() {
        c.platform
            .advance(&s.id, chrono::Duration::minutes(5 + (i % 4) as i64 * 5))
            .await
            .unwrap();
    }
    // Every session ends at once, a tenth of the CDRs sent twice at the
    // same moment, while 500 allocations and reclaims move money on the tree.
    let mut stops = tokio::task::JoinSet::new();
    for (i, s) in started.iter().enumerate() {
        let platform = c.platform.clone();
        let id = s.id.clone();
        stops.spawn(async move {
            if i % 10 != 3 {
                return platform.stop(&id, StopCause::Local).await;
            }
            platform.stop_keeping_cdr(&id, StopCause::Local).await?;
            let cdr = platform.amend_cdr(&id, |_| {}).await.unwrap();
            // The copy a CPO sends again before it saw the first answer.
            let (sent, copy) = tokio::join!(platform.resend_cdr(&id), platform.post_cdr(&cdr));
            copy?;
            sent
        });
    }
    let settle = async {
        let mut cost = 0;
        while let Some(done) = stops.join_next().await {
            let view = done.unwrap().unwrap();
            assert!(view.cdr_delivered, "{view:?}");
            cost += view.total_fen;
        }
        cost
    };
    let (cost, moved) = tokio::join!(settle, support::allocation_storm(&c.stack, &a, &tree, 500));
    assert!(moved > 100, "only {moved} of 500 allocations moved");

    let owner = &c.stack.owner;
    // The ledger's own proof: balances are their entries, every transfer
    // sums to zero, no account below its floor, every chain unbroken.
    let mut tx = db::begin_service(owner).await.unwrap();
    assert_eq!(fleetdesk_ledger::verify(&mut tx).await.unwrap(), vec![]);
    db::end_read(tx);
    // Each key applied once: one capture and one release per session.
    let per_key: Vec<(i16, String, i64)> = sqlx::query_as(
        "select kind, idempotency_key, count(*) from ledger_transfer \
         where enterprise_id = $1 and kind in ($2, $3) group by 1, 2",
    )
    .bind(a.enterprise)
    .bind(i16::from(TransferKind::Capture))
    .bind(i16::from(TransferKind::Release))
    .fetch_all(owner)
    .await
    .unwrap();
    assert_eq!(per_key.len(), 2 * SESSIONS);
    assert!(per_key.iter().all(|k| k.2 == 1), "{per_key:?}");
    // Every session settled; the revenue is what they cost, nothing held.
    let statuses: Vec<(i16, i64)> = sqlx::query_as(
        "select status, count(*) from charging_session where enterprise_id = $1 group by 1",
    )
    .bind(a.enterprise)
    .fetch_all(owner)
    .await
    .unwrap();
    assert_eq!(
        statuses,
        vec![(pb::ChargingSessionStatus::Settled as i16, SESSIONS as i64)]
    );
    assert_eq!(revenue(&c, &a).await - revenue_before, cost);
    let held: i64 = sqlx::query_scalar(
        "select coalesce(sum(balance_fen), 0)::bigint from ledger_account \
         where enterprise_id = $1 and kind = $2",
    )
    .bind(a.enterprise)
    .bind(i16::from(AccountKind::Hold))
    .fetch_one(owner)
    .await
    .unwrap();
    assert_eq!(held, 0);
    // One refund recorded per release, on its card.
    let refunds: Vec<(i64, i64)> = sqlx::query_as(
        "select count(*), count(distinct x.transfer_id) from card_amount_change x \
         join ledger_transfer t on t.id = x.transfer_id \
         where x.enterprise_id = $1 and x.kind = $2 and t.kind = $3",
    )
    .bind(a.enterprise)
    .bind(i16::from(ChangeKind::Refund))
    .bind(i16::from(TransferKind::Release))
    .fetch_all(owner)
    .await
    .unwrap();
    assert_eq!(refunds, vec![(SESSIONS as i64, SESSIONS as i64)]);
    // And grouped: a group's transfers share its transaction's start, so
    // fewer distinct capture times than captures means captures shared one.
    let times: i64 = sqlx::query_scalar(
        "select count(distinct created_at) from ledger_transfer \
         where enterprise_id = $1 and kind = $2",
    )
    .bind(a.enterprise)
    .bind(i16::from(TransferKind::Capture))
    .fetch_one(owner)
    .await
    .unwrap();
    assert!(
        times < SESSIONS as i64,
        "{times} capture transactions for {SESSIONS} captures"
    );
}
