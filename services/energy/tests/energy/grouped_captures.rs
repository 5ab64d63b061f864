//! Captures grouped per enterprise (`ledger::capture_grouped`) keep every
//! rule of the ledger under load: 500 sessions of one enterprise settled at
//! once on its hot revenue accounts, a tenth of them settled twice at the
//! same moment under the same key, some costing more than was held, while
//! 1,000 budget allocations (MAIN ↔ organisations, organisation → card)
//! race on the same tree. Real PostgreSQL, queries as the app role.

use std::collections::HashMap;

use fleetdesk_energy::ledger::{
    self, AccountKind, CaptureGroup, Settled, Transfer, TransferError, TransferKind,
};
use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use uuid::Uuid;

const SESSIONS: usize = 500;
const CARDS: usize = 25;
const ALLOCATIONS: usize = 1_000;
const HELD_FEN: i64 = 5_000;

struct Books {
    _db: TestDb,
    app: PgPool,
    group: CaptureGroup,
}

async fn books() -> Books {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_energy::SCHEMA]).await;
    let app = db::connect(&db.url, fleetdesk_energy::SCHEMA.name, 24)
        .await
        .unwrap();
    // The writer's pool is its own, as the module asks.
    let group_pool = db::connect(&db.url, fleetdesk_energy::SCHEMA.name, 2)
        .await
        .unwrap();
    Books {
        _db: db,
        app,
        group: CaptureGroup::new(group_pool, ledger::CAPTURE_GROUP_SIZE),
    }
}

/// Whether session `i` costs more than its hold (refused alone).
fn overdrawn(i: usize) -> bool {
    i % 41 == 7
}

/// Whether session `i` is settled twice at once under its key.
fn repeated(i: usize) -> bool {
    i % 10 == 3
}

