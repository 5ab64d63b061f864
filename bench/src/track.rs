//! (g) Track playback of one vehicle's 7 days (a fix every 10 s: 60,480
//! fixes) through the edge — gateway HTTP with auth, permission and reach,
//! gRPC, Postgres, stops, speeding and distance, JSON — against the bare
//! `select` of the same rows by the database owner (no tenant policy).
//!
//! The vehicle is the enterprise's last by id (the moving fleet of (f) and
//! (h) is its first); its week is the simulator's motion (driving, parking,
//! charging), written once with COPY and kept for later runs.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use chrono::{DateTime, Days, SecondsFormat, Utc};
use fleetdesk_seed::vehicle as seed;
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::fleet::{self, Fleet};

const REPORT_SECS: i64 = 10;
const COLUMNS: &str = "enterprise_id, vehicle_id, fix_time, receive_time, lat, lng, altitude_m, \
     speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, backfill";
/// The statement the service runs (positions::store::history), bare.
const SELECT: &str = "select fix_time, receive_time, lat, lng, altitude_m, speed_dkmh, heading, \
     alarm_bits, status_bits, mileage_m, soc from position \
     where vehicle_id = $1 and enterprise_id = $2 and fix_time >= $3 and fix_time < $4 \
     order by fix_time";

type HistoryRow = (
    DateTime<Utc>,
    DateTime<Utc>,
    f64,
    f64,
    i32,
    i32,
    i16,
    i64,
    i64,
    Option<i64>,
    Option<i16>,
);

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    /// The gateway, e.g. http://127.0.0.1:8080.
    pub base_url: String,
    pub token: String,
    pub connections: usize,
    pub seconds: u64,
    pub rounds: usize,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, args.connections as u32 + 1).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let vehicle: (Uuid, String, i16) = sqlx::query_as(
        "select id, plate_number, category from vehicle where enterprise_id = $1 \
         order by id desc limit 1",
    )
    .bind(enterprise)
    .fetch_one(&pool)
    .await?;
    // The last 7 whole UTC days.
    let end = Utc::now()
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .context("midnight")?
        .and_utc();
    let start = end - Days::new(7);
    let fixes = ensure_week(&pool, enterprise, &vehicle, start, end).await?;

    let url = format!(
        "{}/api/v1/monitor/vehicles/{}/track?from={}&to={}",
        args.base_url,
        vehicle.0,
        start.to_rfc3339_opts(SecondsFormat::Secs, true),
        end.to_rfc3339_opts(SecondsFormat::Secs, true),
    );
    let client = reqwest::Client::new();
    let first: serde_json::Value = client
        .get(&url)
        .header("token", &args.token)
        .send()
        .await?
        .json()
        .await?;
    let points = first["data"]["points"].as_array().map_or(0, Vec::len);
    anyhow::ensure!(
        points == fixes,
        "the edge answered {points} points of {fixes}: {}",
        first["msg"]
    );
    let body_mb = serde_json::to_vec(&first)?.len() as f64 / 1e6;

    let (mut edge, mut bare) = (Load::default(), Load::default());
    let duration = Duration::from_secs(args.seconds);
    let edge_request = {
        let (client, url, token) = (client.clone(), url.clone(), args.token.clone());
        move || {
            let (client, url, token) = (client.clone(), url.clone(), token.clone());
            async move { edge_once(&client, &url, &token).await }
        }
    };
    let bare_request = {
        let pool = pool.clone();
        move || {
            let pool = pool.clone();
            async move { bare_once(&pool, enterprise, vehicle.0, start, end, fixes).await }
        }
    };
    for round in 0..args.rounds {
        // Alternate the order so drift hits both.
        if round % 2 == 0 {
            bare.add(load(args.connections, duration, bare_request.clone()).await?);
            edge.add(load(args.connections, duration, edge_request.clone()).await?);
        } else {
            edge.add(load(args.connections, duration, edge_request.clone()).await?);
            bare.add(load(args.connections, duration, bare_request.clone()).await?);
        }
    }
    println!(
        "\n{:<58} {:>9} {:>8} {:>8} {:>7}",
        format!(
            "figure ({fixes} fixes, {} connections, {} s x {})",
            args.connections, args.seconds, args.rounds
        ),
        "req/s",
        "p50 ms",
        "p99 ms",
        "ratio"
    );
    let row = |label: &str, l: &Load, ratio: String| {
        let (p50, p99) = fleet::percentiles(l.latencies_ms.clone());
        println!(
            "{label:<58} {:>9.2} {p50:>8.1} {p99:>8.1} {ratio:>7}",
            l.rate()
        );
    };
    row(
        "baseline: bare select of the 7 days' rows",
        &bare,
        "1.000".into(),
    );
    row(
        &format!("(g) track playback through the edge, {body_mb:.1} MB JSON"),
        &edge,
        format!("{:.3}", edge.rate() / bare.rate()),
    );
    Ok(())
}

