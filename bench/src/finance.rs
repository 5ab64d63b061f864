//! (n) Bill payments per second on one enterprise's main account: `payers`
//! callers at once, each paying the next of the enterprise's unpaid bills
//! in full from the prepaid balance through the stack's finance process
//! (FinanceService.PayBill over gRPC, its own Idempotency-Key each), so
//! every payment moves money MAIN → REVENUE on the same two account rows.
//! Beside it, in the same run, the Postgres-only ceiling of a hot row:
//! pgbench with as many clients of a bare `update … set balance_fen =
//! balance_fen - 1 where id = 1` on one row. Both sides print p50 and p99
//! (pgbench's from its per-transaction log) and Postgres's CPU per
//! operation read from /proc; the payments the finance process's too.
//!
//! Each round works in a fresh enterprise of the bench's own (the ledger
//! is immutable: what a run posts stays): one organisation in finance's
//! replica, `bills` unpaid bills of one line written in bulk, and a
//! top-up of their total on MAIN. After the round the books are checked:
//! every account equals its entries, MAIN lost exactly what REVENUE
//! gained, one payment per paid bill.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use chrono::{Datelike as _, Utc};
use fleetdesk_finance::ledger::AccountKind;
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{db, grpc, idempotency};
use fleetdesk_proto::finance::v1 as pb;
use fleetdesk_proto::finance::v1::finance_service_client::FinanceServiceClient;
use sqlx_postgres::PgPool;
use tonic::transport::Channel;
use uuid::Uuid;

use crate::fleet;
use crate::track::Load;

/// The `source_service` of the bench's bills.
const SOURCE: &str = "bench";

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    /// The finance process's gRPC URL.
    pub finance_url: String,
    /// The stack's internal signing key (base64 seed).
    pub signing_key: String,
    pub finance_pid: u32,
    /// Payers at once, and pgbench's clients.
    pub payers: usize,
    /// Unpaid bills written per round (the timed window ends early if
    /// they run out).
    pub bills: usize,
    pub seconds: u64,
    pub rounds: usize,
}

/// CPU time used so far by the finance process and Postgres.
#[derive(Debug, Default, Clone, Copy)]
struct Cpu {
    finance: Duration,
    postgres: Duration,
}

impl Cpu {
    fn now(finance_pid: u32) -> Cpu {
        Cpu {
            finance: fleet::cpu_time(finance_pid).unwrap_or_default(),
            postgres: fleet::cpu_time_of("postgres"),
        }
    }

    fn since(&self, before: &Cpu) -> Cpu {
        Cpu {
            finance: self.finance.saturating_sub(before.finance),
            postgres: self.postgres.saturating_sub(before.postgres),
        }
    }

    fn add(&mut self, other: &Cpu) {
        self.finance += other.finance;
        self.postgres += other.postgres;
    }
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let owner = db::connect_owner(&args.database_url, fleetdesk_finance::SCHEMA.name, 2).await?;
    let bench = db::connect_owner(&args.database_url, "bench", 1).await?;
    let signer = TokenSigner::from_base64_seed(&args.signing_key)
        .map_err(|e| anyhow::anyhow!("the stack's signing key: {e:?}"))?;
    let client = FinanceServiceClient::new(grpc::lazy_channel(&args.finance_url)?);
    let script = std::env::temp_dir().join(format!("fleetdesk-bench-n-{}.sql", std::process::id()));
    std::fs::write(
        &script,
        "update bench.hot_account set balance_fen = balance_fen - 1 where id = 1;\n",
    )?;
    let duration = Duration::from_secs(args.seconds);
    let (mut paid, mut ceiling) = (Load::default(), Load::default());
    let (mut paid_cpu, mut ceiling_cpu) = (Cpu::default(), Cpu::default());
    let mut ran_out = false;
    let mut clients = args.payers;
    for round in 0..args.rounds {
        let tenant = seed(&owner, args.bills).await?;
        let payers = Payers::new(&client, &signer, &tenant, round);
        // Opens the channel's connection and the finance pool's
        // connections outside the timed window.
        payers.pay(args.payers, None, args.payers).await?;
        // Alternate the order so drift hits both.
        for side in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
            let before = Cpu::now(args.finance_pid);
            if side == 0 {
                let (run, used) = pgbench(&args, &bench, &script).await?;
                ceiling.add(run);
                clients = clients.min(used);
                ceiling_cpu.add(&Cpu::now(args.finance_pid).since(&before));
            } else {
                paid.add(
                    payers
                        .pay(args.payers, Some(duration), tenant.bills.len())
                        .await?,
                );
                paid_cpu.add(&Cpu::now(args.finance_pid).since(&before));
                ran_out |= payers.next.load(Ordering::Relaxed) >= tenant.bills.len();
            }
        }
        check_books(&owner, &tenant).await?;
    }
    std::fs::remove_file(&script).ok();

    println!(
        "\n{:<58} {:>9} {:>8} {:>8} {:>7}",
        format!(
            "figure ({} payers, {} s x {}{})",
            args.payers,
            args.seconds,
            args.rounds,
            if ran_out { "; bills ran out" } else { "" }
        ),
        "op/s",
        "p50 ms",
        "p99 ms",
        "ratio"
    );
    let row = |label: &str, load: &Load, ratio: f64| {
        let (p50, p99) = fleet::percentiles(load.latencies_ms.clone());
        println!(
            "{label:<58} {:>9.0} {p50:>8.2} {p99:>8.2} {ratio:>7.3}",
            load.rate()
        );
    };
    row(
        &format!("baseline: pgbench, {clients} clients, bare `update` of one row"),
        &ceiling,
        1.0,
    );
    row(
        "(n) PayBill from one main account (gRPC, 1 bill each)",
        &paid,
        paid.rate() / ceiling.rate(),
    );
    let per = |d: Duration, n: usize| d.as_secs_f64() * 1e6 / n.max(1) as f64;
    println!(
        "(n) CPU per payment: finance {:.0} µs, Postgres {:.0} µs; per bare update: Postgres {:.0} µs",
        per(paid_cpu.finance, paid.done),
        per(paid_cpu.postgres, paid.done),
        per(ceiling_cpu.postgres, ceiling.done),
    );
    Ok(())
}

