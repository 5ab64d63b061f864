//! A terminal written from the standard, not from this crate's encoder: it
//! builds its frames byte by byte (2019 header, XOR check, 0x7e/0x7d
//! escapes), connects over TCP and checks what the edge answers and what
//! reaches the telemetry stream.

use std::time::Duration;

use fleetdesk_kit::Shutdown;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_proto::telematics::v1::{
    CommandDelivery, CommandOutcome, CommandResult, Fix, MediaStored, VehicleCommand,
    vehicle_command,
};
use fleetdesk_telematics::directory::grpc::GrpcDirectory;
use fleetdesk_telematics::directory::{Binding, Directory, StaticDirectory};
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
        // A whole frame: starts and ends with 0x7e. Read byte by byte so
        // that the next frame stays in the socket.
        if bytes.len() > 2 && bytes[0] == 0x7e && bytes.last() == Some(&0x7e) {
            break;
        }
        let mut buf = [0u8; 1];
        let n = tokio::time::timeout_at(deadline, stream.read(&mut buf))
            .await
            .ok()?
            .ok()?;
        if n == 0 {
            return None;
        }
        if bytes.is_empty() && buf[0] != 0x7e {
            continue;
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
    let directory = StaticDirectory::new([(
        PHONE.to_owned(),
        Binding {
            enterprise_id: ENTERPRISE.into(),
            vehicle_id: VEHICLE.into(),
        },
    )]);
    start_edge_with(
        nats,
        directory,
        &std::env::temp_dir().join("fd-edge-terminal-objects"),
    )
    .await
}

async fn start_edge_with<D: Directory>(
    nats: &NatsServer,
    directory: D,
    objects: &std::path::Path,
) -> Edge {
    fleetdesk_testkit::init_test_logs();
    let config = Config {
        common: CommonConfig {
            database_url: String::new(),
            nats_url: nats.url(),
            internal_signing_key: None,
            environment: Environment::Development,
            db_max_connections: 1,
        },
        vehicle_url: "http://127.0.0.1:1".into(),
        object_store_dir: objects.to_owned(),
        addr: "127.0.0.1:0".into(),
        max_connections: 16,
        idle_secs: 30,
        max_messages_per_sec: 50,
        telemetry_max_age_hours: 1,
        video: fleetdesk_telematics::video::VideoConfig::local(),
    };
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
    // Then the edge asks what it can stream (0x9003, empty body); this
    // terminal has no camera and does not answer.
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("0x9003");
    assert_eq!((id, body.len()), (0x9003, 0));
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

// ---- Platform commands, photos and refusals --------------------------------

/// Header + body for any phone (2019 header, no packages unless `package`).
fn frame_as(
    phone: &str,
    msg_id: u16,
    serial: u16,
    package: Option<(u16, u16)>,
    body: &[u8],
) -> Vec<u8> {
    let mut props = (1u16 << 14) | body.len() as u16;
    if package.is_some() {
        props |= 1 << 13;
    }
    let mut m = Vec::new();
    m.extend(msg_id.to_be_bytes());
    m.extend(props.to_be_bytes());
    m.push(1);
    m.extend(bcd_phone(phone));
    m.extend(serial.to_be_bytes());
    if let Some((total, index)) = package {
        m.extend(total.to_be_bytes());
        m.extend(index.to_be_bytes());
    }
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

/// The platform's frames as they come, split at the flags (several may
/// arrive in one read).
struct Wire {
    stream: TcpStream,
    pending: Vec<u8>,
}

/// One platform message: id, its serial, body.
#[derive(Debug)]
struct Incoming {
    msg_id: u16,
    serial: u16,
    body: Vec<u8>,
}

impl Wire {
    fn new(stream: TcpStream) -> Wire {
        Wire {
            stream,
            pending: Vec::new(),
        }
    }

    async fn send(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    async fn next(&mut self, within: Duration) -> Option<Incoming> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            // Drop anything before a flag, then look for the closing flag.
            if let Some(start) = self.pending.iter().position(|&b| b == 0x7e) {
                self.pending.drain(..start);
                if let Some(len) = self.pending[1..].iter().position(|&b| b == 0x7e) {
                    let escaped: Vec<u8> = self.pending.drain(..len + 2).collect();
                    let inner = &escaped[1..escaped.len() - 1];
                    if inner.is_empty() {
                        self.pending.insert(0, 0x7e);
                        continue;
                    }
                    let mut raw = Vec::new();
                    let mut it = inner.iter();
                    while let Some(&b) = it.next() {
                        raw.push(match b {
                            0x7d => match it.next() {
                                Some(0x02) => 0x7e,
                                _ => 0x7d,
                            },
                            b => b,
                        });
                    }
                    let check = raw.pop().unwrap();
                    assert_eq!(raw.iter().fold(0, |a, b| a ^ b), check, "check code");
                    return Some(Incoming {
                        msg_id: u16::from_be_bytes([raw[0], raw[1]]),
                        serial: u16::from_be_bytes([raw[15], raw[16]]),
                        body: raw[17..].to_vec(),
                    });
                }
            }
            let mut buf = [0u8; 1024];
            let n = tokio::time::timeout_at(deadline, self.stream.read(&mut buf))
                .await
                .ok()?
                .ok()?;
            if n == 0 {
                return None;
            }
            self.pending.extend(&buf[..n]);
        }
    }
}

/// A 0x0200-style body at 31.23 N 121.47 E with the given speed (0.1 km/h)
/// and status word; 2026-11-23 10:00:<second> Beijing time.
fn report_body(speed_dkmh: u16, status: u32, second: u8) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(0u32.to_be_bytes());
    b.extend(status.to_be_bytes());
    b.extend(31_230_416u32.to_be_bytes());
    b.extend(121_473_701u32.to_be_bytes());
    b.extend(12u16.to_be_bytes());
    b.extend(speed_dkmh.to_be_bytes());
    b.extend(0u16.to_be_bytes());
    let bcd = |v: u8| ((v / 10) << 4) | (v % 10);
    b.extend([0x26, 0x11, 0x23, 0x10, 0x00, bcd(second)]);
    b
}

