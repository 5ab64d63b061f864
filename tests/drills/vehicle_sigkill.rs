//! Drill 1: the vehicle target (telemetry ingest) is SIGKILLed while
//! batches are in flight, with the device edge (`fleetdesk telematics`) and
//! simulated terminals running as processes of their own.
//!
//! After the restart and the drain, the history holds each fix of the
//! telemetry stream exactly once and nothing else, and each vehicle's latest
//! position is its newest fix.
//!
//! Each of three kills lands 120, 230 or 300 ms after ingest has taken the
//! first batch of a backlog that built up while it was away, and the drill
//! proves a kill cut a delivered batch short (the consumer's
//! `num_ack_pending`).
//!
//! How it fails without the mechanism: with kit's `DurablePull::settle`
//! acknowledging a batch before storing it, the drill fails (checked by
//! that mutation). An earlier version, which killed at any moment and kept
//! the first kill with a batch pending, passed under that mutation: its
//! kills fell while the acks were still in the dying process's buffer.

use std::time::Duration;

use chrono::Utc;

use crate::harness::{Drill, assert_stream_stored_once, eventually, free_port, stored_fixes};

/// Terminals the simulator runs, each reporting every second.
const TERMINALS: &str = "40";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigkill_of_vehicle_mid_ingest_loses_and_doubles_nothing() {
    let mut drill = Drill::new("vehicle-sigkill").await;
    drill.migrate_and_seed();
    let vehicle_addr = format!("127.0.0.1:{}", free_port());
    let edge_addr = format!("127.0.0.1:{}", free_port());
    let vehicle_env = [
        ("FLEETDESK_GRPC_ADDR", vehicle_addr.clone()),
        // No org target in this drill: the replica retries in the background.
        ("FLEETDESK_ORG_URL", "http://127.0.0.1:9".to_owned()),
    ];
    let mut vehicle = drill.spawn("vehicle", &["vehicle"], &vehicle_env);
    let js = drill.jetstream().await;
    // Ingest's durable consumer starts with fixes published after it exists.
    let durable = fleetdesk_kit::events::durable_name("vehicle-ingest", crate::harness::DATABASE);
    eventually(
        Duration::from_secs(60),
        "the vehicle target's ingest consumer",
        || {
            vehicle.assert_running();
            let (js, durable) = (js.clone(), durable.clone());
            async move {
                let stream = js.get_stream(crate::harness::TELEMETRY_STREAM).await.ok()?;
                stream.consumer_info(&durable).await.ok().map(|_| ())
            }
        },
    )
    .await;
    let mut edge = drill.spawn(
        "telematics",
        &["telematics"],
        &[
            ("FLEETDESK_VEHICLE_URL", format!("http://{vehicle_addr}")),
            ("FLEETDESK_JT808_ADDR", edge_addr.clone()),
            ("FLEETDESK_GRPC_ADDR", "127.0.0.1:0".to_owned()),
            ("FLEETDESK_MEDIA_ADDR", "127.0.0.1:0".to_owned()),
            ("FLEETDESK_MEDIA_PLAYBACK_ADDR", "127.0.0.1:0".to_owned()),
            ("FLEETDESK_ATTACHMENT_ADDR", "127.0.0.1:0".to_owned()),
        ],
    );
    eventually(Duration::from_secs(30), "the edge listens", || {
        edge.assert_running();
        let edge_addr = edge_addr.clone();
        async move { tokio::net::TcpStream::connect(&edge_addr).await.ok() }
    })
    .await;

    let since = Utc::now();
    let mut simulator = drill.spawn(
        "simulator",
        &[
            "simulate",
            "--vehicles",
            TERMINALS,
            "--interval-secs",
            "1",
            "--edge-addr",
            &edge_addr,
        ],
        &[],
    );
    let pool = drill.pool().await;
    eventually(Duration::from_secs(40), "fixes stored", || {
        simulator.assert_running();
        let pool = pool.clone();
        async move { (stored_fixes(&pool, since).await.len() >= 150).then_some(()) }
    })
    .await;

    // Killed in the middle of batches: each round lets a backlog build up
    // while ingest is away, starts it again and kills it the moment it has
    // taken the backlog's first batch (delivered, being stored). The
    // consumer then holds that batch unacknowledged; a batch acknowledged
    // before it is stored would be lost here instead.
    let consumer = || {
        let (js, durable) = (js.clone(), durable.clone());
        async move {
            js.get_stream(crate::harness::TELEMETRY_STREAM)
                .await
                .expect("stream")
                .consumer_info(&durable)
                .await
                .expect("consumer info")
        }
    };
    let mut cut_short = 0;
    // Kills spread over the batch's life: ingest fills a batch for 200 ms
    // after its first message (telemetry's `BATCH_WAIT`), then stores and
    // acknowledges it.
    for delay_ms in [120, 230, 300] {
        vehicle.kill();
        tokio::time::sleep(Duration::from_secs(3)).await;
        let before = consumer().await.delivered.consumer_sequence;
        vehicle = drill.spawn("vehicle", &["vehicle"], &vehicle_env);
        let started = std::time::Instant::now();
        while consumer().await.delivered.consumer_sequence == before {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "ingest did not take its backlog"
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
        tokio::time::sleep(Duration::from_millis(delay_ms)).await;
        vehicle.kill();
        cut_short = cut_short.max(consumer().await.num_ack_pending);
    }
    assert!(cut_short > 0, "no batch was in flight at any kill");
    // The terminals keep reporting to the edge while ingest is away.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let mut vehicle = drill.spawn("vehicle", &["vehicle"], &vehicle_env);
    tokio::time::sleep(Duration::from_secs(5)).await;
    vehicle.assert_running();
    edge.assert_running();
    simulator.stop();
    // What the edge was publishing when the terminals left is settled.
    tokio::time::sleep(Duration::from_secs(4)).await;

    // The batches cut short come back after the consumer's 30 s ack wait.
    let checked = assert_stream_stored_once(&drill, &js, since, Duration::from_secs(60)).await;
    assert!(
        checked >= 150,
        "only {checked} fixes went through the drill"
    );
    vehicle.assert_running();
    pool.close().await;
}
