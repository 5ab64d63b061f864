//! What the edge's socket tests share: JT/T 808 frames built byte by byte
//! from the standard (not with the crate's codec), the platform's answers
//! read off the socket, an edge started on free ports against a private
//! NATS, a terminal signing on, and what reached the telemetry stream.

#![allow(dead_code)]

use std::path::Path;
use std::time::Duration;

use chrono::{DateTime, Utc};
use fleetdesk_kit::Shutdown;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_proto::telematics::v1::Fix;
use fleetdesk_telematics::directory::{Binding, Directory, StaticDirectory};
use fleetdesk_telematics::video::VideoConfig;
use fleetdesk_telematics::{Application, Config, publish};
use fleetdesk_testkit::NatsServer;
use futures::StreamExt as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

// ---- Frames from the standard ------------------------------------------------

/// Decimal digits as BCD, two to a byte ("261123" → `[0x26, 0x11, 0x23]`).
pub fn bcd(digits: &str) -> Vec<u8> {
    digits
        .as_bytes()
        .chunks(2)
        .map(|p| ((p[0] - b'0') << 4) | (p[1] - b'0'))
        .collect()
}

/// 10-byte BCD of the phone, zero-padded on the left (JT/T 808-2019 §4.4.3).
pub fn bcd_phone(phone: &str) -> Vec<u8> {
    bcd(&format!("{phone:0>20}"))
}

/// A time as BCD[6] YYMMDDhhmmss in Beijing time, as terminals send it.
pub fn bcd_time(t: DateTime<Utc>) -> [u8; 6] {
    let beijing = t.with_timezone(&chrono::FixedOffset::east_opt(8 * 3600).unwrap());
    let digits = beijing.format("%y%m%d%H%M%S").to_string();
    bcd(&digits).try_into().unwrap()
}

/// Who sends a frame, as its header says.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Sender {
    /// 2019: the protocol version byte; `None` for a 2013 header.
    pub protocol: Option<u8>,
    /// BCD[6] (2013) or BCD[10] (2019) as sent.
    pub phone: Vec<u8>,
}

impl Sender {
    /// A 2019 terminal (protocol version 1) with this phone.
    pub fn v2019(phone: &str) -> Sender {
        Sender {
            protocol: Some(1),
            phone: bcd_phone(phone),
        }
    }
}

/// A frame from `sender`: header, body, XOR check, escaped; no packages.
pub fn frame(sender: &Sender, msg_id: u16, serial: u16, body: &[u8]) -> Vec<u8> {
    package_frame(sender, msg_id, serial, None, body)
}

/// A frame from `sender`, one package `(total, index)` of a longer message
/// when `package` is given.
pub fn package_frame(
    sender: &Sender,
    msg_id: u16,
    serial: u16,
    package: Option<(u16, u16)>,
    body: &[u8],
) -> Vec<u8> {
    let mut props = body.len() as u16;
    if sender.protocol.is_some() {
        props |= 1 << 14;
    }
    if package.is_some() {
        props |= 1 << 13;
    }
    let mut m = Vec::new();
    m.extend(msg_id.to_be_bytes());
    m.extend(props.to_be_bytes());
    if let Some(protocol) = sender.protocol {
        m.push(protocol);
    }
    m.extend(&sender.phone);
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

/// The bytes between two flags with the 0x7d escapes undone.
pub fn unescape(escaped: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(escaped.len());
    let mut bytes = escaped.iter();
    while let Some(&b) = bytes.next() {
        if b == 0x7d {
            out.push(if bytes.next() == Some(&0x02) {
                0x7e
            } else {
                0x7d
            });
        } else {
            out.push(b);
        }
    }
    out
}

/// The fields of a registration (0x0100) body.
pub struct RegistrationFields<'a> {
    pub province: u16,
    pub city: u16,
    pub maker: &'a [u8],
    pub model: &'a [u8],
    pub terminal_id: &'a [u8],
    pub plate_colour: u8,
    /// GBK, as sent; empty for none.
    pub plate: &'a [u8],
}

