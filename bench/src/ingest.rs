//! (f) Ingest from the JetStream telemetry stream into Postgres, against a
//! raw `COPY` of the same rows.
//!
//! The stack's vehicle process consumes the stream as in production: one
//! consumer decodes each fix once and, in one transaction per batch, stores
//! day-partitioned history and temperature readings, moves the latest
//! positions, and evaluates the fences (`fences` of them in the
//! enterprise: circles, polygons and corridors around the cities the fleet
//! drives in) and temperature bands. The bench publishes the
//! fixes of `vehicles` moving vehicles (`fixes` each, one every 10 s, in
//! time order as a live fleet sends them) while the vehicle process is
//! paused (given its pid), and times from its resumption until Postgres
//! holds the round's last fixes (ingest acks after its commit; the acks are
//! checked once the clock has stopped): the consumers' pace, not this one
//! publisher's.
//!
//! Baseline: `COPY` of the same history rows into a plain copy of the
//! position table (same columns, defaults and unique key, logged like the
//! real one; no partitions, no tenant policy). An unlogged copy is measured
//! too, for reference: no durable store can write faster than that.
//!
//! (l) With `compare_rules`, every round runs twice, once with the
//! enterprise's alarm rules (the demo's) enabled and once with them
//! disabled, in alternating order, and the rules' cost is printed as the
//! share of ingest throughput they take. Both (f) and (l) count only
//! after one uncounted round with the rules (the process's kept tracks
//! warm, as in steady operation; a restart's one catch-up per vehicle is
//! not the steady cost). The bench flips `enabled` as the
//! database owner (no audit row: this is the bench's database); ingest
//! reads the enabled rules in each batch, so a flip applies at once.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use async_nats::jetstream;
use chrono::{DateTime, SecondsFormat, Utc};
use fleetdesk_kit::convert::datetime;
use fleetdesk_kit::subjects::TELEMETRY_STREAM;
use fleetdesk_seed::vehicle as seed;
use fleetdesk_simulator::motion;
use futures::TryStreamExt as _;
use prost::Message as _;
use rand::{Rng as _, SeedableRng as _};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::fleet::{self, Fleet, Outgoing};

/// Fences the bench owns are named so; a later run keeps them.
const FENCE_PREFIX: &str = "压测围栏";
const REPORT_SECS: i64 = 10;
const HISTORY_COLUMNS: &str = "enterprise_id, vehicle_id, fix_time, receive_time, lat, lng, \
     altitude_m, speed_dkmh, heading, alarm_bits, status_bits, mileage_m, soc, backfill";
