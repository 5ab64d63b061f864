//! The energy figures: money on one hot account tree.
//!
//! (i) Session captures per second on one hot account: `sessions` charging
//! sessions of one enterprise, each already holding money from one of
//! `cards` cards, are settled at once on `connections` connections through
//! the ledger functions the session flow settles with
//! (`ledger::capture_grouped`: min(cost, held) captured to the
//! enterprise's revenue accounts, the rest released to the card; the
//! captures waiting at the same moment posted in one transaction by the
//! enterprise's group writer, on its own pool, as the service's role). The baseline is
//! the same number of bare single-row `update … set balance = balance - x
//! where id = $1` on a plain table, at the same concurrency in the same run.
//!
//! (j) Allocation latency under the acceptance test's load: 1,000
//! allocations and reclaims racing on one account tree (main → east →
//! shanghai, main → south) through the stack's energy process over gRPC,
//! at most `in_flight` at once as a gateway's pool would send them; p50
//! and p99 of each call, beside the bare hot-row update at the same
//! concurrency over as many connections as the energy process has.
//!
//! Each run works in a fresh enterprise of its own (the ledger is
//! immutable: what a run posts stays, a few thousand rows).

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use anyhow::Context as _;
use fleetdesk_energy::ledger::{self, AccountKind, Transfer, TransferKind};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{db, grpc, idempotency};
use fleetdesk_proto::energy::v1 as pb;
use fleetdesk_proto::energy::v1::energy_service_client::EnergyServiceClient;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::fleet;

/// What each session holds when it starts (50.00 元), and what a card
/// needs for all of its sessions.
const HELD_FEN: i64 = 5_000;

/// Most captures one group transaction posts (energy's own setting).
const CAPTURE_GROUP: usize = fleetdesk_energy::ledger::CAPTURE_GROUP_SIZE;

#[derive(Debug, Clone)]
pub struct CaptureArgs {
    pub database_url: String,
    pub sessions: usize,
    pub cards: usize,
    pub connections: usize,
    pub rounds: usize,
}

/// Captures (and bare updates) done and how long they took.
#[derive(Debug, Default)]
struct Run {
    done: usize,
    seconds: f64,
    latencies_ms: Vec<f64>,
    /// CPU all Postgres processes used over the run (0: not measured).
    postgres_cpu_ms: f64,
}

impl Run {
    fn add(&mut self, other: Run) {
        self.done += other.done;
        self.seconds += other.seconds;
        self.postgres_cpu_ms += other.postgres_cpu_ms;
        self.latencies_ms.extend(other.latencies_ms);
    }

    fn rate(&self) -> f64 {
        self.done as f64 / self.seconds
    }
}

/// Runs `once(i)` for i in 0..n on `workers` tasks, each taking the next i.
async fn race<F, Fut>(n: usize, workers: usize, once: F) -> anyhow::Result<Run>
where
    F: Fn(usize) -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    let next = Arc::new(AtomicUsize::new(0));
    let started = Instant::now();
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let (once, next) = (once.clone(), next.clone());
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let t = Instant::now();
                    once(i).await?;
                    latencies.push(t.elapsed().as_secs_f64() * 1e3);
                }
                anyhow::Ok(latencies)
            })
        })
        .collect();
    let mut run = Run::default();
    for task in tasks {
        run.latencies_ms.extend(task.await??);
    }
    run.done = run.latencies_ms.len();
    run.seconds = started.elapsed().as_secs_f64();
    Ok(run)
}