/// Messages of the telemetry stream on `subject_filter`, decoded as `T`.
async fn stream_messages<T: prost::Message + Default>(
    nats: &NatsServer,
    subject_filter: &str,
    want: usize,
) -> Vec<T> {
    let js = telemetry(nats).await;
    let stream = js.get_stream(publish::TELEMETRY_STREAM).await.unwrap();
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig {
            filter_subject: subject_filter.to_owned(),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut messages = consumer.messages().await.unwrap();
    let mut out = Vec::new();
    while out.len() < want {
        match tokio::time::timeout(Duration::from_secs(5), messages.next()).await {
            Ok(Some(Ok(m))) => out.push(T::decode(m.payload.clone()).unwrap()),
            _ => break,
        }
    }
    out
}

/// Asks the edge holding `phone` to lock or unlock its doors (what vehicle does).
async fn door_request(
    url: String,
    phone: &'static str,
    command_id: &'static str,
    lock: bool,
) -> Result<CommandDelivery, async_nats::RequestError> {
    let client = async_nats::connect(url).await.unwrap();
    let command = VehicleCommand {
        command_id: command_id.to_owned(),
        phone: phone.to_owned(),
        action: Some(vehicle_command::Action::LockDoors(lock)),
    };
    let answer = client
        .request(
            fleetdesk_kit::subjects::telematics_command(phone),
            command.encode_to_vec().into(),
        )
        .await?;
    Ok(CommandDelivery::decode(answer.payload).unwrap())
}

/// The terminal's general response (0x0001) to platform message `serial`/`id`.
fn terminal_ack(serial: u16, id: u16, result: u8) -> Vec<u8> {
    let mut body = serial.to_be_bytes().to_vec();
    body.extend(id.to_be_bytes());
    body.push(result);
    body
}

/// Door-locked status bit (JT/T 808-2019 Table 24, bit 13).
const DOOR_LOCKED: u32 = 1 << 13;

#[tokio::test]
async fn a_lock_command_goes_out_as_0x8500_and_the_answers_become_results() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut wire = Wire::new(sign_on(edge.port).await);
    // Parked: speed 0, positioned.
    wire.send(&frame_as(PHONE, 0x0200, 3, None, &report_body(0, 0b10, 1)))
        .await;
    assert_eq!(
        wire.next(Duration::from_secs(5)).await.unwrap().msg_id,
        0x8001
    );

    let request = tokio::spawn(door_request(nats.url(), PHONE, "cmd-1", true));
    let control = wire.next(Duration::from_secs(5)).await.expect("0x8500");
    assert_eq!(control.msg_id, 0x8500);
    // One control item: type 0x0001 (doors), value 0 (lock) — §8.58.
    assert_eq!(control.body, [0x00, 0x01, 0x00, 0x01, 0x00]);
    let delivery = request.await.unwrap().unwrap();
    assert!(delivery.sent, "{delivery:?}");
    assert_eq!(delivery.command_id, "cmd-1");
    assert_eq!(delivery.serial, u32::from(control.serial));

    wire.send(&frame_as(
        PHONE,
        0x0001,
        4,
        None,
        &terminal_ack(control.serial, 0x8500, 0),
    ))
    .await;
    let mut done = control.serial.to_be_bytes().to_vec();
    done.extend(report_body(0, 0b10 | DOOR_LOCKED, 5));
    wire.send(&frame_as(PHONE, 0x0500, 5, None, &done)).await;

    let results: Vec<CommandResult> = stream_messages(&nats, "telemetry.*.*.command", 2).await;
    let outcomes: Vec<(String, i32)> = results
        .iter()
        .map(|r| (r.command_id.clone(), r.outcome))
        .collect();
    assert_eq!(
        outcomes,
        vec![
            ("cmd-1".to_owned(), CommandOutcome::Acknowledged as i32),
            ("cmd-1".to_owned(), CommandOutcome::Succeeded as i32),
        ]
    );
    let done = &results[1];
    assert_eq!(
        (done.enterprise_id.as_str(), done.vehicle_id.as_str()),
        (ENTERPRISE, VEHICLE)
    );
    let position = done.position.as_ref().expect("the 0x0500 position");
    assert_eq!(position.status_bits & DOOR_LOCKED, DOOR_LOCKED);
    assert_eq!(position.speed_dkmh, 0);
    edge.shutdown.trigger();
}