/// Baseline tables: (name, unlogged).
const COPIES: [(&str, bool); 2] = [
    ("bench.position_copy", false),
    ("bench.position_copy_unlogged", true),
];

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    pub nats_url: String,
    pub vehicles: usize,
    pub fixes: usize,
    pub fences: usize,
    pub vehicle_pid: Option<u32>,
    pub rounds: usize,
    pub compare_rules: bool,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let vehicles = fleet::vehicles(&pool, enterprise, args.vehicles).await?;
    ensure_fences(&pool, enterprise, &vehicles, args.fences).await?;
    sqlx::query("create schema if not exists bench")
        .execute(&pool)
        .await?;
    for (table, unlogged) in COPIES {
        let kind = if unlogged { "unlogged " } else { "" };
        sqlx::query(&format!(
            "create {kind}table if not exists {table} \
             (like vehicle.position including defaults including indexes)"
        ))
        .execute(&pool)
        .await?;
    }
    let js = fleetdesk_kit::events::jetstream(async_nats::connect(&args.nats_url).await?);
    let stream = js
        .get_stream(TELEMETRY_STREAM)
        .await
        .context("the telemetry stream (is the stack's vehicle process running?)")?;
    drained(&stream, Instant::now(), Duration::from_secs(120)).await?;

    // Every round's fixes after everything these vehicles sent before (a
    // late fix would take the replay path), none too far ahead.
    let ids: Vec<Uuid> = vehicles.iter().map(|v| v.0).collect();
    let latest: Option<DateTime<Utc>> =
        sqlx::query_scalar("select max(fix_time) from latest_position where vehicle_id = any($1)")
            .bind(&ids)
            .fetch_one(&pool)
            .await?;
    let rules = Rules::enabled(&pool, enterprise).await?;
    anyhow::ensure!(
        !args.compare_rules || !rules.0.is_empty(),
        "(l) needs the enterprise's alarm rules (the demo seed's); it has none enabled"
    );
    let phases = if args.compare_rules { 2 } else { 1 };
    // One uncounted round with the rules first, (f) and (l) alike, so the
    // ingest process holds its vehicles' alarm tracks as it does in steady
    // operation: a fresh process catches each vehicle up once from its
    // stored track (4.7 s of an 11 s round of 100k fixes on the bench).
    let warmup = 1;
    let runs = args.rounds * phases + warmup;
    let per_round = chrono::Duration::seconds(args.fixes as i64 * REPORT_SECS);
    let span = per_round * i32::try_from(runs)?;
    let now = DateTime::from_timestamp(Utc::now().timestamp(), 0).context("now")?;
    let mut start = now - span - chrono::Duration::seconds(REPORT_SECS);
    if let Some(latest) = latest {
        start = start.max(latest + chrono::Duration::seconds(REPORT_SECS));
    }
    anyhow::ensure!(
        start + span < now + chrono::Duration::minutes(9),
        "these vehicles already reported up to {latest:?}; run again in a few minutes"
    );

    let mut fleet = Fleet::new(enterprise, &vehicles, 0xF1EE7);
    let mut copy_s = [0.0f64; 2];
    let (mut ingest_s, mut publish_s) = (0.0, 0.0);
    // (l): ingest seconds, fixes and CPU with the rules off.
    let (mut bare_s, mut bare_total, mut bare_cpu) = (0.0, 0usize, Cpu::default());
    let mut cpu = Cpu::default();
    let mut total = 0usize;
    let result = async {
        for run in 0..runs {
            // Round r runs on-then-off when even, off-then-on when odd, so
            // drift hits both.
            let warming = run < warmup;
            let counted = run.saturating_sub(warmup);
            let rules_on = warming || phases == 1 || (counted % 2 == 0) == ((counted / 2) % 2 == 0);
            rules.set(&pool, rules_on).await?;
            let from = start + per_round * i32::try_from(run)?;
            let fixes = round_fixes(&mut fleet, args.fixes, from);
            let fix_count = fixes.len();
            // The baseline's COPY: once per round, beside the run with rules.
            let rows = if rules_on && !warming {
                history_rows(&fixes)
            } else {
                String::new()
            };
            let mut conn = pool.acquire().await?;
            for (i, (table, _)) in COPIES.iter().enumerate().filter(|_| rules_on && !warming) {
                sqlx::query(&format!("truncate {table}"))
                    .execute(&mut *conn)
                    .await?;
                let t = Instant::now();
                seed::copy(&mut conn, table, HISTORY_COLUMNS, &rows).await?;
                copy_s[i] += t.elapsed().as_secs_f64();
            }
            drop(conn);

            let payloads: Vec<_> = fixes
                .into_iter()
                .map(|o| (o.subject, o.msg_id, o.fix.encode_to_vec().into()))
                .collect();
            // The vehicle process paused while the round is published: its
            // consumers then start on a full stream, and the figure is theirs
            // alone, not bounded by how fast this one publisher sends.
            let paused = args.vehicle_pid.map(Paused::new).transpose()?;
            let published = Instant::now();
            fleet::publish_all(&js, payloads, 4096).await?;
            if !warming {
                publish_s += published.elapsed().as_secs_f64();
            }
            let cpu_before = Cpu::now(args.vehicle_pid);
            drop(paused);
            let started = Instant::now();
            let expected = (args.vehicles * args.fixes) as i64;
            let window = (from, from + per_round);
            // History, latest positions and evaluation commit together: the
            // round is done when its last fixes are stored. Asked of
            // Postgres, not of NATS: the state of a consumer with a wildcard
            // filter costs a 2.9 server 75-160 ms of CPU per ask over a stream
            // of 300k subjects (its pending count walks them), and asking
            // three of them four times a second took most of the CPU being
            // timed (NATS 77-93 µs per fix).
            let last_fix = from + chrono::Duration::seconds((args.fixes as i64 - 1) * REPORT_SECS);
            stored(
                &pool,
                &ids,
                last_fix,
                window,
                expected,
                Duration::from_secs(900),
            )
            .await?;
            let all = started.elapsed();
            let used = Cpu::now(args.vehicle_pid).since(&cpu_before);
            // Every consumer acked too (asked once the clock has stopped).
            drained(&stream, Instant::now(), Duration::from_secs(120)).await?;
            if warming {
                continue;
            }
            if !rules_on {
                bare_s += all.as_secs_f64();
                bare_total += fix_count;
                bare_cpu.add(&used);
                continue;
            }
            total += fix_count;
            ingest_s += all.as_secs_f64();
            cpu.add(&used);
        }
        anyhow::Ok(())
    }
    .await;
    // The rules as they were, whatever happened.
    rules.set(&pool, true).await?;
    result?;
    for (table, _) in COPIES {
        sqlx::query(&format!("truncate {table}"))
            .execute(&pool)
            .await?;
    }

    let rate = |s: f64| total as f64 / s;
    println!(
        "\n{:<58} {:>9} {:>7}  target",
        format!(
            "figure ({} vehicles x {} fixes, {} fences, {} rounds)",
            args.vehicles, args.fixes, args.fences, args.rounds
        ),
        "fixes/s",
        "ratio"
    );
    println!(
        "{:<58} {:>9.0} {:>7}",
        "baseline: COPY into a logged copy of position (its key)",
        rate(copy_s[0]),
        "1.000"
    );
    println!(
        "{:<58} {:>9.0} {:>7.3}",
        "COPY into an unlogged copy (reference)",
        rate(copy_s[1]),
        copy_s[0] / copy_s[1]
    );
    println!(
        "{:<58} {:>9.0} {:>7.3}  >=0.35  ({:.3} of unlogged)",
        format!(
            "(f) ingest: stream -> history + latest + {} fences",
            args.fences
        ),
        rate(ingest_s),
        copy_s[0] / ingest_s,
        copy_s[1] / ingest_s
    );
    println!(
        "{:<58} {:>9.0}",
        "(f) publishing alone (acked, 4096 in flight)",
        (total + bare_total) as f64 / publish_s
    );
    let per_fix = |d: Duration| d.as_secs_f64() * 1e6 / total as f64;
    println!(
        "(f) CPU per fix while ingesting: vehicle process {:.1} µs, Postgres {:.1} µs, \
         NATS {:.1} µs (2 cores: {:.1} µs of wall time per fix)",
        per_fix(cpu.vehicle),
        per_fix(cpu.postgres),
        per_fix(cpu.nats),
        2.0 * ingest_s * 1e6 / total as f64
    );
    if args.compare_rules {
        let with = rate(ingest_s);
        let without = bare_total as f64 / bare_s;
        println!(
            "{:<58} {:>9.0} {:>7.3}",
            "(l) the same ingest with the alarm rules disabled",
            without,
            copy_s[0] / bare_s * bare_total as f64 / total as f64,
        );
        let bare_per_fix = |d: Duration| d.as_secs_f64() * 1e6 / bare_total as f64;
        println!(
            "{:<58} {:>8.1}%  <15%   (vehicle process {:.1} µs per fix with them, {:.1} µs without)",
            format!(
                "(l) cost of the {} demo alarm rules in ingest",
                rules.0.len()
            ),
            (1.0 - with / without) * 100.0,
            per_fix(cpu.vehicle),
            bare_per_fix(bare_cpu.vehicle),
        );
        // CPU per fix is what bounds ingest on 2 busy cores; it moves less
        // than throughput when something else runs on the machine.
        let all = |c: &Cpu| c.vehicle + c.postgres + c.nats;
        println!(
            "(l) CPU per fix, vehicle + Postgres + NATS: {:.1} µs with the rules \
             (Postgres {:.1}), {:.1} µs without (Postgres {:.1}): the rules take {:.1}%",
            per_fix(all(&cpu)),
            per_fix(cpu.postgres),
            bare_per_fix(all(&bare_cpu)),
            bare_per_fix(bare_cpu.postgres),
            (1.0 - bare_per_fix(all(&bare_cpu)) / per_fix(all(&cpu))) * 100.0,
        );
    }

    Ok(())
}