/// The baseline: a plain table of one row, `n` bare decrements of it on
/// `workers` connections (each statement its own transaction).
async fn bare_updates(owner: &PgPool, n: usize, workers: usize) -> anyhow::Result<Run> {
    sqlx::query(
        "create table if not exists bench.hot_balance (id int primary key, balance_fen bigint not null)",
    )
    .execute(owner)
    .await?;
    sqlx::query(
        "insert into bench.hot_balance values (1, 1000000000000) \
         on conflict (id) do update set balance_fen = excluded.balance_fen",
    )
    .execute(owner)
    .await?;
    let pool = owner.clone();
    race(n, workers, move |i| {
        let pool = pool.clone();
        async move {
            sqlx::query(
                "update bench.hot_balance set balance_fen = balance_fen - $2 where id = $1",
            )
            .bind(1i32)
            .bind(1_000 + (i % 4_000) as i64)
            .execute(&pool)
            .await?;
            Ok(())
        }
    })
    .await
}

/// An enterprise of the bench's own with `cards` cards under one
/// organisation account, each with money for `per_card` sessions, and a
/// hold on every one of `sessions` sessions: (enterprise, card accounts,
/// session ids). The sessions of card k are k, k + cards, …
async fn held_sessions(
    pool: &PgPool,
    sessions: usize,
    cards: usize,
) -> anyhow::Result<(Uuid, Vec<Uuid>, Vec<Uuid>)> {
    let enterprise = Uuid::new_v4();
    let per_card = sessions.div_ceil(cards) as i64;
    let mut tx = db::begin_tenant(pool, enterprise).await?;
    let main = ledger::open_account(&mut tx, enterprise, AccountKind::Main, None).await?;
    let org = Uuid::new_v4();
    let org_account =
        ledger::open_account(&mut tx, enterprise, AccountKind::Organization, Some(org)).await?;
    let total = per_card * cards as i64 * HELD_FEN;
    ledger::top_up(&mut tx, enterprise, main, total, "bench:top-up", "bench").await?;
    let allocate = Transfer::between(
        enterprise,
        TransferKind::Allocate,
        "bench:allocate",
        main,
        org_account,
        total,
    );
    ledger::transfer(&mut tx, &allocate).await?;
    let mut card_accounts = Vec::with_capacity(cards);
    for k in 0..cards {
        let card =
            ledger::open_account(&mut tx, enterprise, AccountKind::Card, Some(Uuid::new_v4()))
                .await?;
        let top_up = Transfer::between(
            enterprise,
            TransferKind::CardChange,
            format!("bench:card:{k}"),
            org_account,
            card,
            per_card * HELD_FEN,
        );
        ledger::transfer(&mut tx, &top_up).await?;
        card_accounts.push(card);
    }
    tx.commit().await?;
    // The holds as sessions start: card → hold(session), one transaction each.
    let ids: Vec<Uuid> = (0..sessions).map(|_| Uuid::new_v4()).collect();
    let (p, cards_c, ids_c) = (pool.clone(), card_accounts.clone(), ids.clone());
    race(sessions, 8, move |i| {
        let (pool, card, id) = (p.clone(), cards_c[i % cards_c.len()], ids_c[i]);
        async move {
            let mut tx = db::begin_tenant(&pool, enterprise).await?;
            ledger::hold(
                &mut tx,
                enterprise,
                card,
                id,
                HELD_FEN,
                &format!("hold:{id}:0"),
            )
            .await?;
            tx.commit().await?;
            Ok(())
        }
    })
    .await?;
    Ok((enterprise, card_accounts, ids))
}

