//! Drill 3: NATS stopped for 30 s while terminals report to `fleetdesk all`.
//!
//! A probe terminal the drill drives itself gets no general response for a
//! report the edge could not publish, and an OK for the same fixes uploaded
//! again as a 0x0704 batch once NATS is back, as a real terminal does (the
//! simulator's terminals keep unanswered fixes and upload them so too).
//! Organisations created during the outage are written with their events
//! in the outbox, which drains once NATS is back (no row left unsent), and
//! the vehicle target's replica gets each. After the drain the history holds
//! each fix of the telemetry stream exactly once, and no simulated track has
//! a hole over the outage.
//!
//! How it was checked to fail: with the edge answering before JetStream
//! acknowledged the fixes (`Publisher::publish` dropping its ack futures),
//! the probe's no-answer assertion failed: "a report the edge could not
//! publish was answered: Some(GeneralResponse { .. result: Ok })". With the
//! simulator's re-upload
//! removed (unanswered fixes dropped instead of kept) the drill still
//! passed: in a 30 s outage the edge loses nothing by itself, since reports
//! wait unread in the socket or in its NATS client's buffer and are
//! published when NATS is back. The terminal's re-upload carries the fixes
//! only when the edge itself goes away during the outage.

use std::time::{Duration, Instant};

use chrono::{DurationRound as _, Utc};
use fleetdesk_telematics::jt808::message::{Ack, PlatformMessage, TerminalMessage};
use serde_json::json;

use crate::harness::{Drill, assert_stream_stored_once, eventually, stored_fixes};
use crate::stack::{bound_terminals, simulate, start_all};
use crate::terminal::{ProbeTerminal, fix};