/// CPU time used so far by the vehicle process, every Postgres process and
/// the NATS server.
#[derive(Debug, Default, Clone, Copy)]
struct Cpu {
    vehicle: Duration,
    postgres: Duration,
    nats: Duration,
}

impl Cpu {
    fn now(vehicle_pid: Option<u32>) -> Cpu {
        Cpu {
            vehicle: vehicle_pid
                .and_then(|pid| fleet::cpu_time(pid).ok())
                .unwrap_or_default(),
            postgres: fleet::cpu_time_of("postgres"),
            nats: fleet::cpu_time_of("nats-server"),
        }
    }

    fn since(&self, before: &Cpu) -> Cpu {
        Cpu {
            vehicle: self.vehicle.saturating_sub(before.vehicle),
            postgres: self.postgres.saturating_sub(before.postgres),
            nats: self.nats.saturating_sub(before.nats),
        }
    }

    fn add(&mut self, other: &Cpu) {
        self.vehicle += other.vehicle;
        self.postgres += other.postgres;
        self.nats += other.nats;
    }
}

/// The enterprise's alarm rules that were enabled when the bench began.
struct Rules(Vec<Uuid>);

impl Rules {
    async fn enabled(pool: &PgPool, enterprise: Uuid) -> anyhow::Result<Rules> {
        let ids = sqlx::query_scalar(
            "select id from alarm_rule where enterprise_id = $1 and enabled and not deleted",
        )
        .bind(enterprise)
        .fetch_all(pool)
        .await?;
        Ok(Rules(ids))
    }

