//! Video end to end over real sockets and a real NATS: a terminal written
//! from JT/T 808-2019 and JT/T 1078-2016 (its 808 frames built byte by
//! byte, not with this crate's codec) signs on, answers the video messages
//! and streams real H.264 from ffmpeg to the media port, packed with
//! `fleetdesk_media::jt1078::Encoder`; viewers call `MediaService` over
//! gRPC with an internal token.

use crate::support;

use std::collections::HashMap;
use std::process::Command;
use std::sync::Arc;
use std::time::{Duration, Instant};

use fleetdesk_kit::Shutdown;
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_media::jt1078::{DataType, Encoder, PT_H264, SimLayout, VideoIntervals};
use fleetdesk_proto::telematics::v1 as pb;
use fleetdesk_proto::telematics::v1::media_service_client::MediaServiceClient;
use fleetdesk_telematics::directory::{Binding, StaticDirectory};
use fleetdesk_telematics::video::VideoConfig;
use fleetdesk_testkit::NatsServer;
use support::{RegistrationFields, Sender, Wire, bcd, frame, terminal_ack};
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;
use tokio::sync::mpsc;
use tonic::transport::Channel;

const GRACE: Duration = Duration::from_secs(2);

// ---- The terminal's side of JT/T 808-2019 --------------------------------

/// Signs on (0x0100, 0x0102) and answers the edge's 0x9003 with its
/// attributes.
async fn sign_on(port: u16, phone: &str) -> Wire {
    let sender = Sender::v2019(phone);
    let registration = RegistrationFields::fleet(0, b"LZWADAGB0PB000001");
    let mut wire = support::sign_on(port, &sender, &registration.body(&sender), "").await;
    wire.send(&frame(&sender, 0x1003, 3, &ATTRIBUTES)).await;
    wire
}

/// 0x1003: G.711A mono 8 kHz 16-bit, 320-byte frames, no output; H.264,
/// 1 audio and 4 video channels.
const ATTRIBUTES: [u8; 10] = [6, 1, 0, 1, 0x01, 0x40, 0, 98, 1, 4];

/// A server field (JT/T 1078 Table 17): length BYTE, address, TCP WORD, UDP WORD.
fn read_server(body: &[u8]) -> (String, u16, usize) {
    let len = usize::from(body[0]);
    let host = String::from_utf8(body[1..1 + len].to_vec()).unwrap();
    let tcp = u16::from_be_bytes([body[1 + len], body[2 + len]]);
    (host, tcp, 1 + len + 4)
}

// ---- The terminal ----------------------------------------------------------

/// What the terminal was told, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// 0x9101: server, channel, data type, stream type.
    Live {
        host: String,
        port: u16,
        channel: u8,
        data: u8,
        stream: u8,
    },
    /// 0x9102: channel, command, what to close.
    LiveControl {
        channel: u8,
        command: u8,
        close: u8,
    },
    /// 0x9205: the whole body.
    QueryResources(Vec<u8>),
    /// 0x9201: server, channel.
    Playback {
        port: u16,
        channel: u8,
    },
    /// 0x9202: channel, command.
    PlaybackControl {
        channel: u8,
        command: u8,
    },
    QueryAttributes,
}

#[derive(Clone, Copy)]
struct Behaviour {
    /// 0x0001 result for 0x9101.
    live_result: u8,
    /// Whether it then streams.
    streams: bool,
}

