//! A simulated camera terminal against a fake platform written here with
//! the JT/T 808 codec: it answers 0x9003 honestly (a camera-less one says
//! "not supported"), streams real H.264 as JT/T 1078 frames on 0x9101,
//! lists its recordings on 0x9205 and plays them on 0x9201, and uploads
//! an active-safety alarm's photo and clip on 0x9208, re-sending exactly
//! the piece the attachment server says is missing. The tests that need
//! ffmpeg skip, saying why, only when it is not installed.

use std::collections::VecDeque;
use std::time::Duration;

use chrono::{DateTime, Duration as Span, NaiveTime, Utc};
use fleetdesk_kit::Shutdown;
use fleetdesk_media::{h264, jt1078, terminal_id};
use fleetdesk_simulator::camera::Recorder;
use fleetdesk_simulator::{Settings, SimVehicle, Start};
use fleetdesk_telematics::jt808::attachment::{AttachmentDecoder, FileAssembly, Received};
use fleetdesk_telematics::jt808::header::{Header, Version};
use fleetdesk_telematics::jt808::id;
use fleetdesk_telematics::jt808::message::{
    Ack, AttachmentUploadRequest, FileType, FileUploadAnswer, LiveCommand, LiveControl, LiveData,
    LiveRequest, MediaServer, PlatformMessage, PlaybackCommand, PlaybackControl, PlaybackMode,
    PlaybackRequest, PlaybackSpeed, RegisterResult, ResourceKind, ResourceQuery, ResourceStream,
    Storage, Stream, TerminalMessage, frame,
};
use fleetdesk_telematics::jt808::packets::Reassembler;
use fleetdesk_telematics::jt808::{FrameDecoder, Location};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};

const ENTERPRISE: &str = "6f1c1c0e-2b53-4a57-8d0e-3d7a5f3f9c01";
const WAIT: Duration = Duration::from_secs(30);

fn vehicle(n: u8, cameras: &[u8], start: Start) -> SimVehicle {
    SimVehicle {
        vehicle_id: format!("00000000-0000-4000-8000-0000000001{n:02}"),
        enterprise_id: ENTERPRISE.to_owned(),
        plate: format!("粤BD{n:05}"),
        phone: format!("14400000000{n:03}"),
        terminal_id: format!("JT808D{n:06}"),
        refrigerated: false,
        start,
        cameras: cameras.to_vec(),
        odometer_m: 30_000_000,
    }
}

fn ffmpeg_or_skip(test: &str) -> bool {
    let found = std::process::Command::new("ffmpeg")
        .arg("-version")
        .output()
        .is_ok_and(|out| out.status.success());
    if !found {
        eprintln!("{test} skipped: ffmpeg is not installed (deploy/ensure-tools.sh ffmpeg)");
    }
    found
}

/// The simulator driving `vehicle` against a platform listening here.
async fn simulate(vehicle: SimVehicle, tune: impl FnOnce(&mut Settings)) -> (Platform, Shutdown) {
    fleetdesk_testkit::init_test_logs();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let edge = listener.local_addr().unwrap().to_string();
    let mut settings = Settings::new(edge, Duration::from_secs(1), 7);
    settings.alarm_chance = 0.0;
    settings.blind_zone_chance = 0.0;
    settings.safety_alarms_per_hour = 0.0;
    tune(&mut settings);
    let shutdown = Shutdown::new();
    tokio::spawn(fleetdesk_simulator::simulate(
        vec![vehicle],
        settings,
        shutdown.clone(),
    ));
    let (stream, _) = tokio::time::timeout(WAIT, listener.accept())
        .await
        .expect("the terminal connects")
        .unwrap();
    let mut platform = Platform {
        stream,
        decoder: FrameDecoder::default(),
        queue: VecDeque::new(),
        packages: Reassembler::default(),
        phone: String::new(),
        serial: 0,
    };
    // Signed on once the first report arrives.
    platform
        .until(|m| {
            matches!(m, TerminalMessage::Location(_) | TerminalMessage::Heartbeat).then_some(())
        })
        .await;
    (platform, shutdown)
}

