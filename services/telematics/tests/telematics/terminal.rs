//! A terminal written from the standard, not from this crate's encoder: it
//! builds its frames byte by byte (2019 header, XOR check, 0x7e/0x7d
//! escapes), connects over TCP and checks what the edge answers and what
//! reaches the telemetry stream. Most scenarios use a fixed directory; the
//! maker kept across edges uses the vehicle service's, as deployed.

use crate::support;

use std::time::Duration;

use fleetdesk_kit::Shutdown;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_proto::telematics::v1::{
    CommandDelivery, CommandOutcome, CommandResult, Fix, MediaStored, VehicleCommand,
    vehicle_command,
};
use fleetdesk_telematics::directory::Directory;
use fleetdesk_telematics::directory::grpc::GrpcDirectory;
use fleetdesk_testkit::NatsServer;
use prost::Message as _;
use support::{
    Edge, RegistrationFields, Sender, Wire, authentication, bcd_time, metric, one_terminal,
    package_frame, stored_fixes, stream_messages, terminal_ack,
};

const PHONE: &str = "13912345678";
const ENTERPRISE: &str = "e1";
const VEHICLE: &str = "v1";

/// `PHONE`'s frame (2019 header, protocol version 1), checked and escaped.
fn frame(msg_id: u16, serial: u16, body: &[u8]) -> Vec<u8> {
    support::frame(&Sender::v2019(PHONE), msg_id, serial, body)
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

/// Reads one answer: (message id, body).
async fn read_answer(wire: &mut Wire, within: Duration) -> Option<(u16, Vec<u8>)> {
    let answer = wire.next(within).await?;
    Some((answer.msg_id, answer.body))
}

async fn start_edge(nats: &NatsServer) -> Edge {
    let directory = one_terminal(PHONE, ENTERPRISE, VEHICLE);
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
    support::start_edge(&support::config(&nats.url(), objects), directory).await
}

/// Registers (0x0100) and authenticates (0x0102) with the code the edge
/// gave; this terminal has no camera and leaves the edge's 0x9003
/// unanswered.
async fn sign_on(port: u16) -> Wire {
    let sender = Sender::v2019(PHONE);
    // "粤B12345D" in GBK.
    let registration = RegistrationFields::fleet(5, b"\xd4\xc1B12345D");
    support::sign_on(port, &sender, &registration.body(&sender), "1.0.0").await
}

#[tokio::test]
async fn a_terminal_registers_authenticates_and_its_fix_reaches_the_stream() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;

    // 2026-11-23 10:03:04 Beijing time.
    s.send(&frame(
        0x0200,
        3,
        &location_body([0x26, 0x11, 0x23, 0x10, 0x03, 0x04]),
    ))
    .await;
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
    let mut s = Wire::connect(edge.port).await;
    // A report before authenticating: refused (result 1), nothing stored.
    s.send(&frame(
        0x0200,
        9,
        &location_body([0x26, 0x11, 0x23, 0x10, 0, 0]),
    ))
    .await;
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("answer");
    assert_eq!((id, body[4]), (0x8001, 1), "{body:?}");
    // A wrong code: refused and the connection closed.
    let mut auth = vec![3, b'b', b'a', b'd'];
    auth.extend([b'8'; 15]);
    auth.extend([0; 20]);
    s.send(&frame(0x0102, 10, &auth)).await;
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
    s.send(&bad).await;
    s.send(&[0x7e, 0x7d, 0x09, 0x7e, 0x00, 0xff]).await; // bad escape, noise
    s.send(&frame(0x0002, 5, &[])).await; // heartbeat
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
    s.send(&first).await;
    assert!(read_answer(&mut s, Duration::from_secs(5)).await.is_some());

    nats.stop();
    let second = frame(0x0200, 4, &location_body([0x26, 0x11, 0x23, 0x10, 0, 0x10]));
    s.send(&second).await;
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
        s.send(&second).await;
        if read_answer(&mut s, Duration::from_secs(2)).await.is_some() {
            answered = true;
            break;
        }
    }
    assert!(answered, "answered once NATS is back");
    s.send(&first).await;
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

/// Door-locked status bit (JT/T 808-2019 Table 24, bit 13).
const DOOR_LOCKED: u32 = 1 << 13;

