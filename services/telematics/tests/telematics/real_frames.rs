//! Real terminals' frames (tests/telematics/frames/real_terminals.txt: captures from
//! public JT/T 808 decoders' tests and issue threads) replayed through a real
//! edge over TCP. Each terminal gets its own connection: its own 0x0100 and
//! 0x0102 from the captures where there are some, else ones this test writes
//! in the terminal's header version, then its frames as captured. Every
//! frame is answered as the data file says or dropped for the reason it
//! names, and every report acknowledged is in the telemetry stream with the
//! position, time and speed the file gives.
//!
//! Frames are built and read byte by byte from the standard (`support`), not with
//! the crate's codec.

use crate::support;

use std::collections::{BTreeMap, HashMap};
use std::sync::Mutex;
use std::time::Duration;

use chrono::{DateTime, TimeZone as _, Utc};
use fleetdesk_kit::Shutdown;
use fleetdesk_proto::telematics::v1::Fix;
use fleetdesk_telematics::directory::{
    Binding, Directory, DirectoryError, Registered, StaticDirectory,
};
use fleetdesk_telematics::jt808::message::{AvAttributes, Registration};
use fleetdesk_telematics::{Config, publish};
use fleetdesk_testkit::NatsServer;
use support::{
    RegistrationFields, Sender, Wire, authentication, bcd_time, frame, metric, unescape,
};

const FRAMES: &str = include_str!("frames/real_terminals.txt");
const ENTERPRISE: &str = "0b6f5a2e-8c1d-4a53-9d55-3f0f8e0a7c11";

// ---- The data file ------------------------------------------------------------

#[derive(Debug, Clone, Copy, PartialEq)]
struct ExpectedFix {
    latitude: f64,
    longitude: f64,
    speed_dkmh: i32,
    /// The terminal's time (Beijing on the wire), as UTC seconds.
    time: i64,
}

#[derive(Debug, Clone, PartialEq)]
enum Expect {
    /// Dropped unanswered, for the reason named.
    Refused(String),
    /// A general response (0x8001) with this result, or 0x8100 with it.
    Answer { msg_id: u16, result: u8 },
    /// No answer (the terminal's own answer to the platform).
    Silence,
}

#[derive(Debug, Clone)]
struct Line {
    number: usize,
    bytes: Vec<u8>,
    source: String,
    expect: Expect,
    fixes: Vec<ExpectedFix>,
}

fn hex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).expect("hex"))
        .collect()
}

/// `YYMMDDhhmmss` in Beijing time.
fn beijing(digits: &str) -> i64 {
    let n = |i: usize| digits[i..i + 2].parse::<u32>().expect("time digits");
    let local = chrono::FixedOffset::east_opt(8 * 3600)
        .unwrap()
        .with_ymd_and_hms(2000 + n(0) as i32, n(2), n(4), n(6), n(8), n(10))
        .single()
        .expect("a valid time");
    local.timestamp()
}

fn lines() -> Vec<Line> {
    let mut out = Vec::new();
    for (i, raw) in FRAMES.lines().enumerate() {
        let raw = raw.trim();
        if raw.is_empty() || raw.starts_with('#') {
            continue;
        }
        let fields: Vec<&str> = raw.split(" | ").collect();
        assert_eq!(
            fields.len(),
            4,
            "line {}: hex | source | what | expect",
            i + 1
        );
        let mut expect = None;
        let mut fixes = Vec::new();
        for token in fields[3].split_whitespace() {
            match token.split_once('=') {
                Some(("refused", reason)) => expect = Some(Expect::Refused(reason.to_owned())),
                Some(("answer", "none")) => expect = Some(Expect::Silence),
                Some(("answer", answer)) => {
                    let (id, result) = answer.split_once('/').expect("answer=id/result");
                    expect = Some(Expect::Answer {
                        msg_id: u16::from_str_radix(id, 16).unwrap(),
                        result: result.parse().unwrap(),
                    });
                }
                Some(("fix", fix)) => {
                    let v: Vec<&str> = fix.split(',').collect();
                    fixes.push(ExpectedFix {
                        latitude: v[0].parse().unwrap(),
                        longitude: v[1].parse().unwrap(),
                        speed_dkmh: v[2].parse().unwrap(),
                        time: beijing(v[3]),
                    });
                }
                Some(("by", "source" | "hand")) => {}
                _ => panic!("line {}: unknown expectation {token}", i + 1),
            }
        }
        out.push(Line {
            number: i + 1,
            bytes: hex(fields[0]),
            source: fields[1].to_owned(),
            expect: expect.unwrap_or_else(|| panic!("line {}: no expectation", i + 1)),
            fixes,
        });
    }
    out
}

