//! Active-safety evidence and camera attributes end to end over real
//! sockets and a real NATS. The test terminal follows JT/T 808-2019 and
//! 苏标 (T/JSATL 12-2017) §4.5 with this crate's codec (not the simulator):
//! it reports an ADAS alarm with attachments, is asked for them with
//! 0x9208, and uploads them to the attachment server (0x1210, 0x1211, data
//! packets with a piece left out, 0x1212 → 0x9212 → the piece again →
//! 0x1212 → complete).

use crate::support;

use std::sync::Arc;
use std::time::Duration;

use chrono::{TimeZone as _, Utc};
use fleetdesk_kit::Shutdown;
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_telematics::directory::StaticDirectory;
use fleetdesk_telematics::jt808::FrameDecoder;
use fleetdesk_telematics::jt808::attachment::{DataPacket, FilePiece};
use fleetdesk_telematics::jt808::header::{Header, Version};
use fleetdesk_telematics::jt808::location::{
    AlarmFlag, AlarmIdentifier, AlarmScene, Location, SafetyAlarm, SafetyKind,
};
use fleetdesk_telematics::jt808::message::{
    Ack, AlarmAttachments, AttachmentFile, AttachmentUploadRequest, Authentication, AvAttributes,
    FileInfo, FileType, FileUploadAnswer, PlatformMessage, Registration, TerminalMessage, frame,
};
use fleetdesk_testkit::NatsServer;
use support::{all_stream_messages, metric, one_terminal};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

const PHONE: &str = "13912345678";
const ENTERPRISE: &str = "0d9b6f0e-8f61-4c53-9a39-5d0f2d1c7a11";
const VEHICLE: &str = "5b0c2a4e-3f1d-4c8e-9a7b-1e2d3c4b5a69";
const VERSION: Version = Version::V2019 { protocol: 1 };

// ---- The terminal ----------------------------------------------------------

/// A terminal's socket (the 808 link or an attachment connection).
struct Terminal {
    stream: TcpStream,
    decoder: FrameDecoder,
    frames: Vec<Vec<u8>>,
    serial: u16,
}

impl Terminal {
    async fn connect(port: u16) -> Terminal {
        Terminal {
            stream: TcpStream::connect(("127.0.0.1", port)).await.unwrap(),
            decoder: FrameDecoder::default(),
            frames: Vec::new(),
            serial: 0,
        }
    }

    /// Sends `message`; returns its serial.
    async fn send(&mut self, message: &TerminalMessage) -> u16 {
        let (msg_id, body) = message.encode(VERSION).unwrap();
        self.serial += 1;
        let header = Header {
            msg_id,
            version: VERSION,
            phone: format!("{PHONE:0>20}"),
            serial: self.serial,
            package: None,
        };
        self.stream
            .write_all(&frame(&header, &body).unwrap())
            .await
            .unwrap();
        self.serial
    }

    async fn write(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// The platform's next message; `None` on timeout or a closed socket.
    async fn next(&mut self, within: Duration) -> Option<(Header, PlatformMessage)> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            if !self.frames.is_empty() {
                let bytes = self.frames.remove(0);
                let (header, body) = Header::parse(&bytes).unwrap();
                let message = PlatformMessage::decode(&header, body).unwrap();
                return Some((header, message));
            }
            let mut buf = [0u8; 2048];
            let n = tokio::time::timeout_at(deadline, self.stream.read(&mut buf))
                .await
                .ok()?
                .ok()?;
            if n == 0 {
                return None;
            }
            let mut out = Vec::new();
            self.decoder.feed(&buf[..n], &mut out);
            self.frames.extend(out.into_iter().map(|f| f.unwrap()));
        }
    }

    async fn expect(&mut self, what: &str) -> PlatformMessage {
        self.next(Duration::from_secs(5))
            .await
            .unwrap_or_else(|| panic!("no {what}"))
            .1
    }

    /// Whether the edge closed the connection (within two seconds).
    async fn closed(&mut self) -> bool {
        let mut buf = [0u8; 64];
        matches!(
            tokio::time::timeout(Duration::from_secs(2), self.stream.read(&mut buf)).await,
            Ok(Ok(0) | Err(_))
        )
    }
}