/// The platform's side of one terminal's 808 connection: it answers
/// registration, authentication and reports as an edge does.
struct Platform {
    stream: TcpStream,
    decoder: FrameDecoder,
    queue: VecDeque<(Header, TerminalMessage)>,
    packages: Reassembler,
    /// As the terminal sends it, zero-padded.
    phone: String,
    serial: u16,
}

impl Platform {
    async fn write(&mut self, message: &PlatformMessage) -> u16 {
        let version = Version::V2019 { protocol: 1 };
        let (msg_id, body) = message.encode(version);
        self.serial = self.serial.wrapping_add(1);
        let header = Header {
            msg_id,
            version,
            phone: self.phone.clone(),
            serial: self.serial,
            package: None,
        };
        self.stream
            .write_all(&frame(&header, &body).unwrap())
            .await
            .unwrap();
        self.serial
    }

    async fn next(&mut self) -> (Header, TerminalMessage) {
        let mut buf = vec![0u8; 4096];
        loop {
            if let Some(next) = self.queue.pop_front() {
                return next;
            }
            let n = self.stream.read(&mut buf).await.unwrap();
            assert!(n > 0, "the terminal closed its connection");
            let mut frames = Vec::new();
            self.decoder.feed(&buf[..n], &mut frames);
            for bytes in frames.into_iter().flatten() {
                let (header, body) = Header::parse(&bytes).unwrap();
                // A long 0x1205 comes in packages.
                let Some((header, body)) = self.packages.push(header, body).unwrap() else {
                    continue;
                };
                let message = TerminalMessage::decode(&header, &body).unwrap();
                self.queue.push_back((header, message));
            }
        }
    }

    /// Answers what the terminal sends until `pick` keeps a message.
    async fn until<T>(&mut self, mut pick: impl FnMut(&TerminalMessage) -> Option<T>) -> T {
        let deadline = tokio::time::Instant::now() + WAIT;
        loop {
            let (header, message) = tokio::time::timeout_at(deadline, self.next())
                .await
                .expect("the terminal answers in time");
            self.phone = header.phone.clone();
            let answer = match &message {
                TerminalMessage::Register(_) => Some(PlatformMessage::RegisterResponse {
                    reply_serial: header.serial,
                    result: RegisterResult::Ok,
                    auth_code: "video-test".into(),
                }),
                TerminalMessage::Authenticate(_)
                | TerminalMessage::Heartbeat
                | TerminalMessage::Location(_)
                | TerminalMessage::BatchLocation { .. } => Some(PlatformMessage::GeneralResponse {
                    reply_serial: header.serial,
                    reply_id: header.msg_id,
                    result: Ack::Ok,
                }),
                _ => None,
            };
            if let Some(answer) = answer {
                self.write(&answer).await;
            }
            if let Some(kept) = pick(&message) {
                return kept;
            }
        }
    }

    /// The terminal's 0x0001 to the message `serial`: its result.
    async fn result_of(&mut self, serial: u16, msg_id: u16) -> u8 {
        self.until(|m| match m {
            TerminalMessage::GeneralResponse {
                reply_serial,
                reply_id,
                result,
            } if *reply_serial == serial => {
                assert_eq!(*reply_id, msg_id);
                Some(*result)
            }
            _ => None,
        })
        .await
    }

    async fn resources_of(
        &mut self,
        serial: u16,
    ) -> Vec<fleetdesk_telematics::jt808::message::Resource> {
        self.until(|m| match m {
            TerminalMessage::ResourceList {
                reply_serial,
                resources,
            } if *reply_serial == serial => Some(resources.clone()),
            TerminalMessage::GeneralResponse {
                reply_serial,
                result,
                ..
            } if *reply_serial == serial => panic!("answered 0x0001 result {result}, not 0x1205"),
            _ => None,
        })
        .await
    }
}