// ---- Frames from the standard ---------------------------------------------------

/// (message id, serial, sender) of a frame that passes its check.
fn head(frame: &[u8]) -> (u16, u16, Sender) {
    let raw = unescape(&frame[1..frame.len() - 1]);
    let props = u16::from_be_bytes([raw[2], raw[3]]);
    let msg_id = u16::from_be_bytes([raw[0], raw[1]]);
    if props & 0x4000 != 0 {
        let sender = Sender {
            protocol: Some(raw[4]),
            phone: raw[5..15].to_vec(),
        };
        (msg_id, u16::from_be_bytes([raw[15], raw[16]]), sender)
    } else {
        let sender = Sender {
            protocol: None,
            phone: raw[4..10].to_vec(),
        };
        (msg_id, u16::from_be_bytes([raw[10], raw[11]]), sender)
    }
}

/// A registration naming `maker`, in the sender's version's layout.
fn registration(sender: &Sender, maker: &str) -> Vec<u8> {
    RegistrationFields {
        province: 44, // Guangdong
        city: 300,
        maker: maker.as_bytes(),
        model: b"REPLAY",
        terminal_id: b"R000001",
        plate_colour: 0,
        plate: b"",
    }
    .body(sender)
}

impl Wire {
    /// The next answer that is not one of the edge's own requests (0x9003
    /// after authentication, 0x9208 after a report with evidence).
    async fn answer(&mut self) -> Option<support::Incoming> {
        loop {
            let answer = self.next(Duration::from_secs(5)).await?;
            if !matches!(answer.msg_id, 0x9003 | 0x9208) {
                return Some(answer);
            }
        }
    }

    /// Proves the edge said nothing to what came before: a heartbeat's
    /// answer is the next thing on the wire.
    async fn expect_silence(&mut self, sender: &Sender, serial: u16, what: &str) {
        self.send(&frame(sender, 0x0002, serial, &[])).await;
        let answer = self.answer().await.expect("a heartbeat answer");
        let [hi, lo] = serial.to_be_bytes();
        assert_eq!(
            (answer.msg_id, &answer.body[..]),
            (0x8001, &[hi, lo, 0x00, 0x02, 0][..]),
            "nothing answered to {what}"
        );
    }
}

// ---- The edge -------------------------------------------------------------------

/// Accepts every terminal, any code, and keeps the maker each registered with.
#[derive(Debug, Default)]
struct ReplayDirectory {
    makers: Mutex<HashMap<String, String>>,
}

impl Directory for ReplayDirectory {
    async fn register(
        &self,
        terminal: &str,
        registration: &Registration,
    ) -> Result<Registered, DirectoryError> {
        self.makers
            .lock()
            .unwrap()
            .insert(terminal.to_owned(), registration.manufacturer.clone());
        Ok(Registered::Accepted {
            auth_code: "replay".into(),
        })
    }

    async fn authenticate(
        &self,
        terminal: &str,
        _code: &str,
    ) -> Result<Option<Binding>, DirectoryError> {
        Ok(Some(Binding {
            enterprise_id: ENTERPRISE.into(),
            vehicle_id: format!("v{terminal}"),
        }))
    }

    async fn report_av_attributes(
        &self,
        _terminal: &str,
        _attributes: &AvAttributes,
    ) -> Result<(), DirectoryError> {
        Ok(())
    }

    async fn maker(&self, terminal: &str) -> Result<Option<String>, DirectoryError> {
        Ok(self.makers.lock().unwrap().get(terminal).cloned())
    }
}

