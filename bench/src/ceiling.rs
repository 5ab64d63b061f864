//! A read through the edge against its Postgres-only ceiling: the same
//! statements in the same transaction, as the application role, prepared and
//! driven by pgbench at the same concurrency, in the same run. Rounds
//! alternate the two sides so drift hits both; the CPU of the gateway, the
//! serving process and Postgres is read from /proc over each timed window.

use std::path::Path;
use std::time::Duration;

use anyhow::Context as _;

use crate::fleet;
use crate::track::{Load, load};

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    pub base_url: String,
    pub token: String,
    pub gateway_pid: u32,
    /// The process that serves the read (the vehicle process).
    pub service_pid: u32,
    /// Clients of both sides (the serving process's pool size).
    pub connections: usize,
    pub seconds: u64,
    pub rounds: usize,
}

/// The Postgres-only side: a pgbench script, the values of its `:names`, and
/// the schema the service's connections search.
#[derive(Debug)]
pub struct Ceiling {
    pub script: String,
    pub defines: Vec<(&'static str, String)>,
    pub search_path: &'static str,
}

impl Ceiling {
    /// The service's read transaction (`db::begin_tenant_list`: tenant,
    /// generic plans) around `statements`, ended by the rollback that ends a
    /// read. `settings` are what the service sets for this read besides.
    pub fn list_transaction(statements: &[&str], settings: &str) -> String {
        let mut script = String::from(
            "begin;\nselect set_config('app.enterprise_id', :enterprise, true);\n\
             set local plan_cache_mode = force_generic_plan;\n",
        );
        if !settings.is_empty() {
            script.push_str(settings);
            script.push_str(";\n");
        }
        for statement in statements {
            // pgbench reads a statement to its line's end.
            script.push_str(&statement.replace('\n', " "));
            script.push_str(";\n");
        }
        script.push_str("rollback;\n");
        script
    }
}

/// The edge's first page at `url`: the whole answer, its total, and the
/// `id_field` of each row of its list, in order (to check against the bare
/// statements before timing them).
pub async fn edge_page(
    args: &Args,
    url: &str,
    id_field: &str,
) -> anyhow::Result<(serde_json::Value, i64, Vec<String>)> {
    let answer: serde_json::Value = reqwest::Client::new()
        .get(url)
        .header("token", &args.token)
        .send()
        .await?
        .json()
        .await?;
    let total = answer["data"]["total"].as_i64().unwrap_or(-1);
    let ids = answer["data"]["list"]
        .as_array()
        .with_context(|| format!("no list in the edge's answer: {answer}"))?
        .iter()
        .filter_map(|r| r[id_field].as_str().map(str::to_owned))
        .collect();
    Ok((answer, total, ids))
}

/// Both sides' load and CPU over every round, and each round's rate (the
/// run-to-run spread).
#[derive(Debug, Default)]
pub struct Measured {
    edge: Load,
    ceiling: Load,
    edge_cpu: Cpu,
    ceiling_cpu: Cpu,
    edge_rounds: Vec<f64>,
    ceiling_rounds: Vec<f64>,
}

/// `rounds` timed windows of each side: GET `url` with the token on
/// `connections` clients, and pgbench of `ceiling`.
pub async fn measure(args: &Args, url: &str, ceiling: &Ceiling) -> anyhow::Result<Measured> {
    let script = std::env::temp_dir().join(format!(
        "fleetdesk-bench-ceiling-{}.sql",
        std::process::id()
    ));
    std::fs::write(&script, &ceiling.script)?;
    let client = reqwest::Client::new();
    let edge_request = {
        let (url, token) = (url.to_owned(), args.token.clone());
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
    let duration = Duration::from_secs(args.seconds);
    let mut m = Measured::default();
    for round in 0..args.rounds {
        // Alternate which side goes first, so drift hits both.
        for pgbench_turn in [round % 2 == 0, round % 2 != 0] {
            let before = Cpu::now(args);
            if pgbench_turn {
                let run = pgbench(args, &script, ceiling).await?;
                m.ceiling_rounds.push(run.rate());
                m.ceiling.add(run);
                m.ceiling_cpu.add(&Cpu::now(args).since(&before));
            } else {
                let run = load(args.connections, duration, edge_request.clone()).await?;
                m.edge_rounds.push(run.rate());
                m.edge.add(run);
                m.edge_cpu.add(&Cpu::now(args).since(&before));
            }
        }
    }
    std::fs::remove_file(&script).ok();
    Ok(m)
}

impl Measured {
    /// The table: `heading`, the pgbench baseline, the figure (`label`,
    /// `target` for its ratio), then the CPU per request of each process.
    pub fn print(&self, args: &Args, heading: &str, label: &str, target: &str) {
        println!(
            "\n{:<58} {:>9} {:>8} {:>8} {:>7}  target",
            format!(
                "{heading}, {} clients, {} s x {}",
                args.connections, args.seconds, args.rounds
            ),
            "req/s",
            "p50 ms",
            "p99 ms",
            "ratio"
        );
        let mean = self.ceiling.latencies_ms.iter().sum::<f64>()
            / self.ceiling.latencies_ms.len().max(1) as f64;
        println!(
            "{:<58} {:>9.1} {mean:>8.1} {:>8} {:>7}",
            "baseline: pgbench of the same transaction (mean latency)",
            self.ceiling.rate(),
            "",
            "1.000"
        );
        let (p50, p99) = fleet::percentiles(self.edge.latencies_ms.clone());
        println!(
            "{label:<58} {:>9.1} {p50:>8.1} {p99:>8.1} {:>7.3}  {target}",
            self.edge.rate(),
            self.edge.rate() / self.ceiling.rate()
        );
        let per = |d: Duration, n: usize| d.as_secs_f64() * 1e6 / n.max(1) as f64;
        let (edge, ceiling) = (&self.edge_cpu, &self.ceiling_cpu);
        println!(
            "{label}: CPU per request through the edge: gateway {:.0} µs, service {:.0} µs, \
             Postgres {:.0} µs; per pgbench transaction: Postgres {:.0} µs",
            per(edge.gateway, self.edge.done),
            per(edge.service, self.edge.done),
            per(edge.postgres, self.edge.done),
            per(ceiling.postgres, self.ceiling.done),
        );
        let rates = |r: &[f64]| {
            r.iter()
                .map(|x| format!("{x:.0}"))
                .collect::<Vec<_>>()
                .join(" / ")
        };
        println!(
            "{label}: each round, pgbench {} tx/s, through the edge {} req/s",
            rates(&self.ceiling_rounds),
            rates(&self.edge_rounds)
        );
    }
}

/// One pgbench run of `script`: its transactions and (as its one latency)
/// their mean latency in ms.
async fn pgbench(args: &Args, script: &Path, ceiling: &Ceiling) -> anyhow::Result<Load> {
    let clients = args.connections.to_string();
    let seconds = args.seconds.to_string();
    let mut command = tokio::process::Command::new("pgbench");
    command
        .args([
            "-n", "-M", "prepared", "-j", "2", "-c", &clients, "-T", &seconds, "-f",
        ])
        .arg(script);
    for (name, value) in &ceiling.defines {
        command.arg("-D").arg(format!("{name}={value}"));
    }
    let output = command
        .arg(&args.database_url)
        // As the service's connections are: the application role (tenant
        // policies on), the service's schema, UTC.
        .env(
            "PGOPTIONS",
            format!(
                "-c role=fleetdesk_app -c search_path={} -c timezone=UTC",
                ceiling.search_path
            ),
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

/// CPU time used so far by the gateway, the serving process and Postgres.
#[derive(Debug, Default, Clone, Copy)]
struct Cpu {
    gateway: Duration,
    service: Duration,
    postgres: Duration,
}

impl Cpu {
    fn now(args: &Args) -> Cpu {
        Cpu {
            gateway: fleet::cpu_time(args.gateway_pid).unwrap_or_default(),
            service: fleet::cpu_time(args.service_pid).unwrap_or_default(),
            postgres: fleet::cpu_time_of("postgres"),
        }
    }

    fn since(&self, before: &Cpu) -> Cpu {
        Cpu {
            gateway: self.gateway.saturating_sub(before.gateway),
            service: self.service.saturating_sub(before.service),
            postgres: self.postgres.saturating_sub(before.postgres),
        }
    }

    fn add(&mut self, other: &Cpu) {
        self.gateway += other.gateway;
        self.service += other.service;
        self.postgres += other.postgres;
    }
}
