//! Drill 2: PostgreSQL stopped (`-m fast`) for 5 s and started again while requests and fixes flow through
//! `fleetdesk all`.
//!
//! Every service reconnects by itself (each read below, served from
//! another service's database, answers 200 again within 10 s), no request
//! of a loop running through the restart waits past [`DEADLINE`], `/readyz`
//! is green within 10 s of the server being back, and the history holds each
//! fix of the telemetry stream once (ingest's failed batches are retried,
//! not lost or doubled).
//!
//! `/readyz` goes red during the outage: each service's health watches its
//! database on a connection of its own (kit's `grpc::watch_database`).
//! Checked by removing that watch (`Runtime::run_all` without
//! `Services::needing`): the drill fails, "/readyz stayed green while
//! PostgreSQL was down".
//! The pool behaviour the other checks rest on (acquire timeout, dropping
//! dead connections) is kit's, another engineer's; it was not mutated here.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use chrono::Utc;

use crate::harness::{Drill, assert_stream_stored_once, eventually, stored_fixes};
use crate::stack::{Stack, simulate, start_all};

/// Longest a request may take while PostgreSQL restarts: a service's pool
/// gives up acquiring a connection after 10 s (kit's `db`), and the answer
/// then has 2 s to come back through the gateway.
const DEADLINE: Duration = Duration::from_secs(12);

/// Reads each served from another service's schema.
const READS: [(&str, &str); 4] = [
    ("auth and org", "/api/v1/me"),
    ("vehicle", "/api/v1/vehicles"),
    ("energy", "/api/v1/charging/open-status"),
    ("finance", "/api/v1/finance/monthly-bills"),
];

/// One request of the loop: which, when it started, the status or the
/// transport error, how long it took.
#[derive(Debug)]
struct Sample {
    path: &'static str,
    at: Instant,
    status: Result<u16, String>,
    took: Duration,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn postgres_restart_under_load_turns_readyz_red_reconnects_and_loses_nothing() {
    drill().await;
}

async fn drill() {
    let mut drill = Drill::new("postgres-restart").await;
    drill.migrate_and_seed();
    let stack = Arc::new(start_all(&mut drill).await);
    let token = stack.token().await;
    for (service, path) in READS {
        let answer = stack.get(path, &token).await.expect("answered");
        assert_eq!(answer.status, 200, "{service} {path}: {}", answer.body);
    }
    let js = drill.jetstream().await;
    let since = Utc::now();
    let mut simulator = simulate(&mut drill, &stack.edge, 30);
    let pool = drill.pool().await;
    eventually(Duration::from_secs(40), "fixes stored", || {
        simulator.assert_running();
        let pool = pool.clone();
        async move { (stored_fixes(&pool, since).await.len() >= 60).then_some(()) }
    })
    .await;
    // Its connections would only die with the restart.
    pool.close().await;

    let stop = Arc::new(AtomicBool::new(false));
    let requests = tokio::spawn(request_loop(stack.clone(), token.clone(), stop.clone()));
    let readiness = tokio::spawn(readiness_loop(stack.clone(), stop.clone()));
    tokio::time::sleep(Duration::from_secs(3)).await;

    let restart_began = Instant::now();
    let took = tokio::task::block_in_place(|| drill.postgres.restart_fast(Duration::from_secs(5)));
    let back = Instant::now();

    // Every service reconnects by itself.
    for (service, path) in READS {
        eventually(
            Duration::from_secs(10),
            &format!("{service} answers {path} again after the restart"),
            || {
                let stack = stack.clone();
                let token = token.clone();
                async move {
                    let answer = stack.get(path, &token).await.ok()?;
                    (answer.status == 200).then_some(())
                }
            },
        )
        .await;
    }
    tokio::time::sleep(Duration::from_secs(3)).await;
    stop.store(true, Ordering::Relaxed);
    let samples = requests.await.expect("request loop");
    let probes = readiness.await.expect("readiness loop");

    let slowest = samples.iter().max_by_key(|s| s.took).expect("requests ran");
    let failed: Vec<&Sample> = samples.iter().filter(|s| s.status != Ok(200)).collect();
    let no_answer: Vec<&Sample> = samples.iter().filter(|s| s.status.is_err()).collect();
    let red: Vec<Duration> = probes
        .iter()
        .filter(|(_, ready)| !ready)
        .map(|(at, _)| at.saturating_duration_since(restart_began))
        .collect();
    eprintln!(
        "postgres restart drill: restart took {took:?}; {} requests, {} not 200, slowest {:?} \
         ({}); readiness red at {red:?} after the restart began",
        samples.len(),
        failed.len(),
        slowest.took,
        slowest.path,
    );
    assert!(
        no_answer.is_empty(),
        "requests left without an answer: {:?}",
        no_answer
            .iter()
            .map(|s| (
                s.path,
                s.at.saturating_duration_since(restart_began),
                &s.status
            ))
            .collect::<Vec<_>>()
    );
    assert!(
        slowest.took <= DEADLINE,
        "{} took {:?} (deadline {DEADLINE:?})",
        slowest.path,
        slowest.took
    );
    // Green within 10 s of the server being back, and green since.
    let green_again = probes
        .iter()
        .filter(|(at, _)| *at >= back)
        .skip_while(|(_, ready)| !ready)
        .map(|(at, _)| at.saturating_duration_since(back))
        .next()
        .expect("readiness probed after the restart");
    assert!(
        green_again <= Duration::from_secs(10),
        "/readyz green only {green_again:?} after PostgreSQL was back"
    );
    let late_red = probes
        .iter()
        .any(|(at, ready)| !ready && *at > back + green_again + Duration::from_secs(1));
    assert!(!late_red, "/readyz went red again after the restart");
    // Every read answered 200 in the loop's last second.
    let settled = samples
        .iter()
        .filter(|s| s.at > back + Duration::from_secs(10))
        .all(|s| s.status == Ok(200));
    assert!(settled, "reads still failing 10 s after the restart");
    assert!(
        !red.is_empty(),
        "/readyz stayed green while PostgreSQL was down ({took:?})"
    );

    simulator.stop();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let checked = assert_stream_stored_once(&drill, &js, since, Duration::from_secs(45)).await;
    assert!(checked >= 60, "only {checked} fixes went through the drill");
}

/// Reads in turn, one after another, until `stop`.
async fn request_loop(stack: Arc<Stack>, token: String, stop: Arc<AtomicBool>) -> Vec<Sample> {
    let mut samples = Vec::new();
    for (_, path) in READS.iter().cycle() {
        if stop.load(Ordering::Relaxed) {
            break;
        }
        let at = Instant::now();
        let answer = stack.get(path, &token).await;
        samples.push(Sample {
            path,
            at,
            took: at.elapsed(),
            status: answer.map(|a| a.status),
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    samples
}

/// `/readyz` every 200 ms until `stop`: (when, green).
async fn readiness_loop(stack: Arc<Stack>, stop: Arc<AtomicBool>) -> Vec<(Instant, bool)> {
    let mut probes = Vec::new();
    while !stop.load(Ordering::Relaxed) {
        let at = Instant::now();
        probes.push((at, stack.ready().await));
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    probes
}