/// Streams the clip to the media port in real time (15 fps), from the
/// start again at its end, until aborted.
async fn stream_clip(host: String, port: u16, phone: String, channel: u8, clip: Arc<Vec<u8>>) {
    let mut socket = TcpStream::connect((host.as_str(), port))
        .await
        .expect("media port");
    let mut encoder = Encoder::new(&phone, channel, SimLayout::Bcd10, PT_H264).unwrap();
    let units: Vec<&[u8]> = fleetdesk_media::h264::access_units(&clip);
    let (mut i, mut last_i_ms) = (0u64, 0u64);
    loop {
        for unit in &units {
            let timestamp_ms = 1_000 + i * 1000 / 15;
            let keyframe =
                fleetdesk_media::h264::is_keyframe(&fleetdesk_media::h264::nal_units(unit));
            if keyframe {
                last_i_ms = timestamp_ms;
            }
            let intervals = VideoIntervals {
                since_last_i_frame: (timestamp_ms - last_i_ms) as u16,
                since_last_frame: if i == 0 { 0 } else { 67 },
            };
            let data_type = if keyframe {
                DataType::IFrame
            } else {
                DataType::PFrame
            };
            let mut out = Vec::new();
            encoder.encode(data_type, timestamp_ms, intervals, unit, &mut out);
            if socket.write_all(&out).await.is_err() {
                return;
            }
            i += 1;
            tokio::time::sleep(Duration::from_millis(66)).await;
        }
    }
}

/// Signs on and answers the platform until the connection ends; reports
/// what it was told.
async fn run_terminal(
    edge_port: u16,
    phone: String,
    clip: Arc<Vec<u8>>,
    behaviour: Behaviour,
    seen: mpsc::UnboundedSender<Seen>,
) {
    let mut wire = sign_on(edge_port, &phone).await;
    let sender = Sender::v2019(&phone);
    let mut serial = 3u16;
    let mut streaming: HashMap<(bool, u8), tokio::task::JoinHandle<()>> = HashMap::new();
    while let Some(m) = wire.recv().await {
        let mut answers = Vec::new();
        match m.msg_id {
            0x9101 => {
                let (host, port, at) = read_server(&m.body);
                let (channel, data, stream) = (m.body[at], m.body[at + 1], m.body[at + 2]);
                let _ = seen.send(Seen::Live {
                    host: host.clone(),
                    port,
                    channel,
                    data,
                    stream,
                });
                answers.push((
                    0x0001,
                    terminal_ack(m.serial, 0x9101, behaviour.live_result),
                ));
                if behaviour.live_result == 0 && behaviour.streams {
                    let task = tokio::spawn(stream_clip(
                        host,
                        port,
                        phone.clone(),
                        channel,
                        clip.clone(),
                    ));
                    if let Some(old) = streaming.insert((false, channel), task) {
                        old.abort();
                    }
                }
            }
            0x9102 => {
                let (channel, command, close) = (m.body[0], m.body[1], m.body[2]);
                let _ = seen.send(Seen::LiveControl {
                    channel,
                    command,
                    close,
                });
                if command == 0
                    && let Some(task) = streaming.remove(&(false, channel))
                {
                    task.abort();
                }
                answers.push((0x0001, terminal_ack(m.serial, 0x9102, 0)));
            }
            0x9003 => {
                let _ = seen.send(Seen::QueryAttributes);
                answers.push((0x1003, ATTRIBUTES.to_vec()));
            }
            0x9205 => {
                let _ = seen.send(Seen::QueryResources(m.body.clone()));
                let mut body = m.serial.to_be_bytes().to_vec();
                body.extend(2u32.to_be_bytes());
                for (channel, start, end, size) in [
                    (1u8, "261123100000", "261123101500", 52_428_800u32),
                    (2, "261123103000", "261123104500", 1_048_576),
                ] {
                    body.push(channel);
                    body.extend(bcd(start));
                    body.extend(bcd(end));
                    body.extend((1u64 << 32).to_be_bytes()); // video signal lost
                    body.extend([2, 1, 1]); // video, main stream, main store
                    body.extend(size.to_be_bytes());
                }
                answers.push((0x1205, body));
            }
            0x9201 => {
                let (host, port, at) = read_server(&m.body);
                let channel = m.body[at];
                let _ = seen.send(Seen::Playback { port, channel });
                answers.push((0x0001, terminal_ack(m.serial, 0x9201, 0)));
                let task = tokio::spawn(stream_clip(
                    host,
                    port,
                    phone.clone(),
                    channel,
                    clip.clone(),
                ));
                if let Some(old) = streaming.insert((true, channel), task) {
                    old.abort();
                }
            }
            0x9202 => {
                let (channel, command) = (m.body[0], m.body[1]);
                let _ = seen.send(Seen::PlaybackControl { channel, command });
                if command == 2
                    && let Some(task) = streaming.remove(&(true, channel))
                {
                    task.abort();
                }
                answers.push((0x0001, terminal_ack(m.serial, 0x9202, 0)));
            }
            _ => {}
        }
        for (msg_id, body) in answers {
            serial += 1;
            if wire
                .try_send(&frame(&sender, msg_id, serial, &body))
                .await
                .is_err()
            {
                return;
            }
        }
    }
    for task in streaming.into_values() {
        task.abort();
    }
}