#[tokio::test]
async fn a_lock_command_goes_out_as_0x8500_and_the_answers_become_results() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut wire = sign_on(edge.port).await;
    // Parked: speed 0, positioned.
    wire.send(&frame(0x0200, 3, &report_body(0, 0b10, 1))).await;
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

    wire.send(&frame(0x0001, 4, &terminal_ack(control.serial, 0x8500, 0)))
        .await;
    let mut done = control.serial.to_be_bytes().to_vec();
    done.extend(report_body(0, 0b10 | DOOR_LOCKED, 5));
    wire.send(&frame(0x0500, 5, &done)).await;

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
    let mut wire = sign_on(edge.port).await;
    wire.send(&frame(0x0200, 3, &report_body(365, 0b11, 1)))
        .await;
    assert_eq!(
        wire.next(Duration::from_secs(5)).await.unwrap().msg_id,
        0x8001
    );

    let request = tokio::spawn(door_request(nats.url(), PHONE, "cmd-2", true));
    let control = wire.next(Duration::from_secs(5)).await.expect("0x8500");
    assert!(request.await.unwrap().unwrap().sent);
    wire.send(&frame(0x0001, 4, &terminal_ack(control.serial, 0x8500, 1)))
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
    let directory = one_terminal(PHONE, enterprise, VEHICLE);
    let edge = start_edge_with(&nats, directory, objects.path()).await;
    let mut wire = sign_on(edge.port).await;

    // 0x0800: media id 9, image, JPEG, event 3 (collision), channel 1.
    let media = [0, 0, 0, 9, 0, 0, 3, 1];
    wire.send(&frame(0x0800, 3, &media)).await;
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
    let us = Sender::v2019(PHONE);
    for (serial, index, package) in [(4, 1, first), (5, 2, second)] {
        wire.send(&package_frame(
            &us,
            0x0801,
            serial,
            Some((2, index)),
            package,
        ))
        .await;
    }
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
    metric(&format!(
        "telematics_terminals_refused_total{{step=\"{step}\"}}"
    ))
}

#[tokio::test]
async fn an_unknown_terminal_is_refused_at_registration_and_counted() {
    let before = refused("register");
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let stranger = "13700000009";
    let mut wire = Wire::connect(edge.port).await;
    let mut reg = Vec::new();
    reg.extend(31u16.to_be_bytes());
    reg.extend(100u16.to_be_bytes());
    reg.extend([0u8; 11]);
    reg.extend([0u8; 30]);
    reg.extend([b'X'; 30]);
    reg.push(0);
    reg.extend(b"LZWADAGB0PB000001");
    wire.send(&support::frame(&Sender::v2019(stranger), 0x0100, 1, &reg))
        .await;
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
    let mut wire = Wire::connect(edge.port).await;
    let mut reg = Vec::new();
    reg.extend(31u16.to_be_bytes());
    reg.extend(100u16.to_be_bytes());
    reg.extend([0u8; 71]);
    reg.push(0);
    for serial in [1, 2] {
        wire.send(&frame(0x0100, serial, &reg)).await;
        let answer = wire.next(Duration::from_secs(10)).await.expect("an answer");
        // A failed general response to 0x0100: not refused, try again.
        assert_eq!(answer.msg_id, 0x8001);
        assert_eq!(answer.body, [0, serial as u8, 0x01, 0x00, 1]);
    }
    wire.send(&frame(0x0002, 3, &[])).await;
    let answer = wire
        .next(Duration::from_secs(5))
        .await
        .expect("still connected");
    assert_eq!(answer.body, [0, 3, 0x00, 0x02, 0]);
    edge.shutdown.trigger();
}

// ---- Terminals of other makers, wrong clocks, logout -------------------------

/// The general response (0x8001) to `msg_id` sent with `serial`: its result.
async fn result_of(s: &mut Wire, serial: u16, msg_id: u16) -> u8 {
    let (id, body) = read_answer(s, Duration::from_secs(5))
        .await
        .expect("an answer");
    assert_eq!(id, 0x8001);
    let [hi, lo] = serial.to_be_bytes();
    let [id_hi, id_lo] = msg_id.to_be_bytes();
    assert_eq!(&body[..4], &[hi, lo, id_hi, id_lo], "answers {serial}");
    body[4]
}