    async fn set(&self, pool: &PgPool, enabled: bool) -> anyhow::Result<()> {
        sqlx::query("update alarm_rule set enabled = $2 where id = any($1)")
            .bind(&self.0)
            .bind(enabled)
            .execute(pool)
            .await?;
        Ok(())
    }
}

/// A process stopped (SIGSTOP) until this is dropped (SIGCONT).
struct Paused(u32);

impl Paused {
    fn new(pid: u32) -> anyhow::Result<Paused> {
        signal(pid, "STOP")?;
        Ok(Paused(pid))
    }
}

impl Drop for Paused {
    fn drop(&mut self) {
        if let Err(err) = signal(self.0, "CONT") {
            eprintln!("could not resume process {}: {err:#}", self.0);
        }
    }
}

fn signal(pid: u32, name: &str) -> anyhow::Result<()> {
    let status = std::process::Command::new("kill")
        .arg(format!("-{name}"))
        .arg(pid.to_string())
        .status()?;
    anyhow::ensure!(status.success(), "kill -{name} {pid}: {status}");
    Ok(())
}

/// `fixes` reports of every vehicle from `from`, every 10 s, in the order
/// a live fleet sends them (time first; vehicles spread over the interval).
fn round_fixes(fleet: &mut Fleet, fixes: usize, from: DateTime<Utc>) -> Vec<Outgoing> {
    let n = fleet.movers.len();
    let mut out = Vec::with_capacity(n * fixes);
    for k in 0..fixes {
        for i in 0..n {
            let phase = (i as i64 * REPORT_SECS) / n as i64;
            let at = from + chrono::Duration::seconds(k as i64 * REPORT_SECS + phase);
            out.push(fleet.step(i, REPORT_SECS as f64, at));
        }
    }
    out
}

/// The history rows of `fixes` in COPY's text format.
fn history_rows(fixes: &[Outgoing]) -> String {
    use std::fmt::Write as _;
    let time = |t: Option<&prost_types::Timestamp>| {
        t.and_then(datetime)
            .map(|t| t.to_rfc3339_opts(SecondsFormat::Micros, true))
            .unwrap_or_default()
    };
    let opt = |v: Option<i64>| v.map_or("\\N".to_owned(), |v| v.to_string());
    let mut out = String::with_capacity(fixes.len() * 200);
    for o in fixes {
        let f = &o.fix;
        let _ = writeln!(
            out,
            "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
            f.enterprise_id,
            f.vehicle_id,
            time(f.fix_time.as_ref()),
            time(f.receive_time.as_ref()),
            f.latitude,
            f.longitude,
            f.altitude_m,
            f.speed_dkmh,
            f.heading,
            f.alarm_bits,
            f.status_bits,
            opt(f.mileage_m),
            opt(f.soc_percent.map(i64::from)),
            if f.backfill { "t" } else { "f" },
        );
    }
    out
}

