//! (k) The monthly operation log of the 100,000-vehicle enterprise — one
//! month, a page of 20 with the totals row — through the edge, against its
//! Postgres-only ceiling: the same statements in the same transaction
//! (tenant setting, generic plans, page, totals, rollback) as the
//! application role, prepared and driven by pgbench at the same
//! concurrency. CPU per request of the gateway, the vehicle process and
//! Postgres is read from /proc over each timed window.
//!
//! The months are written once (12 per vehicle, deterministic figures) and
//! kept; the demo fleet's rows that ingest keeps are left as they are.

use std::path::Path;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use chrono::{Datelike as _, Months, NaiveDate, Utc};
use sqlx::PgPool;
use uuid::Uuid;

use crate::fleet;
use crate::track::{Load, load};

/// Months of operation kept per vehicle.
const MONTHS: u32 = 12;
const PAGE: i64 = 20;

/// The statements `operation::store::months` runs for a caller who reaches
/// the whole enterprise, with no filter but the month range. The run checks
/// that they answer what the edge answers (total, the page's vehicles and
/// every sum of the totals row).
const PAGE_SQL: &str = "select d.vehicle_id, v.plate_number, v.vin, v.org_id, o.name as org_name, \
       d.month, d.mileage_m, d.driving_s, d.idle_s, d.operating_days, \
       (select count(*) from risk_alarm a where a.vehicle_id = d.vehicle_id \
         and a.started_at >= (d.month::timestamp at time zone 'Asia/Shanghai') \
         and a.started_at < ((d.month + interval '1 month')::timestamp \
         at time zone 'Asia/Shanghai')) as alarm_count, \
       (case when v.battery_capacity_wh > 0 then \
         d.soc_drop_pct::int8 * v.battery_capacity_wh / 100 end) as energy_consumed_wh, \
       d.energy_charged_wh, d.charge_count \
     from operation_month d join vehicle v on v.id = d.vehicle_id \
     left join org_unit o on o.id = v.org_id \
     where d.enterprise_id = :enterprise and v.enterprise_id = d.enterprise_id and (true) \
       and d.month between :month and :month \
     order by d.month desc, d.vehicle_id limit :size offset :offset";
const TOTALS_SQL: &str = "select count(*) as rows, sum(d.mileage_m)::int8 as mileage_m, \
       sum(d.driving_s)::int8 as driving_s, \
       sum((case when v.battery_capacity_wh > 0 then \
         d.soc_drop_pct::int8 * v.battery_capacity_wh / 100 end))::int8 as energy_consumed_wh, \
       sum(d.energy_charged_wh)::int8 as energy_charged_wh, \
       sum(d.charge_count)::int8 as charge_count \
     from operation_month d join vehicle v on v.id = d.vehicle_id \
     where d.enterprise_id = :enterprise and v.enterprise_id = d.enterprise_id and (true) \
       and d.month between :month and :month";