/// (i): prints the bare updates, the captures one transaction each (as
/// before grouping) and the grouped captures, with their ratios and the
/// Postgres CPU each took.
pub async fn captures(mut args: CaptureArgs) -> anyhow::Result<()> {
    // The stack beside holds connections on the same server: the callers'
    // two pools (owner's, app's) get what fits beside the group writer's 2,
    // or the run stops naming the numbers, and all three runs use as many.
    let fit = db::fit_pools(&args.database_url, 2, args.connections as u32 + 1, 2).await?;
    args.connections = args.connections.min(fit as usize - 1).max(1);
    let owner = db::connect_owner(&args.database_url, "bench", args.connections as u32 + 1).await?;
    let pool = db::connect(
        &args.database_url,
        fleetdesk_energy::SCHEMA.name,
        args.connections as u32,
    )
    .await?;
    // The captures' group writer posts on a pool of its own (as the energy
    // service would give it one), never on one the callers wait with.
    let group = ledger::CaptureGroup::new(
        db::connect(&args.database_url, fleetdesk_energy::SCHEMA.name, 2).await?,
        CAPTURE_GROUP,
    );
    let (mut bare, mut alone, mut grouped) = (Run::default(), Run::default(), Run::default());
    for round in 0..args.rounds {
        let held_alone = held_sessions(&pool, args.sessions, args.cards).await?;
        let held_grouped = held_sessions(&pool, args.sessions, args.cards).await?;
        let one_by_one = capturer(&pool, None, &held_alone);
        let together = capturer(&pool, Some(&group), &held_grouped);
        let bare_run =
            || async { timed(bare_updates(&owner, args.sessions, args.connections)).await };
        // Alternate the order so drift hits all three.
        if round % 2 == 0 {
            bare.add(bare_run().await?);
            alone.add(timed(race(args.sessions, args.connections, one_by_one)).await?);
            grouped.add(timed(race(args.sessions, args.connections, together)).await?);
        } else {
            grouped.add(timed(race(args.sessions, args.connections, together)).await?);
            alone.add(timed(race(args.sessions, args.connections, one_by_one)).await?);
            bare.add(bare_run().await?);
        }
        check_books(&pool, held_alone.0).await?;
        check_books(&pool, held_grouped.0).await?;
    }
    let stats = group.stats();
    table_of(
        &format!(
            "figure ({} sessions on {} cards, {} connections, x {})",
            args.sessions, args.cards, args.connections, args.rounds
        ),
        &bare,
        &[
            ("(i) before: session captures, one transaction each", &alone),
            (
                "(i) session captures, grouped on the hot revenue accounts",
                &grouped,
            ),
        ],
    );
    println!(
        "(i) groups: {} settlements in {} transactions ({:.1} a transaction), {} retried alone",
        stats.settlements,
        stats.transactions,
        stats.settlements as f64 / stats.transactions.max(1) as f64,
        stats.retried_alone
    );
    Ok(())
}

/// A run with the CPU every Postgres process of the machine used over it.
async fn timed(run: impl std::future::Future<Output = anyhow::Result<Run>>) -> anyhow::Result<Run> {
    let before = fleet::cpu_time_of("postgres");
    let mut run = run.await?;
    run.postgres_cpu_ms = fleet::cpu_time_of("postgres")
        .saturating_sub(before)
        .as_secs_f64()
        * 1e3;
    Ok(run)
}

/// Settles session i of `held` as a CDR settles it: electricity and the
/// service fee, each to its revenue account; grouped when given a group,
/// else in the caller's transaction as `ledger::capture` posts it.
fn capturer(
    pool: &PgPool,
    group: Option<&ledger::CaptureGroup>,
    held: &(Uuid, Vec<Uuid>, Vec<Uuid>),
) -> impl Fn(usize) -> std::pin::Pin<Box<dyn std::future::Future<Output = anyhow::Result<()>> + Send>>
+ Clone
+ Send
+ 'static {
    let (pool, group) = (pool.clone(), group.cloned());
    let (enterprise, cards, ids) = (held.0, Arc::new(held.1.clone()), Arc::new(held.2.clone()));
    move |i: usize| {
        let (pool, group, card, id) = (pool.clone(), group.clone(), cards[i % cards.len()], ids[i]);
        Box::pin(async move {
            // What the session cost: 0.01 to 49.99 元 of the 50.00 held.
            let cost = 1 + (i as i64 * 7_919) % (HELD_FEN - 1);
            let service = cost * 3 / 10;
            let parts = [
                (AccountKind::PlatformRevenue, cost - service),
                (AccountKind::ServiceFeeRevenue, service),
            ];
            let key = format!("settle:{id}");
            let mut tx = db::begin_tenant(&pool, enterprise).await?;
            let settled = match &group {
                Some(group) => {
                    ledger::capture_grouped(group, &mut tx, enterprise, card, id, &parts, &key)
                        .await?
                }
                None => ledger::capture(&mut tx, enterprise, card, id, &parts, &key).await?,
            };
            anyhow::ensure!(
                settled.captured.is_some() && settled.released.is_some(),
                "session {id}: {settled:?}"
            );
            tx.commit().await?;
            Ok(())
        })
    }
}