impl<'a> RegistrationFields<'a> {
    /// A Fleetdesk terminal in Shanghai (province 31, city 100): maker
    /// "FLEET", a model of thirty 'M's and an id of thirty 'T's.
    pub fn fleet(plate_colour: u8, plate: &'a [u8]) -> RegistrationFields<'a> {
        RegistrationFields {
            province: 31,
            city: 100,
            maker: b"FLEET",
            model: &[b'M'; 30],
            terminal_id: &[b'T'; 30],
            plate_colour,
            plate,
        }
    }

    /// The body in `sender`'s version's layout: maker, model and terminal
    /// id zero-padded (or cut) to their widths, 2013: 5, 20, 7 bytes;
    /// 2019: 11, 30, 30.
    pub fn body(&self, sender: &Sender) -> Vec<u8> {
        let widths = if sender.protocol.is_some() {
            [11, 30, 30]
        } else {
            [5, 20, 7]
        };
        let mut body = Vec::new();
        body.extend(self.province.to_be_bytes());
        body.extend(self.city.to_be_bytes());
        for (text, width) in [self.maker, self.model, self.terminal_id]
            .into_iter()
            .zip(widths)
        {
            let mut field = text.to_vec();
            field.resize(width, 0);
            body.extend(field);
        }
        body.push(self.plate_colour);
        body.extend(self.plate);
        body
    }
}

/// An authentication (0x0102) body with `code`: 2019 adds the code's
/// length, an IMEI of eights and `software_version` zero-padded to 20
/// bytes.
pub fn authentication(sender: &Sender, code: &[u8], software_version: &str) -> Vec<u8> {
    let mut body = Vec::new();
    if sender.protocol.is_some() {
        body.push(code.len() as u8);
        body.extend(code);
        body.extend([b'8'; 15]);
        let mut version = software_version.as_bytes().to_vec();
        version.resize(20, 0);
        body.extend(version);
    } else {
        body.extend(code);
    }
    body
}

/// The terminal's general response (0x0001) to platform message
/// `serial`/`msg_id`.
pub fn terminal_ack(serial: u16, msg_id: u16, result: u8) -> Vec<u8> {
    let mut body = serial.to_be_bytes().to_vec();
    body.extend(msg_id.to_be_bytes());
    body.push(result);
    body
}

// ---- The platform's answers ----------------------------------------------------

/// One platform message: id, its serial, body.
#[derive(Debug, Clone)]
pub struct Incoming {
    pub msg_id: u16,
    pub serial: u16,
    pub body: Vec<u8>,
}

/// A terminal's connection: frames out, the platform's frames in, split at
/// the flags (several may arrive in one read).
pub struct Wire {
    stream: TcpStream,
    pending: Vec<u8>,
}

impl Wire {
    pub async fn connect(port: u16) -> Wire {
        Wire::new(TcpStream::connect(("127.0.0.1", port)).await.unwrap())
    }

    pub fn new(stream: TcpStream) -> Wire {
        Wire {
            stream,
            pending: Vec::new(),
        }
    }

    pub async fn send(&mut self, bytes: &[u8]) {
        self.try_send(bytes).await.unwrap();
    }

    /// Sends, telling a closed connection instead of failing.
    pub async fn try_send(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.stream.write_all(bytes).await
    }

    /// The next message within `within`; `None` on timeout or a closed
    /// connection.
    pub async fn next(&mut self, within: Duration) -> Option<Incoming> {
        // Reading is cancel-safe: bytes read are kept before the next await.
        tokio::time::timeout(within, self.recv())
            .await
            .ok()
            .flatten()
    }

    /// The next message, however long it takes; `None` once the connection
    /// is closed.
    pub async fn recv(&mut self) -> Option<Incoming> {
        loop {
            if let Some(message) = self.take_frame() {
                return Some(message);
            }
            let mut buf = [0u8; 2048];
            let n = self.stream.read(&mut buf).await.ok()?;
            if n == 0 {
                return None;
            }
            self.pending.extend(&buf[..n]);
        }
    }

