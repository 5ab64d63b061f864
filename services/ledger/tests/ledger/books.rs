//! The ledger core on a real database: finance's ledger migration (the very
//! file finance deploys, so its copy of the tables is proven to fit the
//! crate's queries) after kit's, in a fresh PostgreSQL database, posting as
//! the app role under RLS. A made-up service's kinds stand for finance's.
//! Clean books after concurrent, replayed and refused transfers show no
//! difference; each difference planted by hand (as the owner, around the
//! triggers and constraints) is found, and only it.

use std::borrow::Cow;

use fleetdesk_kit::db;
use fleetdesk_ledger::{
    self as ledger, AccountCode, Difference, Leg, Transfer, TransferCode, TransferError,
};
use fleetdesk_testkit::TestDb;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx_postgres::PgPool;
use uuid::Uuid;

fleetdesk_kit::stored_code!(
    /// What an account holds.
    Account {
        /// A customer's money; never below zero (or its overdraft).
        Wallet = 1,
        /// Where deposits come from; owes what it issued.
        Source = 2,
    }
);

impl AccountCode for Account {
    fn may_go_negative(self) -> bool {
        match self {
            Account::Source => true,
            Account::Wallet => false,
        }
    }

    fn label(self) -> &'static str {
        match self {
            Account::Wallet => "钱包",
            Account::Source => "资金来源",
        }
    }
}

fleetdesk_kit::stored_code!(
    /// Why money moved.
    Move {
        Deposit = 1,
        Pay = 2,
        /// A pending amount posted on.
        Post = 3,
        /// A pending amount returned.
        Void = 4,
    }
);

impl TransferCode for Move {
    type Account = Account;
}

const SCHEMA: &str = "ledger_books";

struct Books {
    _db: TestDb,
    owner: PgPool,
    app: PgPool,
    enterprise: Uuid,
    source: Uuid,
    /// Three wallets; the first spent 400 into an overdraft of 500.
    wallets: Vec<Uuid>,
}

/// Kit's migrations and finance's ledger migration, as finance applies them.
fn finance_ledger() -> Migrator {
    let ledger = Migration::new(
        20261208000001,
        Cow::Borrowed("ledger"),
        MigrationType::Simple,
        Cow::Borrowed(include_str!(
            "../../../finance/migrations/20261208000001_ledger.sql"
        )),
        false,
    );
    Migrator {
        migrations: Cow::Owned(vec![ledger]),
        ..Migrator::DEFAULT
    }
}

async fn post(app: &PgPool, t: &Transfer<Move>) -> Result<ledger::Posted, TransferError<Account>> {
    let mut tx = db::begin_tenant(app, t.enterprise_id).await?;
    let posted = ledger::transfer(&mut tx, t).await?;
    tx.commit().await?;
    Ok(posted)
}

