//! A terminal written from the standard, not from this crate's encoder: it
//! builds its frames byte by byte (2019 header, XOR check, 0x7e/0x7d
//! escapes), connects over TCP and checks what the edge answers and what
//! reaches the telemetry stream.

use std::time::Duration;

use fleetdesk_kit::Shutdown;
use fleetdesk_proto::telematics::v1::Fix;
use fleetdesk_telematics::directory::{Binding, StaticDirectory};
use fleetdesk_telematics::{Application, Config, publish};
use fleetdesk_testkit::NatsServer;
use futures::StreamExt as _;
use prost::Message as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

const PHONE: &str = "13912345678";
const ENTERPRISE: &str = "e1";
const VEHICLE: &str = "v1";

/// 10-byte BCD of the phone, zero-padded on the left (JT/T 808-2019 §4.4.3).
fn bcd_phone(phone: &str) -> Vec<u8> {
    let padded = format!("{phone:0>20}");
    padded
        .as_bytes()
        .chunks(2)
        .map(|p| ((p[0] - b'0') << 4) | (p[1] - b'0'))
        .collect()
}

/// Header (version flag set, protocol version 1) + body, checked and escaped.
fn frame(msg_id: u16, serial: u16, body: &[u8]) -> Vec<u8> {
    let mut m = Vec::new();
    m.extend(msg_id.to_be_bytes());
    m.extend(((1u16 << 14) | body.len() as u16).to_be_bytes());
    m.push(1);
    m.extend(bcd_phone(PHONE));
    m.extend(serial.to_be_bytes());
    m.extend(body);
    m.push(m.iter().fold(0, |a, b| a ^ b));
    let mut out = vec![0x7e];
    for b in m {
        match b {
            0x7e => out.extend([0x7d, 0x02]),
            0x7d => out.extend([0x7d, 0x01]),
            b => out.push(b),
        }
    }
    out.push(0x7e);
    out
}

/// A 0x0200 body: 31.230416 N 121.473701 E, 36.5 km/h, heading 90, the given
/// Beijing time (YYMMDDhhmmss as BCD), mileage item 0x01 = 1234.5 km.
fn location_body(bcd_time: [u8; 6]) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(0u32.to_be_bytes()); // alarm
    b.extend(0b11u32.to_be_bytes()); // ACC on, positioned
    b.extend(31_230_416u32.to_be_bytes());
    b.extend(121_473_701u32.to_be_bytes());
    b.extend(12u16.to_be_bytes()); // altitude
    b.extend(365u16.to_be_bytes()); // 36.5 km/h
    b.extend(90u16.to_be_bytes());
    b.extend(bcd_time);
    b.extend([0x01, 4]);
    b.extend(12_345u32.to_be_bytes());
    b
}

/// Reads one answer: (message id, reply serial, reply id or result, body).
async fn read_answer(stream: &mut TcpStream, within: Duration) -> Option<(u16, Vec<u8>)> {
    let mut bytes = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    loop {
        // A whole frame: starts and ends with 0x7e.
        if bytes.len() > 2 && bytes[0] == 0x7e && bytes.last() == Some(&0x7e) {
            break;
        }
        let mut buf = [0u8; 512];
        let n = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        bytes.extend(&buf[..n]);
    }
    let mut raw = Vec::new();
    let mut escaped = false;
    for &b in &bytes[1..bytes.len() - 1] {
        match (escaped, b) {
            (false, 0x7d) => escaped = true,
            (true, x) => {
                raw.push(if x == 0x02 { 0x7e } else { 0x7d });
                escaped = false;
            }
            (false, x) => raw.push(x),
        }
    }
    let check = raw.pop().unwrap();
    assert_eq!(raw.iter().fold(0, |a, b| a ^ b), check, "answer check code");
    let msg_id = u16::from_be_bytes([raw[0], raw[1]]);
    let body = raw[17..].to_vec(); // 2019 header without packages is 17 bytes
    Some((msg_id, body))
}