const OUTAGE: Duration = Duration::from_secs(30);
/// Terminals the simulator runs; the probe takes a vehicle past them.
const SIMULATED: usize = 30;
/// Every service schema with an outbox.
const OUTBOXES: [&str; 5] = ["auth", "org", "vehicle", "energy", "finance"];

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn nats_down_30s_terminals_resend_and_the_outbox_drains() {
    let mut drill = Drill::new("nats-outage").await;
    drill.migrate_and_seed();
    let mut stack = start_all(&mut drill).await;
    let token = stack.token().await;
    let pool = drill.pool().await;
    let fleet = bound_terminals(&pool).await;
    assert!(
        fleet.len() > SIMULATED,
        "the demo fleet has {} bound terminals",
        fleet.len()
    );
    let probe_vehicle = fleet.last().expect("a terminal").clone();
    let parent: String = sqlx::query_scalar(
        "select o.id::text from org.org_unit o join org.enterprise e on e.id = o.enterprise_id \
         where e.code = 'DEMO-LOGISTICS' and o.parent_id is null limit 1",
    )
    .fetch_one(&pool)
    .await
    .expect("enterprise A's top organisation");

    let js = drill.jetstream().await;
    let since = Utc::now();
    let mut simulator = simulate(&mut drill, &stack.edge, SIMULATED);
    eventually(Duration::from_secs(40), "fixes stored", || {
        simulator.assert_running();
        let pool = pool.clone();
        async move { (stored_fixes(&pool, since).await.len() >= 60).then_some(()) }
    })
    .await;
    let mut probe = ProbeTerminal::sign_on(&stack.edge, &probe_vehicle).await;
    let now = || {
        Utc::now()
            .duration_trunc(chrono::Duration::seconds(1))
            .unwrap()
    };
    let before = fix(now() - chrono::Duration::seconds(5), 0);
    let serial = probe.send(&TerminalMessage::Location(before)).await;
    let answer = probe.answer_to(serial, Duration::from_secs(5)).await;
    assert_ok(answer.as_ref(), "a report before the outage");

    tokio::task::block_in_place(|| drill.nats.terminate());
    let outage_began = Instant::now();
    let nats_stopped = Utc::now();

    // A report while NATS is away is not answered: the terminal keeps it.
    let during = [fix(now(), 1), fix(now() + chrono::Duration::seconds(1), 2)];
    let serial = probe
        .send(&TerminalMessage::Location(during[0].clone()))
        .await;
    let answer = probe.answer_to(serial, Duration::from_secs(8)).await;
    assert!(
        answer.is_none(),
        "a report the edge could not publish was answered: {answer:?}"
    );
    // Writes that announce themselves still commit, their events kept.
    let mut created = Vec::new();
    for n in 1..=3 {
        let code = format!("DRILL-{n}");
        let answer = stack
            .send(
                reqwest::Method::POST,
                "/api/v1/system/orgs",
                Some(&token),
                Some(json!({ "parentId": parent, "orgCode": code, "name": format!("演练组织{n}"), "sort": n })),
            )
            .await
            .expect("answered");
        assert_eq!(
            (answer.status, answer.body["code"].as_i64()),
            (200, Some(200)),
            "creating an organisation while NATS is away: {}",
            answer.body
        );
        created.push(answer.body["data"]["id"].as_str().expect("id").to_owned());
    }
    let unsent = unsent_events(&pool).await;
    assert!(
        unsent >= 3,
        "the outbox kept {unsent} events during the outage"
    );
    tokio::time::sleep(OUTAGE.saturating_sub(outage_began.elapsed())).await;
    stack.process.assert_running();
    drill.nats.resume().await;
    let nats_back = Instant::now();
    let nats_started = Utc::now();

    // The terminal uploads what was not answered as a 0x0704 batch, again
    // every 5 s until the edge answers it.
    let answered_at = loop {
        let serial = probe
            .send(&TerminalMessage::BatchLocation {
                blind_zone: true,
                locations: during.to_vec(),
            })
            .await;
        if let Some(answer) = probe.answer_to(serial, Duration::from_secs(5)).await {
            assert_ok(Some(&answer), "the batch uploaded after the outage");
            break nats_back.elapsed();
        }
        assert!(
            nats_back.elapsed() < Duration::from_secs(30),
            "the edge answered no upload within 30 s of NATS being back\n{}",
            drill.logs()
        );
    };

    // The outbox drains, and each event takes effect once.
    eventually(Duration::from_secs(30), "the outbox drains", || async {
        (unsent_events(&pool).await == 0).then_some(())
    })
    .await;
    for id in &created {
        eventually(
            Duration::from_secs(30),
            "the vehicle target's organisation replica gets the new organisation",
            || async {
                let copies: i64 =
                    sqlx::query_scalar("select count(*) from vehicle.org_unit where id = $1::uuid")
                        .bind(id)
                        .fetch_one(&pool)
                        .await
                        .ok()?;
                (copies == 1).then_some(())
            },
        )
        .await;
    }

    simulator.stop();
    tokio::time::sleep(Duration::from_secs(3)).await;
    let checked = assert_stream_stored_once(&drill, &js, since, Duration::from_secs(45)).await;
    // The probe's reports, the one it kept through the outage included.
    let probe_fixes: i64 = sqlx::query_scalar(
        "select count(*) from vehicle.position where vehicle_id = $1 and receive_time >= $2",
    )
    .bind(probe_vehicle.vehicle_id)
    .bind(since)
    .fetch_one(&pool)
    .await
    .expect("probe's history");
    assert_eq!(probe_fixes, 3, "the probe's three fixes, each once");
    // The simulated terminals' tracks have no hole over the outage: what
    // they took while NATS was away was stored too. A driving terminal
    // reports every second, a standing one every third.
    let simulated: Vec<uuid::Uuid> = fleet[..SIMULATED].iter().map(|b| b.vehicle_id).collect();
    let holes: Vec<(uuid::Uuid, i64, f64)> = sqlx::query_as(
        "select v.id, count(p.fix_time), coalesce(max(p.gap), 999) \
         from unnest($1::uuid[]) v(id) left join ( \
           select vehicle_id, fix_time, extract(epoch from fix_time - lag(fix_time) \
             over (partition by vehicle_id order by fix_time))::float8 gap \
           from vehicle.position where vehicle_id = any($1) and fix_time between $2 and $3 \
         ) p on p.vehicle_id = v.id group by v.id",
    )
    .bind(&simulated)
    .bind(nats_stopped - chrono::Duration::seconds(5))
    .bind(nats_started + chrono::Duration::seconds(5))
    .fetch_all(&pool)
    .await
    .expect("the simulated tracks");
    let widest = holes.iter().map(|h| h.2).fold(0.0, f64::max);
    let holed: Vec<&(uuid::Uuid, i64, f64)> = holes.iter().filter(|h| h.2 > 5.0).collect();
    assert!(
        holed.is_empty(),
        "simulated tracks with a hole over the outage (vehicle, fixes, widest gap s): {holed:?}"
    );
    eprintln!(
        "nats outage drill: {checked} fixes checked; the edge answered the re-upload {answered_at:?} \
         after NATS was back; widest gap of a simulated track over the outage {widest} s"
    );
    pool.close().await;
}

fn assert_ok(answer: Option<&PlatformMessage>, what: &str) {
    assert!(
        matches!(
            answer,
            Some(PlatformMessage::GeneralResponse {
                result: Ack::Ok,
                ..
            })
        ),
        "{what}: {answer:?}"
    );
}

/// Events written to an outbox and not relayed yet, over every service.
async fn unsent_events(pool: &sqlx_postgres::PgPool) -> i64 {
    let mut unsent = 0;
    for schema in OUTBOXES {
        let count: i64 = sqlx::query_scalar(&format!(
            "select count(*) from {schema}.outbox where sent_at is null"
        ))
        .fetch_one(pool)
        .await
        .expect("count unsent events");
        unsent += count;
    }
    unsent
}