async fn start_edge<D: Directory>(nats: &NatsServer, directory: D) -> (u16, Shutdown) {
    let config = Config {
        max_connections: 256,
        max_messages_per_sec: 1000,
        ..support::config(
            &nats.url(),
            &std::env::temp_dir().join("fd-edge-real-frames"),
        )
    };
    let edge = support::start_edge(&config, directory).await;
    (edge.port, edge.shutdown)
}

fn matches(fix: &Fix, expected: &ExpectedFix) -> bool {
    fix.fix_time.as_ref().map(|t| t.seconds) == Some(expected.time)
        && (fix.latitude - expected.latitude).abs() < 1e-9
        && (fix.longitude - expected.longitude).abs() < 1e-9
        && fix.speed_dkmh == expected.speed_dkmh
}

// ---- The replay -----------------------------------------------------------------

/// The heartbeats this test sends to prove silence: a terminal of its own,
/// 2013 header, that never signs on (heartbeats need no session).
fn prober() -> Sender {
    Sender {
        protocol: None,
        phone: vec![0x01, 0x39, 0x00, 0x00, 0x00, 0x00],
    }
}

#[tokio::test]
async fn real_terminals_frames_are_answered_and_every_report_reaches_the_stream() {
    let suspect_before = metric("telematics_fixes_time_suspect_total{reason=\"old\"}")
        + metric("telematics_fixes_time_suspect_total{reason=\"future\"}");
    let malformed_before = metric("telematics_frames_total{result=\"malformed\"}");
    let nats = NatsServer::start().await;
    let (port, shutdown) = start_edge(&nats, ReplayDirectory::default()).await;
    let lines = lines();
    assert!(lines.len() >= 60, "{} frames", lines.len());

    // Refused frames go on one connection, each followed by a heartbeat
    // whose answer must come first.
    let refused: Vec<&Line> = lines
        .iter()
        .filter(|l| matches!(l.expect, Expect::Refused(_)))
        .collect();
    let mut wire = Wire::connect(port).await;
    for (i, line) in refused.iter().enumerate() {
        wire.send(&line.bytes).await;
        wire.expect_silence(
            &prober(),
            i as u16,
            &format!("line {} ({:?})", line.number, line.expect),
        )
        .await;
    }
    let refused_count = refused.len() as u64;

    // The others by terminal: registration and authentication first.
    let mut by_sender: BTreeMap<Sender, Vec<&Line>> = BTreeMap::new();
    for line in lines
        .iter()
        .filter(|l| !matches!(l.expect, Expect::Refused(_)))
    {
        by_sender.entry(head(&line.bytes).2).or_default().push(line);
    }
    let mut reports = 0;
    for (sender, mut frames) in by_sender {
        frames.sort_by_key(|l| match head(&l.bytes).0 {
            0x0100 => 0,
            0x0102 => 1,
            _ => 2,
        });
        let mut wire = Wire::connect(port).await;
        let ids: Vec<u16> = frames.iter().map(|l| head(&l.bytes).0).collect();
        // A terminal captured without them registers (as a maker that is
        // not ours) and authenticates with frames of this test.
        let mut own_serial = 0xF000;
        if !ids.contains(&0x0100) {
            wire.send(&frame(
                &sender,
                0x0100,
                own_serial,
                &registration(&sender, "OTHER"),
            ))
            .await;
            assert_eq!(wire.answer().await.expect("0x8100").body[2], 0);
            own_serial += 1;
        }
        if !ids.contains(&0x0102) {
            let body = authentication(&sender, b"replay", "");
            let at = ids.iter().position(|&id| id != 0x0100).unwrap_or(ids.len());
            for line in &frames[..at] {
                check(&mut wire, line, &sender).await;
            }
            wire.send(&frame(&sender, 0x0102, own_serial, &body)).await;
            let answer = wire.answer().await.expect("an authentication answer");
            assert_eq!((answer.msg_id, answer.body[4]), (0x8001, 0));
            frames.drain(..at);
        }
        for line in frames {
            check(&mut wire, line, &sender).await;
            reports += usize::from(!line.fixes.is_empty());
        }
    }
    assert!(reports >= 40, "{reports} reports");

    // Every fix of an acknowledged report is in the stream, once per
    // (time, position, speed): a report sent again is the same fix.
    let stored = support::stored_fixes(&nats).await;
    let expected: Vec<(usize, ExpectedFix)> = lines
        .iter()
        .flat_map(|l| l.fixes.iter().map(move |f| (l.number, *f)))
        .collect();
    let mut distinct: Vec<ExpectedFix> = Vec::new();
    let mut suspect = 0;
    for (number, fix) in &expected {
        let found = stored
            .iter()
            .find(|s| matches(s, fix))
            .unwrap_or_else(|| panic!("line {number}: {fix:?} not in the stream"));
        // Real terminals: none is ours, so no vendor item became a SOC.
        assert_eq!(found.soc_percent, None, "line {number}: {found:?}");
        assert!(found.temperatures.is_empty(), "line {number}: {found:?}");
        let received = found.receive_time.as_ref().unwrap();
        let received = Utc.timestamp_opt(received.seconds, 0).unwrap();
        let device = Utc.timestamp_opt(fix.time, 0).unwrap();
        if publish::time_suspect(device, received).is_some() {
            suspect += 1;
            // Published with the terminal's time, stored at its receive time.
            assert!((Utc::now() - received).num_minutes() < 10, "line {number}");
        }
        if !distinct.contains(fix) {
            distinct.push(*fix);
        }
    }
    assert_eq!(stored.len(), distinct.len(), "nothing more, nothing less");
    assert!(suspect > 0, "the captures include years-old fixes");
    let suspect_after = metric("telematics_fixes_time_suspect_total{reason=\"old\"}")
        + metric("telematics_fixes_time_suspect_total{reason=\"future\"}");
    assert_eq!(suspect_after - suspect_before, suspect);
    // A frame split by a raw 0x7e is two broken frames.
    assert!(
        metric("telematics_frames_total{result=\"malformed\"}") - malformed_before >= refused_count,
        "each refused frame counted"
    );
    shutdown.trigger();
}