/// A figure's table: the bare updates, then `label`'s run and its ratio to them.
fn table(title: &str, bare: &Run, label: &str, run: &Run) {
    table_of(title, bare, &[(label, run)]);
}

/// A figure's table: the bare updates, then each run with its ratio to
/// them and, when measured, the Postgres CPU per operation.
fn table_of(title: &str, bare: &Run, runs: &[(&str, &Run)]) {
    println!(
        "\n{title:<58} {:>9} {:>8} {:>8} {:>7} {:>10}",
        "op/s", "p50 ms", "p99 ms", "ratio", "pg ms/op"
    );
    let row = |label: &str, run: &Run, ratio: f64| {
        let (p50, p99) = fleet::percentiles(run.latencies_ms.clone());
        let cpu = if run.postgres_cpu_ms > 0.0 {
            format!("{:.3}", run.postgres_cpu_ms / run.done as f64)
        } else {
            "-".to_owned()
        };
        println!(
            "{label:<58} {:>9.0} {p50:>8.2} {p99:>8.2} {ratio:>7.3} {cpu:>10}",
            run.rate()
        );
    };
    row(
        "baseline: bare `update … balance - x` of one row",
        bare,
        1.0,
    );
    for (label, run) in runs {
        row(label, run, run.rate() / bare.rate());
    }
}

/// After a round: every account of the enterprise equals the sum of its
/// entries, none below zero but FUNDING, nothing held, money unchanged.
async fn check_books(pool: &PgPool, enterprise: Uuid) -> anyhow::Result<()> {
    let mut tx = db::begin_tenant(pool, enterprise).await?;
    let books: Vec<(i16, i64, i64)> = sqlx::query_as(
        "select a.kind, a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
         where e.account_id = a.id), 0)::bigint from ledger_account a where a.enterprise_id = $1",
    )
    .bind(enterprise)
    .fetch_all(&mut *tx)
    .await?;
    db::end_read(tx);
    let funding = i16::from(AccountKind::Funding);
    let hold = i16::from(AccountKind::Hold);
    anyhow::ensure!(
        books.iter().all(|(_, balance, entries)| balance == entries),
        "a balance differs from its entries"
    );
    anyhow::ensure!(
        books.iter().all(|(k, b, _)| *k == funding || *b >= 0),
        "an account below zero"
    );
    anyhow::ensure!(
        books
            .iter()
            .filter(|(k, _, _)| *k == hold)
            .all(|b| b.1 == 0),
        "money still held"
    );
    anyhow::ensure!(
        books.iter().map(|b| b.1).sum::<i64>() == 0,
        "money made or lost"
    );
    Ok(())
}

#[derive(Debug, Clone)]
pub struct AllocationArgs {
    pub database_url: String,
    /// The stack's energy process.
    pub energy_url: String,
    /// The stack's internal signing key (base64 seed).
    pub signing_key: String,
    pub moves: usize,
    pub in_flight: usize,
    /// Connections of the baseline's pool (the energy process's).
    pub pool: u32,
    pub rounds: usize,
}

/// A tenant of the bench's own in energy's organisation replica:
/// (enterprise, user, root, east, shanghai, south).
struct Tree {
    enterprise: Uuid,
    user: Uuid,
    units: [Uuid; 4],
}