/// A ledger with history: deposits, payments (many at once, some refused
/// for want of money), a replay, a reused key, a three-legged transfer, two
/// transfers over one account in one transaction, and another tenant.
async fn books() -> Books {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::new().await;
    let owner = db::connect_owner(&db.url, SCHEMA, 2).await.unwrap();
    db::migrate(&owner, &finance_ledger()).await.unwrap();
    let app = db::connect(&db.url, SCHEMA, 10).await.unwrap();
    let enterprise = Uuid::new_v4();

    let mut tx = db::begin_tenant(&app, enterprise).await.unwrap();
    let source = ledger::open_account(&mut tx, enterprise, Account::Source, None)
        .await
        .unwrap();
    let mut wallets = Vec::new();
    for _ in 0..3 {
        wallets.push(
            ledger::open_account(&mut tx, enterprise, Account::Wallet, Some(Uuid::new_v4()))
                .await
                .unwrap(),
        );
    }
    tx.commit().await.unwrap();

    let deposit = Transfer::between(enterprise, Move::Deposit, "d1", source, wallets[0], 1_000);
    let first = post(&app, &deposit).await.unwrap();
    let again = post(&app, &deposit).await.unwrap();
    assert!(again.replayed && again.transfer_id == first.transfer_id);
    let reused = Transfer::between(enterprise, Move::Deposit, "d1", source, wallets[0], 999);
    assert!(matches!(
        post(&app, &reused).await,
        Err(TransferError::KeyReused)
    ));

    let mut tasks = tokio::task::JoinSet::new();
    for i in 0..60usize {
        let (from, to) = (wallets[i % 3], wallets[(i + 1) % 3]);
        let t = Transfer::between(enterprise, Move::Pay, format!("p{i}"), from, to, 150);
        let app = app.clone();
        tasks.spawn(async move {
            match post(&app, &t).await {
                Ok(_) => true,
                Err(TransferError::Insufficient { .. }) => false,
                Err(other) => panic!("unexpected refusal: {other}"),
            }
        });
    }
    let mut posted = 0;
    while let Some(done) = tasks.join_next().await {
        posted += usize::from(done.unwrap());
    }
    assert!(posted > 0, "none of 60 posted");

    let mut tx = db::begin_tenant(&app, enterprise).await.unwrap();
    let split = Transfer {
        legs: vec![
            Leg::debit(source, 300),
            Leg::credit(wallets[1], 100),
            Leg::credit(wallets[2], 200),
        ],
        ..Transfer::between(enterprise, Move::Deposit, "split", source, source, 0)
    };
    ledger::transfer(&mut tx, &split).await.unwrap();
    let spend = Transfer::between(enterprise, Move::Pay, "spend", wallets[1], wallets[0], 100);
    ledger::transfer(&mut tx, &spend).await.unwrap();
    // Into an overdraft: the first wallet ends below zero, within its floor.
    ledger::set_overdraft::<Account>(&mut tx, enterprise, wallets[0], 500)
        .await
        .unwrap();
    let all = ledger::balances(&mut tx, enterprise, &wallets[..1])
        .await
        .unwrap()[0]
        .1;
    let over = Transfer::between(
        enterprise,
        Move::Pay,
        "over",
        wallets[0],
        wallets[2],
        all + 400,
    );
    let refused = Transfer::between(
        enterprise,
        Move::Pay,
        "too",
        wallets[0],
        wallets[2],
        all + 501,
    );
    assert!(matches!(
        ledger::transfer(&mut tx, &refused).await,
        Err(TransferError::Insufficient {
            kind: Account::Wallet,
            ..
        })
    ));
    assert_eq!(
        ledger::transfer(&mut tx, &over)
            .await
            .unwrap()
            .balance_after(wallets[0]),
        Some(-400)
    );
    tx.commit().await.unwrap();

    // Another tenant's books, which the check sees too.
    let other = Uuid::new_v4();
    let mut tx = db::begin_tenant(&app, other).await.unwrap();
    let other_source = ledger::open_account(&mut tx, other, Account::Source, None)
        .await
        .unwrap();
    let other_wallet = ledger::open_account(&mut tx, other, Account::Wallet, None)
        .await
        .unwrap();
    tx.commit().await.unwrap();
    let t = Transfer::between(other, Move::Deposit, "d1", other_source, other_wallet, 50);
    post(&app, &t).await.unwrap();

    Books {
        _db: db,
        owner,
        app,
        enterprise,
        source,
        wallets,
    }
}

impl Books {
    /// What the check finds, over every tenant, as the app role.
    async fn differences(&self) -> Vec<Difference> {
        let mut tx = db::begin_service(&self.app).await.unwrap();
        ledger::verify(&mut tx).await.unwrap()
    }

    /// Runs SQL as the tables' owner, around the triggers and constraints.
    async fn by_hand(&self, sql: &str) {
        sqlx::query(sql).execute(&self.owner).await.unwrap();
    }

    async fn balance(&self, account: Uuid) -> i64 {
        let mut tx = db::begin_tenant(&self.app, self.enterprise).await.unwrap();
        ledger::balances(&mut tx, self.enterprise, &[account])
            .await
            .unwrap()[0]
            .1
    }
}

#[tokio::test]
async fn clean_books_have_no_difference() {
    let b = books().await;
    assert_eq!(b.differences().await, vec![]);
    assert_eq!(ledger::run_once(&b.app, SCHEMA).await.unwrap(), vec![]);
    assert_eq!(b.balance(b.wallets[0]).await, -400);
    // The source owes what it issued: every wallet of the enterprise.
    let mut total = 0;
    for w in &b.wallets {
        total += b.balance(*w).await;
    }
    assert_eq!(b.balance(b.source).await, -total);
}