/// Sends a captured frame and checks the answer the data file names.
async fn check(wire: &mut Wire, line: &Line, sender: &Sender) {
    let (msg_id, serial, _) = head(&line.bytes);
    let what = format!("line {} ({}, {:#06x})", line.number, line.source, msg_id);
    wire.send(&line.bytes).await;
    match &line.expect {
        Expect::Answer {
            msg_id: 0x8100,
            result,
        } => {
            let answer = wire
                .answer()
                .await
                .unwrap_or_else(|| panic!("{what}: no answer"));
            let [hi, lo] = serial.to_be_bytes();
            assert_eq!(answer.msg_id, 0x8100, "{what}");
            assert_eq!(&answer.body[..3], &[hi, lo, *result], "{what}");
        }
        Expect::Answer { msg_id: id, result } => {
            let answer = wire
                .answer()
                .await
                .unwrap_or_else(|| panic!("{what}: no answer"));
            let [hi, lo] = serial.to_be_bytes();
            let [id_hi, id_lo] = msg_id.to_be_bytes();
            assert_eq!(
                (answer.msg_id, &answer.body[..]),
                (*id, &[hi, lo, id_hi, id_lo, *result][..]),
                "{what}"
            );
        }
        Expect::Silence => wire.expect_silence(sender, 0xEEEE, &what).await,
        Expect::Refused(_) => unreachable!("refused frames are sent apart"),
    }
}

// ---- Vendor items by maker ------------------------------------------------------

/// A 0x0200 body at `time`: 22.543096 N 114.057865 E, 45.2 km/h, then
/// 0xE1 = 64 and 0xE2 = probe 2 at -18.2 °C (the Fleetdesk layouts).
fn vendor_report(time: DateTime<Utc>) -> Vec<u8> {
    let mut b = Vec::new();
    b.extend(0u32.to_be_bytes());
    b.extend(0b11u32.to_be_bytes());
    b.extend(22_543_096u32.to_be_bytes());
    b.extend(114_057_865u32.to_be_bytes());
    b.extend(35u16.to_be_bytes());
    b.extend(452u16.to_be_bytes());
    b.extend(271u16.to_be_bytes());
    b.extend(bcd_time(time));
    b.extend([0xE1, 1, 64, 0xE2, 4, 1, 2, 0xFF, 0x4A]);
    b
}