struct Edge {
    port: u16,
    shutdown: Shutdown,
}

async fn start_edge(nats: &NatsServer) -> Edge {
    fleetdesk_testkit::init_test_logs();
    let config = Config {
        nats_url: nats.url(),
        addr: "127.0.0.1:0".into(),
        max_connections: 16,
        idle_secs: 30,
        max_messages_per_sec: 50,
        telemetry_max_age_hours: 1,
    };
    let directory = StaticDirectory::new([(
        PHONE.to_owned(),
        Binding {
            enterprise_id: ENTERPRISE.into(),
            vehicle_id: VEHICLE.into(),
        },
    )]);
    let app = Application::build(&config, directory).await.unwrap();
    let port = app.port();
    let shutdown = Shutdown::new();
    tokio::spawn(app.run_until_stopped(shutdown.clone()));
    Edge { port, shutdown }
}

/// Registers (0x0100) and authenticates (0x0102) with the code the edge gave.
async fn sign_on(port: u16) -> TcpStream {
    let mut s = TcpStream::connect(("127.0.0.1", port)).await.unwrap();
    let mut reg = Vec::new();
    reg.extend(31u16.to_be_bytes()); // province
    reg.extend(100u16.to_be_bytes()); // city
    reg.extend(b"FLEET\0\0\0\0\0\0"); // manufacturer BYTE[11]
    reg.extend([b'M'; 30]); // model BYTE[30]
    reg.extend([b'T'; 30]); // terminal id BYTE[30]
    reg.push(5); // plate colour
    reg.extend(b"\xd4\xc1B12345D"); // "粤B12345D" in GBK
    s.write_all(&frame(0x0100, 1, &reg)).await.unwrap();
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("0x8100");
    assert_eq!(id, 0x8100);
    assert_eq!(u16::from_be_bytes([body[0], body[1]]), 1, "reply serial");
    assert_eq!(body[2], 0, "registration accepted");
    let code = body[3..].to_vec();
    assert!(code.len() >= 16, "an authentication code");

    let mut auth = vec![code.len() as u8];
    auth.extend(&code);
    auth.extend([b'8'; 15]); // IMEI
    auth.extend(b"1.0.0\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0");
    s.write_all(&frame(0x0102, 2, &auth)).await.unwrap();
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("0x8001");
    assert_eq!((id, &body[..]), (0x8001, &[0, 2, 0x01, 0x02, 0][..]));
    s
}

async fn telemetry(nats: &NatsServer) -> async_nats::jetstream::Context {
    async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap())
}

/// Every fix in the telemetry stream, in order.
async fn stored_fixes(nats: &NatsServer) -> Vec<Fix> {
    let js = telemetry(nats).await;
    let stream = js.get_stream(publish::TELEMETRY_STREAM).await.unwrap();
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig::default())
        .await
        .unwrap();
    let mut messages = consumer.messages().await.unwrap();
    let mut out = Vec::new();
    while let Ok(Some(Ok(m))) =
        tokio::time::timeout(Duration::from_millis(500), messages.next()).await
    {
        out.push(Fix::decode(m.payload.clone()).unwrap());
    }
    out
}

#[tokio::test]
async fn a_terminal_registers_authenticates_and_its_fix_reaches_the_stream() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;

    // 2026-11-23 10:03:04 Beijing time.
    s.write_all(&frame(
        0x0200,
        3,
        &location_body([0x26, 0x11, 0x23, 0x10, 0x03, 0x04]),
    ))
    .await
    .unwrap();
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("answer");
    assert_eq!((id, &body[..]), (0x8001, &[0, 3, 0x02, 0x00, 0][..]));

    let fixes = stored_fixes(&nats).await;
    assert_eq!(fixes.len(), 1);
    let fix = &fixes[0];
    assert_eq!(
        (
            fix.terminal.as_str(),
            fix.enterprise_id.as_str(),
            fix.vehicle_id.as_str()
        ),
        (PHONE, ENTERPRISE, VEHICLE)
    );
    assert_eq!((fix.latitude, fix.longitude), (31.230416, 121.473701));
    assert_eq!((fix.speed_dkmh, fix.heading, fix.altitude_m), (365, 90, 12));
    assert_eq!(fix.mileage_m, Some(1_234_500));
    // 10:03:04 in Beijing is 02:03:04 UTC.
    assert_eq!(fix.fix_time.unwrap().seconds, 1_795_399_384);
    assert!(!fix.backfill);
    edge.shutdown.trigger();
}