fn server(listener: &TcpListener) -> MediaServer {
    MediaServer {
        address: "127.0.0.1".into(),
        tcp_port: listener.local_addr().unwrap().port(),
        udp_port: 0,
    }
}

fn live(server: MediaServer, channel: u8) -> PlatformMessage {
    PlatformMessage::LiveRequest(LiveRequest {
        server,
        channel,
        data: LiveData::Video,
        stream: Stream::Main,
    })
}

fn live_control(channel: u8, command: LiveCommand) -> PlatformMessage {
    PlatformMessage::LiveControl(LiveControl {
        channel,
        command,
        close: fleetdesk_telematics::jt808::message::CloseWhat::All,
        switch_to: Stream::Main,
    })
}

/// Reads JT/T 1078 frames from a camera's connection until an access unit
/// holding an IDR picture has come whole; (its NAL types, the first frame).
async fn first_keyframe(media: &mut TcpStream) -> (Vec<u8>, jt1078::Frame) {
    let mut decoder = jt1078::Decoder::new();
    let mut reassembler = jt1078::Reassembler::new();
    let mut first = None;
    let mut buf = vec![0u8; 16 * 1024];
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let n = tokio::time::timeout_at(deadline, media.read(&mut buf))
            .await
            .expect("frames arrive in time")
            .unwrap();
        assert!(n > 0, "the camera closed before a keyframe");
        decoder.push(&buf[..n]);
        while let Some(frame) = decoder.next_frame() {
            first.get_or_insert_with(|| frame.clone());
            if let Some(unit) = reassembler.push(frame)
                && unit.data_type == jt1078::DataType::IFrame
            {
                assert_eq!(unit.payload_type, jt1078::PT_H264);
                let types = h264::nal_units(&unit.data)
                    .iter()
                    .map(|nal| h264::nal_type(nal))
                    .collect();
                return (types, first.unwrap());
            }
        }
    }
}

/// Midnight (Beijing) `days` ago, as an instant.
fn beijing_midnight(days: i64) -> DateTime<Utc> {
    let beijing = Utc::now().naive_utc() + Span::hours(8);
    (beijing.date().and_time(NaiveTime::MIN) - Span::days(days) - Span::hours(8)).and_utc()
}

#[tokio::test]
async fn a_camera_vehicle_answers_its_attributes_and_one_without_cameras_says_not_supported() {
    let (mut camera, camera_stop) = simulate(vehicle(1, &[1, 2], Start::Parked), |_| {}).await;
    let serial = camera.write(&PlatformMessage::QueryAvAttributes).await;
    let attributes = camera
        .until(|m| match m {
            TerminalMessage::AvAttributes(a) => Some(*a),
            TerminalMessage::GeneralResponse { reply_serial, .. } if *reply_serial == serial => {
                panic!("0x9003 answered with 0x0001")
            }
            _ => None,
        })
        .await;
    assert_eq!(attributes.video_encoding, 98, "H.264");
    assert_eq!(attributes.max_video_channels, 2);
    assert_eq!(
        (attributes.audio_channels, attributes.max_audio_channels),
        (0, 0),
        "no audio"
    );
    assert!(!attributes.audio_output);
    camera_stop.trigger();

    let (mut plain, plain_stop) = simulate(vehicle(2, &[], Start::Parked), |_| {}).await;
    for (message, msg_id) in [
        (PlatformMessage::QueryAvAttributes, id::QUERY_AV_ATTRIBUTES),
        (
            live(
                MediaServer {
                    address: "127.0.0.1".into(),
                    tcp_port: 9,
                    udp_port: 0,
                },
                1,
            ),
            id::LIVE_REQUEST,
        ),
    ] {
        let serial = plain.write(&message).await;
        assert_eq!(
            plain.result_of(serial, msg_id).await,
            3,
            "not supported: {message:?}"
        );
    }
    plain_stop.trigger();
}