#[tokio::test]
async fn a_terminal_refusing_while_moving_fails_the_command_with_the_reason() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut wire = Wire::new(sign_on(edge.port).await);
    wire.send(&frame_as(
        PHONE,
        0x0200,
        3,
        None,
        &report_body(365, 0b11, 1),
    ))
    .await;
    assert_eq!(
        wire.next(Duration::from_secs(5)).await.unwrap().msg_id,
        0x8001
    );

    let request = tokio::spawn(door_request(nats.url(), PHONE, "cmd-2", true));
    let control = wire.next(Duration::from_secs(5)).await.expect("0x8500");
    assert!(request.await.unwrap().unwrap().sent);
    wire.send(&frame_as(
        PHONE,
        0x0001,
        4,
        None,
        &terminal_ack(control.serial, 0x8500, 1),
    ))
    .await;
    let results: Vec<CommandResult> = stream_messages(&nats, "telemetry.*.*.command", 1).await;
    assert_eq!(results.len(), 1);
    assert_eq!(results[0].outcome, CommandOutcome::Failed as i32);
    assert_eq!(results[0].detail, "终端拒绝: 车辆行驶中");

    // A terminal nobody holds: no responder, which vehicle reads as offline.
    let offline = door_request(nats.url(), "13900000000", "cmd-3", false).await;
    assert_eq!(
        offline.unwrap_err().kind(),
        async_nats::RequestErrorKind::NoResponders
    );
    edge.shutdown.trigger();
}

#[tokio::test]
async fn an_alarm_photo_is_stored_announced_and_only_then_answered() {
    let nats = NatsServer::start().await;
    let objects = tempfile::tempdir().unwrap();
    let enterprise = "0d9b6f0e-8f61-4c53-9a39-5d0f2d1c7a11";
    let directory = StaticDirectory::new([(
        PHONE.to_owned(),
        Binding {
            enterprise_id: enterprise.into(),
            vehicle_id: VEHICLE.into(),
        },
    )]);
    let edge = start_edge_with(&nats, directory, objects.path()).await;
    let mut wire = Wire::new(sign_on(edge.port).await);

    // 0x0800: media id 9, image, JPEG, event 3 (collision), channel 1.
    let media = [0, 0, 0, 9, 0, 0, 3, 1];
    wire.send(&frame_as(PHONE, 0x0800, 3, None, &media)).await;
    let answer = wire.next(Duration::from_secs(5)).await.expect("0x8001");
    assert_eq!(
        (answer.msg_id, &answer.body[..]),
        (0x8001, &[0, 3, 0x08, 0x00, 0][..])
    );

    // 0x0801 in two packages: media fields, the 28-byte position, the JPEG.
    let photo: Vec<u8> = [0xff, 0xd8]
        .into_iter()
        .chain((0..1500u32).map(|i| (i % 251) as u8))
        .chain([0x7e, 0x7d, 0xff, 0xd9])
        .collect();
    let mut body = media.to_vec();
    body.extend(report_body(0, 0b10, 7));
    body.extend(&photo);
    let (first, second) = body.split_at(800);
    wire.send(&frame_as(PHONE, 0x0801, 4, Some((2, 1)), first))
        .await;
    wire.send(&frame_as(PHONE, 0x0801, 5, Some((2, 2)), second))
        .await;
    let answer = wire.next(Duration::from_secs(5)).await.expect("0x8800");
    // Media id, no packages to send again.
    assert_eq!(
        (answer.msg_id, &answer.body[..]),
        (0x8800, &[0, 0, 0, 9][..])
    );

    let stored: Vec<MediaStored> = stream_messages(&nats, "telemetry.*.*.media", 1).await;
    assert_eq!(stored.len(), 1);
    let m = &stored[0];
    assert_eq!(
        (m.media_id, m.media_type, m.event_code, m.channel),
        (9, 0, 3, 1)
    );
    assert_eq!(m.content_type, "image/jpeg");
    assert_eq!(m.size_bytes, photo.len() as i64);
    assert!(
        m.object_key.starts_with(&format!("{enterprise}/media/")),
        "{}",
        m.object_key
    );
    let on_disk = std::fs::read(objects.path().join(&m.object_key)).unwrap();
    assert_eq!(on_disk, photo);
    edge.shutdown.trigger();
}