async fn tree(owner: &PgPool) -> anyhow::Result<Tree> {
    let t = Tree {
        enterprise: Uuid::new_v4(),
        user: Uuid::new_v4(),
        units: [
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
            Uuid::new_v4(),
        ],
    };
    let [root, east, shanghai, south] = t.units;
    let units = [
        (root, None, "总部", format!("/{root}/")),
        (east, Some(root), "华东", format!("/{root}/{east}/")),
        (
            shanghai,
            Some(east),
            "上海",
            format!("/{root}/{east}/{shanghai}/"),
        ),
        (south, Some(root), "华南", format!("/{root}/{south}/")),
    ];
    let mut tx = db::begin_service(owner).await?;
    for (id, parent, name, path) in &units {
        sqlx::query(
            "insert into org_unit (id, enterprise_id, parent_id, name, path, version) \
             values ($1, $2, $3, $4, $5, 1)",
        )
        .bind(id)
        .bind(t.enterprise)
        .bind(parent)
        .bind(name)
        .bind(path)
        .execute(&mut *tx)
        .await?;
    }
    tx.commit().await?;
    Ok(t)
}

/// Calls of energy as the tree's admin, reaching the whole enterprise.
struct Caller {
    signer: TokenSigner,
    claims: Claims,
}

impl Caller {
    fn user<T>(&self, message: T) -> tonic::Request<T> {
        grpc::outgoing(message, &self.signer, &self.claims)
    }

    fn keyed<T>(&self, key: &str, message: T) -> anyhow::Result<tonic::Request<T>> {
        let mut req = self.user(message);
        req.metadata_mut()
            .insert(idempotency::METADATA_KEY, key.parse()?);
        Ok(req)
    }
}

/// (j): prints the bare update and the allocations' latencies.
pub async fn allocations(args: AllocationArgs) -> anyhow::Result<()> {
    let owner = db::connect_owner(&args.database_url, fleetdesk_energy::SCHEMA.name, 2).await?;
    // The baseline's calls wait for one of as many connections as the
    // energy process has (the stack's FLEETDESK_DB_MAX_CONNECTIONS).
    let bench = db::connect_owner(&args.database_url, "bench", args.pool).await?;
    let signer = TokenSigner::from_base64_seed(&args.signing_key)
        .map_err(|e| anyhow::anyhow!("the stack's signing key: {e:?}"))?;
    let client = EnergyServiceClient::new(grpc::lazy_channel(&args.energy_url)?);
    let (mut bare, mut moves) = (Run::default(), Run::default());
    let mut refused = 0usize;
    for round in 0..args.rounds {
        let t = tree(&owner).await?;
        let caller = Arc::new(Caller {
            claims: Claims {
                iss: "gateway".into(),
                sub: format!("user:{}", t.user),
                ent: Some(t.enterprise.to_string()),
                acc: None,
                perms: vec!["oss:pc:energy:management".into(), "as:charge:fee".into()],
                reach: Some(ReachClaim {
                    all: true,
                    ..ReachClaim::default()
                }),
                flags: Vec::new(),
                iat: 0,
                exp: 0,
            },
            signer: signer.clone(),
        });
        let accounts = open(&owner, &client, &caller, &t).await?;
        let refusals = Arc::new(AtomicUsize::new(0));
        let allocate = {
            let (client, caller, refusals) = (client.clone(), caller.clone(), refusals.clone());
            let [main, east, shanghai, south] = accounts;
            move |i: usize| {
                let (mut client, caller, refusals) =
                    (client.clone(), caller.clone(), refusals.clone());
                let (main, east, shanghai, south) =
                    (main.clone(), east.clone(), shanghai.clone(), south.clone());
                async move {
                    let amount = 500 + (i % 9) as i64 * 1_500;
                    let key = format!("bench:{i}");
                    let to = |from: String, to: String| pb::AllocateBalanceRequest {
                        from_account_id: from,
                        targets: vec![pb::AllocationTarget {
                            to_account_id: to,
                            amount_fen: amount,
                        }],
                        ..Default::default()
                    };
                    let back = |from: String| pb::ReclaimBalanceRequest {
                        from_account_id: from,
                        amount_fen: amount,
                        ..Default::default()
                    };
                    let answer = match i % 6 {
                        0 => client
                            .allocate_balance(caller.keyed(&key, to(main, east))?)
                            .await
                            .map(drop),
                        1 => client
                            .allocate_balance(caller.keyed(&key, to(main, south))?)
                            .await
                            .map(drop),
                        2 => client
                            .allocate_balance(caller.keyed(&key, to(east, shanghai))?)
                            .await
                            .map(drop),
                        3 => client
                            .reclaim_balance(caller.keyed(&key, back(shanghai))?)
                            .await
                            .map(drop),
                        4 => client
                            .reclaim_balance(caller.keyed(&key, back(east))?)
                            .await
                            .map(drop),
                        _ => client
                            .reclaim_balance(caller.keyed(&key, back(south))?)
                            .await
                            .map(drop),
                    };
                    match answer {
                        Ok(()) => Ok(()),
                        // A child short of the amount: a refusal is an answer too.
                        Err(status) if status.message().contains("余额不足") => {
                            refusals.fetch_add(1, Ordering::Relaxed);
                            Ok(())
                        }
                        Err(status) => Err(anyhow::anyhow!("allocation {i}: {status}")),
                    }
                }
            }
        };
        if round % 2 == 0 {
            bare.add(bare_updates(&bench, args.moves, args.in_flight).await?);
            moves.add(race(args.moves, args.in_flight, allocate).await?);
        } else {
            moves.add(race(args.moves, args.in_flight, allocate).await?);
            bare.add(bare_updates(&bench, args.moves, args.in_flight).await?);
        }
        refused += refusals.load(Ordering::Relaxed);
        check_books(&owner, t.enterprise).await?;
    }
    table(
        &format!(
            "figure ({} moves, {} in flight, x {}; {} refused)",
            args.moves, args.in_flight, args.rounds, refused
        ),
        &bare,
        "(j) allocations and reclaims on one tree (gRPC)",
        &moves,
    );
    Ok(())
}