/// The totals row: count, then the sums of mileage, driving, energy used,
/// energy charged and charges.
type Totals = (
    i64,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
    Option<i64>,
);

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    pub base_url: String,
    pub token: String,
    pub gateway_pid: u32,
    pub vehicle_pid: u32,
    /// Clients of both sides (the vehicle process's pool size).
    pub connections: usize,
    pub seconds: u64,
    pub rounds: usize,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let month = ensure_months(&pool, enterprise).await?;
    let month_text = month.format("%Y-%m").to_string();

    // The edge's answer and the bare statements' must agree.
    let url = format!(
        "{}/api/v1/reports/monthly-logs?startMonth={month_text}&endMonth={month_text}&page=1&size={PAGE}",
        args.base_url
    );
    let client = reqwest::Client::new();
    let first: serde_json::Value = client
        .get(&url)
        .header("token", &args.token)
        .send()
        .await?
        .json()
        .await?;
    let edge_total = first["data"]["total"].as_i64().unwrap_or(-1);
    let edge_ids: Vec<String> = first["data"]["list"]
        .as_array()
        .context("the edge's monthly log list")?
        .iter()
        .filter_map(|r| r["vehicleId"].as_str().map(str::to_owned))
        .collect();
    let bare_page: Vec<(Uuid,)> = sqlx::query_as(&numbered(PAGE_SQL))
        .bind(enterprise)
        .bind(month)
        .bind(PAGE)
        .bind(0i64)
        .fetch_all(&pool)
        .await?;
    let bare: Totals = sqlx::query_as(&numbered(TOTALS_SQL))
        .bind(enterprise)
        .bind(month)
        .fetch_one(&pool)
        .await?;
    let bare_total = bare.0;
    let bare_sums = [bare.1, bare.2, bare.3, bare.4, bare.5].map(|s| s.unwrap_or(0));
    let totals = &first["data"]["totals"];
    let edge_sums = [
        "mileageM",
        "drivingSeconds",
        "energyConsumedWh",
        "energyChargedWh",
        "chargeCount",
    ]
    .map(|k| totals[k].as_i64().unwrap_or(-1));
    let bare_ids: Vec<String> = bare_page.iter().map(|r| r.0.to_string()).collect();
    anyhow::ensure!(
        edge_sums == bare_sums,
        "the edge's totals {edge_sums:?}, the statements' {bare_sums:?}: the bench's statements \
         no longer match operation::store::months"
    );
    anyhow::ensure!(
        edge_total == bare_total && edge_ids == bare_ids,
        "the edge answered {edge_total} rows ({} on the page), the statements {bare_total} \
         ({}): the bench's statements no longer match operation::store::months ({})",
        edge_ids.len(),
        bare_ids.len(),
        first["msg"]
    );

    let script = std::env::temp_dir().join(format!("fleetdesk-bench-k-{}.sql", std::process::id()));
    std::fs::write(&script, transaction_script())?;
    let duration = Duration::from_secs(args.seconds);
    let edge_request = {
        let (client, url, token) = (client.clone(), url.clone(), args.token.clone());
        move || {
            let (client, url, token) = (client.clone(), url.clone(), token.clone());
            async move {
                let answer = client.get(&url).header("token", &token).send().await?;
                anyhow::ensure!(answer.status().is_success(), "HTTP {}", answer.status());
                std::hint::black_box(answer.bytes().await?);
                Ok(())
            }
        }
    };
    let (mut edge, mut ceiling) = (Load::default(), Load::default());
    let (mut edge_cpu, mut ceiling_cpu) = (Cpu::default(), Cpu::default());
    for round in 0..args.rounds {
        // Alternate the order so drift hits both.
        for side in if round % 2 == 0 { [0, 1] } else { [1, 0] } {
            let before = Cpu::now(&args);
            if side == 0 {
                ceiling.add(pgbench(&args, &script, enterprise, month).await?);
                ceiling_cpu.add(&Cpu::now(&args).since(&before));
            } else {
                edge.add(load(args.connections, duration, edge_request.clone()).await?);
                edge_cpu.add(&Cpu::now(&args).since(&before));
            }
        }
    }
    std::fs::remove_file(&script).ok();

    println!(
        "\n{:<58} {:>9} {:>8} {:>8} {:>7}",
        format!(
            "figure ({bare_total} rows in {month_text}, {} clients, {} s x {})",
            args.connections, args.seconds, args.rounds
        ),
        "req/s",
        "p50 ms",
        "p99 ms",
        "ratio"
    );
    let (p50, p99) = fleet::percentiles(edge.latencies_ms.clone());
    let mean = ceiling.latencies_ms.iter().sum::<f64>() / ceiling.latencies_ms.len() as f64;
    println!(
        "{:<58} {:>9.1} {mean:>8.1} {:>8} {:>7}",
        "baseline: pgbench of the same transaction (mean latency)",
        ceiling.rate(),
        "",
        "1.000"
    );
    println!(
        "{:<58} {:>9.1} {p50:>8.1} {p99:>8.1} {:>7.3}",
        "(k) monthly log, page of 20 + totals, 100k-vehicle tenant",
        edge.rate(),
        edge.rate() / ceiling.rate()
    );
    let per = |d: Duration, n: usize| d.as_secs_f64() * 1e6 / n as f64;
    println!(
        "(k) CPU per request: through the edge gateway {:.0} µs, vehicle {:.0} µs, Postgres {:.0} µs; \
         pgbench's transaction: Postgres {:.0} µs",
        per(edge_cpu.gateway, edge.done),
        per(edge_cpu.vehicle, edge.done),
        per(edge_cpu.postgres, edge.done),
        per(ceiling_cpu.postgres, ceiling.done),
    );
    Ok(())
}

/// `:enterprise`, `:month`, `:size`, `:offset` as `$1` to `$4` for sqlx.
fn numbered(sql: &str) -> String {
    sql.replace(":enterprise", "$1")
        .replace(":month", "$2")
        .replace(":size", "$3")
        .replace(":offset", "$4")
}

/// The service's read transaction (`db::begin_tenant_list`, the settings
/// `operation::store` gives a report page, the page and the totals, the
/// rollback that ends a read) as a pgbench script.
fn transaction_script() -> String {
    format!(
        "begin;\nselect set_config('app.enterprise_id', :enterprise, true);\n\
         set local plan_cache_mode = force_generic_plan;\n\
         select set_config('plan_cache_mode', 'force_custom_plan', true), \
         set_config('max_parallel_workers_per_gather', '0', true);\n{};\n{};\nrollback;\n",
        PAGE_SQL.replace('\n', " "),
        TOTALS_SQL.replace('\n', " ")
    )
}