/// The bench's enterprise of one round: its organisation, payer and
/// unpaid bills (id, amount), and what was put on MAIN.
struct Tenant {
    enterprise: Uuid,
    user: Uuid,
    bills: Vec<(Uuid, i64)>,
    topped_up_fen: i64,
}

/// A fresh enterprise with `bills` unpaid bills of one line each (0.01 to
/// 500.00 元) and their total on MAIN.
async fn seed(owner: &PgPool, bills: usize) -> anyhow::Result<Tenant> {
    let started = Instant::now();
    let enterprise = Uuid::new_v4();
    let org = Uuid::new_v4();
    let today = (Utc::now() + chrono::Duration::hours(8)).date_naive();
    let period = today.year() * 100 + today.month() as i32;
    let mut tx = db::begin_service(owner).await?;
    sqlx::query(
        "insert into org_unit (id, enterprise_id, parent_id, name, path, version) \
         values ($1, $2, null, '压测企业', $3, 1)",
    )
    .bind(org)
    .bind(enterprise)
    .bind(format!("/{org}/"))
    .execute(&mut *tx)
    .await?;
    // The lines as one statement over the bills just written: the deferred
    // check that lines add up to the bill runs at commit as for any bill.
    sqlx::query(
        "with b as ( \
           insert into bill (id, enterprise_id, org_id, bill_no, channel, kind, status, title, \
             period, source_service, source_id, amount_fen, issue_time, due_time, created_by_name) \
           select gen_random_uuid(), $1, $2, 'ZD' || $3 || '-N' || lpad(i::text, 8, '0'), 1, 1, 2, \
             '压测账单 ' || i, $3, $4, 'bench-n:' || i, 1 + (i * 7919) % 50000, now(), \
             now() + interval '15 days', '压测' \
           from generate_series(1, $5) i \
           returning id, enterprise_id, title, amount_fen) \
         insert into bill_line (bill_id, enterprise_id, line_no, description, quantity, \
           unit_price_fen, amount_fen, tax_rate_bp, source_kind) \
         select id, enterprise_id, 1, title, 1, amount_fen, amount_fen, 600, 5 from b",
    )
    .bind(enterprise)
    .bind(org)
    .bind(period)
    .bind(SOURCE)
    .bind(i32::try_from(bills)?)
    .execute(&mut *tx)
    .await?;
    let bills: Vec<(Uuid, i64)> =
        sqlx::query_as("select id, amount_fen from bill where enterprise_id = $1 order by bill_no")
            .bind(enterprise)
            .fetch_all(&mut *tx)
            .await?;
    let topped_up_fen = bills.iter().map(|b| b.1).sum();
    fleetdesk_finance::ledger::top_up(
        &mut tx,
        enterprise,
        topped_up_fen,
        "bench:top-up",
        "压测充值",
    )
    .await
    .map_err(|e| anyhow::anyhow!("top-up: {e:?}"))?;
    tx.commit().await?;
    sqlx::query("analyze bill").execute(owner).await?;
    eprintln!(
        "(n) {} unpaid bills and {:.2} 元 on MAIN written in {:.1} s",
        bills.len(),
        topped_up_fen as f64 / 100.0,
        started.elapsed().as_secs_f64()
    );
    Ok(Tenant {
        enterprise,
        user: Uuid::new_v4(),
        bills,
        topped_up_fen,
    })
}

