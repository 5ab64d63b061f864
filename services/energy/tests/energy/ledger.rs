//! The ledger's invariants on a real database (the energy schema migrated
//! into a fresh PostgreSQL database, queries as the app role under RLS):
//! concurrent transfers keep every balance equal to the sum of its entries
//! and none below zero, money is neither made nor lost, a key moves money
//! once, entries cannot change, an unbalanced transfer cannot commit, and
//! a session's hold is captured and released exactly.

use fleetdesk_energy::ledger::{self, AccountKind, Leg, Transfer, TransferError, TransferKind};
use fleetdesk_kit::db;
use fleetdesk_testkit::TestDb;
use sqlx_postgres::PgPool;
use uuid::Uuid;

struct Ledger {
    _db: TestDb,
    owner: PgPool,
    app: PgPool,
}

async fn ledger_db() -> Ledger {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&[&fleetdesk_energy::SCHEMA]).await;
    let owner = db::connect_owner(&db.url, fleetdesk_energy::SCHEMA.name, 2)
        .await
        .unwrap();
    let app = db::connect(&db.url, fleetdesk_energy::SCHEMA.name, 20)
        .await
        .unwrap();
    Ledger {
        _db: db,
        owner,
        app,
    }
}

impl Ledger {
    /// Opens an account in its own transaction.
    async fn open(&self, enterprise: Uuid, kind: AccountKind, owner: Option<Uuid>) -> Uuid {
        let mut tx = db::begin_tenant(&self.app, enterprise).await.unwrap();
        let id = ledger::open_account(&mut tx, enterprise, kind, owner)
            .await
            .unwrap();
        tx.commit().await.unwrap();
        id
    }

    /// Posts one transfer in its own transaction.
    async fn post(&self, t: &Transfer) -> Result<ledger::Posted, TransferError> {
        let mut tx = db::begin_tenant(&self.app, t.enterprise_id).await.unwrap();
        let posted = ledger::transfer(&mut tx, t).await?;
        tx.commit().await.unwrap();
        Ok(posted)
    }

    async fn balance(&self, enterprise: Uuid, account: Uuid) -> i64 {
        let mut tx = db::begin_tenant(&self.app, enterprise).await.unwrap();
        ledger::balances(&mut tx, enterprise, &[account])
            .await
            .unwrap()[0]
            .1
    }

    /// Every account of the enterprise: (balance, sum of its entries).
    async fn books(&self, enterprise: Uuid) -> Vec<(i64, i64)> {
        let mut tx = db::begin_tenant(&self.app, enterprise).await.unwrap();
        sqlx::query_as(
            "select a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
             where e.account_id = a.id), 0)::bigint from ledger_account a",
        )
        .fetch_all(&mut *tx)
        .await
        .unwrap()
    }
}

#[tokio::test]
async fn concurrent_transfers_keep_every_balance_equal_to_its_entries_and_none_below_zero() {
    let l = ledger_db().await;
    let ent = Uuid::new_v4();
    let main = l.open(ent, AccountKind::Main, None).await;
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    ledger::top_up(&mut tx, ent, main, 100_000, "seed", "初始余额")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let mut orgs = Vec::new();
    for _ in 0..4 {
        orgs.push(
            l.open(ent, AccountKind::Organization, Some(Uuid::new_v4()))
                .await,
        );
    }
    // 400 transfers between MAIN and the four organisations, both ways, of
    // amounts large enough that many are refused for want of money.
    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..400u32 {
        let org = orgs[i as usize % orgs.len()];
        let (from, to, kind) = if i % 3 == 0 {
            (org, main, TransferKind::Reclaim)
        } else {
            (main, org, TransferKind::Allocate)
        };
        let t = Transfer::between(
            ent,
            kind,
            format!("t{i}"),
            from,
            to,
            700 + i64::from(i % 7) * 900,
        );
        let app = l.app.clone();
        tasks.spawn(async move {
            let mut tx = db::begin_tenant(&app, ent).await.unwrap();
            match ledger::transfer(&mut tx, &t).await {
                Ok(_) => {
                    tx.commit().await.unwrap();
                    true
                }
                Err(TransferError::Insufficient { .. }) => false,
                Err(other) => panic!("unexpected refusal: {other}"),
            }
        });
    }
    let mut posted = 0;
    while let Some(done) = tasks.join_next().await {
        posted += usize::from(done.unwrap());
    }
    assert!(posted > 100 && posted < 400, "posted {posted} of 400");
    let books = l.books(ent).await;
    assert_eq!(books.len(), 6, "MAIN, FUNDING and four organisations");
    for (balance, entries) in &books {
        assert_eq!(balance, entries, "a balance differs from its entries");
    }
    let total: i64 = books.iter().map(|b| b.0).sum();
    assert_eq!(total, 0, "money was made or lost");
    let inside: i64 = books.iter().map(|b| b.0).filter(|b| *b >= 0).sum();
    assert_eq!(
        inside, 100_000,
        "only FUNDING is below zero, by what it issued"
    );
    let balanced: i64 = sqlx::query_scalar(
        "select count(*) from (select transfer_id from ledger_entry group by transfer_id \
         having sum(amount_fen) <> 0 or count(*) < 2) t",
    )
    .fetch_one(&l.owner)
    .await
    .unwrap();
    assert_eq!(balanced, 0);
}

