//! (h) The monitoring map's live stream: `streams` browser-like SSE
//! connections on `/api/v1/monitor/stream` while `vehicles` vehicles of the
//! enterprise report every 10 s (1,000 fixes/s for 10,000), published to the
//! stack's telemetry stream as the device edge publishes them. Measured:
//! the delay from a fix's publish to its event at each browser (p50/p99),
//! events delivered, and the CPU the gateway and the vehicle process spent
//! (from /proc) — the vehicle process also ingests and evaluates fences for
//! every fix, so its CPU with no stream open is measured beside it.
//!
//! Baseline, in the same run and from the same publisher: a bare axum SSE
//! relay (`relay`) of the enterprise's fixes from a core NATS subscription,
//! each decoded once and sent as an event of the same shape to every
//! stream; no auth, reach, batching or gRPC. Also shown: the delay to a
//! plain NATS subscriber (the transport alone).

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use axum::response::sse::{Event, Sse};
use chrono::{DateTime, SecondsFormat, Utc};
use fleetdesk_kit::convert::datetime;
use fleetdesk_proto::telematics::v1 as tpb;
use futures::StreamExt as _;
use prost::Message as _;
use tokio::sync::broadcast;
use uuid::Uuid;

use crate::fleet::{self, Fleet};

const REPORT_SECS: u64 = 10;

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    pub nats_url: String,
    /// The gateway, e.g. http://127.0.0.1:8080.
    pub base_url: String,
    pub token: String,
    /// The baseline relay's stream URL.
    pub relay_url: String,
    pub relay_pid: u32,
    pub gateway_pid: u32,
    pub vehicle_pid: u32,
    pub vehicles: usize,
    pub streams: usize,
    pub seconds: u64,
    pub warmup: u64,
}

/// When each vehicle's last few fixes were published: (fix second, nanos
/// since the bench started), a small ring per vehicle.
type Ring = ([(i64, u64); 4], usize);

struct Sent {
    epoch: Instant,
    rings: Vec<Mutex<Ring>>,
}