#[tokio::test]
async fn vendor_items_of_other_makers_are_skipped_and_the_fix_is_stored() {
    let firmware = "telematics_vendor_items_ignored_total{item=\"0xe2\",reason=\"layout\"}";
    let cell = "telematics_vendor_items_ignored_total{item=\"0xe1\",reason=\"layout\"}";
    let (firmware_before, cell_before) = (metric(firmware), metric(cell));
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;
    let now = chrono::Utc::now();
    // A GPS51 (2019) terminal: 0xE2 is its 21-byte firmware string, and
    // another maker's 0xE1 is 10 bytes of cell information (MCC 460,
    // MNC 0, LAC 0x251C, cell id 0x4E1F), then the standard 0x30 signal.
    let mut body = location_body(bcd_time(now));
    body.extend([0xE2, 21]);
    body.extend(b"GPS51_V3.2.1_20190306");
    body.extend([
        0xE1, 10, 0x01, 0xCC, 0x00, 0x00, 0x25, 0x1C, 0x00, 0x00, 0x4E, 0x1F,
    ]);
    body.extend([0x30, 1, 27]);
    s.send(&frame(0x0200, 3, &body)).await;
    assert_eq!(result_of(&mut s, 3, 0x0200).await, 0, "accepted");
    // Ours still read when they fit: SOC 64 %, probe 2 at -18.2 °C.
    let mut ours = location_body(bcd_time(now + chrono::Duration::seconds(1)));
    ours.extend([0xE1, 1, 64, 0xE2, 4, 1, 2, 0xFF, 0x4A]);
    s.send(&frame(0x0200, 4, &ours)).await;
    assert_eq!(result_of(&mut s, 4, 0x0200).await, 0);

    let fixes = stored_fixes(&nats).await;
    assert_eq!(fixes.len(), 2, "{fixes:?}");
    let foreign = &fixes[0];
    assert_eq!(
        (foreign.latitude, foreign.longitude),
        (31.230416, 121.473701)
    );
    assert_eq!(foreign.fix_time.unwrap().seconds, now.timestamp());
    assert_eq!(foreign.mileage_m, Some(1_234_500));
    assert_eq!(foreign.soc_percent, None, "cell information is no SOC");
    assert!(foreign.temperatures.is_empty(), "{foreign:?}");
    assert_eq!(fixes[1].soc_percent, Some(64));
    assert_eq!(
        fixes[1]
            .temperatures
            .iter()
            .map(|t| (t.probe, t.deci_celsius))
            .collect::<Vec<_>>(),
        [(2, -182)]
    );
    assert_eq!(metric(firmware), firmware_before + 1);
    assert_eq!(metric(cell), cell_before + 1);
    edge.shutdown.trigger();
}

#[tokio::test]
async fn fixes_with_impossible_times_are_answered_counted_and_published() {
    let old = "telematics_fixes_time_suspect_total{reason=\"old\"}";
    let future = "telematics_fixes_time_suspect_total{reason=\"future\"}";
    let (old_before, future_before) = (metric(old), metric(future));
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;
    let now = chrono::Utc::now();
    // GPS week rollover: 1024 weeks back; an unset clock: a day ahead.
    let rolled = now - chrono::Duration::weeks(1024);
    let ahead = now + chrono::Duration::days(1);
    s.send(&frame(0x0200, 3, &location_body(bcd_time(rolled))))
        .await;
    assert_eq!(result_of(&mut s, 3, 0x0200).await, 0);
    s.send(&frame(0x0200, 4, &location_body(bcd_time(ahead))))
        .await;
    assert_eq!(result_of(&mut s, 4, 0x0200).await, 0);
    // A clock stuck at the rolled-over time, the vehicle moved: a new fix,
    // not a repeat. Sent in a blind-zone batch with a second one.
    let mut moved = location_body(bcd_time(rolled));
    moved[8..12].copy_from_slice(&31_240_000u32.to_be_bytes());
    let mut also = location_body(bcd_time(rolled));
    also[8..12].copy_from_slice(&31_250_000u32.to_be_bytes());
    let mut batch = Vec::new();
    batch.extend(2u16.to_be_bytes());
    batch.push(1); // blind zone
    for report in [&moved, &also] {
        batch.extend((report.len() as u16).to_be_bytes());
        batch.extend(report);
    }
    s.send(&frame(0x0704, 5, &batch)).await;
    assert_eq!(result_of(&mut s, 5, 0x0704).await, 0);

    let fixes = stored_fixes(&nats).await;
    let seen: Vec<(i64, f64)> = fixes
        .iter()
        .map(|f| (f.fix_time.unwrap().seconds, f.latitude))
        .collect();
    assert_eq!(
        seen,
        [
            (rolled.timestamp(), 31.230416),
            (ahead.timestamp(), 31.230416),
            (rolled.timestamp(), 31.24),
            (rolled.timestamp(), 31.25),
        ],
        "every fix published with the terminal's time"
    );
    // Ingest stores them at their receive time: a batch's must differ.
    let received = |f: &Fix| f.receive_time.unwrap();
    assert_ne!(received(&fixes[2]), received(&fixes[3]));
    assert!(fixes[2].backfill && fixes[3].backfill);
    assert_eq!(metric(old), old_before + 3);
    assert_eq!(metric(future), future_before + 1);
    edge.shutdown.trigger();
}