#[tokio::test]
async fn a_key_moves_money_once_and_other_legs_under_it_are_refused() {
    let l = ledger_db().await;
    let ent = Uuid::new_v4();
    let main = l.open(ent, AccountKind::Main, None).await;
    let org = l
        .open(ent, AccountKind::Organization, Some(Uuid::new_v4()))
        .await;
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    ledger::top_up(&mut tx, ent, main, 1_000, "seed", "")
        .await
        .unwrap();
    tx.commit().await.unwrap();

    let t = Transfer::between(ent, TransferKind::Allocate, "k1", main, org, 600);
    let first = l.post(&t).await.unwrap();
    assert!(!first.replayed);
    assert_eq!(first.balance_after(main), Some(400));
    // The replay would not even fit the balance left: it answers the first.
    let again = l.post(&t).await.unwrap();
    assert!(again.replayed);
    assert_eq!(again.transfer_id, first.transfer_id);
    assert_eq!(again.entries, first.entries);
    assert_eq!(l.balance(ent, main).await, 400);
    assert_eq!(l.balance(ent, org).await, 600);

    let other = Transfer::between(ent, TransferKind::Allocate, "k1", main, org, 100);
    assert!(matches!(
        l.post(&other).await,
        Err(TransferError::KeyReused)
    ));
    // The same key of another kind is another transfer.
    let back = Transfer::between(ent, TransferKind::Reclaim, "k1", org, main, 100);
    assert!(!l.post(&back).await.unwrap().replayed);
    assert_eq!(l.balance(ent, main).await, 500);

    let too_much = Transfer::between(ent, TransferKind::Allocate, "k2", main, org, 501);
    let err = l.post(&too_much).await.unwrap_err();
    assert!(matches!(
        err,
        TransferError::Insufficient {
            available_fen: 500,
            needed_fen: 501,
            kind: AccountKind::Main,
            ..
        }
    ));
    // A refused transfer leaves its key free.
    let fits = Transfer::between(ent, TransferKind::Allocate, "k2", main, org, 500);
    assert!(!l.post(&fits).await.unwrap().replayed);
}

#[tokio::test]
async fn entries_are_immutable_and_an_unbalanced_transfer_cannot_commit() {
    let l = ledger_db().await;
    let ent = Uuid::new_v4();
    let main = l.open(ent, AccountKind::Main, None).await;
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    let posted = ledger::top_up(&mut tx, ent, main, 1_000, "seed", "")
        .await
        .unwrap();
    tx.commit().await.unwrap();

    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    for change in [
        "update ledger_entry set amount_fen = amount_fen * 2",
        "delete from ledger_entry",
        "update ledger_transfer set memo = 'x'",
        "delete from ledger_transfer",
    ] {
        let mut sp = sqlx::Connection::begin(&mut *tx).await.unwrap();
        let err = sqlx::query(change).execute(&mut *sp).await.unwrap_err();
        assert!(err.to_string().contains("immutable"), "{change}: {err}");
    }
    drop(tx);

    // One leg written by hand: refused when the transaction commits.
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into ledger_transfer (id, enterprise_id, kind, idempotency_key) values ($1, $2, 8, 'bad')",
    )
    .bind(id)
    .bind(ent)
    .execute(&mut *tx)
    .await
    .unwrap();
    sqlx::query(
        "insert into ledger_entry (id, enterprise_id, transfer_id, account_id, amount_fen, \
         balance_after_fen) values ($1, $2, $3, $4, 5, 1005)",
    )
    .bind(Uuid::new_v4())
    .bind(ent)
    .bind(id)
    .bind(main)
    .execute(&mut *tx)
    .await
    .unwrap();
    let err = tx.commit().await.unwrap_err();
    assert!(err.to_string().contains("does not balance"), "{err}");
    assert_eq!(
        l.balance(ent, main).await,
        posted.balance_after(main).unwrap()
    );

    // Below the floor even by hand: the check constraint.
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    let err = sqlx::query("update ledger_account set balance_fen = -1 where id = $1")
        .bind(main)
        .execute(&mut *tx)
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("ledger_account_floor_check"),
        "{err}"
    );
}