fn general(serial: u16, msg_id: u16, result: Ack) -> PlatformMessage {
    PlatformMessage::GeneralResponse {
        reply_serial: serial,
        reply_id: msg_id,
        result,
    }
}

/// Registers and authenticates; the edge then asks 0x9003.
async fn sign_on(port: u16) -> Terminal {
    let mut t = Terminal::connect(port).await;
    t.send(&TerminalMessage::Register(Registration {
        province: 31,
        city: 100,
        manufacturer: "FLEET".into(),
        model: "ADAS-1".into(),
        terminal_id: "TERM001".into(),
        plate_color: 0,
        plate: "LZWADAGB0PB000001".into(),
    }))
    .await;
    let PlatformMessage::RegisterResponse { auth_code, .. } = t.expect("0x8100").await else {
        panic!("not 0x8100");
    };
    let serial = t
        .send(&TerminalMessage::Authenticate(Authentication {
            code: auth_code,
            imei: Some("888888888888888".into()),
            software_version: Some("1.0.0".into()),
        }))
        .await;
    assert_eq!(t.expect("0x8001").await, general(serial, 0x0102, Ack::Ok));
    assert_eq!(
        t.expect("0x9003").await,
        PlatformMessage::QueryAvAttributes,
        "the edge asks every terminal what it can stream"
    );
    t
}

fn identifier() -> AlarmIdentifier {
    AlarmIdentifier {
        terminal_id: "TERM001".into(),
        // 2026-11-23 10:03:04 Beijing.
        time: Utc.with_ymd_and_hms(2026, 11, 23, 2, 3, 4).unwrap(),
        serial: 0,
        attachment_count: 2,
    }
}

/// A report with an ADAS forward-collision warning (level 2, start) that
/// holds two files.
fn report_with_alarm() -> Location {
    let time = Utc.with_ymd_and_hms(2026, 11, 23, 2, 3, 4).unwrap();
    Location {
        alarm: 0,
        status: 0b11,
        latitude: 22.543_096,
        longitude: 114.057_865,
        altitude_m: 35,
        speed_dkmh: 600,
        heading: 90,
        time,
        mileage_m: None,
        signal: None,
        satellites: None,
        soc_percent: None,
        temperatures: Vec::new(),
        safety_alarms: vec![SafetyAlarm {
            alarm_id: 7,
            flag: AlarmFlag::Start,
            kind: SafetyKind::Adas {
                event: 1,
                level: 2,
                front_speed_kmh: 50,
                headway_ds: 12,
                departure: 0,
                road_sign: 0,
                road_sign_value: 0,
            },
            scene: AlarmScene {
                speed_kmh: 60,
                altitude_m: 35,
                latitude: 22.543_096,
                longitude: 114.057_865,
                time,
                vehicle_status: 1,
            },
            identifier: identifier(),
        }],
    }
}

// ---- The edge ------------------------------------------------------------

struct Edge {
    port: u16,
    attachment_port: u16,
    directory: Arc<StaticDirectory>,
    objects: tempfile::TempDir,
    shutdown: Shutdown,
}