#[tokio::test]
async fn a_balance_changed_by_hand_is_found_and_nothing_else() {
    let b = books().await;
    let wallet = b.wallets[1];
    let before = b.balance(wallet).await;
    b.by_hand(&format!(
        "update ledger_account set balance_fen = balance_fen + 7 where id = '{wallet}'"
    ))
    .await;
    assert_eq!(
        b.differences().await,
        vec![Difference::Balance {
            enterprise_id: b.enterprise,
            account_id: wallet,
            balance_fen: before + 7,
            entries_fen: before,
        }]
    );
    assert_eq!(ledger::run_once(&b.app, SCHEMA).await.unwrap().len(), 1);
}

#[tokio::test]
async fn an_entry_whose_balance_after_does_not_chain_is_found_and_nothing_else() {
    let b = books().await;
    let wallet = b.wallets[2];
    b.by_hand("alter table ledger_entry disable trigger ledger_entry_immutable")
        .await;
    // One entry in the middle of the wallet's history claims another
    // balance after it; amounts and balances still add up.
    b.by_hand(&format!(
        "update ledger_entry set balance_after_fen = balance_after_fen + 1 \
         where id = (select id from ledger_entry where account_id = '{wallet}' \
                     order by created_at, id limit 1 offset 1)"
    ))
    .await;
    assert_eq!(
        b.differences().await,
        vec![Difference::BrokenChain {
            enterprise_id: b.enterprise,
            account_id: wallet,
        }]
    );
}

#[tokio::test]
async fn a_transfer_without_entries_and_an_account_below_its_floor_are_found() {
    let b = books().await;
    // A transfer row alone passes the tables' triggers (they fire on entries).
    let empty = Uuid::new_v4();
    b.by_hand(&format!(
        "insert into ledger_transfer (id, enterprise_id, kind, idempotency_key) \
         values ('{empty}', '{}', 2, 'empty')",
        b.enterprise
    ))
    .await;
    // The overdraft the first wallet is spending withdrawn, past the
    // constraint that would have refused it.
    let wallet = b.wallets[0];
    b.by_hand("alter table ledger_account drop constraint ledger_account_floor_check")
        .await;
    b.by_hand(&format!(
        "update ledger_account set overdraft_fen = 100 where id = '{wallet}'"
    ))
    .await;
    assert_eq!(
        b.differences().await,
        vec![
            Difference::Unbalanced {
                enterprise_id: b.enterprise,
                transfer_id: empty,
                sum_fen: 0,
                entries: 0,
            },
            Difference::BelowFloor {
                enterprise_id: b.enterprise,
                account_id: wallet,
                balance_fen: -400,
                overdraft_fen: 100,
            },
        ]
    );
}