/// The enterprise's payers: one signed token (as the gateway reuses its
/// own), the bills, and the index of the next bill to pay.
struct Payers {
    client: FinanceServiceClient<Channel>,
    token: Arc<str>,
    bills: Arc<Vec<(Uuid, i64)>>,
    next: Arc<AtomicUsize>,
    round: usize,
}

impl Payers {
    fn new(
        client: &FinanceServiceClient<Channel>,
        signer: &TokenSigner,
        tenant: &Tenant,
        round: usize,
    ) -> Payers {
        let claims = Claims {
            iss: "gateway".into(),
            sub: format!("user:{}", tenant.user),
            ent: Some(tenant.enterprise.to_string()),
            acc: None,
            perms: vec![fleetdesk_finance::payments::PAY_PERMISSION.into()],
            reach: Some(ReachClaim {
                all: true,
                ..ReachClaim::default()
            }),
            // Paying bills is open to B2B enterprises only (spec §6); finance checks it.
            flags: vec![fleetdesk_kit::internal_token::enterprise_flag::B2B.into()],
            iat: 0,
            exp: 0,
        };
        Payers {
            client: client.clone(),
            token: signer.sign(&claims).into(),
            bills: Arc::new(tenant.bills.clone()),
            next: Arc::new(AtomicUsize::new(0)),
            round,
        }
    }

    /// `payers` tasks each paying the next bill until `until` has passed
    /// (if given) or the bills up to `limit` are taken.
    async fn pay(
        &self,
        payers: usize,
        until: Option<Duration>,
        limit: usize,
    ) -> anyhow::Result<Load> {
        let started = Instant::now();
        let tasks: Vec<_> = (0..payers)
            .map(|_| {
                let (mut client, token, bills, next, round) = (
                    self.client.clone(),
                    self.token.clone(),
                    self.bills.clone(),
                    self.next.clone(),
                    self.round,
                );
                tokio::spawn(async move {
                    let mut latencies = Vec::new();
                    while until.is_none_or(|d| started.elapsed() < d) {
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        if i >= limit.min(bills.len()) {
                            break;
                        }
                        let (bill, amount) = bills[i];
                        let t = Instant::now();
                        let mut req = grpc::outgoing_signed(
                            pb::PayBillRequest {
                                bill_ids: vec![bill.to_string()],
                                expected_total_fen: amount,
                                method: pb::PaymentMethod::PrepaidBalance as i32,
                                payer_name: "压测企业".to_owned(),
                                ..Default::default()
                            },
                            &token,
                        );
                        req.metadata_mut().insert(
                            idempotency::METADATA_KEY,
                            format!("bench-n:{round}:{i}").parse()?,
                        );
                        let payment = client
                            .pay_bill(req)
                            .await
                            .map_err(|s| anyhow::anyhow!("paying bill {i}: {}", s.message()))?
                            .into_inner()
                            .payment
                            .context("a payment in PayBill's answer")?;
                        latencies.push(t.elapsed().as_secs_f64() * 1e3);
                        anyhow::ensure!(
                            payment.status == pb::PaymentStatus::Succeeded as i32
                                && payment.amount_fen == amount,
                            "bill {i} of {amount} fen: payment {} of {} fen, status {}",
                            payment.id,
                            payment.amount_fen,
                            payment.status
                        );
                    }
                    anyhow::Ok(latencies)
                })
            })
            .collect();
        let mut out = Load::default();
        for task in tasks {
            out.latencies_ms.extend(task.await??);
        }
        out.done = out.latencies_ms.len();
        out.seconds = started.elapsed().as_secs_f64();
        Ok(out)
    }
}