/// The refusal counter's value for `step`, as /metrics shows it.
fn refused(step: &str) -> u64 {
    static RECORDER: std::sync::OnceLock<metrics_exporter_prometheus::PrometheusHandle> =
        std::sync::OnceLock::new();
    let handle = RECORDER.get_or_init(|| {
        metrics_exporter_prometheus::PrometheusBuilder::new()
            .install_recorder()
            .unwrap()
    });
    let line = format!("telematics_terminals_refused_total{{step=\"{step}\"}} ");
    handle
        .render()
        .lines()
        .find_map(|l| l.strip_prefix(&line).and_then(|v| v.trim().parse().ok()))
        .unwrap_or(0)
}

#[tokio::test]
async fn an_unknown_terminal_is_refused_at_registration_and_counted() {
    let before = refused("register");
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let stranger = "13700000009";
    let mut wire = Wire::new(TcpStream::connect(("127.0.0.1", edge.port)).await.unwrap());
    let mut reg = Vec::new();
    reg.extend(31u16.to_be_bytes());
    reg.extend(100u16.to_be_bytes());
    reg.extend([0u8; 11]);
    reg.extend([0u8; 30]);
    reg.extend([b'X'; 30]);
    reg.push(0);
    reg.extend(b"LZWADAGB0PB000001");
    wire.send(&frame_as(stranger, 0x0100, 1, None, &reg)).await;
    let answer = wire.next(Duration::from_secs(5)).await.expect("0x8100");
    // Reply serial 1, result 4: no such terminal, no code.
    assert_eq!((answer.msg_id, &answer.body[..]), (0x8100, &[0, 1, 4][..]));
    assert_eq!(refused("register"), before + 1);
    edge.shutdown.trigger();
}

#[tokio::test]
async fn an_unreachable_directory_answers_failure_and_the_terminal_may_retry() {
    let nats = NatsServer::start().await;
    let closed = fleetdesk_testkit::free_port();
    let directory = GrpcDirectory::new(
        &format!("http://127.0.0.1:{closed}"),
        fleetdesk_kit::internal_token::TokenSigner::generate(),
    )
    .unwrap();
    let edge = start_edge_with(&nats, directory, &std::env::temp_dir()).await;
    let mut wire = Wire::new(TcpStream::connect(("127.0.0.1", edge.port)).await.unwrap());
    let mut reg = Vec::new();
    reg.extend(31u16.to_be_bytes());
    reg.extend(100u16.to_be_bytes());
    reg.extend([0u8; 71]);
    reg.push(0);
    for serial in [1, 2] {
        wire.send(&frame_as(PHONE, 0x0100, serial, None, &reg))
            .await;
        let answer = wire.next(Duration::from_secs(10)).await.expect("an answer");
        // A failed general response to 0x0100: not refused, try again.
        assert_eq!(answer.msg_id, 0x8001);
        assert_eq!(answer.body, [0, serial as u8, 0x01, 0x00, 1]);
    }
    wire.send(&frame_as(PHONE, 0x0002, 3, None, &[])).await;
    let answer = wire
        .next(Duration::from_secs(5))
        .await
        .expect("still connected");
    assert_eq!(answer.body, [0, 3, 0x00, 0x02, 0]);
    edge.shutdown.trigger();
}