// ---- The edge and its callers --------------------------------------------

/// Three seconds of 320x240 H.264 baseline at 15 fps, a keyframe a second.
fn clip() -> Arc<Vec<u8>> {
    static CLIP: std::sync::OnceLock<Arc<Vec<u8>>> = std::sync::OnceLock::new();
    CLIP.get_or_init(|| {
        let args = "-v error -f lavfi -i testsrc2=size=320x240:rate=15 -t 3 -pix_fmt yuv420p \
                    -c:v libx264 -profile:v baseline -g 15 -f h264 -";
        let output = Command::new("ffmpeg")
            .args(args.split_whitespace())
            .output()
            .unwrap_or_else(|err| {
                panic!("ffmpeg is required (deploy/ensure-tools.sh ffmpeg): {err}")
            });
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        Arc::new(output.stdout)
    })
    .clone()
}

struct Edge {
    port: u16,
    media_port: u16,
    playback_port: u16,
    grpc_port: u16,
    signer: TokenSigner,
    shutdown: Shutdown,
    nats_url: String,
    /// Held by the first edge of a test; the others share it.
    _nats: Option<NatsServer>,
}

impl Drop for Edge {
    fn drop(&mut self) {
        self.shutdown.trigger();
    }
}

/// An edge knowing `phones` (each its own vehicle), on free ports and its
/// own NATS.
async fn start_edge(phones: &[&str]) -> Edge {
    let nats = NatsServer::start().await;
    let mut edge = start_replica(phones, &nats.url(), TokenSigner::generate()).await;
    edge._nats = Some(nats);
    edge
}

/// Another replica of the edge on the same NATS.
async fn start_replica(phones: &[&str], nats_url: &str, signer: TokenSigner) -> Edge {
    let directory = StaticDirectory::new(phones.iter().map(|phone| {
        (
            (*phone).to_owned(),
            Binding {
                enterprise_id: "e1".into(),
                vehicle_id: format!("v-{phone}"),
            },
        )
    }));
    let mut config = support::config(
        nats_url,
        &std::env::temp_dir().join("fd-edge-video-objects"),
    );
    config.common.internal_signing_key = Some(signer.seed_base64());
    config.video = VideoConfig {
        media_grace_secs: GRACE.as_secs(),
        media_open_timeout_secs: 5,
        ..VideoConfig::local()
    };
    let running = support::start_edge(&config, directory).await;
    Edge {
        port: running.port,
        media_port: running.media_port,
        playback_port: running.playback_port,
        grpc_port: running.grpc_port,
        signer,
        shutdown: running.shutdown,
        nats_url: nats_url.to_owned(),
        _nats: None,
    }
}

impl Edge {
    async fn client(&self) -> MediaServiceClient<Channel> {
        MediaServiceClient::connect(format!("http://127.0.0.1:{}", self.grpc_port))
            .await
            .unwrap()
    }

    /// A request as the gateway sends it: a service token.
    fn request<T>(&self, message: T) -> tonic::Request<T> {
        fleetdesk_kit::grpc::outgoing(message, &self.signer, &Claims::service("gateway"))
    }

    fn terminal(&self, phone: &str, behaviour: Behaviour) -> mpsc::UnboundedReceiver<Seen> {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(run_terminal(
            self.port,
            phone.to_owned(),
            clip(),
            behaviour,
            tx,
        ));
        rx
    }
}