/// pgbench of the bare hot-row update for `args.seconds`, its latencies
/// from the per-transaction log (`-l`: the third field, in µs).
/// Answers the run and how many clients it had.
async fn pgbench(args: &Args, bench: &PgPool, script: &Path) -> anyhow::Result<(Load, usize)> {
    sqlx::query(
        "create table if not exists bench.hot_account (id int primary key, balance_fen bigint not null)",
    )
    .execute(bench)
    .await?;
    sqlx::query(
        "insert into bench.hot_account values (1, 1000000000000) \
         on conflict (id) do update set balance_fen = excluded.balance_fen",
    )
    .execute(bench)
    .await?;
    // Other work on a shared server may hold connections: as many clients
    // as fit, keeping a few for the stack, and the label says how many.
    let (max, in_use): (i64, i64) = sqlx::query_as(
        "select current_setting('max_connections')::int8, (select count(*) from pg_stat_activity)",
    )
    .fetch_one(bench)
    .await?;
    let fit = usize::try_from(max - in_use - 8).unwrap_or(0);
    anyhow::ensure!(
        fit >= 1,
        "no connection left for pgbench: {in_use} of the server's {max} are open"
    );
    let clients = args.payers.min(fit);
    let logs = std::env::temp_dir().join(format!("fleetdesk-bench-n-log-{}", Uuid::new_v4()));
    std::fs::create_dir_all(&logs)?;
    let seconds = args.seconds.to_string();
    let output = tokio::process::Command::new("pgbench")
        .args([
            "-n",
            "-M",
            "prepared",
            "-j",
            "2",
            "-c",
            &clients.to_string(),
            "-T",
            &seconds,
            "-l",
        ])
        .arg(format!("--log-prefix={}", logs.join("n").display()))
        .arg("-f")
        .arg(script)
        .arg(&args.database_url)
        .output()
        .await
        .context("pgbench (postgresql-client)")?;
    let text = String::from_utf8_lossy(&output.stdout);
    if !output.status.success() {
        let in_use: i64 = sqlx::query_scalar("select count(*) from pg_stat_activity")
            .fetch_one(bench)
            .await
            .unwrap_or(-1);
        anyhow::bail!(
            "pgbench with {clients} clients failed ({in_use} connections already open on the \
             server): {text}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let mut latencies_ms = Vec::new();
    for file in std::fs::read_dir(&logs)? {
        let log = std::fs::read_to_string(file?.path())?;
        for line in log.lines() {
            let micros: f64 = line
                .split_whitespace()
                .nth(2)
                .with_context(|| format!("a pgbench log line: {line}"))?
                .parse()?;
            latencies_ms.push(micros / 1e3);
        }
    }
    std::fs::remove_dir_all(&logs).ok();
    anyhow::ensure!(!latencies_ms.is_empty(), "pgbench logged nothing: {text}");
    Ok((
        Load {
            done: latencies_ms.len(),
            seconds: args.seconds as f64,
            latencies_ms,
        },
        clients,
    ))
}

/// After a round: each account of the enterprise equals its entries, MAIN
/// lost what REVENUE gained, and every paid bill has exactly one payment
/// of its amount.
async fn check_books(owner: &PgPool, t: &Tenant) -> anyhow::Result<()> {
    let mut tx = db::begin_service(owner).await?;
    let books: Vec<(i16, i64, i64)> = sqlx::query_as(
        "select a.kind, a.balance_fen, coalesce((select sum(e.amount_fen) from ledger_entry e \
         where e.account_id = a.id), 0)::bigint from ledger_account a where a.enterprise_id = $1",
    )
    .bind(t.enterprise)
    .fetch_all(&mut *tx)
    .await?;
    let (paid_bills, paid_fen, payments, paid_by_payments): (i64, i64, i64, i64) = sqlx::query_as(
        "select (select count(*) from bill where enterprise_id = $1 and status = 4), \
               (select coalesce(sum(paid_fen), 0)::bigint from bill where enterprise_id = $1), \
               (select count(*) from bill_payment where enterprise_id = $1 and status = 2), \
               (select coalesce(sum(amount_fen), 0)::bigint from bill_payment \
                where enterprise_id = $1 and status = 2)",
    )
    .bind(t.enterprise)
    .fetch_one(&mut *tx)
    .await?;
    db::end_read(tx);
    let balance = |kind: AccountKind| {
        books
            .iter()
            .find(|b| b.0 == i16::from(kind))
            .map_or(0, |b| b.1)
    };
    anyhow::ensure!(
        books.iter().all(|(_, balance, entries)| balance == entries),
        "a balance differs from its entries"
    );
    anyhow::ensure!(
        books.iter().map(|b| b.1).sum::<i64>() == 0,
        "money made or lost"
    );
    anyhow::ensure!(
        payments == paid_bills && paid_by_payments == paid_fen,
        "{payments} payments of {paid_by_payments} fen for {paid_bills} paid bills of {paid_fen} fen"
    );
    anyhow::ensure!(
        balance(AccountKind::Revenue) == paid_fen
            && balance(AccountKind::Main) == t.topped_up_fen - paid_fen,
        "MAIN {} and REVENUE {} after {paid_fen} fen paid of {} topped up",
        balance(AccountKind::Main),
        balance(AccountKind::Revenue),
        t.topped_up_fen
    );
    Ok(())
}