#[tokio::test]
async fn a_logout_is_answered_and_ends_the_session() {
    let logouts = "telematics_logouts_total";
    let before = metric(logouts);
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut s = sign_on(edge.port).await;
    s.send(&frame(0x0003, 3, &[])).await;
    assert_eq!(result_of(&mut s, 3, 0x0003).await, 0, "logout accepted");
    assert_eq!(metric(logouts), before + 1);
    // Signed off: a report is refused (result 1) and not stored.
    let now = chrono::Utc::now();
    s.send(&frame(0x0200, 4, &location_body(bcd_time(now))))
        .await;
    assert_eq!(result_of(&mut s, 4, 0x0200).await, 1);
    assert!(stored_fixes(&nats).await.is_empty());
    edge.shutdown.trigger();
}

// ---- A maker kept across edges -------------------------------------------------

/// The vehicle service as a deployment's terminal directory (gRPC on port
/// 0, a fresh database), knowing one vehicle bound to the terminal `PHONE`
/// with serial `terminal`.
struct VehicleDirectory {
    _db: fleetdesk_testkit::TestDb,
    url: String,
    signer: fleetdesk_kit::internal_token::TokenSigner,
    enterprise: uuid::Uuid,
    vehicle: uuid::Uuid,
    shutdown: Shutdown,
}

impl VehicleDirectory {
    async fn start(terminal: &str) -> VehicleDirectory {
        let db = fleetdesk_testkit::TestDb::migrated(&[&fleetdesk_vehicle::SCHEMA]).await;
        let signer = fleetdesk_kit::internal_token::TokenSigner::generate();
        let app = fleetdesk_vehicle::Application::build(
            fleetdesk_kit::config::ServiceConfig {
                common: CommonConfig {
                    database_url: db.url.clone(),
                    nats_url: fleetdesk_testkit::nats_url(),
                    internal_signing_key: None,
                    environment: Environment::Development,
                    db_max_connections: 5,
                },
                grpc_addr: "127.0.0.1:0".to_owned(),
                migrate_on_start: true,
                object_store_dir: std::env::temp_dir().join("fd-edge-terminal-vehicle-objects"),
            },
            signer.verifier(),
        )
        .await
        .expect("vehicle");
        let url = format!("http://127.0.0.1:{}", app.port());
        let shutdown = Shutdown::new();
        tokio::spawn(app.run_until_stopped(shutdown.clone()));
        let (enterprise, org, vehicle) = (
            uuid::Uuid::new_v4(),
            uuid::Uuid::new_v4(),
            uuid::Uuid::new_v4(),
        );
        let owner = fleetdesk_kit::db::connect_owner(&db.url, "vehicle", 1)
            .await
            .expect("owner pool");
        // As the assets module binds a terminal: the vehicle, then its log.
        sqlx::query(
            "insert into vehicle (id, enterprise_id, org_id, plate_number, plate_color, vin, \
             brand, model, category, energy_type, ownership_type, status, terminal_id, \
             terminal_sim, terminal_bound_at) \
             values ($1, $2, $3, '粤B12345D', 3, 'LGXCE4CB000000001', '比亚迪', 'T5', 2, 1, 2, 1, \
             $4, $5, now())",
        )
        .bind(vehicle)
        .bind(enterprise)
        .bind(org)
        .bind(terminal)
        .bind(PHONE)
        .execute(&owner)
        .await
        .expect("vehicle row");
        sqlx::query(
            "insert into vehicle_binding (id, enterprise_id, org_id, vehicle_id, kind, \
             target_id, target_name, terminal_sim, bound_at) \
             values ($1, $2, $3, $4, 3, $5, $5, $6, now())",
        )
        .bind(uuid::Uuid::new_v4())
        .bind(enterprise)
        .bind(org)
        .bind(vehicle)
        .bind(terminal)
        .bind(PHONE)
        .execute(&owner)
        .await
        .expect("terminal binding");
        VehicleDirectory {
            _db: db,
            url,
            signer,
            enterprise,
            vehicle,
            shutdown,
        }
    }