/// Waits until every one of `vehicles` has its latest position at or after
/// `last_fix` (the round's last fixes), then checks that the history holds
/// exactly `expected` rows of theirs in `window` (the demo's own history
/// may reach into it on a database seeded minutes ago); fails after
/// `timeout`. Asked every 200 ms of one vehicle in a hundred (one
/// primary-key probe each), and of all of them once those have moved:
/// counting the history itself on every ask scans the day's partition
/// and would take the CPU it is timing.
async fn stored(
    pool: &PgPool,
    vehicles: &[Uuid],
    last_fix: DateTime<Utc>,
    window: (DateTime<Utc>, DateTime<Utc>),
    expected: i64,
    timeout: Duration,
) -> anyhow::Result<()> {
    let since = Instant::now();
    let sample: Vec<Uuid> = vehicles.iter().step_by(100).copied().collect();
    let moved = |ids: &[Uuid]| {
        sqlx::query_scalar::<_, i64>(
            "select count(*) from latest_position where vehicle_id = any($1) and fix_time >= $2",
        )
        .bind(ids.to_vec())
        .bind(last_fix)
        .fetch_one(pool)
    };
    loop {
        if moved(&sample).await? == sample.len() as i64
            && moved(vehicles).await? == vehicles.len() as i64
        {
            let n: i64 = sqlx::query_scalar(
                "select count(*) from position where fix_time >= $1 and fix_time < $2 \
                 and vehicle_id = any($3)",
            )
            .bind(window.0)
            .bind(window.1)
            .bind(vehicles)
            .fetch_one(pool)
            .await?;
            anyhow::ensure!(n <= expected, "position: {n} rows of {expected} fixes");
            // Another batch with earlier fixes may still be committing.
            if n == expected {
                return Ok(());
            }
        }
        anyhow::ensure!(
            since.elapsed() < timeout,
            "the round's fixes not all stored after {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
}

/// Waits until no consumer of the stream has anything pending or unacked,
/// asking each every 250 ms; answers when each got there, from `since`.
/// Never inside a timed window: each ask of a filtered consumer walks the
/// stream's subjects: 75-160 ms of server CPU at 300k of them.
async fn drained(
    stream: &jetstream::stream::Stream,
    since: Instant,
    timeout: Duration,
) -> anyhow::Result<BTreeMap<String, Duration>> {
    let names: Vec<String> = stream.consumer_names().try_collect().await?;
    let mut done: BTreeMap<String, Duration> = BTreeMap::new();
    loop {
        for name in &names {
            if done.contains_key(name) {
                continue;
            }
            match stream.consumer_info(name).await {
                Ok(info) if info.num_pending == 0 && info.num_ack_pending == 0 => {
                    done.insert(name.clone(), since.elapsed());
                }
                Ok(_) => {}
                Err(err) => eprintln!("consumer {name}: {err} (asking again)"),
            }
        }
        if done.len() == names.len() {
            return Ok(done);
        }
        anyhow::ensure!(
            since.elapsed() < timeout,
            "telemetry consumers still busy after {timeout:?}"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A point `east` and `north` metres from (lat, lng).
fn offset(lat: f64, lng: f64, east: f64, north: f64) -> (f64, f64) {
    const METRES_PER_DEGREE: f64 = 111_320.0;
    (
        lat + north / METRES_PER_DEGREE,
        lng + east / (METRES_PER_DEGREE * lat.to_radians().cos()),
    )
}

/// `n` fences of the enterprise where its fleet drives (within 16 km of the
/// cities of `vehicles`' plates, where the simulator's routes run): 70 %
/// circles of 150-1,000 m, 25 % polygons, 5 % route corridors; a third
/// with a speed limit, dwell delays of 0-60 s, some alerting, a few sign-in
/// points. Kept when the enterprise already has exactly `n` of them.
async fn ensure_fences(
    pool: &PgPool,
    enterprise: Uuid,
    vehicles: &[(Uuid, String, i16)],
    n: usize,
) -> anyhow::Result<()> {
    let like = format!("{FENCE_PREFIX}%");
    let have: i64 = sqlx::query_scalar(
        "select count(*) from geofence where enterprise_id = $1 and name like $2",
    )
    .bind(enterprise)
    .bind(&like)
    .fetch_one(pool)
    .await?;
    if have as usize == n {
        return Ok(());
    }
    let org: Uuid = sqlx::query_scalar(
        "select id from org_unit where enterprise_id = $1 and parent_id is null limit 1",
    )
    .bind(enterprise)
    .fetch_one(pool)
    .await
    .context("the enterprise's root organisation in the vehicle replica")?;
    let cities: Vec<motion::City> = vehicles
        .iter()
        .map(|(_, plate, _)| motion::city_of_plate(plate))
        .collect();
    let mut rng = rand::rngs::StdRng::seed_from_u64(0xFE7CE);
    let mut tx = pool.begin().await?;
    sqlx::query("delete from geofence where enterprise_id = $1 and name like $2")
        .bind(enterprise)
        .bind(&like)
        .execute(&mut *tx)
        .await?;
    for i in 0..n {
        let city = cities[rng.gen_range(0..cities.len())];
        let (r, a) = (
            rng.gen_range(1_000.0..16_000.0),
            rng.gen_range(0.0..std::f64::consts::TAU),
        );
        let (lat, lng) = offset(city.lat, city.lng, r * a.cos(), r * a.sin());
        let kind = rng.gen_range(0..20);
        let sign_in = kind == 0;
        let (shape, radius, points, width): (i16, Option<i32>, Vec<[f64; 2]>, Option<i32>) =
            match kind {
                0..14 => (
                    1,
                    Some(if sign_in {
                        rng.gen_range(100..300)
                    } else {
                        rng.gen_range(150..1_000)
                    }),
                    Vec::new(),
                    None,
                ),
                14..19 => {
                    // A star-shaped ring: vertices by angle never cross.
                    let k = rng.gen_range(4..9);
                    let size = rng.gen_range(300.0..1_200.0);
                    let ring = (0..k)
                        .map(|j| {
                            let b = std::f64::consts::TAU * f64::from(j) / f64::from(k);
                            let d = size * rng.gen_range(0.7..1.0);
                            let (y, x) = offset(lat, lng, d * b.cos(), d * b.sin());
                            [x, y]
                        })
                        .collect();
                    (2, None, ring, None)
                }
                _ => {
                    let line = (0..3)
                        .map(|j| {
                            let d = 2_000.0 * f64::from(j);
                            let (y, x) = offset(lat, lng, d * a.sin(), d * a.cos());
                            [x, y]
                        })
                        .collect();
                    (4, None, line, Some(rng.gen_range(100..300)))
                }
            };
        sqlx::query(
            "insert into geofence (id, enterprise_id, org_id, name, purpose, shape, center_lat, \
             center_lng, radius_m, points, corridor_width_m, speed_limit_kmh, dwell_seconds, \
             alert_on_enter, alert_on_exit, address) \
             values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16)",
        )
        .bind(Uuid::new_v4())
        .bind(enterprise)
        .bind(org)
        .bind(format!("{FENCE_PREFIX}{i:04}"))
        .bind(if sign_in { 2i16 } else { 1 })
        .bind(shape)
        .bind((shape == 1).then_some(lat))
        .bind((shape == 1).then_some(lng))
        .bind(radius)
        .bind(sqlx::types::Json(points))
        .bind(width)
        .bind(rng.gen_bool(0.33).then_some(60))
        .bind([0, 30, 60][rng.gen_range(0..3)])
        .bind(rng.gen_bool(0.3))
        .bind(rng.gen_bool(0.2))
        .bind(format!("{}配送点", city.name))
        .execute(&mut *tx)
        .await?;
    }
    // Evaluators rebuild the enterprise's R-tree when its version moves.
    sqlx::query(
        "insert into geofence_version (enterprise_id, version) values ($1, 1) \
         on conflict (enterprise_id) do update set version = geofence_version.version + 1",
    )
    .bind(enterprise)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}