impl Drop for Edge {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

async fn start_edge(nats: &NatsServer) -> Edge {
    let objects = tempfile::tempdir().unwrap();
    let directory = Arc::new(one_terminal(PHONE, ENTERPRISE, VEHICLE));
    let config = support::config(&nats.url(), objects.path());
    let running = support::start_edge(&config, directory.clone()).await;
    Edge {
        port: running.port,
        attachment_port: running.attachment_port,
        directory,
        objects,
        shutdown: running.shutdown,
    }
}

/// Every file under the object store's directory.
fn stored_files(dir: &std::path::Path) -> Vec<std::path::PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for entry in std::fs::read_dir(&d).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

/// The value of a counter with one label, as /metrics shows it.
fn counter(name: &str, label: &str, value: &str) -> u64 {
    metric(&format!("{name}{{{label}=\"{value}\"}}"))
}

/// Reports the alarm and returns the 0x9208 it brought.
async fn report_and_get_asked(t: &mut Terminal) -> AttachmentUploadRequest {
    let serial = t
        .send(&TerminalMessage::Location(report_with_alarm()))
        .await;
    assert_eq!(t.expect("0x8001").await, general(serial, 0x0200, Ack::Ok));
    let PlatformMessage::AttachmentUpload(request) = t.expect("0x9208").await else {
        panic!("not 0x9208");
    };
    request
}

// ---- Tests -----------------------------------------------------------------

#[tokio::test]
async fn an_adas_alarm_is_published_and_its_evidence_is_uploaded_with_a_resent_piece_and_stored_once()
 {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut t = sign_on(edge.port).await;

    let request = report_and_get_asked(&mut t).await;
    assert_eq!(request.server.address, "127.0.0.1");
    assert_eq!(request.server.tcp_port, edge.attachment_port);
    assert_eq!(request.identifier, identifier());
    assert_eq!(request.alarm_number.len(), 32);
    // The same report again (its answer was lost): answered, not asked twice.
    let serial = t
        .send(&TerminalMessage::Location(report_with_alarm()))
        .await;
    assert_eq!(t.expect("0x8001").await, general(serial, 0x0200, Ack::Ok));
    assert_eq!(t.next(Duration::from_millis(700)).await, None, "one 0x9208");

    let fixes: Vec<pb::Fix> = all_stream_messages(&nats, "telemetry.*.*").await;
    assert_eq!(fixes.len(), 1, "the resent report is deduplicated");
    assert_eq!(
        fixes[0].safety_alarms,
        vec![pb::SafetyAlarm {
            alarm_key: "TERM001-261123020304-0".into(),
            source: pb::SafetySource::Adas as i32,
            event: 1,
            level: 2,
            flag: 1,
            attachment_count: 2,
            time: Some(prost_types::Timestamp {
                seconds: identifier().time.timestamp(),
                nanos: 0,
            }),
            latitude: 22.543_096,
            longitude: 114.057_865,
            speed_kmh: 60,
        }]
    );

    // The upload, on the attachment port.
    let photo: Vec<u8> = (0..3000u32).map(|i| (i * 7 % 256) as u8).collect();
    let name = format!("00_64_6401_0_{}.jpg", request.alarm_number);
    let mut up = Terminal::connect(edge.attachment_port).await;
    let serial = up
        .send(&TerminalMessage::AlarmAttachments(AlarmAttachments {
            terminal_id: "TERM001".into(),
            identifier: identifier(),
            alarm_number: request.alarm_number.clone(),
            supplement: false,
            files: vec![
                AttachmentFile {
                    name: name.clone(),
                    size: photo.len() as u32,
                },
                AttachmentFile {
                    name: format!("02_64_6401_0_{}.mp4", request.alarm_number),
                    size: 10,
                },
            ],
        }))
        .await;
    assert_eq!(up.expect("0x8001").await, general(serial, 0x1210, Ack::Ok));
    let info = FileInfo {
        name: name.clone(),
        file_type: FileType::Picture,
        size: photo.len() as u32,
    };
    let serial = up.send(&TerminalMessage::FileInfo(info.clone())).await;
    assert_eq!(up.expect("0x8001").await, general(serial, 0x1211, Ack::Ok));
    let packet = |offset: usize| DataPacket {
        file_name: name.clone(),
        offset: offset as u32,
        data: photo[offset..(offset + 1000).min(photo.len())].to_vec(),
    };
    // Pieces 0 and 2000; 1000 left out.
    for offset in [0, 2000] {
        up.write(&packet(offset).encode().unwrap()).await;
    }
    up.send(&TerminalMessage::FileUploaded(info.clone())).await;
    assert_eq!(
        up.expect("0x9212").await,
        PlatformMessage::FileUploadAnswer(FileUploadAnswer {
            file_name: name.clone(),
            file_type: FileType::Picture,
            missing: vec![FilePiece {
                offset: 1000,
                length: 1000
            }],
        })
    );
    up.write(&packet(1000).encode().unwrap()).await;
    let complete = PlatformMessage::FileUploadAnswer(FileUploadAnswer {
        file_name: name.clone(),
        file_type: FileType::Picture,
        missing: Vec::new(),
    });
    up.send(&TerminalMessage::FileUploaded(info.clone())).await;
    assert_eq!(up.expect("0x9212").await, complete);
    // Its 0x1212 once more (our answer lost): complete, not stored again.
    up.send(&TerminalMessage::FileUploaded(info)).await;
    assert_eq!(up.expect("0x9212").await, complete);

    let stored: Vec<pb::MediaStored> = all_stream_messages(&nats, "telemetry.*.*.media").await;
    assert_eq!(stored.len(), 1, "{stored:?}");
    let m = &stored[0];
    assert_eq!(
        (
            m.enterprise_id.as_str(),
            m.vehicle_id.as_str(),
            m.alarm_key.as_str(),
            m.file_name.as_str(),
        ),
        (ENTERPRISE, VEHICLE, "TERM001-261123020304-0", name.as_str())
    );
    assert_eq!(
        (
            m.media_type,
            m.channel,
            m.content_type.as_str(),
            m.size_bytes
        ),
        (0, 64, "image/jpeg", photo.len() as i64)
    );
    assert!(m.object_key.starts_with(&format!("{ENTERPRISE}/media/")));
    let files = stored_files(edge.objects.path());
    assert_eq!(files.len(), 1, "{files:?}");
    assert_eq!(files[0], edge.objects.path().join(&m.object_key));
    assert_eq!(std::fs::read(&files[0]).unwrap(), photo);
}

#[tokio::test]
async fn an_upload_naming_an_alarm_number_not_handed_out_is_refused_and_closed() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let before = counter(
        "telematics_attachment_connections_closed_total",
        "reason",
        "unknown_alarm",
    );
    let mut up = Terminal::connect(edge.attachment_port).await;
    let serial = up
        .send(&TerminalMessage::AlarmAttachments(AlarmAttachments {
            terminal_id: "TERM001".into(),
            identifier: identifier(),
            alarm_number: "0123456789abcdef0123456789abcdef".into(),
            supplement: false,
            files: vec![AttachmentFile {
                name: "00_64_6401_0_x.jpg".into(),
                size: 10,
            }],
        }))
        .await;
    assert_eq!(
        up.expect("0x8001").await,
        general(serial, 0x1210, Ack::Failed)
    );
    assert!(up.closed().await, "the connection is closed");
    assert_eq!(
        counter(
            "telematics_attachment_connections_closed_total",
            "reason",
            "unknown_alarm"
        ),
        before + 1
    );