const WILLING: Behaviour = Behaviour {
    live_result: 0,
    streams: true,
};

/// A phone no other test uses (each test has its own NATS, but be plain).
fn phone(n: u8) -> String {
    format!("1391234{n:04}")
}

/// Waits until the terminal has signed on: an empty command finds its
/// connection (which answers it "unsupported").
async fn until_online(edge: &Edge, phone: &str) {
    let nats = async_nats::connect(&edge.nats_url).await.unwrap();
    for _ in 0..100 {
        let probe = nats
            .request(
                fleetdesk_kit::subjects::telematics_command(phone),
                bytes_of(&pb::VehicleCommand::default()),
            )
            .await;
        if probe.is_ok() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("terminal {phone} never came online");
}

fn bytes_of(m: &impl prost::Message) -> bytes::Bytes {
    m.encode_to_vec().into()
}

/// The segments of a watch until `fragments` media fragments arrived.
async fn segments(
    stream: &mut tonic::Streaming<pb::WatchLiveResponse>,
    fragments: usize,
) -> Vec<pb::MediaSegment> {
    let mut got = Vec::new();
    while got.iter().filter(|s: &&pb::MediaSegment| !s.init).count() < fragments {
        let next = tokio::time::timeout(Duration::from_secs(10), stream.message())
            .await
            .expect("a segment within 10 s")
            .expect("no error")
            .expect("the stream goes on");
        got.push(next.segment.expect("a segment"));
    }
    got
}

/// The segments, concatenated, are an MP4 ffprobe decodes: H.264 320x240,
/// a frame per fragment at least.
fn assert_plays(viewer: &str, segments: &[pb::MediaSegment]) {
    let file = tempfile::NamedTempFile::new().unwrap();
    let bytes: Vec<u8> = segments.iter().flat_map(|s| s.data.clone()).collect();
    std::fs::write(file.path(), bytes).unwrap();
    let output = Command::new("ffprobe")
        .args([
            "-v",
            "error",
            "-count_frames",
            "-select_streams",
            "v:0",
            "-show_entries",
            "stream=codec_name,width,height,nb_read_frames",
            "-of",
            "csv=p=0",
        ])
        .arg(file.path())
        .output()
        .expect("ffprobe is required (deploy/ensure-tools.sh ffmpeg)");
    let text = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    assert!(
        output.status.success(),
        "{viewer}: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    let fields: Vec<&str> = text.split(',').collect();
    assert_eq!(&fields[..3], ["h264", "320", "240"], "{viewer}: {text}");
    let frames: usize = fields[3].parse().unwrap();
    let fragments = segments.iter().filter(|s| !s.init).count();
    assert!(
        frames >= fragments,
        "{viewer}: {frames} frames in {fragments} fragments"
    );
}

async fn next_seen(seen: &mut mpsc::UnboundedReceiver<Seen>, within: Duration) -> Option<Seen> {
    tokio::time::timeout(within, seen.recv())
        .await
        .ok()
        .flatten()
}

// ---- Tests ---------------------------------------------------------------

#[tokio::test]
async fn two_viewers_share_one_upstream_and_the_last_leaving_closes_it_after_the_grace() {
    let phone = phone(1);
    let edge = start_edge(&[&phone]).await;
    let mut seen = edge.terminal(&phone, WILLING);
    until_online(&edge, &phone).await;

    let watch = |mut client: MediaServiceClient<Channel>| {
        let request = edge.request(pb::WatchLiveRequest {
            phone: phone.clone(),
            channel: 1,
            stream_type: pb::StreamType::Main as i32,
        });
        async move { client.watch_live(request).await }
    };
    let client = edge.client().await;
    let (a, b) = tokio::join!(watch(client.clone()), watch(client.clone()));
    let (mut a, mut b) = (a.unwrap().into_inner(), b.unwrap().into_inner());
    for (viewer, stream) in [("a", &mut a), ("b", &mut b)] {
        let got = segments(stream, 20).await;
        assert_plays(viewer, &got);
        assert!(got[0].init, "an init segment first");
        assert!(got[0].codec.starts_with("avc1.42"), "{}", got[0].codec);
        assert_eq!(&got[0].data[4..8], b"ftyp");
        let fragments: Vec<_> = got.iter().filter(|s| !s.init).collect();
        assert!(fragments[0].keyframe, "fragments start at a keyframe");
        assert!(fragments.iter().all(|f| &f.data[4..8] == b"moof"));
    }
    let live = next_seen(&mut seen, Duration::from_secs(1)).await;
    assert_eq!(
        live,
        Some(Seen::Live {
            host: "127.0.0.1".into(),
            port: edge.media_port,
            channel: 1,
            data: 1,
            stream: 0,
        })
    );
    assert_eq!(
        next_seen(&mut seen, Duration::from_millis(200)).await,
        None,
        "one 0x9101 for two viewers"
    );

    drop(a);
    tokio::time::sleep(GRACE + Duration::from_secs(1)).await;
    assert_eq!(
        next_seen(&mut seen, Duration::from_millis(100)).await,
        None,
        "still watched by one"
    );
    let _ = segments(&mut b, 3).await;
    let left = Instant::now();
    drop(b);
    let close = next_seen(&mut seen, GRACE + Duration::from_secs(5)).await;
    assert_eq!(
        close,
        Some(Seen::LiveControl {
            channel: 1,
            command: 0,
            close: 0,
        })
    );
    assert!(
        left.elapsed() >= GRACE - Duration::from_millis(200),
        "closed after the grace, not at once: {:?}",
        left.elapsed()
    );
    assert_eq!(
        next_seen(&mut seen, Duration::from_millis(500)).await,
        None,
        "one close"
    );
}

#[tokio::test]
async fn a_viewer_coming_back_within_the_grace_keeps_the_stream_open() {
    let phone = phone(2);
    let edge = start_edge(&[&phone]).await;
    let mut seen = edge.terminal(&phone, WILLING);
    until_online(&edge, &phone).await;
    let request = || {
        edge.request(pb::WatchLiveRequest {
            phone: phone.clone(),
            channel: 2,
            stream_type: pb::StreamType::Sub as i32,
        })
    };
    let mut client = edge.client().await;
    let mut first = client.watch_live(request()).await.unwrap().into_inner();
    let _ = segments(&mut first, 2).await;
    assert!(matches!(
        next_seen(&mut seen, Duration::from_secs(1)).await,
        Some(Seen::Live {
            channel: 2,
            stream: 1,
            ..
        })
    ));
    drop(first);
    tokio::time::sleep(GRACE / 2).await;
    let mut again = client.watch_live(request()).await.unwrap().into_inner();
    let got = segments(&mut again, 2).await;
    assert!(got[0].init, "the late viewer gets the init segment at once");
    tokio::time::sleep(GRACE + Duration::from_secs(1)).await;
    assert_eq!(
        next_seen(&mut seen, Duration::from_millis(100)).await,
        None,
        "neither closed nor opened again"
    );
}

#[tokio::test]
async fn an_offline_terminal_gives_a_clear_error_quickly() {
    let edge = start_edge(&[&phone(3)]).await;
    let mut client = edge.client().await;
    let started = Instant::now();
    let status = client
        .watch_live(edge.request(pb::WatchLiveRequest {
            phone: phone(3),
            channel: 1,
            stream_type: pb::StreamType::Main as i32,
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable);
    assert_eq!(status.message(), "终端不在线");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test]
async fn a_terminal_refusing_the_live_request_is_a_conflict_with_its_words() {
    let phone = phone(4);
    let edge = start_edge(&[&phone]).await;
    let _seen = edge.terminal(
        &phone,
        Behaviour {
            live_result: 1,
            streams: false,
        },
    );
    until_online(&edge, &phone).await;
    let status = edge
        .client()
        .await
        .watch_live(edge.request(pb::WatchLiveRequest {
            phone: phone.clone(),
            channel: 1,
            stream_type: pb::StreamType::Main as i32,
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::FailedPrecondition);
    assert_eq!(status.message(), "终端拒绝执行");
}

#[tokio::test]
async fn a_terminal_that_agrees_but_never_streams_is_unavailable_and_told_to_close() {
    let phone = phone(9);
    let edge = start_edge(&[&phone]).await;
    let mut seen = edge.terminal(
        &phone,
        Behaviour {
            live_result: 0,
            streams: false,
        },
    );
    until_online(&edge, &phone).await;
    let started = Instant::now();
    let status = edge
        .client()
        .await
        .watch_live(edge.request(pb::WatchLiveRequest {
            phone: phone.clone(),
            channel: 3,
            stream_type: pb::StreamType::Main as i32,
        }))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unavailable);
    assert_eq!(status.message(), "终端视频流未到达");
    assert!(
        started.elapsed() < Duration::from_secs(8),
        "bounded by the open timeout"
    );
    assert!(matches!(
        next_seen(&mut seen, Duration::from_secs(1)).await,
        Some(Seen::Live { channel: 3, .. })
    ));
    assert_eq!(
        next_seen(&mut seen, GRACE + Duration::from_secs(5)).await,
        Some(Seen::LiveControl {
            channel: 3,
            command: 0,
            close: 0,
        }),
        "what it was told to open is closed again"
    );
}

#[tokio::test]
async fn a_terminal_on_another_replica_streams_to_the_replica_its_viewer_called() {
    let phone = phone(10);
    let holding = start_edge(&[&phone]).await;
    let mut seen = holding.terminal(&phone, WILLING);
    until_online(&holding, &phone).await;
    let other = start_replica(&[&phone], &holding.nats_url, holding.signer.clone()).await;

    let mut watch = other
        .client()
        .await
        .watch_live(other.request(pb::WatchLiveRequest {
            phone: phone.clone(),
            channel: 1,
            stream_type: pb::StreamType::Main as i32,
        }))
        .await
        .unwrap()
        .into_inner();
    let got = segments(&mut watch, 3).await;
    assert!(got[0].init);
    assert!(
        matches!(
            next_seen(&mut seen, Duration::from_secs(1)).await,
            Some(Seen::Live { port, .. }) if port == other.media_port
        ),
        "told the media port of the replica the viewer called"
    );

    // That replica stopping ends its viewers and closes what it opened.
    other.shutdown.trigger();
    let ended = tokio::time::timeout(Duration::from_secs(5), watch.message()).await;
    assert!(matches!(ended, Ok(Ok(None)) | Ok(Err(_))), "{ended:?}");
    assert_eq!(
        next_seen(&mut seen, Duration::from_secs(5)).await,
        Some(Seen::LiveControl {
            channel: 1,
            command: 0,
            close: 0,
        })
    );
}

#[tokio::test]
async fn a_resource_query_comes_back_as_the_terminals_list() {
    let phone = phone(5);
    let edge = start_edge(&[&phone]).await;
    let mut seen = edge.terminal(&phone, WILLING);
    until_online(&edge, &phone).await;
    // 2026-11-23 10:00 to 11:00 Beijing time.
    let (from, to) = (1_795_399_200, 1_795_402_800);
    let answer = edge
        .client()
        .await
        .list_resources(edge.request(pb::ListResourcesRequest {
            phone: phone.clone(),
            channel: 0,
            start_time: Some(prost_types::Timestamp {
                seconds: from,
                nanos: 0,
            }),
            end_time: Some(prost_types::Timestamp {
                seconds: to,
                nanos: 0,
            }),
        }))
        .await
        .unwrap()
        .into_inner();
    let Some(Seen::QueryResources(body)) = next_seen(&mut seen, Duration::from_secs(1)).await
    else {
        panic!("no 0x9205");
    };
    let mut expected = vec![0];
    expected.extend(bcd("261123100000"));
    expected.extend(bcd("261123110000"));
    expected.extend(0u64.to_be_bytes());
    expected.extend([3, 0, 0]); // audio or video, any stream, any store
    assert_eq!(body, expected, "0x9205 per JT/T 1078 Table 23");

    let got: Vec<(u32, i64, i64, u64, u64, i32)> = answer
        .resources
        .iter()
        .map(|r| {
            (
                r.channel,
                r.start_time.unwrap().seconds,
                r.end_time.unwrap().seconds,
                r.alarms,
                r.size_bytes,
                r.stream_type,
            )
        })
        .collect();
    let main = pb::StreamType::Main as i32;
    assert_eq!(
        got,
        vec![
            (1, from, from + 900, 1 << 32, 52_428_800, main),
            (2, from + 1800, from + 2700, 1 << 32, 1_048_576, main),
        ]
    );
}

#[tokio::test]
async fn the_terminals_av_attributes_come_back() {
    let phone = phone(6);
    let edge = start_edge(&[&phone]).await;
    let _seen = edge.terminal(&phone, WILLING);
    until_online(&edge, &phone).await;
    let attributes = edge
        .client()
        .await
        .get_av_attributes(edge.request(pb::GetAvAttributesRequest {
            phone: phone.clone(),
        }))
        .await
        .unwrap()
        .into_inner()
        .attributes
        .unwrap();
    assert_eq!(
        (
            attributes.audio_encoding,
            attributes.audio_frame_length,
            attributes.video_encoding,
            attributes.max_video_channels
        ),
        (6, 320, 98, 4)
    );
}

#[tokio::test]
async fn a_playback_streams_to_its_own_port_and_stops_when_its_viewer_goes() {
    let phone = phone(7);
    let edge = start_edge(&[&phone]).await;
    let mut seen = edge.terminal(&phone, WILLING);
    until_online(&edge, &phone).await;
    let mut client = edge.client().await;
    let request = || {
        edge.request(pb::WatchPlaybackRequest {
            phone: phone.clone(),
            channel: 1,
            start_time: Some(prost_types::Timestamp {
                seconds: 1_795_399_200,
                nanos: 0,
            }),
            end_time: None,
            mode: pb::PlaybackMode::Normal as i32,
            speed: 0,
        })
    };
    let mut playback = client.watch_playback(request()).await.unwrap().into_inner();
    let first = tokio::time::timeout(Duration::from_secs(10), playback.message())
        .await
        .unwrap()
        .unwrap()
        .unwrap()
        .segment
        .unwrap();
    assert!(first.init);
    assert_eq!(
        next_seen(&mut seen, Duration::from_secs(1)).await,
        Some(Seen::Playback {
            port: edge.playback_port,
            channel: 1
        })
    );
    let busy = client.watch_playback(request()).await.unwrap_err();
    assert_eq!(busy.code(), tonic::Code::FailedPrecondition);

    client
        .control_playback(edge.request(pb::ControlPlaybackRequest {
            phone: phone.clone(),
            channel: 1,
            action: pb::PlaybackAction::Pause as i32,
            speed: 0,
            seek_time: None,
        }))
        .await
        .unwrap();
    assert_eq!(
        next_seen(&mut seen, Duration::from_secs(1)).await,
        Some(Seen::PlaybackControl {
            channel: 1,
            command: 1
        })
    );
    drop(playback);
    assert_eq!(
        next_seen(&mut seen, Duration::from_secs(5)).await,
        Some(Seen::PlaybackControl {
            channel: 1,
            command: 2
        }),
        "stopped when its viewer went"
    );
}

#[tokio::test]
async fn media_service_refuses_calls_without_a_service_token() {
    let edge = start_edge(&[]).await;
    let mut client = edge.client().await;
    let status = client
        .get_av_attributes(pb::GetAvAttributesRequest { phone: phone(8) })
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::Unauthenticated);
    let mut user = Claims::service("gateway");
    user.sub = "user:42".into();
    let status = client
        .get_av_attributes(fleetdesk_kit::grpc::outgoing(
            pb::GetAvAttributesRequest { phone: phone(8) },
            &edge.signer,
            &user,
        ))
        .await
        .unwrap_err();
    assert_eq!(status.code(), tonic::Code::PermissionDenied);
}