/// Writes the vehicle's fixes of [start, end) unless all are there;
/// answers how many there are.
async fn ensure_week(
    pool: &PgPool,
    enterprise: Uuid,
    vehicle: &(Uuid, String, i16),
    start: DateTime<Utc>,
    end: DateTime<Utc>,
) -> anyhow::Result<usize> {
    let expected = ((end - start).num_seconds() / REPORT_SECS) as usize;
    let count = || async {
        sqlx::query_scalar::<_, i64>(
            "select count(*) from position where vehicle_id = $1 and fix_time >= $2 and fix_time < $3",
        )
        .bind(vehicle.0)
        .bind(start)
        .bind(end)
        .fetch_one(pool)
        .await
    };
    if count().await? as usize == expected {
        return Ok(expected);
    }
    let mut tx = pool.begin().await?;
    sqlx::query("select ensure_position_partition(d::date) from generate_series($1::date, $2::date, interval '1 day') d")
        .bind(start.date_naive())
        .bind(end.date_naive())
        .execute(&mut *tx)
        .await?;
    sqlx::query("delete from position where vehicle_id = $1 and fix_time >= $2 and fix_time < $3")
        .bind(vehicle.0)
        .bind(start)
        .bind(end)
        .execute(&mut *tx)
        .await?;
    let mut fleet = Fleet::new(enterprise, std::slice::from_ref(vehicle), 0x7AC);
    let mut rows = String::with_capacity(expected * 160);
    for k in 0..expected {
        let at = start + chrono::Duration::seconds(k as i64 * REPORT_SECS);
        let f = fleet.step(0, REPORT_SECS as f64, at).fix;
        use std::fmt::Write as _;
        let t = at.to_rfc3339_opts(SecondsFormat::Secs, true);
        let _ = writeln!(
            rows,
            "{enterprise}\t{}\t{t}\t{t}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\tf",
            vehicle.0,
            f.latitude,
            f.longitude,
            f.altitude_m,
            f.speed_dkmh,
            f.heading,
            f.alarm_bits,
            f.status_bits,
            f.mileage_m.unwrap_or(0),
            f.soc_percent.unwrap_or(0),
        );
    }
    seed::copy(&mut tx, "position", COLUMNS, &rows).await?;
    tx.commit().await?;
    sqlx::query("analyze position").execute(pool).await?;
    Ok(count().await? as usize)
}

async fn edge_once(client: &reqwest::Client, url: &str, token: &str) -> anyhow::Result<()> {
    let answer = client.get(url).header("token", token).send().await?;
    anyhow::ensure!(
        answer.status().is_success(),
        "track: HTTP {}",
        answer.status()
    );
    std::hint::black_box(answer.bytes().await?);
    Ok(())
}

async fn bare_once(
    pool: &PgPool,
    enterprise: Uuid,
    vehicle: Uuid,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    fixes: usize,
) -> anyhow::Result<()> {
    let rows: Vec<HistoryRow> = sqlx::query_as(SELECT)
        .bind(vehicle)
        .bind(enterprise)
        .bind(start)
        .bind(end)
        .fetch_all(pool)
        .await?;
    anyhow::ensure!(rows.len() == fixes, "select: {} rows", rows.len());
    Ok(())
}

/// Requests done and their latencies.
#[derive(Debug, Default)]
pub struct Load {
    pub done: usize,
    pub seconds: f64,
    pub latencies_ms: Vec<f64>,
}

impl Load {
    pub fn add(&mut self, other: Load) {
        self.done += other.done;
        self.seconds += other.seconds;
        self.latencies_ms.extend(other.latencies_ms);
    }

    pub fn rate(&self) -> f64 {
        self.done as f64 / self.seconds
    }
}

/// Runs `once` back to back on `connections` tasks (each on the runtime's
/// threads, as separate clients would be) for `duration`.
pub async fn load<F, Fut>(connections: usize, duration: Duration, once: F) -> anyhow::Result<Load>
where
    F: Fn() -> Fut + Clone + Send + 'static,
    Fut: std::future::Future<Output = anyhow::Result<()>> + Send,
{
    let started = Instant::now();
    let workers: Vec<_> = (0..connections)
        .map(|_| {
            let once = once.clone();
            tokio::spawn(async move {
                let mut latencies = Vec::new();
                while started.elapsed() < duration {
                    let t = Instant::now();
                    once().await?;
                    latencies.push(t.elapsed().as_secs_f64() * 1e3);
                }
                anyhow::Ok(latencies)
            })
        })
        .collect();
    let mut out = Load::default();
    for w in workers {
        let l = w.await??;
        out.done += l.len();
        out.latencies_ms.extend(l);
    }
    out.seconds = started.elapsed().as_secs_f64();
    Ok(out)
}
