//! (e) JT/T 808 frames decoded and published per second per core.
//!
//! The same location frames (0x0200 with mileage, SOC and two box
//! temperatures) go through two paths on one single-threaded runtime (one
//! core), with `connections` terminals each waiting for JetStream's ack
//! before its next frame, as the edge answers a terminal only after the ack:
//!
//! - baseline: the frame's bytes published raw to the stream;
//! - edge: unframe, unescape, check, parse header and body, build the Fix
//!   protobuf, publish with its dedupe id, encode the 0x8001 answer.
//!
//! Each round uses fresh fix times, so the stream's dedupe never shortcuts.

use std::time::{Duration, Instant};

use chrono::{TimeZone as _, Utc};
use fleetdesk_telematics::directory::Binding;
use fleetdesk_telematics::jt808::header::{Header, Version};
use fleetdesk_telematics::jt808::location::ProbeTemperature;
use fleetdesk_telematics::jt808::message::{Ack, PlatformMessage, TerminalMessage, frame};
use fleetdesk_telematics::jt808::{FrameDecoder, Location};
use fleetdesk_telematics::publish::{self, Publisher};

/// Frames of one terminal (its phone and the wire bytes).
struct Terminal {
    phone: String,
    frames: Vec<Vec<u8>>,
}

fn terminals(frames: usize, connections: usize, round: usize) -> Vec<Terminal> {
    let per = frames.div_ceil(connections);
    let base = Utc
        .with_ymd_and_hms(2026, 11, 1, 0, 0, 0)
        .single()
        .expect("a time")
        + chrono::Duration::seconds((round * per) as i64 * 10);
    (0..connections)
        .map(|c| {
            let phone = format!("1440{:09}", c);
            let frames = (0..per)
                .map(|i| {
                    let location = Location {
                        alarm: 0,
                        status: 0b11,
                        latitude: 22.543_096 + c as f64 * 1e-4,
                        longitude: 114.057_865 + i as f64 * 1e-5,
                        altitude_m: 12,
                        speed_dkmh: 452,
                        heading: 90,
                        time: base + chrono::Duration::seconds(i as i64 * 10),
                        mileage_m: Some(12_345_600),
                        signal: Some(25),
                        satellites: Some(12),
                        soc_percent: Some(67),
                        temperatures: vec![
                            ProbeTemperature {
                                probe: 1,
                                deci_celsius: -182,
                            },
                            ProbeTemperature {
                                probe: 2,
                                deci_celsius: -179,
                            },
                        ],
                        safety_alarms: Vec::new(),
                    };
                    let (id, body) = TerminalMessage::Location(location)
                        .encode(Version::V2019 { protocol: 1 })
                        .expect("encodes");
                    let header = Header {
                        msg_id: id,
                        version: Version::V2019 { protocol: 1 },
                        phone: phone.clone(),
                        serial: i as u16,
                        package: None,
                    };
                    frame(&header, &body).expect("frames")
                })
                .collect();
            Terminal { phone, frames }
        })
        .collect()
}

async fn raw(js: &async_nats::jetstream::Context, terminals: &[Terminal]) -> Duration {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for t in terminals {
        let js = js.clone();
        let frames = t.frames.clone();
        tasks.spawn_local(async move {
            for f in frames {
                js.publish("telemetry.bench.raw", f.into())
                    .await
                    .expect("publish")
                    .await
                    .expect("ack");
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    started.elapsed()
}

async fn edge(js: &async_nats::jetstream::Context, terminals: &[Terminal]) -> Duration {
    let started = Instant::now();
    let mut tasks = tokio::task::JoinSet::new();
    for t in terminals {
        let publisher = Publisher::new(js.clone());
        let frames = t.frames.clone();
        let binding = Binding {
            enterprise_id: "bench".to_owned(),
            vehicle_id: t.phone.clone(),
        };
        tasks.spawn_local(async move {
            let mut decoder = FrameDecoder::default();
            let mut out = Vec::new();
            for f in frames {
                decoder.feed(&f, &mut out);
                for bytes in out.drain(..) {
                    let bytes = bytes.expect("a good frame");
                    let (header, body) = Header::parse(&bytes).expect("a header");
                    let TerminalMessage::Location(fix) =
                        TerminalMessage::decode(&header, body).expect("a body")
                    else {
                        panic!("not a location");
                    };
                    publisher
                        .publish(&header.terminal(), &binding, &[fix], false)
                        .await
                        .expect("published");
                    let (id, answer) = PlatformMessage::GeneralResponse {
                        reply_serial: header.serial,
                        reply_id: header.msg_id,
                        result: Ack::Ok,
                    }
                    .encode(header.version);
                    let reply = Header {
                        msg_id: id,
                        serial: header.serial,
                        ..header
                    };
                    std::hint::black_box(frame(&reply, &answer).expect("answer"));
                }
            }
        });
    }
    while tasks.join_next().await.is_some() {}
    started.elapsed()
}

fn decode_only(terminals: &[Terminal]) -> Duration {
    let started = Instant::now();
    let mut decoder = FrameDecoder::default();
    let mut out = Vec::new();
    for t in terminals {
        for f in &t.frames {
            decoder.feed(f, &mut out);
            for bytes in out.drain(..) {
                let bytes = bytes.expect("a good frame");
                let (header, body) = Header::parse(&bytes).expect("a header");
                std::hint::black_box(TerminalMessage::decode(&header, body).expect("a body"));
            }
        }
    }
    started.elapsed()
}

/// Runs the bench on one core and prints its rows.
pub fn run(nats_url: &str, frames: usize, connections: usize, rounds: usize) -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let local = tokio::task::LocalSet::new();
    local.block_on(&runtime, async {
        let client = async_nats::connect(nats_url).await?;
        let js = fleetdesk_kit::events::jetstream(client);
        publish::ensure_stream(&js, Duration::from_secs(3600)).await?;
        let (mut raw_s, mut edge_s, mut decode_s) = (0.0, 0.0, 0.0);
        let mut total = 0;
        for round in 0..rounds {
            let terminals = terminals(frames, connections, round);
            total += terminals.iter().map(|t| t.frames.len()).sum::<usize>();
            // Alternate the order so drift hits both.
            if round % 2 == 0 {
                raw_s += raw(&js, &terminals).await.as_secs_f64();
                edge_s += edge(&js, &terminals).await.as_secs_f64();
            } else {
                edge_s += edge(&js, &terminals).await.as_secs_f64();
                raw_s += raw(&js, &terminals).await.as_secs_f64();
            }
            decode_s += decode_only(&terminals).as_secs_f64();
        }
        let rate = |s: f64| total as f64 / s;
        println!(
            "\n{:<58} {:>9} {:>7}  target",
            format!("figure ({connections} terminals, 1 core, acked)"),
            "frames/s",
            "ratio"
        );
        println!(
            "{:<58} {:>9.0} {:>7}",
            "baseline: raw JetStream publish of the frames' bytes",
            rate(raw_s),
            "1.000"
        );
        println!(
            "{:<58} {:>9.0} {:>7.3}",
            format!("(e) JT/T 808 decode + publish, {total} location frames"),
            rate(edge_s),
            raw_s / edge_s
        );
        println!(
            "{:<58} {:>9.0}",
            "(e) decode only (no NATS)",
            rate(decode_s)
        );
        anyhow::Ok(())
    })
}