    // A number handed out for another alarm is no better.
    let mut t = sign_on(edge.port).await;
    let request = report_and_get_asked(&mut t).await;
    let mut other = identifier();
    other.serial = 9;
    let mut up = Terminal::connect(edge.attachment_port).await;
    let serial = up
        .send(&TerminalMessage::AlarmAttachments(AlarmAttachments {
            terminal_id: "TERM001".into(),
            identifier: other,
            alarm_number: request.alarm_number,
            supplement: false,
            files: Vec::new(),
        }))
        .await;
    assert_eq!(
        up.expect("0x8001").await,
        general(serial, 0x1210, Ack::Failed)
    );
    assert!(up.closed().await);
}

#[tokio::test]
async fn garbage_and_unknown_files_on_the_attachment_port_are_counted_and_the_upload_goes_on() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut t = sign_on(edge.port).await;
    let request = report_and_get_asked(&mut t).await;
    let malformed = counter("telematics_attachment_frames_total", "result", "malformed");
    let unknown = counter(
        "telematics_attachment_frames_total",
        "result",
        "unknown_file",
    );

    let mut up = Terminal::connect(edge.attachment_port).await;
    // Noise, a frame with a bad check code, then a data packet of no file.
    up.write(&[0x00, 0x11, 0x22, 0x33]).await;
    up.write(&[0x7e, 0x12, 0x10, 0x00, 0x01, 0x99, 0x7e]).await;
    up.write(
        &DataPacket {
            file_name: "stray.jpg".into(),
            offset: 0,
            data: vec![1, 2, 3],
        }
        .encode()
        .unwrap(),
    )
    .await;
    let name = format!("00_65_6501_0_{}.jpg", request.alarm_number);
    let serial = up
        .send(&TerminalMessage::AlarmAttachments(AlarmAttachments {
            terminal_id: "TERM001".into(),
            identifier: identifier(),
            alarm_number: request.alarm_number.clone(),
            supplement: false,
            files: vec![AttachmentFile {
                name: name.clone(),
                size: 4,
            }],
        }))
        .await;
    assert_eq!(up.expect("0x8001").await, general(serial, 0x1210, Ack::Ok));
    assert!(counter("telematics_attachment_frames_total", "result", "malformed") >= malformed + 2);
    assert!(
        counter(
            "telematics_attachment_frames_total",
            "result",
            "unknown_file"
        ) > unknown
    );

    // A name the list did not give, and a file over the size limit, are refused.
    let serial = up
        .send(&TerminalMessage::FileInfo(FileInfo {
            name: "00_65_6501_0_other.jpg".into(),
            file_type: FileType::Picture,
            size: 4,
        }))
        .await;
    assert_eq!(
        up.expect("0x8001").await,
        general(serial, 0x1211, Ack::Failed)
    );
    let serial = up
        .send(&TerminalMessage::FileInfo(FileInfo {
            name: name.clone(),
            file_type: FileType::Picture,
            size: 65 * 1024 * 1024,
        }))
        .await;
    assert_eq!(
        up.expect("0x8001").await,
        general(serial, 0x1211, Ack::Failed)
    );

    // The listed file still goes through.
    let info = FileInfo {
        name: name.clone(),
        file_type: FileType::Picture,
        size: 4,
    };
    let serial = up.send(&TerminalMessage::FileInfo(info.clone())).await;
    assert_eq!(up.expect("0x8001").await, general(serial, 0x1211, Ack::Ok));
    up.write(
        &DataPacket {
            file_name: name.clone(),
            offset: 0,
            data: vec![0xff, 0xd8, 0xff, 0xd9],
        }
        .encode()
        .unwrap(),
    )
    .await;
    up.send(&TerminalMessage::FileUploaded(info)).await;
    assert_eq!(
        up.expect("0x9212").await,
        PlatformMessage::FileUploadAnswer(FileUploadAnswer {
            file_name: name,
            file_type: FileType::Picture,
            missing: Vec::new(),
        })
    );
}

#[tokio::test]
async fn the_terminals_av_attributes_reach_the_directory_and_a_silent_terminal_is_left_alone() {
    let nats = NatsServer::start().await;
    let edge = start_edge(&nats).await;
    let mut t = sign_on(edge.port).await;
    // No answer at first: nothing is asked again, the link works.
    assert_eq!(t.next(Duration::from_millis(700)).await, None);
    let serial = t.send(&TerminalMessage::Heartbeat).await;
    assert_eq!(t.expect("0x8001").await, general(serial, 0x0002, Ack::Ok));
    assert_eq!(edge.directory.av_attributes(PHONE), None);

    let attributes = AvAttributes {
        audio_encoding: 6,
        audio_channels: 1,
        sampling_rate: 0,
        sample_bits: 1,
        audio_frame_len: 320,
        audio_output: false,
        video_encoding: 98,
        max_audio_channels: 1,
        max_video_channels: 4,
    };
    let serial = t.send(&TerminalMessage::AvAttributes(attributes)).await;
    assert_eq!(t.expect("0x8001").await, general(serial, 0x1003, Ack::Ok));
    assert_eq!(edge.directory.av_attributes(PHONE), Some(attributes));
}