/// Opens charging for the tree and tops MAIN up: the account ids of root,
/// east, shanghai and south. The bench's enterprise lives only in energy's
/// replica (org does not know it, and applying asks org), so it is opened as
/// the demo seed opens one: the OPENED state and MAIN with the tree's
/// sub-accounts, in energy's own schema.
async fn open(
    owner: &PgPool,
    client: &EnergyServiceClient<tonic::transport::Channel>,
    caller: &Caller,
    t: &Tree,
) -> anyhow::Result<[String; 4]> {
    let mut c = client.clone();
    let mut tx = db::begin_service(owner).await?;
    fleetdesk_energy::opening::store::set_state(
        &mut tx,
        t.enterprise,
        fleetdesk_energy::opening::domain::OpenState::Opened,
    )
    .await?;
    fleetdesk_energy::accounts::store::open_main(&mut tx, t.enterprise, 0).await?;
    tx.commit().await?;
    let accounts = c
        .list_charging_accounts(caller.user(pb::ListChargingAccountsRequest::default()))
        .await?
        .into_inner()
        .accounts;
    let id_of = |org: Uuid| -> anyhow::Result<String> {
        accounts
            .iter()
            .find(|a| a.org_id == org.to_string())
            .map(|a| a.id.clone())
            .with_context(|| format!("no account for organisation {org}"))
    };
    let ids = [
        id_of(t.units[0])?,
        id_of(t.units[1])?,
        id_of(t.units[2])?,
        id_of(t.units[3])?,
    ];
    // As the test: 10,000.00 元 on MAIN from FUNDING (finance will do this;
    // a charging account's id is its ledger account's).
    let main = Uuid::parse_str(&ids[0])?;
    let mut tx = db::begin_service(owner).await?;
    ledger::top_up(
        &mut tx,
        t.enterprise,
        main,
        1_000_000,
        "bench:top-up",
        "bench",
    )
    .await?;
    tx.commit().await?;
    Ok(ids)
}