/// One pgbench run of `script`: its transactions and (as its one latency)
/// their mean latency in ms.
async fn pgbench(
    args: &Args,
    script: &Path,
    enterprise: Uuid,
    month: NaiveDate,
) -> anyhow::Result<Load> {
    let clients = args.connections.to_string();
    let seconds = args.seconds.to_string();
    let output = tokio::process::Command::new("pgbench")
        .args([
            "-n", "-M", "prepared", "-j", "2", "-c", &clients, "-T", &seconds, "-f",
        ])
        .arg(script)
        .arg("-D")
        .arg(format!("enterprise={enterprise}"))
        .arg("-D")
        .arg(format!("month={month}"))
        .arg("-D")
        .arg(format!("size={PAGE}"))
        .arg("-D")
        .arg("offset=0")
        .arg(&args.database_url)
        // As the service's connections are: the application role (tenant
        // policies on), the vehicle schema, UTC.
        .env(
            "PGOPTIONS",
            "-c role=fleetdesk_app -c search_path=vehicle -c timezone=UTC",
        )
        .output()
        .await
        .context("pgbench (postgresql-client)")?;
    let text = String::from_utf8_lossy(&output.stdout);
    anyhow::ensure!(
        output.status.success(),
        "pgbench failed: {}{}",
        text,
        String::from_utf8_lossy(&output.stderr)
    );
    let number_after = |key: &str| -> anyhow::Result<f64> {
        let line = text
            .lines()
            .find(|l| l.starts_with(key))
            .with_context(|| format!("pgbench printed no `{key}`: {text}"))?;
        line[key.len()..]
            .trim_start_matches([' ', '=', ':'])
            .split_whitespace()
            .next()
            .context("a number")?
            .parse::<f64>()
            .map_err(Into::into)
    };
    let done = number_after("number of transactions actually processed")? as usize;
    let latency = number_after("latency average")?;
    Ok(Load {
        done,
        seconds: args.seconds as f64,
        latencies_ms: vec![latency],
    })
}

/// The last whole Beijing month; writes the enterprise's vehicles' 12
/// months up to it unless every row is there.
async fn ensure_months(pool: &PgPool, enterprise: Uuid) -> anyhow::Result<NaiveDate> {
    let today = (Utc::now() + chrono::Duration::hours(8)).date_naive();
    let this_month = NaiveDate::from_ymd_opt(today.year(), today.month(), 1).context("month")?;
    let last = this_month - Months::new(1);
    let first = last - Months::new(MONTHS - 1);
    let vehicles: i64 = sqlx::query_scalar("select count(*) from vehicle where enterprise_id = $1")
        .bind(enterprise)
        .fetch_one(pool)
        .await?;
    let have: i64 = sqlx::query_scalar(
        "select count(*) from operation_month where enterprise_id = $1 and month between $2 and $3",
    )
    .bind(enterprise)
    .bind(first)
    .bind(last)
    .fetch_one(pool)
    .await?;
    if have < vehicles * i64::from(MONTHS) {
        let started = Instant::now();
        // Figures from a hash of vehicle and month: 1,500-6,000 km, 20-26
        // operating days, about 30 km/h on average when driving.
        sqlx::query(
            "insert into operation_month (vehicle_id, month, enterprise_id, mileage_m, driving_s, \
               idle_s, operating_days, soc_drop_pct, energy_charged_wh, charge_count) \
             select v.id, m::date, v.enterprise_id, 1500000 + h % 4500000, \
               (1500000 + h % 4500000) / 8, (h / 7) % 200000, 20 + (h / 13) % 7, \
               400 + (h / 17) % 800, 1000 * (300 + (h / 19) % 600), 20 + (h / 23) % 30 \
             from vehicle v \
             cross join generate_series($2::date, $3::date, interval '1 month') m \
             cross join lateral (select abs(hashtextextended(v.id::text || m::text, 0)) as h) x \
             where v.enterprise_id = $1 \
             on conflict (vehicle_id, month) do nothing",
        )
        .bind(enterprise)
        .bind(first)
        .bind(last)
        .execute(pool)
        .await?;
        // Vacuumed, not only analysed: the first reads of fresh rows would
        // otherwise pay for setting their hint bits in the timed window.
        sqlx::query("vacuum (analyze) operation_month")
            .execute(pool)
            .await?;
        eprintln!(
            "(k) wrote {MONTHS} months of operation for {vehicles} vehicles in {:.0} s",
            started.elapsed().as_secs_f64()
        );
    }
    Ok(last)
}

/// CPU time used so far by the gateway, the vehicle process and Postgres.
#[derive(Debug, Default, Clone, Copy)]
struct Cpu {
    gateway: Duration,
    vehicle: Duration,
    postgres: Duration,
}

impl Cpu {
    fn now(args: &Args) -> Cpu {
        Cpu {
            gateway: fleet::cpu_time(args.gateway_pid).unwrap_or_default(),
            vehicle: fleet::cpu_time(args.vehicle_pid).unwrap_or_default(),
            postgres: fleet::cpu_time_of("postgres"),
        }
    }

    fn since(&self, before: &Cpu) -> Cpu {
        Cpu {
            gateway: self.gateway.saturating_sub(before.gateway),
            vehicle: self.vehicle.saturating_sub(before.vehicle),
            postgres: self.postgres.saturating_sub(before.postgres),
        }
    }

    fn add(&mut self, other: &Cpu) {
        self.gateway += other.gateway;
        self.vehicle += other.vehicle;
        self.postgres += other.postgres;
    }
}