#[tokio::test]
async fn a_session_hold_is_captured_up_to_what_was_held_and_the_rest_released() {
    let l = ledger_db().await;
    let ent = Uuid::new_v4();
    let main = l.open(ent, AccountKind::Main, None).await;
    let card = l.open(ent, AccountKind::Card, Some(Uuid::new_v4())).await;
    let session = Uuid::new_v4();
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    ledger::top_up(&mut tx, ent, main, 1_000, "seed", "")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    l.post(&Transfer::between(
        ent,
        TransferKind::CardChange,
        "c1",
        main,
        card,
        1_000,
    ))
    .await
    .unwrap();

    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    ledger::hold(&mut tx, ent, card, session, 600, "s:1")
        .await
        .unwrap();
    // Extending past the card's money is refused.
    let short = ledger::hold(&mut tx, ent, card, session, 401, "s:2").await;
    assert!(matches!(
        short,
        Err(TransferError::Insufficient {
            kind: AccountKind::Card,
            ..
        })
    ));
    ledger::hold(&mut tx, ent, card, session, 300, "s:3")
        .await
        .unwrap();
    // More than held cannot be captured.
    let over = ledger::capture(
        &mut tx,
        ent,
        card,
        session,
        &[
            (AccountKind::PlatformRevenue, 800),
            (AccountKind::TimeFeeRevenue, 101),
        ],
        "end",
    )
    .await;
    assert!(matches!(
        over,
        Err(TransferError::Insufficient {
            kind: AccountKind::Hold,
            ..
        })
    ));
    tx.commit().await.unwrap();

    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    // Each part of the cost to its own revenue account, in one capture.
    let parts = [
        (AccountKind::PlatformRevenue, 400),
        (AccountKind::ServiceFeeRevenue, 150),
        (AccountKind::TimeFeeRevenue, 100),
        (AccountKind::ParkingFeeRevenue, 0),
    ];
    let settled = ledger::capture(&mut tx, ent, card, session, &parts, "end")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let captured = settled.captured.unwrap();
    let released = settled.released.unwrap();
    assert_eq!(released.balance_after(card), Some(350));
    assert_eq!(captured.entries.len(), 4, "the hold and three revenue legs");
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    for (kind, fen) in [
        (AccountKind::PlatformRevenue, 400),
        (AccountKind::ServiceFeeRevenue, 150),
        (AccountKind::TimeFeeRevenue, 100),
    ] {
        let account = ledger::find_account(&mut tx, ent, kind, None)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(captured.entry(account).unwrap().amount_fen, fen, "{kind:?}");
    }
    assert!(
        ledger::find_account(&mut tx, ent, AccountKind::ParkingFeeRevenue, None)
            .await
            .unwrap()
            .is_none(),
        "a part of 0 opens no account"
    );
    drop(tx);

    // A replayed settlement answers the first and moves nothing.
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    let again = ledger::capture(&mut tx, ent, card, session, &parts, "end")
        .await
        .unwrap();
    assert_eq!(again.captured.unwrap().transfer_id, captured.transfer_id);
    assert_eq!(
        ledger::release(&mut tx, ent, card, session, "end")
            .await
            .unwrap()
            .unwrap()
            .transfer_id,
        released.transfer_id
    );
    tx.commit().await.unwrap();
    assert_eq!(l.balance(ent, card).await, 350);

    // A credit takes the capture back onto the card as a correction, once.
    let mut tx = db::begin_tenant(&l.app, ent).await.unwrap();
    let reversed = ledger::reverse_capture(&mut tx, ent, card, &captured, "credit", "")
        .await
        .unwrap();
    let replayed = ledger::reverse_capture(&mut tx, ent, card, &captured, "credit", "")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    assert!(replayed.replayed);
    assert_eq!(replayed.transfer_id, reversed.transfer_id);
    assert_eq!(l.balance(ent, card).await, 1_000);
    for e in captured.entries.iter().filter(|e| e.amount_fen > 0) {
        assert_eq!(l.balance(ent, e.account_id).await, 0);
    }
    for (balance, entries) in l.books(ent).await {
        assert_eq!(balance, entries);
    }
}

#[tokio::test]
async fn another_tenant_cannot_touch_an_account() {
    let l = ledger_db().await;
    let (a, b) = (Uuid::new_v4(), Uuid::new_v4());
    let main_a = l.open(a, AccountKind::Main, None).await;
    let main_b = l.open(b, AccountKind::Main, None).await;
    let mut tx = db::begin_tenant(&l.app, a).await.unwrap();
    ledger::top_up(&mut tx, a, main_a, 1_000, "seed", "")
        .await
        .unwrap();
    tx.commit().await.unwrap();
    // B names A's account, as B's transaction and as A's enterprise: both unknown.
    let steal = Transfer::between(b, TransferKind::Correction, "x", main_a, main_b, 1);
    assert!(matches!(l.post(&steal).await, Err(TransferError::UnknownAccount(id)) if id == main_a));
    let mut tx = db::begin_tenant(&l.app, b).await.unwrap();
    let forged = Transfer::between(a, TransferKind::Correction, "y", main_a, main_b, 1);
    assert!(matches!(
        ledger::transfer(&mut tx, &forged).await,
        Err(TransferError::UnknownAccount(_))
    ));
    drop(tx);
    assert_eq!(l.balance(a, main_a).await, 1_000);
    // Leg checks come before any lookup.
    let unbalanced = Transfer {
        legs: vec![Leg::debit(main_a, 2), Leg::credit(main_b, 1)],
        ..steal
    };
    assert!(matches!(
        l.post(&unbalanced).await,
        Err(TransferError::Invalid(_))
    ));
}