#[tokio::test]
async fn a_pending_amount_is_posted_in_part_and_the_rest_voided_once() {
    let b = books().await;
    let ent = b.enterprise;
    let mut tx = db::begin_tenant(&b.app, ent).await.unwrap();
    let mut open = Vec::new();
    for _ in 0..4 {
        open.push(
            ledger::open_account(&mut tx, ent, Account::Wallet, Some(Uuid::new_v4()))
                .await
                .unwrap(),
        );
    }
    let [customer, hold, shop, fee] = open[..] else {
        unreachable!()
    };
    let deposit = Transfer::between(ent, Move::Deposit, "c", b.source, customer, 1_000);
    ledger::transfer(&mut tx, &deposit).await.unwrap();
    let pend = Transfer::between(ent, Move::Pay, "pend", customer, hold, 600);
    ledger::transfer(&mut tx, &pend).await.unwrap();
    let pending = ledger::Pending {
        enterprise_id: ent,
        hold_id: hold,
        source_id: customer,
        post: Move::Post,
        void: Move::Void,
    };
    // More than is held is refused, naming the hold.
    let over = ledger::settle(
        &mut tx,
        &pending,
        &[Leg::credit(shop, 500), Leg::credit(fee, 101)],
        "end",
    )
    .await;
    assert!(matches!(
        over,
        Err(TransferError::Insufficient { account_id, available_fen: 600, needed_fen: 601, .. })
            if account_id == hold
    ));
    let credits = [Leg::credit(shop, 250), Leg::credit(fee, 100)];
    let settled = ledger::settle(&mut tx, &pending, &credits, "end")
        .await
        .unwrap();
    let posted = settled.posted.unwrap();
    let voided = settled.voided.unwrap();
    assert_eq!(posted.entry(hold).unwrap().amount_fen, -350);
    assert_eq!(posted.entry(shop).unwrap().amount_fen, 250);
    assert_eq!(voided.balance_after(customer), Some(650));
    // The rest went back first, the part posted on last.
    assert_eq!(voided.balance_after(hold), Some(350));
    assert_eq!(posted.balance_after(hold), Some(0));
    // Replays answer the first settlement and move nothing.
    let again = ledger::settle(&mut tx, &pending, &credits, "end")
        .await
        .unwrap();
    assert_eq!(again.posted.unwrap().transfer_id, posted.transfer_id);
    assert_eq!(again.voided.unwrap().transfer_id, voided.transfer_id);
    assert_eq!(
        ledger::void(&mut tx, &pending, "end")
            .await
            .unwrap()
            .unwrap()
            .transfer_id,
        voided.transfer_id
    );
    // A void returns all that is held, and nothing when nothing is.
    ledger::transfer(
        &mut tx,
        &Transfer::between(ent, Move::Pay, "pend2", customer, hold, 200),
    )
    .await
    .unwrap();
    let back = ledger::void(&mut tx, &pending, "cancel")
        .await
        .unwrap()
        .unwrap();
    assert_eq!(back.balance_after(customer), Some(650));
    assert_eq!(
        ledger::void(&mut tx, &pending, "cancel2").await.unwrap(),
        None
    );
    tx.commit().await.unwrap();
    for (account, fen) in [(customer, 650), (hold, 0), (shop, 250), (fee, 100)] {
        assert_eq!(b.balance(account).await, fen);
    }
    assert_eq!(b.differences().await, vec![]);
}

#[tokio::test]
async fn an_account_is_found_by_one_probe_of_its_owner_key_however_many_the_enterprise_holds() {
    let b = books().await;
    // 2,000 more wallets, as a charging enterprise holds one account per session.
    let mut tx = db::begin_tenant(&b.app, b.enterprise).await.unwrap();
    let mut owners = Vec::new();
    for _ in 0..2_000 {
        let owner = Uuid::new_v4();
        ledger::open_account(&mut tx, b.enterprise, Account::Wallet, Some(owner))
            .await
            .unwrap();
        owners.push(owner);
    }
    tx.commit().await.unwrap();
    sqlx::query("analyze ledger_account")
        .execute(&b.owner)
        .await
        .unwrap();

    let wanted = [
        (Account::Wallet, Some(owners[1_234])),
        (Account::Source, None),
        (Account::Wallet, Some(Uuid::new_v4())),
    ];
    let mut tx = db::begin_tenant(&b.app, b.enterprise).await.unwrap();
    let found = ledger::find_accounts(&mut tx, b.enterprise, &wanted)
        .await
        .unwrap();
    let opened = ledger::open_account(&mut tx, b.enterprise, Account::Wallet, Some(owners[1_234]))
        .await
        .unwrap();
    assert_eq!(found, [Some(opened), Some(b.source), None]);

    // Each pair is an index condition on the whole owner key, never a
    // filter over the enterprise's accounts.
    let kinds: Vec<i16> = wanted.iter().map(|(k, _)| i16::from(*k)).collect();
    let owners: Vec<Option<Uuid>> = wanted.iter().map(|(_, o)| *o).collect();
    let plan: Vec<String> = sqlx::query_scalar(&format!("explain {}", ledger::FIND_ACCOUNTS))
        .bind(b.enterprise)
        .bind(&kinds)
        .bind(&owners)
        .fetch_all(&mut *tx)
        .await
        .unwrap();
    let plan = plan.join("\n");
    assert!(plan.contains("owner_id = w.owner_id"), "{plan}");
    assert!(plan.contains("owner_id IS NULL"), "{plan}");
    assert!(!plan.contains("Filter: ((NOT"), "{plan}");
    assert!(!plan.contains("Join Filter"), "{plan}");
}