    /// A whole frame off the front of what was read, its check verified.
    fn take_frame(&mut self) -> Option<Incoming> {
        loop {
            // Drop anything before a flag, then look for the closing flag.
            let start = self.pending.iter().position(|&b| b == 0x7e)?;
            self.pending.drain(..start);
            let len = self.pending[1..].iter().position(|&b| b == 0x7e)?;
            let escaped: Vec<u8> = self.pending.drain(..len + 2).collect();
            let mut raw = unescape(&escaped[1..escaped.len() - 1]);
            if raw.is_empty() {
                // Two flags in a row: the second opens the next frame.
                self.pending.insert(0, 0x7e);
                continue;
            }
            let check = raw.pop().unwrap();
            assert_eq!(raw.iter().fold(0, |a, b| a ^ b), check, "answer check code");
            let props = u16::from_be_bytes([raw[2], raw[3]]);
            // 2019 headers carry a version byte and BCD[10], 2013 ones BCD[6].
            let serial_at = if props & (1 << 14) != 0 { 15 } else { 10 };
            return Some(Incoming {
                msg_id: u16::from_be_bytes([raw[0], raw[1]]),
                serial: u16::from_be_bytes([raw[serial_at], raw[serial_at + 1]]),
                body: raw[serial_at + 2..].to_vec(),
            });
        }
    }
}

/// Registers (0x0100, serial 1) with `registration` and authenticates
/// (0x0102, serial 2) with the code the edge gave; the edge then asks what
/// the terminal can stream (0x9003), which is read here and left unanswered.
pub async fn sign_on(
    port: u16,
    sender: &Sender,
    registration: &[u8],
    software_version: &str,
) -> Wire {
    let mut wire = Wire::connect(port).await;
    wire.send(&frame(sender, 0x0100, 1, registration)).await;
    let answer = wire.next(Duration::from_secs(5)).await.expect("0x8100");
    let body = &answer.body;
    assert_eq!(answer.msg_id, 0x8100);
    assert_eq!(u16::from_be_bytes([body[0], body[1]]), 1, "reply serial");
    assert_eq!(body[2], 0, "registration accepted");
    let code = body[3..].to_vec();
    assert!(code.len() >= 16, "an authentication code");

    let auth = authentication(sender, &code, software_version);
    wire.send(&frame(sender, 0x0102, 2, &auth)).await;
    let answer = wire.next(Duration::from_secs(5)).await.expect("0x8001");
    assert_eq!(
        (answer.msg_id, &answer.body[..]),
        (0x8001, &[0, 2, 0x01, 0x02, 0][..]),
        "authenticated"
    );
    let query = wire.next(Duration::from_secs(5)).await.expect("0x9003");
    assert_eq!((query.msg_id, query.body.len()), (0x9003, 0));
    wire
}

// ---- The edge --------------------------------------------------------------------

/// The edge as these tests run it: no database, an unreachable vehicle
/// service (a directory stands in), any free port, the given NATS and
/// object store; 16 connections and 50 messages a second.
pub fn config(nats_url: &str, objects: &Path) -> Config {
    Config {
        common: CommonConfig {
            database_url: String::new(),
            nats_url: nats_url.to_owned(),
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
        video: VideoConfig::local(),
    }
}

/// A running edge: its ports, and the switch that stops it.
pub struct Edge {
    pub port: u16,
    pub attachment_port: u16,
    pub media_port: u16,
    pub playback_port: u16,
    pub grpc_port: u16,
    pub shutdown: Shutdown,
}

/// Builds the edge with `directory` and runs it until its shutdown is
/// triggered.
pub async fn start_edge<D: Directory>(config: &Config, directory: D) -> Edge {
    fleetdesk_testkit::init_test_logs();
    let app = Application::build(config, directory).await.unwrap();
    let edge = Edge {
        port: app.port(),
        attachment_port: app.attachment_port(),
        media_port: app.media_port(),
        playback_port: app.playback_port(),
        grpc_port: app.grpc_port(),
        shutdown: Shutdown::new(),
    };
    tokio::spawn(app.run_until_stopped(edge.shutdown.clone()));
    edge
}

/// A directory knowing one terminal, bound to `vehicle` of `enterprise`.
pub fn one_terminal(phone: &str, enterprise: &str, vehicle: &str) -> StaticDirectory {
    StaticDirectory::new([(
        phone.to_owned(),
        Binding {
            enterprise_id: enterprise.into(),
            vehicle_id: vehicle.into(),
        },
    )])
}

// ---- What reached the stream -----------------------------------------------------

/// Every message of the telemetry stream on `subject` (`""`: all), decoded
/// as `T`, in order: read until none comes for half a second.
pub async fn all_stream_messages<T: prost::Message + Default>(
    nats: &NatsServer,
    subject: &str,
) -> Vec<T> {
    read_stream(nats, subject, usize::MAX, Duration::from_millis(500)).await
}

/// The first `want` messages of the telemetry stream on `subject`, decoded
/// as `T`, waiting up to five seconds for each (fewer if one does not come).
pub async fn stream_messages<T: prost::Message + Default>(
    nats: &NatsServer,
    subject: &str,
    want: usize,
) -> Vec<T> {
    read_stream(nats, subject, want, Duration::from_secs(5)).await
}

/// Every fix in the telemetry stream, in order.
pub async fn stored_fixes(nats: &NatsServer) -> Vec<Fix> {
    all_stream_messages(nats, "").await
}

async fn read_stream<T: prost::Message + Default>(
    nats: &NatsServer,
    subject: &str,
    want: usize,
    wait: Duration,
) -> Vec<T> {
    let js = async_nats::jetstream::new(async_nats::connect(nats.url()).await.unwrap());
    let stream = js.get_stream(publish::TELEMETRY_STREAM).await.unwrap();
    let consumer = stream
        .create_consumer(async_nats::jetstream::consumer::pull::OrderedConfig {
            filter_subject: subject.to_owned(),
            ..Default::default()
        })
        .await
        .unwrap();
    let mut messages = consumer.messages().await.unwrap();
    let mut out = Vec::new();
    while out.len() < want {
        match tokio::time::timeout(wait, messages.next()).await {
            Ok(Some(Ok(m))) => out.push(T::decode(m.payload.clone()).unwrap()),
            _ => break,
        }
    }
    out
}

/// A counter's value as /metrics shows it: `name{labels}` in the order the
/// exporter writes them (sorted by key).
pub fn metric(series: &str) -> u64 {
    fleetdesk_testkit::metric(series) as u64
}