#[tokio::test]
async fn unknown_terminals_and_reports_before_authentication_are_refused() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = TcpStream::connect(("127.0.0.1", edge.port)).await.unwrap();
    // A report before authenticating: refused (result 1), nothing stored.
    s.write_all(&frame(
        0x0200,
        9,
        &location_body([0x26, 0x11, 0x23, 0x10, 0, 0]),
    ))
    .await
    .unwrap();
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("answer");
    assert_eq!((id, body[4]), (0x8001, 1), "{body:?}");
    // A wrong code: refused and the connection closed.
    let mut auth = vec![3, b'b', b'a', b'd'];
    auth.extend([b'8'; 15]);
    auth.extend([0; 20]);
    s.write_all(&frame(0x0102, 10, &auth)).await.unwrap();
    let (_, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("answer");
    assert_eq!(body[4], 1);
    assert!(
        read_answer(&mut s, Duration::from_secs(2)).await.is_none(),
        "closed"
    );
    assert!(stored_fixes(&nats).await.is_empty());
    edge.shutdown.trigger();
}

#[tokio::test]
async fn garbage_is_dropped_and_the_connection_keeps_working() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;
    let mut bad = frame(0x0200, 4, &location_body([0x26, 0x11, 0x23, 0x10, 0, 0]));
    let at = bad.len() - 2;
    bad[at] ^= 0x55; // broken check code
    s.write_all(&bad).await.unwrap();
    s.write_all(&[0x7e, 0x7d, 0x09, 0x7e, 0x00, 0xff])
        .await
        .unwrap(); // bad escape, noise
    s.write_all(&frame(0x0002, 5, &[])).await.unwrap(); // heartbeat
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("answer");
    assert_eq!((id, &body[..]), (0x8001, &[0, 5, 0x00, 0x02, 0][..]));
    assert!(stored_fixes(&nats).await.is_empty());
    edge.shutdown.trigger();
}

#[tokio::test]
async fn while_nats_is_down_reports_are_not_answered_and_resent_ones_are_stored_once() {
    let mut nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;
    let first = frame(0x0200, 3, &location_body([0x26, 0x11, 0x23, 0x10, 0, 0]));
    s.write_all(&first).await.unwrap();
    assert!(read_answer(&mut s, Duration::from_secs(5)).await.is_some());

    nats.stop();
    let second = frame(0x0200, 4, &location_body([0x26, 0x11, 0x23, 0x10, 0, 0x10]));
    s.write_all(&second).await.unwrap();
    let answer = read_answer(&mut s, Duration::from_secs(6)).await;
    assert!(
        answer.is_none(),
        "no answer while the report cannot be stored: {answer:?}"
    );

    nats.resume().await;
    // The terminal re-sends what was not answered, and (as a terminal whose
    // answer got lost would) the first report too.
    let mut answered = false;
    for _ in 0..20 {
        s.write_all(&second).await.unwrap();
        if read_answer(&mut s, Duration::from_secs(2)).await.is_some() {
            answered = true;
            break;
        }
    }
    assert!(answered, "answered once NATS is back");
    s.write_all(&first).await.unwrap();
    assert!(read_answer(&mut s, Duration::from_secs(5)).await.is_some());

    let times: Vec<i64> = stored_fixes(&nats)
        .await
        .iter()
        .map(|f| f.fix_time.unwrap().seconds)
        .collect();
    assert_eq!(
        times,
        vec![1_795_399_200, 1_795_399_210],
        "each fix stored once"
    );
    edge.shutdown.trigger();
}
