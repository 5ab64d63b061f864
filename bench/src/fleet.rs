//! What the telemetry figures (f)–(h) share: the bench database as its
//! owner, the demo enterprise's moving fleet (the simulator's motion, fixes
//! as the device edge publishes them), latency percentiles and a process's
//! CPU time from /proc.

use std::time::Duration;

use anyhow::Context as _;
use chrono::{DateTime, Utc};
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_simulator::motion::{self, Motion, Start};
use fleetdesk_telematics::directory::Binding;
use fleetdesk_telematics::publish;
use rand::SeedableRng as _;
use sqlx_postgres::PgPool;
use uuid::Uuid;

/// The enterprise of 100,000 vehicles the figures measure.
pub const DEMO_ENTERPRISE: &str = "演示物流有限公司";

/// A pool on the vehicle schema as the database owner: no tenant policy,
/// the bare floor the baselines stand on.
pub async fn owner_pool(url: &str, connections: u32) -> anyhow::Result<PgPool> {
    fleetdesk_kit::db::connect_owner(url, "vehicle", connections).await
}

pub async fn enterprise(pool: &PgPool) -> anyhow::Result<Uuid> {
    sqlx::query_scalar("select id from org.enterprise where name = $1")
        .bind(DEMO_ENTERPRISE)
        .fetch_one(pool)
        .await
        .with_context(|| format!("enterprise {DEMO_ENTERPRISE} (is the bench database seeded?)"))
}

/// The first `n` vehicles of the enterprise by id (the same ones every run):
/// (id, plate, category).
pub async fn vehicles(
    pool: &PgPool,
    enterprise: Uuid,
    n: usize,
) -> anyhow::Result<Vec<(Uuid, String, i16)>> {
    let rows: Vec<(Uuid, String, i16)> = sqlx::query_as(
        "select id, plate_number, category from vehicle where enterprise_id = $1 \
         order by id limit $2",
    )
    .bind(enterprise)
    .bind(i64::try_from(n)?)
    .fetch_all(pool)
    .await?;
    anyhow::ensure!(
        rows.len() == n,
        "only {} vehicles in the enterprise",
        rows.len()
    );
    Ok(rows)
}

/// One vehicle of the moving fleet.
pub struct Mover {
    binding: Binding,
    terminal: String,
    subject: String,
    motion: Motion,
}

/// A fix ready to publish, as the device edge publishes it.
pub struct Outgoing {
    pub subject: String,
    /// The stream's dedupe id (terminal and fix second, as the edge sets it).
    pub msg_id: String,
    pub fix: pb::Fix,
}

/// Vehicles driving, parking and charging around their plate's city, as
/// the simulator moves them (refrigerated trucks carry box temperatures).
pub struct Fleet {
    pub movers: Vec<Mover>,
}

impl Fleet {
    pub fn new(enterprise: Uuid, vehicles: &[(Uuid, String, i16)], seed: u64) -> Fleet {
        let movers = vehicles
            .iter()
            .enumerate()
            .map(|(i, (id, plate, category))| {
                let binding = Binding {
                    enterprise_id: enterprise.to_string(),
                    vehicle_id: id.to_string(),
                };
                let rng = rand::rngs::StdRng::seed_from_u64(seed ^ id.as_u128() as u64);
                Mover {
                    subject: publish::subject(&binding),
                    binding,
                    terminal: format!("0{:011}", 19_000_000_000u64 + i as u64),
                    // The simulator's rule: refrigerated trucks (category 6).
                    motion: Motion::new(
                        motion::city_of_plate(plate),
                        *category == 6,
                        Start::Random,
                        fleetdesk_simulator::demo_odometer_m(*id),
                        rng,
                    ),
                }
            })
            .collect();
        Fleet { movers }
    }

    /// Moves vehicle `i` on by `secs` and answers its fix at `time`.
    pub fn step(&mut self, i: usize, secs: f64, time: DateTime<Utc>) -> Outgoing {
        let m = &mut self.movers[i];
        m.motion.tick(secs);
        let location = m.motion.location(time, 0);
        Outgoing {
            subject: m.subject.clone(),
            msg_id: format!("{}:{}", m.terminal, time.timestamp()),
            fix: publish::to_pb(&m.terminal, &m.binding, &location, Utc::now(), false),
        }
    }
}

/// Publishes `fixes` with up to `in_flight` acks outstanding; waits for every ack.
pub async fn publish_all(
    js: &async_nats::jetstream::Context,
    fixes: impl IntoIterator<Item = (String, String, bytes::Bytes)>,
    in_flight: usize,
) -> anyhow::Result<()> {
    use futures::StreamExt as _;
    let mut acks = futures::stream::FuturesUnordered::new();
    for (subject, msg_id, payload) in fixes {
        let mut headers = async_nats::HeaderMap::new();
        headers.insert("Nats-Msg-Id", msg_id.as_str());
        acks.push(std::future::IntoFuture::into_future(
            js.publish_with_headers(subject, headers, payload).await?,
        ));
        while acks.len() >= in_flight {
            acks.next().await.transpose()?;
        }
    }
    while let Some(ack) = acks.next().await {
        ack?;
    }
    Ok(())
}

/// (p50, p99) of `values` in the unit they are given.
pub fn percentiles(mut values: Vec<f64>) -> (f64, f64) {
    if values.is_empty() {
        return (f64::NAN, f64::NAN);
    }
    values.sort_by(f64::total_cmp);
    let at = |p: f64| values[((values.len() - 1) as f64 * p).round() as usize];
    (at(0.50), at(0.99))
}

/// User plus system CPU time a process has used so far, with that of its
/// children that ended and were waited for (from /proc/<pid>/stat, in
/// USER_HZ = 100 ticks a second on Linux): Postgres backends and parallel
/// workers that exit inside a timed window (pgbench's connections, a
/// query's workers) count through the postmaster that reaped them.
pub fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name, which may hold spaces: state is the
    // first, utime the 12th, stime the 13th, cutime and cstime the next two.
    let rest = stat
        .rsplit_once(')')
        .map(|(_, r)| r)
        .context("a /proc stat line")?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    let ticks = |i: usize| -> anyhow::Result<u64> {
        Ok(fields.get(i).context("a stat field")?.parse::<u64>()?)
    };
    Ok(Duration::from_millis(
        (ticks(11)? + ticks(12)? + ticks(13)? + ticks(14)?) * 10,
    ))
}

/// CPU time every process named `name` has used so far (those that ended
/// are not counted: measure over an interval where none does).
pub fn cpu_time_of(name: &str) -> Duration {
    let Ok(dir) = std::fs::read_dir("/proc") else {
        return Duration::ZERO;
    };
    dir.filter_map(Result::ok)
        .filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok())
        .filter(|pid| {
            std::fs::read_to_string(format!("/proc/{pid}/comm"))
                .is_ok_and(|comm| comm.trim_end() == name)
        })
        .filter_map(|pid| cpu_time(pid).ok())
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_pick_the_ranked_values() {
        let (p50, p99) = percentiles((1..=1000).map(f64::from).collect());
        assert_eq!((p50, p99), (501.0, 990.0));
        assert!(percentiles(Vec::new()).0.is_nan());
    }

    #[test]
    fn this_process_has_used_some_cpu() {
        let spin = std::time::Instant::now();
        while spin.elapsed() < Duration::from_millis(50) {
            std::hint::black_box(spin.elapsed());
        }
        assert!(cpu_time(std::process::id()).unwrap() > Duration::ZERO);
    }
}