/// What session `i` earns: (electricity, service fee).
fn parts(i: usize) -> [(AccountKind, i64); 2] {
    let cost = if overdrawn(i) {
        HELD_FEN + 1
    } else {
        1 + (i as i64 * 7_919) % (HELD_FEN - 1)
    };
    let service = cost * 3 / 10;
    [
        (AccountKind::PlatformRevenue, cost - service),
        (AccountKind::ServiceFeeRevenue, service),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn grouped_captures_racing_allocations_keep_every_invariant_and_apply_each_key_once() {
    let b = books().await;
    let ent = Uuid::new_v4();
    let (east_org, south_org) = (Uuid::new_v4(), Uuid::new_v4());

    // The tree and the money: MAIN topped up, both organisations and the
    // cards funded, one hold per session.
    let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
    let main = ledger::open_account(&mut tx, ent, AccountKind::Main, None)
        .await
        .unwrap();
    let east = ledger::open_account(&mut tx, ent, AccountKind::Organization, Some(east_org))
        .await
        .unwrap();
    let south = ledger::open_account(&mut tx, ent, AccountKind::Organization, Some(south_org))
        .await
        .unwrap();
    ledger::top_up(&mut tx, ent, main, 100_000_000, "top-up", "test")
        .await
        .unwrap();
    for (org, key) in [(east, "seed:east"), (south, "seed:south")] {
        let t = Transfer::between(ent, TransferKind::Allocate, key, main, org, 10_000_000);
        ledger::transfer(&mut tx, &t).await.unwrap();
    }
    let mut cards = Vec::new();
    for k in 0..CARDS {
        let card = ledger::open_account(&mut tx, ent, AccountKind::Card, Some(Uuid::new_v4()))
            .await
            .unwrap();
        let per_card = SESSIONS.div_ceil(CARDS) as i64 * HELD_FEN;
        let t = Transfer::between(
            ent,
            TransferKind::CardChange,
            format!("seed:card:{k}"),
            east,
            card,
            per_card,
        );
        ledger::transfer(&mut tx, &t).await.unwrap();
        cards.push(card);
    }
    let sessions: Vec<Uuid> = (0..SESSIONS).map(|_| Uuid::new_v4()).collect();
    for (i, session) in sessions.iter().enumerate() {
        ledger::hold(
            &mut tx,
            ent,
            cards[i % CARDS],
            *session,
            HELD_FEN,
            &format!("hold:{session}"),
        )
        .await
        .unwrap();
    }
    tx.commit().await.unwrap();

    // The race: every settlement (twice for the repeated ones) and every
    // allocation spawned at once, interleaved.
    let mut captures = Vec::new();
    let mut allocations = Vec::new();
    // At most as many in flight as the pool has connections: the race is
    // on the accounts, not on waiting for a connection (which times out on
    // a loaded machine).
    let in_flight = std::sync::Arc::new(tokio::sync::Semaphore::new(20));
    for i in 0..SESSIONS.max(ALLOCATIONS) {
        if i < SESSIONS {
            for _ in 0..if repeated(i) { 2 } else { 1 } {
                let (app, group) = (b.app.clone(), b.group.clone());
                let (card, session) = (cards[i % CARDS], sessions[i]);
                let in_flight = in_flight.clone();
                captures.push(tokio::spawn(async move {
                    let _turn = in_flight.acquire().await.unwrap();
                    let mut tx = db::begin_tenant(&app, ent).await.unwrap();
                    let settled = ledger::capture_grouped(
                        &group,
                        &mut tx,
                        ent,
                        card,
                        session,
                        &parts(i),
                        &format!("settle:{session}"),
                    )
                    .await;
                    db::end_read(tx);
                    (i, settled)
                }));
            }
        }
        for j in [2 * i, 2 * i + 1].into_iter().filter(|j| *j < ALLOCATIONS) {
            let app = b.app.clone();
            let card = cards[j % CARDS];
            let in_flight = in_flight.clone();
            allocations.push(tokio::spawn(async move {
                let _turn = in_flight.acquire().await.unwrap();
                let amount = 100 + (j as i64 % 7) * 1_000;
                let (kind, from, to) = match j % 4 {
                    0 => (TransferKind::Allocate, main, east),
                    1 => (TransferKind::Allocate, main, south),
                    2 => (TransferKind::Reclaim, south, main),
                    // An organisation topping up a card the captures release onto.
                    _ => (TransferKind::CardChange, east, card),
                };
                let t = Transfer::between(ent, kind, format!("move:{j}"), from, to, amount);
                let mut tx = db::begin_tenant(&app, ent).await.unwrap();
                match ledger::transfer(&mut tx, &t).await {
                    Ok(_) => tx.commit().await.unwrap(),
                    // A reclaim of more than is left is an answer too.
                    Err(TransferError::Insufficient { .. }) => {}
                    Err(other) => panic!("allocation {j}: {other:?}"),
                }
            }));
        }
    }
    let mut answers: HashMap<usize, Vec<Settled>> = HashMap::new();
    for task in captures {
        let (i, settled) = task.await.unwrap();
        match settled {
            Ok(settled) => {
                assert!(
                    !overdrawn(i),
                    "session {i} cost more than held: {settled:?}"
                );
                answers.entry(i).or_default().push(settled);
            }
            Err(TransferError::Insufficient {
                account_id,
                kind: AccountKind::Hold,
                available_fen: HELD_FEN,
                needed_fen,
            }) if overdrawn(i) => {
                assert_eq!(needed_fen, HELD_FEN + 1);
                let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
                let hold = ledger::find_account(&mut tx, ent, AccountKind::Hold, Some(sessions[i]))
                    .await
                    .unwrap();
                assert_eq!(Some(account_id), hold, "the refusal names the hold");
            }
            Err(other) => panic!("session {i}: {other:?}"),
        }
    }
    for task in allocations {
        task.await.unwrap();
    }

    // Each session that settled: one capture and one release, the same
    // transfers answered to both callers of a repeated key, one of them a
    // replay, the hold emptied, the card given back exactly the rest.
    let mut captured_total = [0i64; 2];
    for i in (0..SESSIONS).filter(|i| !overdrawn(*i)) {
        let settled = &answers[&i];
        assert_eq!(
            settled.len(),
            if repeated(i) { 2 } else { 1 },
            "session {i}"
        );
        let captured: Vec<_> = settled
            .iter()
            .map(|s| s.captured.clone().unwrap())
            .collect();
        let released: Vec<_> = settled
            .iter()
            .map(|s| s.released.clone().unwrap())
            .collect();
        assert!(
            captured
                .iter()
                .all(|c| c.transfer_id == captured[0].transfer_id)
        );
        assert!(
            released
                .iter()
                .all(|r| r.transfer_id == released[0].transfer_id)
        );
        assert_eq!(
            captured.iter().filter(|c| !c.replayed).count(),
            1,
            "session {i}"
        );
        assert_eq!(
            released.iter().filter(|r| !r.replayed).count(),
            1,
            "session {i}"
        );
        let [(_, electricity), (_, service)] = parts(i);
        captured_total[0] += electricity;
        captured_total[1] += service;
        let card = cards[i % CARDS];
        assert_eq!(
            released[0].entry(card).unwrap().amount_fen,
            HELD_FEN - electricity - service
        );
    }

    let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
    // Each key applied once: one CAPTURE and one RELEASE per settled
    // session, none for a refused one.
    let per_key: Vec<(i16, String, i64)> = sqlx::query_as(
        "select kind, idempotency_key, count(*) from ledger_transfer \
         where kind in ($1, $2) group by 1, 2",
    )
    .bind(i16::from(TransferKind::Capture))
    .bind(i16::from(TransferKind::Release))
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    let settled_sessions = (0..SESSIONS).filter(|i| !overdrawn(*i)).count();
    assert_eq!(per_key.len(), 2 * settled_sessions);
    assert!(per_key.iter().all(|k| k.2 == 1));
    // The hot accounts earned exactly the settled sessions' parts, once.
    for (kind, total) in [
        (AccountKind::PlatformRevenue, captured_total[0]),
        (AccountKind::ServiceFeeRevenue, captured_total[1]),
    ] {
        let account = ledger::find_account(&mut tx, ent, kind, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(
            ledger::balances(&mut tx, ent, &[account]).await.unwrap()[0].1,
            total,
            "{kind:?}"
        );
    }
    // Every hold emptied but the refused ones', which keep what they held.
    let holds: Vec<(Uuid, i64)> =
        sqlx::query_as("select owner_id, balance_fen from ledger_account where kind = $1")
            .bind(i16::from(AccountKind::Hold))
            .fetch_all(&mut *tx)
            .await
            .unwrap();
    for (session, balance) in holds {
        let i = sessions.iter().position(|s| *s == session).unwrap();
        assert_eq!(
            balance,
            if overdrawn(i) { HELD_FEN } else { 0 },
            "session {i}"
        );
    }
    // Every transfer sums to zero over two entries or more.
    let unbalanced: i64 = sqlx::query_scalar(
        "select count(*) from (select transfer_id from ledger_entry group by 1 \
         having sum(amount_fen) <> 0 or count(*) < 2) t",
    )
    .fetch_one(&mut *tx)
    .await
    .unwrap();
    assert_eq!(unbalanced, 0);
    // Every balance equals its entries, none below its floor, no money made.
    let accounts: Vec<(i16, i64, i64)> = sqlx::query_as(
        "select a.kind, a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
         where e.account_id = a.id), 0)::bigint from ledger_account a",
    )
    .fetch_all(&mut *tx)
    .await
    .unwrap();
    assert!(
        accounts
            .iter()
            .all(|(_, balance, entries)| balance == entries)
    );
    let funding = i16::from(AccountKind::Funding);
    assert!(accounts.iter().all(|(k, b, _)| *k == funding || *b >= 0));
    assert_eq!(accounts.iter().map(|a| a.1).sum::<i64>(), 0);
    db::end_read(tx);
    // The ledger's own proof (balances, sums, floors, each entry's chain).
    let mut tx = db::begin_service(&b.app).await.unwrap();
    assert_eq!(fleetdesk_ledger::verify(&mut tx).await.unwrap(), vec![]);
    db::end_read(tx);

    // And they were grouped: fewer transactions than settlements (one each
    // without grouping; how many share one depends on how fast the callers
    // arrive), and no group failed as a whole (its members would have been
    // retried alone).
    let stats = b.group.stats();
    assert_eq!(stats.settlements, (SESSIONS + SESSIONS / 10) as u64);
    assert_eq!(stats.retried_alone, 0, "{stats:?}");
    assert!(
        stats.transactions * 4 < stats.settlements * 3,
        "captures were not grouped: {stats:?}"
    );
}

#[tokio::test]
async fn a_lone_capture_commits_at_once_and_a_replay_answers_the_first() {
    let b = books().await;
    let ent = Uuid::new_v4();
    let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
    let main = ledger::open_account(&mut tx, ent, AccountKind::Main, None)
        .await
        .unwrap();
    let card = ledger::open_account(&mut tx, ent, AccountKind::Card, Some(Uuid::new_v4()))
        .await
        .unwrap();
    ledger::top_up(&mut tx, ent, main, 10_000, "top-up", "test")
        .await
        .unwrap();
    let t = Transfer::between(ent, TransferKind::CardChange, "card", main, card, 10_000);
    ledger::transfer(&mut tx, &t).await.unwrap();
    let session = Uuid::new_v4();
    ledger::hold(&mut tx, ent, card, session, HELD_FEN, "hold")
        .await
        .unwrap();
    tx.commit().await.unwrap();

    let revenue = [(AccountKind::PlatformRevenue, 1_234)];
    let capture = || async {
        let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
        let started = std::time::Instant::now();
        let settled =
            ledger::capture_grouped(&b.group, &mut tx, ent, card, session, &revenue, "settle")
                .await
                .unwrap();
        (settled, started.elapsed())
    };
    let (first, took) = capture().await;
    // Alone, it does not wait for company.
    assert!(took < std::time::Duration::from_secs(1), "{took:?}");
    let (again, _) = capture().await;
    let (first_capture, again_capture) = (first.captured.unwrap(), again.captured.unwrap());
    assert!(!first_capture.replayed && again_capture.replayed);
    assert_eq!(first_capture.transfer_id, again_capture.transfer_id);
    assert_eq!(
        first.released.unwrap().transfer_id,
        again.released.unwrap().transfer_id
    );
    let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
    assert_eq!(
        ledger::balances(&mut tx, ent, &[card]).await.unwrap()[0].1,
        10_000 - 1_234
    );
    assert_eq!(
        b.group.stats(),
        fleetdesk_ledger::GroupStats {
            transactions: 2,
            settlements: 2,
            retried_alone: 0
        }
    );
}