#[tokio::test]
async fn without_ffmpeg_a_camera_refuses_to_stream_but_still_lists_its_recordings() {
    let (mut platform, shutdown) = simulate(vehicle(3, &[1, 2], Start::Parked), |s| {
        s.ffmpeg = "/nonexistent/ffmpeg".into();
    })
    .await;
    let media = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let serial = platform.write(&live(server(&media), 1)).await;
    assert_eq!(platform.result_of(serial, id::LIVE_REQUEST).await, 1);
    let query = PlatformMessage::QueryResources(ResourceQuery {
        channel: 0,
        start: None,
        end: None,
        alarms: 0,
        kind: ResourceKind::AudioOrVideo,
        stream: ResourceStream::Any,
        storage: Storage::Any,
    });
    let serial = platform.write(&query).await;
    assert!(!platform.resources_of(serial).await.is_empty());
    assert!(
        tokio::time::timeout(Duration::from_millis(500), media.accept())
            .await
            .is_err(),
        "nothing connected to the media server"
    );
    shutdown.trigger();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_live_request_streams_h264_as_jt1078_frames_while_reports_go_on() {
    if !ffmpeg_or_skip("a_live_request_streams_h264_as_jt1078_frames_while_reports_go_on") {
        return;
    }
    let vehicle = vehicle(4, &[1, 2], Start::Driving);
    let (mut platform, shutdown) = simulate(vehicle.clone(), |_| {}).await;
    let media = TcpListener::bind("127.0.0.1:0").await.unwrap();

    // A channel the vehicle has no camera on is refused.
    let serial = platform.write(&live(server(&media), 3)).await;
    assert_eq!(platform.result_of(serial, id::LIVE_REQUEST).await, 1);

    let serial = platform.write(&live(server(&media), 1)).await;
    assert_eq!(platform.result_of(serial, id::LIVE_REQUEST).await, 0);
    let (mut stream, _) = tokio::time::timeout(WAIT, media.accept())
        .await
        .expect("the camera connects to the media server")
        .unwrap();
    let (nal_types, first) = first_keyframe(&mut stream).await;
    assert_eq!(terminal_id(&first.sim), vehicle.phone);
    assert_eq!(first.channel, 1);
    for (nal, name) in [(7, "SPS"), (8, "PPS"), (5, "IDR")] {
        assert!(nal_types.contains(&nal), "{name} in {nal_types:?}");
    }

    // The reports keep coming while the camera streams.
    for _ in 0..2 {
        platform
            .until(|m| matches!(m, TerminalMessage::Location(_)).then_some(()))
            .await;
    }
    // Pausing a channel that does not stream fails; switching the one
    // that does to its sub stream reconnects, closing it ends the stream.
    let serial = platform.write(&live_control(2, LiveCommand::Pause)).await;
    assert_eq!(platform.result_of(serial, id::LIVE_CONTROL).await, 1);
    let switch = PlatformMessage::LiveControl(LiveControl {
        channel: 1,
        command: LiveCommand::SwitchStream,
        close: fleetdesk_telematics::jt808::message::CloseWhat::All,
        switch_to: Stream::Sub,
    });
    let serial = platform.write(&switch).await;
    assert_eq!(platform.result_of(serial, id::LIVE_CONTROL).await, 0);
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
    assert!(
        matches!(closed, Ok(Ok(_))),
        "the main stream ended: {closed:?}"
    );
    let (mut stream, _) = tokio::time::timeout(WAIT, media.accept())
        .await
        .expect("the sub stream connects")
        .unwrap();
    let (nal_types, _) = first_keyframe(&mut stream).await;
    assert!(nal_types.contains(&7), "{nal_types:?}");
    let serial = platform.write(&live_control(1, LiveCommand::Close)).await;
    assert_eq!(platform.result_of(serial, id::LIVE_CONTROL).await, 0);
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
    assert!(matches!(closed, Ok(Ok(_))), "closed: {closed:?}");
    shutdown.trigger();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn recordings_are_listed_and_played_back_and_a_time_not_recorded_is_refused() {
    let vehicle = vehicle(5, &[1, 2], Start::Parked);
    let (mut platform, shutdown) = simulate(vehicle.clone(), |_| {}).await;

    // Two days ago, all day: closed files, the same list the recorder gives.
    let (start, end) = (beijing_midnight(2), beijing_midnight(1));
    let query = ResourceQuery {
        channel: 2,
        start: Some(start),
        end: Some(end),
        alarms: 0,
        kind: ResourceKind::AudioOrVideo,
        stream: ResourceStream::Any,
        storage: Storage::Any,
    };
    let serial = platform
        .write(&PlatformMessage::QueryResources(query.clone()))
        .await;
    let listed = platform.resources_of(serial).await;
    let recorder = Recorder::new(&vehicle.phone, &[1, 2]);
    assert_eq!(listed, recorder.find(&query, Utc::now()));
    assert!(
        listed.len() > 20 && listed.iter().all(|r| r.channel == 2),
        "{listed:?}"
    );

    let media = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let playback = |start: DateTime<Utc>, end: DateTime<Utc>| {
        PlatformMessage::PlaybackRequest(PlaybackRequest {
            server: server(&media),
            channel: 2,
            kind: ResourceKind::AudioOrVideo,
            stream: ResourceStream::Any,
            storage: Storage::Any,
            mode: PlaybackMode::Normal,
            speed: PlaybackSpeed::Unset,
            start,
            end: Some(end),
        })
    };
    // 03:00 in Beijing nobody drives: nothing recorded.
    let night = start + Span::hours(3);
    let serial = platform
        .write(&playback(night, night + Span::minutes(1)))
        .await;
    assert_eq!(platform.result_of(serial, id::PLAYBACK_REQUEST).await, 1);

    if !ffmpeg_or_skip("recordings_are_listed_and_played_back (playback)") {
        shutdown.trigger();
        return;
    }
    let file = listed[3].clone();
    let (from, to) = (file.start + Span::minutes(2), file.start + Span::minutes(3));
    let serial = platform.write(&playback(from, to)).await;
    let playing = platform.resources_of(serial).await;
    assert_eq!(playing, [file], "the file being played");
    let (mut stream, _) = tokio::time::timeout(WAIT, media.accept())
        .await
        .expect("the camera connects for the playback")
        .unwrap();
    let (nal_types, first) = first_keyframe(&mut stream).await;
    assert_eq!(first.channel, 2);
    assert!(nal_types.contains(&5), "{nal_types:?}");

    let control = |command, speed| {
        PlatformMessage::PlaybackControl(PlaybackControl {
            channel: 2,
            command,
            speed,
            seek_to: None,
        })
    };
    // A seek plays again from the new position, on a new connection.
    let seek = PlatformMessage::PlaybackControl(PlaybackControl {
        channel: 2,
        command: PlaybackCommand::Seek,
        speed: PlaybackSpeed::Unset,
        seek_to: Some(from + Span::seconds(30)),
    });
    let serial = platform.write(&seek).await;
    assert_eq!(platform.result_of(serial, id::PLAYBACK_CONTROL).await, 0);
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
    assert!(
        matches!(closed, Ok(Ok(_))),
        "the old playback ended: {closed:?}"
    );
    let (mut stream, _) = tokio::time::timeout(WAIT, media.accept())
        .await
        .expect("the camera connects again from the seek position")
        .unwrap();
    let (nal_types, _) = first_keyframe(&mut stream).await;
    assert!(nal_types.contains(&5), "{nal_types:?}");

    for (command, speed, expected) in [
        (PlaybackCommand::Pause, PlaybackSpeed::Unset, 0),
        (PlaybackCommand::Play, PlaybackSpeed::Unset, 0),
        (PlaybackCommand::FastForward, PlaybackSpeed::X4, 0),
        (PlaybackCommand::KeyFrameRewind, PlaybackSpeed::X2, 3),
        (PlaybackCommand::Stop, PlaybackSpeed::Unset, 0),
    ] {
        let serial = platform.write(&control(command, speed)).await;
        assert_eq!(
            platform.result_of(serial, id::PLAYBACK_CONTROL).await,
            expected,
            "{command:?}"
        );
    }
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
    assert!(matches!(closed, Ok(Ok(_))), "stopped: {closed:?}");
    // Nothing plays any more: pausing fails.
    let serial = platform
        .write(&control(PlaybackCommand::Pause, PlaybackSpeed::Unset))
        .await;
    assert_eq!(platform.result_of(serial, id::PLAYBACK_CONTROL).await, 1);
    shutdown.trigger();
}

/// One file as the attachment server received it.
struct Arrived {
    name: String,
    file_type: FileType,
    data: Vec<u8>,
    assembly: FileAssembly,
    /// Rounds of 0x1212 that found pieces missing.
    incomplete_rounds: usize,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_active_safety_alarms_photo_and_clip_are_uploaded_and_a_missing_piece_sent_again() {
    if !ffmpeg_or_skip("an_active_safety_alarms_photo_and_clip_are_uploaded") {
        return;
    }
    let vehicle = vehicle(6, &[1, 2], Start::Driving);
    let (mut platform, shutdown) = simulate(vehicle.clone(), |s| {
        // Every driving report carries one.
        s.safety_alarms_per_hour = 1e9;
    })
    .await;
    let location: Location = platform
        .until(|m| match m {
            TerminalMessage::Location(l) if !l.safety_alarms.is_empty() => Some(l.clone()),
            _ => None,
        })
        .await;
    let alarm = location.safety_alarms[0].clone();
    let identifier = alarm.identifier.clone();
    assert_eq!(identifier.terminal_id, "D000006");
    assert_eq!(identifier.attachment_count, 2);
    assert_eq!(identifier.time, location.time);
    let (item, event, channel) = match alarm.kind {
        fleetdesk_telematics::jt808::location::SafetyKind::Adas { event, .. } => {
            assert!((1..=3).contains(&event));
            (0x64, event, 1)
        }
        fleetdesk_telematics::jt808::location::SafetyKind::Dms { event, .. } => {
            assert!((1..=4).contains(&event));
            (0x65, event, 2)
        }
        other => panic!("{other:?}"),
    };

    let attachments = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let alarm_number = "ALM20261129000042";
    let serial = platform
        .write(&PlatformMessage::AttachmentUpload(
            AttachmentUploadRequest {
                server: server(&attachments),
                identifier: identifier.clone(),
                alarm_number: alarm_number.into(),
            },
        ))
        .await;
    assert_eq!(platform.result_of(serial, id::ATTACHMENT_UPLOAD).await, 0);
    // An alarm it never raised has no files.
    let mut unknown = identifier.clone();
    unknown.serial = 9;
    let serial = platform
        .write(&PlatformMessage::AttachmentUpload(
            AttachmentUploadRequest {
                server: server(&attachments),
                identifier: unknown,
                alarm_number: "ALM-UNKNOWN".into(),
            },
        ))
        .await;
    assert_eq!(platform.result_of(serial, id::ATTACHMENT_UPLOAD).await, 1);

    let (mut upload, _) = tokio::time::timeout(WAIT, attachments.accept())
        .await
        .expect("the terminal connects to the attachment server")
        .unwrap();
    let mut decoder = AttachmentDecoder::default();
    let mut listed = None;
    let mut files: Vec<Arrived> = Vec::new();
    let mut withheld = None;
    let mut serial = 0u16;
    let mut buf = vec![0u8; 64 * 1024];
    let deadline = tokio::time::Instant::now() + WAIT;
    loop {
        let n = tokio::time::timeout_at(deadline, upload.read(&mut buf))
            .await
            .expect("the upload goes on")
            .unwrap();
        if n == 0 {
            break;
        }
        let mut received = Vec::new();
        decoder.feed(&buf[..n], &mut received);
        for item in received {
            match item.unwrap() {
                Received::Data(packet) => {
                    assert!(packet.data.len() <= 64 * 1024);
                    let file = files
                        .iter_mut()
                        .find(|f| f.name == packet.file_name)
                        .expect("0x1211 before the data");
                    // The clip's second packet is lost the first time.
                    if file.file_type == FileType::Video && packet.offset > 0 && withheld.is_none()
                    {
                        withheld = Some(packet.piece());
                        continue;
                    }
                    let at = packet.offset as usize;
                    file.data[at..at + packet.data.len()].copy_from_slice(&packet.data);
                    file.assembly.record(packet.piece()).unwrap();
                }
                Received::Frame(bytes) => {
                    let (header, body) = Header::parse(&bytes).unwrap();
                    match TerminalMessage::decode(&header, body).unwrap() {
                        TerminalMessage::AlarmAttachments(a) => listed = Some(a),
                        TerminalMessage::FileInfo(info) => files.push(Arrived {
                            data: vec![0; info.size as usize],
                            assembly: FileAssembly::new(info.size),
                            name: info.name,
                            file_type: info.file_type,
                            incomplete_rounds: 0,
                        }),
                        TerminalMessage::FileUploaded(info) => {
                            let file = files.iter_mut().find(|f| f.name == info.name).unwrap();
                            let missing = file.assembly.missing();
                            file.incomplete_rounds += usize::from(!missing.is_empty());
                            let (msg_id, body) =
                                PlatformMessage::FileUploadAnswer(FileUploadAnswer {
                                    file_name: info.name,
                                    file_type: info.file_type,
                                    missing,
                                })
                                .encode(header.version);
                            serial += 1;
                            let answer = Header {
                                msg_id,
                                serial,
                                package: None,
                                ..header
                            };
                            upload
                                .write_all(&frame(&answer, &body).unwrap())
                                .await
                                .unwrap();
                        }
                        other => panic!("unexpected on the attachment connection: {other:?}"),
                    }
                }
            }
        }
    }

    let listed = listed.expect("0x1210 came first");
    assert_eq!(listed.terminal_id, "D000006");
    assert_eq!(listed.identifier, identifier);
    assert_eq!(listed.alarm_number, alarm_number);
    let kind = format!("{item:02X}{event:02X}");
    let names: Vec<&str> = listed.files.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        [
            format!("00_{channel}_{kind}_0_{alarm_number}.jpg"),
            format!("02_{channel}_{kind}_0_{alarm_number}.mp4"),
        ]
    );
    assert_eq!(files.len(), 2);
    for (file, announced) in files.iter().zip(&listed.files) {
        assert!(file.assembly.is_complete(), "{} complete", file.name);
        assert_eq!(file.data.len() as u32, announced.size);
    }
    let (photo, clip) = (&files[0], &files[1]);
    assert_eq!(photo.incomplete_rounds, 0);
    assert_eq!(
        clip.incomplete_rounds, 1,
        "the withheld piece was asked for once"
    );
    assert!(withheld.is_some_and(|p| p.length as usize <= 64 * 1024));
    assert_eq!(&photo.data[..2], &[0xff, 0xd8]);
    assert_eq!(&photo.data[photo.data.len() - 2..], &[0xff, 0xd9]);

    // A real MP4: its index before the media, about five seconds of H.264.
    let at = |tag: &[u8]| clip.data.windows(4).position(|w| w == tag);
    assert_eq!(at(b"ftyp"), Some(4));
    assert!(at(b"moov").unwrap() < at(b"mdat").unwrap(), "faststart");
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("clip.mp4");
    std::fs::write(&path, &clip.data).unwrap();
    let probe = std::process::Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-show_entries",
            "stream=codec_name,width:format=duration",
            "-of",
            "json",
        ])
        .arg(&path)
        .output()
        .unwrap();
    assert!(
        probe.status.success(),
        "{}",
        String::from_utf8_lossy(&probe.stderr)
    );
    let probe: serde_json::Value = serde_json::from_slice(&probe.stdout).unwrap();
    assert_eq!(probe["streams"][0]["codec_name"], "h264");
    let seconds: f64 = probe["format"]["duration"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((4.5..=5.5).contains(&seconds), "{seconds} s");
    shutdown.trigger();
}