    /// What one edge instance holds: its own client, nothing shared.
    fn client(&self) -> GrpcDirectory {
        GrpcDirectory::new(&self.url, self.signer.clone()).expect("directory client")
    }
}

impl Drop for VehicleDirectory {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

#[tokio::test]
async fn a_terminal_registered_on_another_edge_has_its_vendor_items_read_by_its_maker() {
    let ignored = "telematics_vendor_items_ignored_total{item=\"0xe2\",reason=\"maker\"}";
    let before = metric(ignored);
    let serial = "HB0000001";
    let directory = VehicleDirectory::start(serial).await;
    let nats = NatsServer::start().await;
    let objects = std::env::temp_dir().join("fd-edge-terminal-objects");

    // Registered with another maker's id (Huabao's 70107) on one edge,
    // which then goes away with all it remembered.
    let first = start_edge_with(&nats, directory.client(), &objects).await;
    let mut s = Wire::connect(first.port).await;
    let us = Sender::v2019(PHONE);
    let reg = RegistrationFields {
        province: 44, // Guangdong
        city: 300,
        maker: b"70107",
        model: &[b'M'; 30],
        terminal_id: serial.as_bytes(),
        plate_colour: 0, // none, and no plate
        plate: b"",
    };
    s.send(&frame(0x0100, 1, &reg.body(&us))).await;
    let (id, body) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("0x8100");
    assert_eq!((id, body[2]), (0x8100, 0), "registration accepted");
    let code = body[3..].to_vec();
    drop(s);
    first.shutdown.trigger();

    // A new connection to a new edge sharing only the directory.
    let second = start_edge_with(&nats, directory.client(), &objects).await;
    let mut s = Wire::connect(second.port).await;
    s.send(&frame(0x0102, 2, &authentication(&us, &code, "")))
        .await;
    assert_eq!(result_of(&mut s, 2, 0x0102).await, 0, "authenticated");
    let (id, _) = read_answer(&mut s, Duration::from_secs(5))
        .await
        .expect("0x9003");
    assert_eq!(id, 0x9003);
    // Its own 0xE2 has the length of our one-probe temperature layout.
    let now = chrono::Utc::now();
    let mut report = location_body(bcd_time(now));
    report.extend([0xE2, 4, 1, 2, 0xFF, 0x4A]);
    s.send(&frame(0x0200, 3, &report)).await;
    assert_eq!(result_of(&mut s, 3, 0x0200).await, 0, "accepted");

    let fixes = stored_fixes(&nats).await;
    assert_eq!(fixes.len(), 1, "{fixes:?}");
    let fix = &fixes[0];
    assert_eq!(
        (fix.enterprise_id.as_str(), fix.vehicle_id.as_str()),
        (
            directory.enterprise.to_string().as_str(),
            directory.vehicle.to_string().as_str()
        )
    );
    assert_eq!((fix.latitude, fix.longitude), (31.230416, 121.473701));
    assert_eq!(fix.fix_time.unwrap().seconds, now.timestamp());
    assert!(
        fix.temperatures.is_empty(),
        "another maker's 0xE2 is no probe: {fix:?}"
    );
    assert_eq!(metric(ignored), before + 1);
    second.shutdown.trigger();
}