impl Sent {
    fn new(vehicles: usize) -> Sent {
        Sent {
            epoch: Instant::now(),
            rings: (0..vehicles)
                .map(|_| Mutex::new(([(0, 0); 4], 0)))
                .collect(),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    fn record(&self, vehicle: usize, second: i64) {
        let at = self.now();
        let mut ring = self.rings[vehicle]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let next = ring.1;
        ring.0[next % 4] = (second, at);
        ring.1 = next + 1;
    }

    /// Milliseconds since the vehicle's fix of `second` was published.
    fn delay_ms(&self, vehicle: usize, second: i64) -> Option<f64> {
        let now = self.now();
        let ring = self.rings[vehicle]
            .lock()
            .unwrap_or_else(|p| p.into_inner());
        let (_, at) = ring.0.iter().find(|(s, _)| *s == second)?;
        Some(now.saturating_sub(*at) as f64 / 1e6)
    }
}

/// What the browsers of one phase saw.
#[derive(Debug, Default)]
struct Seen {
    events: usize,
    delays_ms: Vec<f64>,
}

/// One measured phase: events, delays and CPU per process.
struct Phase {
    seen: Seen,
    seconds: f64,
    published: usize,
    cpu: Vec<f64>,
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let enterprise = fleet::enterprise(&pool).await?;
    let vehicles = fleet::vehicles(&pool, enterprise, args.vehicles).await?;
    pool.close().await;
    let index: Arc<HashMap<String, usize>> = Arc::new(
        vehicles
            .iter()
            .enumerate()
            .map(|(i, v)| (v.0.to_string(), i))
            .collect(),
    );
    let sent = Arc::new(Sent::new(vehicles.len()));
    let nats = async_nats::connect(&args.nats_url).await?;
    let published = Arc::new(AtomicUsize::new(0));
    let stop = Arc::new(AtomicBool::new(false));
    let publisher = tokio::spawn(publish(
        fleetdesk_kit::events::jetstream(nats.clone()),
        Fleet::new(enterprise, &vehicles, 0x55E),
        sent.clone(),
        published.clone(),
        stop.clone(),
    ));
    // The transport alone: a plain subscriber of the same fixes.
    let measuring = Arc::new(AtomicBool::new(false));
    let transport = Arc::new(Mutex::new(Seen::default()));
    let subscribed = tokio::spawn(subscriber(
        nats.subscribe(format!("telemetry.{enterprise}.*")).await?,
        index.clone(),
        sent.clone(),
        measuring.clone(),
        transport.clone(),
    ));

    let client = reqwest::Client::new();
    let edge_url = format!("{}/api/v1/monitor/stream", args.base_url);
    let phases = [
        (
            args.relay_url.as_str(),
            None,
            vec![args.relay_pid, args.vehicle_pid],
        ),
        (
            edge_url.as_str(),
            Some(args.token.as_str()),
            vec![args.gateway_pid, args.vehicle_pid],
        ),
    ];
    let mut results = Vec::new();
    for (url, token, pids) in phases {
        let done = Arc::new(AtomicBool::new(false));
        let connected = Arc::new(AtomicUsize::new(0));
        let readers: Vec<_> = (0..args.streams)
            .map(|_| {
                tokio::spawn(read_stream(
                    client.clone(),
                    url.to_owned(),
                    token.map(str::to_owned),
                    index.clone(),
                    sent.clone(),
                    measuring.clone(),
                    done.clone(),
                    connected.clone(),
                ))
            })
            .collect();
        let waited = Instant::now();
        while connected.load(Ordering::Acquire) < args.streams {
            anyhow::ensure!(
                waited.elapsed() < Duration::from_secs(60),
                "{} of {} streams connected to {url}",
                connected.load(Ordering::Acquire),
                args.streams
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        tokio::time::sleep(Duration::from_secs(args.warmup)).await;
        let cpu0: Vec<Duration> = pids
            .iter()
            .map(|p| fleet::cpu_time(*p))
            .collect::<Result<_, _>>()?;
        let (p0, t0) = (published.load(Ordering::Acquire), Instant::now());
        measuring.store(true, Ordering::Release);
        tokio::time::sleep(Duration::from_secs(args.seconds)).await;
        measuring.store(false, Ordering::Release);
        let seconds = t0.elapsed().as_secs_f64();
        let cpu1: Vec<Duration> = pids
            .iter()
            .map(|p| fleet::cpu_time(*p))
            .collect::<Result<_, _>>()?;
        let publishedn = published.load(Ordering::Acquire) - p0;
        done.store(true, Ordering::Release);
        let mut seen = Seen::default();
        for r in readers {
            let s = r.await??;
            seen.events += s.events;
            seen.delays_ms.extend(s.delays_ms);
        }
        results.push(Phase {
            seen,
            seconds,
            published: publishedn,
            cpu: cpu0
                .iter()
                .zip(&cpu1)
                .map(|(a, b)| (*b - *a).as_secs_f64() / seconds * 100.0)
                .collect(),
        });
    }
    stop.store(true, Ordering::Release);
    publisher.await??;
    subscribed.abort();
    let transport = std::mem::take(&mut *transport.lock().unwrap_or_else(|p| p.into_inner()));

    let rate = per_second(args.vehicles);
    println!(
        "\n{:<58} {:>9} {:>8} {:>8} {:>7}  CPU % of a core",
        format!(
            "figure ({} vehicles, {rate:.0} fixes/s, {} streams, {} s)",
            args.vehicles, args.streams, args.seconds
        ),
        "events/s",
        "p50 ms",
        "p99 ms",
        "ratio",
    );
    let (t50, t99) = fleet::percentiles(transport.delays_ms);
    println!(
        "{:<58} {:>9} {t50:>8.1} {t99:>8.1}",
        "NATS core delivery to a plain subscriber (transport)", ""
    );
    let (b, e) = (&results[0], &results[1]);
    let (b50, b99) = fleet::percentiles(b.seen.delays_ms.clone());
    let (e50, e99) = fleet::percentiles(e.seen.delays_ms.clone());
    let delivered = |p: &Phase| p.seen.events as f64 / (p.published * args.streams).max(1) as f64;
    println!(
        "{:<58} {:>9.0} {b50:>8.1} {b99:>8.1} {:>7}  relay {:.0} (vehicle {:.0}: ingest + fences, no stream)",
        "baseline: bare axum SSE relay of core-NATS fixes",
        b.seen.events as f64 / b.seconds,
        "1.000",
        b.cpu[0],
        b.cpu[1],
    );
    println!(
        "{:<58} {:>9.0} {e50:>8.1} {e99:>8.1} {:>7.3}  gateway {:.0} + vehicle {:.0}",
        "(h) /monitor/stream: delay fix publish -> browser event",
        e.seen.events as f64 / e.seconds,
        b99 / e99,
        e.cpu[0],
        e.cpu[1],
    );
    println!(
        "{:<58} {:>8.1}% of published fixes x streams (baseline {:.1}%); CPU ratio relay / gateway {:.3}",
        "(h) delivered",
        delivered(e) * 100.0,
        delivered(b) * 100.0,
        b.cpu[0] / e.cpu[0],
    );
    Ok(())
}

fn per_second(vehicles: usize) -> f64 {
    vehicles as f64 / REPORT_SECS as f64
}

/// Every vehicle reports every 10 s, the fleet spread evenly over the
/// interval; fix times are whole seconds, as terminals send them.
async fn publish(
    js: async_nats::jetstream::Context,
    mut fleet: Fleet,
    sent: Arc<Sent>,
    published: Arc<AtomicUsize>,
    stop: Arc<AtomicBool>,
) -> anyhow::Result<()> {
    let n = fleet.movers.len();
    let interval = Duration::from_secs(REPORT_SECS);
    let started = Instant::now();
    let mut next: u64 = 0;
    let mut acks = tokio::task::JoinSet::new();
    while !stop.load(Ordering::Acquire) {
        let elapsed = started.elapsed();
        loop {
            let (k, i) = (next / n as u64, (next % n as u64) as usize);
            let due = interval * k as u32 + interval.mul_f64(i as f64 / n as f64);
            if due > elapsed {
                break;
            }
            let now = Utc::now();
            let second = now.timestamp();
            let fix_time = DateTime::from_timestamp(second, 0).context("now")?;
            let out = fleet.step(i, REPORT_SECS as f64, fix_time);
            let mut headers = async_nats::HeaderMap::new();
            headers.insert("Nats-Msg-Id", out.msg_id.as_str());
            sent.record(i, second);
            let ack = js
                .publish_with_headers(out.subject, headers, out.fix.encode_to_vec().into())
                .await?;
            acks.spawn(async move { ack.await });
            published.fetch_add(1, Ordering::AcqRel);
            next += 1;
        }
        while let Some(done) = acks.try_join_next() {
            done??;
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    while let Some(done) = acks.join_next().await {
        done??;
    }
    Ok(())
}

async fn subscriber(
    mut fixes: async_nats::Subscriber,
    index: Arc<HashMap<String, usize>>,
    sent: Arc<Sent>,
    measuring: Arc<AtomicBool>,
    seen: Arc<Mutex<Seen>>,
) {
    while let Some(m) = fixes.next().await {
        if !measuring.load(Ordering::Acquire) {
            continue;
        }
        let Ok(fix) = tpb::Fix::decode(m.payload.as_ref()) else {
            continue;
        };
        let second = fix.fix_time.as_ref().map_or(0, |t| t.seconds);
        if let Some(d) = index
            .get(&fix.vehicle_id)
            .and_then(|i| sent.delay_ms(*i, second))
        {
            let mut seen = seen.lock().unwrap_or_else(|p| p.into_inner());
            seen.events += 1;
            seen.delays_ms.push(d);
        }
    }
}

/// One browser: reads `url`'s events until `done`, timing each position
/// event from its fix's publish while `measuring`.
#[allow(clippy::too_many_arguments)]
async fn read_stream(
    client: reqwest::Client,
    url: String,
    token: Option<String>,
    index: Arc<HashMap<String, usize>>,
    sent: Arc<Sent>,
    measuring: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    connected: Arc<AtomicUsize>,
) -> anyhow::Result<Seen> {
    let mut request = client.get(&url).header("accept", "text/event-stream");
    if let Some(token) = token {
        request = request.header("token", token);
    }
    let mut answer = request.send().await?;
    anyhow::ensure!(
        answer.status().is_success(),
        "{url}: HTTP {}",
        answer.status()
    );
    connected.fetch_add(1, Ordering::AcqRel);
    let mut seen = Seen::default();
    let mut buffer: Vec<u8> = Vec::new();
    while !done.load(Ordering::Acquire) {
        let Ok(chunk) = tokio::time::timeout(Duration::from_secs(1), answer.chunk()).await else {
            continue;
        };
        let Some(chunk) = chunk? else {
            anyhow::bail!("{url}: the stream ended");
        };
        buffer.extend_from_slice(&chunk);
        let mut start = 0;
        while let Some(end) = find(&buffer[start..], b"\n\n") {
            let event = &buffer[start..start + end];
            start += end + 2;
            if !measuring.load(Ordering::Acquire) {
                continue;
            }
            let Some((vehicle, second)) = position_of(event) else {
                continue;
            };
            if let Some(d) = index.get(vehicle).and_then(|i| sent.delay_ms(*i, second)) {
                seen.events += 1;
                seen.delays_ms.push(d);
            }
        }
        buffer.drain(..start);
    }
    Ok(seen)
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The vehicle id and fix second of a `position` event.
fn position_of(event: &[u8]) -> Option<(&str, i64)> {
    let text = std::str::from_utf8(event).ok()?;
    let field = |name: &str| {
        let key = format!("\"{name}\":\"");
        let from = text.find(&key)? + key.len();
        let len = text[from..].find('"')?;
        Some(&text[from..from + len])
    };
    let time = DateTime::parse_from_rfc3339(field("fixTime")?).ok()?;
    Some((field("vehicleId")?, time.timestamp()))
}

/// The baseline relay: the enterprise's fixes from core NATS, each decoded
/// once into an event shaped like the edge's and sent to every stream.
pub async fn relay(addr: &str, nats_url: &str, enterprise: Uuid) -> anyhow::Result<()> {
    let nats = async_nats::connect(nats_url).await?;
    let mut fixes = nats.subscribe(format!("telemetry.{enterprise}.*")).await?;
    let (events, _) = broadcast::channel::<Arc<str>>(4096);
    let sender = events.clone();
    tokio::spawn(async move {
        while let Some(m) = fixes.next().await {
            if let Ok(fix) = tpb::Fix::decode(m.payload.as_ref()) {
                let _ = sender.send(Arc::from(relay_body(&fix).as_str()));
            }
        }
    });
    let app = axum::Router::new().route(
        "/stream",
        axum::routing::get(move || {
            let receiver = events.subscribe();
            async move {
                let stream = futures::stream::unfold(receiver, |mut receiver| async move {
                    loop {
                        match receiver.recv().await {
                            Ok(body) => {
                                let event = Event::default().event("position").data(&*body);
                                return Some((Ok::<_, Infallible>(event), receiver));
                            }
                            Err(broadcast::error::RecvError::Lagged(_)) => continue,
                            Err(broadcast::error::RecvError::Closed) => return None,
                        }
                    }
                });
                Sse::new(stream)
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind(addr).await?;
    axum::serve(listener, app).await?;
    Ok(())
}

/// A fix as the edge's event body carries it (what the relay does not know
/// — plate, organisation, driver — left empty).
fn relay_body(fix: &tpb::Fix) -> String {
    let time = fix
        .fix_time
        .as_ref()
        .and_then(datetime)
        .map(|t| t.to_rfc3339_opts(SecondsFormat::Secs, true))
        .unwrap_or_default();
    serde_json::json!({
        "vehicleId": fix.vehicle_id, "plateNumber": "", "orgName": "", "driverName": "",
        "lat": fix.latitude, "lng": fix.longitude,
        "speedKmh": f64::from(fix.speed_dkmh) / 10.0, "heading": fix.heading,
        "altitudeM": f64::from(fix.altitude_m), "soc": fix.soc_percent,
        "temperatures": fix.temperatures.iter()
            .map(|t| serde_json::json!({"probe": t.probe, "celsius": f64::from(t.deci_celsius) / 10.0}))
            .collect::<Vec<_>>(),
        "mileageKm": fix.mileage_m.map(|m| m as f64 / 1000.0),
        "fixTime": time, "status": "driving", "alarmBits": fix.alarm_bits,
    })
    .to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_position_event_gives_its_vehicle_and_fix_second() {
        let event = b"event: position\ndata: {\"vehicleId\":\"abc\",\"lat\":1.0,\"fixTime\":\"2026-11-25T08:00:10Z\"}";
        let (vehicle, second) = position_of(event).unwrap();
        assert_eq!(vehicle, "abc");
        assert_eq!(
            DateTime::from_timestamp(second, 0).unwrap().to_rfc3339(),
            "2026-11-25T08:00:10+00:00"
        );
        assert_eq!(position_of(b": ping"), None);
    }

    #[test]
    fn a_delay_is_found_only_for_a_published_fix() {
        let sent = Sent::new(2);
        sent.record(1, 100);
        assert!(sent.delay_ms(1, 100).is_some());
        assert!(sent.delay_ms(1, 110).is_none());
        assert!(sent.delay_ms(0, 100).is_none());
    }
}