#[tokio::test]
async fn the_same_vendor_bytes_are_a_soc_from_our_terminals_and_nothing_from_a_strangers() {
    let ignored = "telematics_vendor_items_ignored_total{item=\"0xe1\",reason=\"maker\"}";
    let before = metric(ignored);
    // A real stranger: the registration and phone of a Huabao test capture
    // (maker "70107"), and a simulator terminal (maker "FLEETSIM").
    let stranger_registration = lines()
        .into_iter()
        .find(|l| {
            l.bytes.len() > 20
                && head(&l.bytes).0 == 0x0100
                && l.bytes.windows(5).any(|w| w == b"70107")
        })
        .expect("a captured registration of maker 70107");
    let (_, _, stranger) = head(&stranger_registration.bytes);
    let ours = Sender {
        protocol: Some(1),
        phone: vec![0, 0, 0, 0, 0x01, 0x39, 0x12, 0x34, 0x56, 0x78],
    };
    let bcd_text = |phone: &[u8]| -> String {
        let digits: String = phone.iter().map(|b| format!("{b:02x}")).collect();
        digits.trim_start_matches('0').to_owned()
    };
    let directory = StaticDirectory::new([&stranger, &ours].map(|s| {
        (
            bcd_text(&s.phone),
            Binding {
                enterprise_id: ENTERPRISE.into(),
                vehicle_id: format!("v{}", bcd_text(&s.phone)),
            },
        )
    }));
    let nats = NatsServer::start().await;
    let (port, shutdown) = start_edge(&nats, directory).await;
    let now = Utc::now();
    for (sender, registration_frame) in [
        (&stranger, stranger_registration.bytes.clone()),
        (
            &ours,
            frame(&ours, 0x0100, 1, &registration(&ours, "FLEETSIM")),
        ),
    ] {
        let mut wire = Wire::connect(port).await;
        wire.send(&registration_frame).await;
        let answer = wire.answer().await.expect("0x8100");
        assert_eq!((answer.msg_id, answer.body[2]), (0x8100, 0));
        let code = answer.body[3..].to_vec();
        wire.send(&frame(
            sender,
            0x0102,
            2,
            &authentication(sender, &code, ""),
        ))
        .await;
        let answer = wire.answer().await.expect("0x8001");
        assert_eq!((answer.msg_id, answer.body[4]), (0x8001, 0));
        wire.send(&frame(sender, 0x0200, 3, &vendor_report(now)))
            .await;
        let answer = wire.answer().await.expect("0x8001");
        assert_eq!(answer.body, [0, 3, 0x02, 0x00, 0], "accepted");
    }
    let fixes = support::stored_fixes(&nats).await;
    let by_vehicle = |s: &Sender| {
        fixes
            .iter()
            .find(|f| f.vehicle_id == format!("v{}", bcd_text(&s.phone)))
            .unwrap_or_else(|| panic!("a fix of {s:?} in {fixes:?}"))
    };
    let theirs = by_vehicle(&stranger);
    assert_eq!((theirs.latitude, theirs.longitude), (22.543096, 114.057865));
    assert_eq!(theirs.fix_time.as_ref().unwrap().seconds, now.timestamp());
    assert_eq!(theirs.soc_percent, None, "a stranger's 0xE1 is not our SOC");
    assert!(theirs.temperatures.is_empty());
    let ours = by_vehicle(&ours);
    assert_eq!(ours.soc_percent, Some(64));
    assert_eq!(
        ours.temperatures
            .iter()
            .map(|t| (t.probe, t.deci_celsius))
            .collect::<Vec<_>>(),
        [(2, -182)]
    );
    assert_eq!(metric(ignored), before + 1);
    shutdown.trigger();
}
