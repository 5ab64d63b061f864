//! (m) One camera fanned out to `viewers` browsers: a terminal of the demo
//! enterprise signs on to the stack's device edge over JT/T 808, answers
//! 0x9003 (one H.264 camera) and 0x9101, and streams a real H.264
//! elementary stream (ffmpeg's `testsrc` at the simulator's main-stream
//! size and bit rate, 640x360 400 kbit/s, at 25 fps, a keyframe a second,
//! no B frames) as JT/T 1078 frames to the edge's media port, one
//! access unit every 40 ms stamped with the wall clock. `viewers` HTTP
//! clients read `/api/v1/video/vehicles/{id}/live?channel=1` through the
//! gateway at once (one upstream, remuxed to fMP4 once, fanned out).
//! Measured: the gateway's and the edge's CPU per viewer (from /proc), and
//! the delay from the terminal writing an access unit to a viewer receiving
//! the fragment that carries it.
//!
//! Baseline, in the same run and from the same terminal code and bytes: a
//! bare TCP relay (`video-relay`, a child process so /proc gives its CPU
//! alone) that reads the terminal's 1078 byte stream on one socket and
//! copies every byte to `viewers` TCP clients; no auth, remux or gRPC.
//!
//! /proc counts CPU in 10 ms ticks: with 50 viewers over 20 s one tick is
//! 10 µs per viewer-second, so the CPU figures are whole tens.
//!
//! Matching a fragment to its access unit: the terminal puts one SEI NAL
//! unit (user data unregistered, JT/T 1078 carries it like any NAL unit and
//! the edge's muxer keeps it in the sample) before each picture's slices:
//! a fixed 16-byte UUID, then the access unit's sequence as 8 hex digits
//! (no zero bytes, so no start-code emulation). Viewers of both paths find
//! it in the bytes they receive, in a 1078 frame's body or an fMP4 `mdat`.
//! x264's own SEI (its version banner) is dropped so parameter sets and
//! the mark always sit in an access unit's first 1078 frame.
//!
//! The delay is measured from the terminal's write to the viewer's read,
//! both in this process: an upper bound on "arrival at the edge to leaving
//! the gateway" (it adds the loopback hops terminal → edge and gateway →
//! viewer; the relay's figure has the same two hops). The edge's muxer
//! emits a frame's fragment when the next frame arrives (the fragment's
//! duration is the gap between the two timestamps), so the delay from the
//! next access unit's write is printed as well.

use std::collections::VecDeque;
use std::io::BufRead as _;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;
use bytes::{Bytes, BytesMut};
use fleetdesk_media::h264;
use fleetdesk_media::jt1078::{DataType, Encoder, PT_H264, SimLayout, VideoIntervals};
use fleetdesk_simulator::camera::Profile;
use fleetdesk_telematics::jt808::FrameDecoder;
use fleetdesk_telematics::jt808::header::{Header, Version};
use fleetdesk_telematics::jt808::message::{
    Ack, Authentication, AvAttributes, LiveCommand, PlatformMessage, RegisterResult, Registration,
    Stream, TerminalMessage, frame,
};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;
use uuid::Uuid;

use crate::fleet;

const FPS: u64 = 25;
const FRAME: Duration = Duration::from_millis(1000 / FPS);
const CHANNEL: u8 = 1;
const VERSION: Version = Version::V2019 { protocol: 1 };
/// The SEI's UUID; its first byte occurs nowhere else in it, so a partial
/// match can never hide the start of a whole one.
const MARK: [u8; 16] = *b"Fleetdesk-bench!";
/// UUID + the sequence as 8 hex digits.
const MARK_LEN: usize = MARK.len() + 8;
const START_CODE: [u8; 4] = [0, 0, 0, 1];

#[derive(Debug, Clone)]
pub struct Args {
    pub database_url: String,
    /// The gateway, e.g. http://127.0.0.1:8080.
    pub base_url: String,
    pub token: String,
    /// The device edge's JT/T 808 address.
    pub edge_addr: String,
    pub gateway_pid: u32,
    pub edge_pid: u32,
    pub viewers: usize,
    pub seconds: u64,
    pub warmup: u64,
    pub ffmpeg: String,
}

/// One access unit of the source, split where the mark goes: the parameter
/// sets before the picture, then its slices (Annex B, start codes kept).
struct Unit {
    before: Vec<u8>,
    slices: Vec<u8>,
    keyframe: bool,
}

impl Unit {
    /// The access unit with the mark of `sequence` before its slices.
    fn marked(&self, sequence: u32) -> Vec<u8> {
        let mut out = Vec::with_capacity(self.before.len() + 36 + self.slices.len());
        out.extend_from_slice(&self.before);
        out.extend_from_slice(&START_CODE);
        // SEI, payload type 5 (user data unregistered), payload size 24.
        out.extend_from_slice(&[h264::nal::SEI, 5, MARK_LEN as u8]);
        out.extend_from_slice(&MARK);
        out.extend_from_slice(format!("{sequence:08x}").as_bytes());
        out.push(0x80); // rbsp trailing bits
        out.extend_from_slice(&self.slices);
        out
    }
}

/// Ten seconds of ffmpeg's test picture as H.264 (Annex B), in memory, at
/// a dashcam's main-stream size and bit rate (the simulator's).
fn encode_source(ffmpeg: &str) -> anyhow::Result<Vec<u8>> {
    let Profile {
        width,
        height,
        bitrate_kbps,
        ..
    } = Profile::of(Stream::Main);
    let output = Command::new(ffmpeg)
        .args(["-hide_banner", "-loglevel", "error", "-f", "lavfi", "-i"])
        .arg(format!("testsrc=size={width}x{height}:rate={FPS}"))
        .args(["-t", "10", "-c:v", "libx264", "-pix_fmt", "yuv420p"])
        .arg("-b:v")
        .arg(format!("{bitrate_kbps}k"))
        .arg("-maxrate")
        .arg(format!("{bitrate_kbps}k"))
        .arg("-bufsize")
        .arg(format!("{}k", bitrate_kbps * 2))
        .args(["-g", &FPS.to_string(), "-bf", "0", "-f", "h264", "-"])
        .stdin(Stdio::null())
        .output()
        .with_context(|| format!("run {ffmpeg} (deploy/ensure-tools.sh ffmpeg)"))?;
    anyhow::ensure!(
        output.status.success(),
        "ffmpeg failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(output.stdout)
}

/// The stream's access units, x264's SEI dropped.
fn units(stream: &[u8]) -> Vec<Unit> {
    h264::access_units(stream)
        .into_iter()
        .map(|au| {
            let nals = h264::nal_units(au);
            let mut unit = Unit {
                before: Vec::new(),
                slices: Vec::new(),
                keyframe: h264::is_keyframe(&nals),
            };
            for nal in nals {
                let kind = h264::nal_type(nal);
                if kind == h264::nal::SEI {
                    continue;
                }
                let part = if (1..=5).contains(&kind) || !unit.slices.is_empty() {
                    &mut unit.slices
                } else {
                    &mut unit.before
                };
                part.extend_from_slice(&START_CODE);
                part.extend_from_slice(nal);
            }
            unit
        })
        .filter(|u| !u.slices.is_empty())
        .collect()
}

/// When each access unit was written, by its sequence: a ring far longer
/// than a run's frames.
struct Clock {
    epoch: Instant,
    tags: Vec<AtomicU32>,
    nanos: Vec<AtomicU64>,
    next: AtomicU32,
}

impl Clock {
    const RING: usize = 1 << 15;

    fn new() -> Clock {
        Clock {
            epoch: Instant::now(),
            tags: (0..Self::RING).map(|_| AtomicU32::new(u32::MAX)).collect(),
            nanos: (0..Self::RING).map(|_| AtomicU64::new(0)).collect(),
            next: AtomicU32::new(0),
        }
    }

    fn now(&self) -> u64 {
        self.epoch.elapsed().as_nanos() as u64
    }

    /// The next sequence, stamped now.
    fn stamp(&self) -> u32 {
        let sequence = self.next.fetch_add(1, Ordering::AcqRel);
        let slot = sequence as usize % Self::RING;
        self.nanos[slot].store(self.now(), Ordering::Release);
        self.tags[slot].store(sequence, Ordering::Release);
        sequence
    }

    fn sent(&self, sequence: u32) -> Option<u64> {
        let slot = sequence as usize % Self::RING;
        (self.tags[slot].load(Ordering::Acquire) == sequence)
            .then(|| self.nanos[slot].load(Ordering::Acquire))
    }

    fn written(&self) -> u32 {
        self.next.load(Ordering::Acquire)
    }
}

/// Finds the marks in a byte stream that arrives in pieces.
#[derive(Default)]
struct Marks {
    pending: Vec<u8>,
}

impl Marks {
    /// Calls `found` with the sequence of every whole mark completed by
    /// `chunk`; each position is looked at once, when MARK_LEN bytes follow.
    fn feed(&mut self, chunk: &[u8], mut found: impl FnMut(u32)) {
        self.pending.extend_from_slice(chunk);
        let buf = &self.pending;
        let Some(last) = buf.len().checked_sub(MARK_LEN) else {
            return;
        };
        let mut at = 0;
        while let Some(i) = buf[at..=last].iter().position(|&b| b == MARK[0]) {
            let start = at + i;
            let hex = &buf[start + MARK.len()..start + MARK_LEN];
            if buf[start..start + MARK.len()] == MARK
                && let Some(sequence) = std::str::from_utf8(hex)
                    .ok()
                    .and_then(|h| u32::from_str_radix(h, 16).ok())
            {
                found(sequence);
            }
            at = start + 1;
            if at > last {
                break;
            }
        }
        self.pending.drain(..=last);
    }
}

/// What the viewers of one phase saw while measuring.
#[derive(Debug, Default)]
struct Seen {
    fragments: usize,
    bytes: u64,
    /// From the access unit's write.
    delays_ms: Vec<f64>,
    /// From the next access unit's write (the edge's muxer waits for it).
    after_next_ms: Vec<f64>,
}

impl Seen {
    fn add(&mut self, other: Seen) {
        self.fragments += other.fragments;
        self.bytes += other.bytes;
        self.delays_ms.extend(other.delays_ms);
        self.after_next_ms.extend(other.after_next_ms);
    }

    fn note(&mut self, clock: &Clock, sequence: u32, arrived: u64) {
        let Some(sent) = clock.sent(sequence) else {
            return;
        };
        self.fragments += 1;
        self.delays_ms
            .push(arrived.saturating_sub(sent) as f64 / 1e6);
        if let Some(next) = clock
            .sent(sequence.wrapping_add(1))
            .filter(|n| *n <= arrived)
        {
            self.after_next_ms.push((arrived - next) as f64 / 1e6);
        }
    }
}

/// Where a viewer reads from.
#[derive(Clone)]
enum Source {
    Relay(String),
    Gateway {
        client: reqwest::Client,
        url: String,
        token: String,
    },
}

/// Flags shared by a phase's viewers.
#[derive(Clone)]
struct Phase {
    clock: Arc<Clock>,
    measuring: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
    connected: Arc<AtomicUsize>,
}

impl Phase {
    fn new(clock: Arc<Clock>) -> Phase {
        Phase {
            clock,
            measuring: Arc::new(AtomicBool::new(false)),
            done: Arc::new(AtomicBool::new(false)),
            connected: Arc::new(AtomicUsize::new(0)),
        }
    }

    fn take(&self, marks: &mut Marks, seen: &mut Seen, chunk: &[u8]) {
        let arrived = self.clock.now();
        let measuring = self.measuring.load(Ordering::Acquire);
        if measuring {
            seen.bytes += chunk.len() as u64;
        }
        marks.feed(chunk, |sequence| {
            if measuring {
                seen.note(&self.clock, sequence, arrived);
            }
        });
    }
}

async fn view(source: Source, phase: Phase) -> anyhow::Result<Seen> {
    let mut seen = Seen::default();
    let mut marks = Marks::default();
    let tick = Duration::from_secs(1);
    match source {
        Source::Relay(addr) => {
            let mut socket = TcpStream::connect(&addr).await?;
            socket.set_nodelay(true)?;
            phase.connected.fetch_add(1, Ordering::AcqRel);
            let mut buf = vec![0u8; 64 * 1024];
            while !phase.done.load(Ordering::Acquire) {
                let Ok(read) = tokio::time::timeout(tick, socket.read(&mut buf)).await else {
                    continue;
                };
                let n = read?;
                anyhow::ensure!(n > 0, "the relay closed the stream");
                phase.take(&mut marks, &mut seen, &buf[..n]);
            }
        }
        Source::Gateway { client, url, token } => {
            let mut answer = client.get(&url).header("token", token).send().await?;
            anyhow::ensure!(
                answer.status().is_success(),
                "{url}: HTTP {}: {}",
                answer.status(),
                answer.text().await.unwrap_or_default()
            );
            phase.connected.fetch_add(1, Ordering::AcqRel);
            while !phase.done.load(Ordering::Acquire) {
                let Ok(chunk) = tokio::time::timeout(tick, answer.chunk()).await else {
                    continue;
                };
                let chunk = chunk?.with_context(|| format!("{url}: the stream ended"))?;
                phase.take(&mut marks, &mut seen, &chunk);
            }
        }
    }
    Ok(seen)
}

/// Streams the source as JT/T 1078 frames of `sim`'s channel to `addr`,
/// one access unit per 40 ms, until the server closes the connection.
async fn stream(addr: String, sim: String, units: Arc<Vec<Unit>>, clock: Arc<Clock>) {
    if let Err(err) = stream_to(&addr, &sim, &units, &clock).await {
        eprintln!("(m) the terminal's stream to {addr} ended: {err:#}");
    }
}

async fn stream_to(addr: &str, sim: &str, units: &[Unit], clock: &Clock) -> anyhow::Result<()> {
    let mut socket = TcpStream::connect(addr)
        .await
        .with_context(|| format!("connect to the media server {addr}"))?;
    socket.set_nodelay(true)?;
    let mut encoder = Encoder::new(sim, CHANNEL, SimLayout::Bcd10, PT_H264)?;
    let mut ticks = tokio::time::interval(FRAME);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
    let (mut last_key, mut last_frame): (Option<Instant>, Option<Instant>) = (None, None);
    let mut out = Vec::new();
    for unit in units.iter().cycle() {
        ticks.tick().await;
        let now = Instant::now();
        let since = |t: Option<Instant>| {
            t.map_or(0, |t| {
                u16::try_from(now.duration_since(t).as_millis()).unwrap_or(u16::MAX)
            })
        };
        let intervals = VideoIntervals {
            since_last_i_frame: since(last_key),
            since_last_frame: since(last_frame),
        };
        last_frame = Some(now);
        if unit.keyframe {
            last_key = Some(now);
        }
        let kind = if unit.keyframe {
            DataType::IFrame
        } else {
            DataType::PFrame
        };
        let timestamp_ms = u64::try_from(chrono::Utc::now().timestamp_millis()).unwrap_or(0);
        let sequence = clock.stamp();
        out.clear();
        encoder.encode(
            kind,
            timestamp_ms,
            intervals,
            &unit.marked(sequence),
            &mut out,
        );
        if socket.write_all(&out).await.is_err() {
            return Ok(());
        }
    }
    Ok(())
}

// ---- The terminal's JT/T 808 link -----------------------------------------

/// The vehicle the terminal is bound to.
struct Vehicle {
    id: Uuid,
    plate: String,
    terminal_id: String,
    sim: String,
}

/// The first vehicle of the demo enterprise with an active terminal binding
/// whose SIM a JT/T 808-2019 header can carry.
async fn vehicle(pool: &sqlx_postgres::PgPool) -> anyhow::Result<Vehicle> {
    let enterprise = fleet::enterprise(pool).await?;
    let (id, plate, terminal_id, sim): (Uuid, String, String, String) = sqlx::query_as(
        "select v.id, v.plate_number, b.target_id, b.terminal_sim \
         from vehicle_binding b join vehicle v on v.id = b.vehicle_id \
         where v.enterprise_id = $1 and b.kind = 3 and b.unbound_at is null \
         and b.terminal_sim ~ '^[0-9]{1,20}$' order by v.id limit 1",
    )
    .bind(enterprise)
    .fetch_one(pool)
    .await
    .context("a demo vehicle with a terminal")?;
    Ok(Vehicle {
        id,
        plate,
        terminal_id,
        sim,
    })
}

struct Link {
    socket: TcpStream,
    decoder: FrameDecoder,
    queued: VecDeque<(Header, PlatformMessage)>,
    phone: String,
    serial: u16,
}

impl Link {
    async fn send(&mut self, message: &TerminalMessage) -> anyhow::Result<()> {
        let (msg_id, body) = message.encode(VERSION)?;
        let header = Header {
            msg_id,
            version: VERSION,
            phone: self.phone.clone(),
            serial: self.serial,
            package: None,
        };
        self.serial = self.serial.wrapping_add(1);
        self.socket.write_all(&frame(&header, &body)?).await?;
        Ok(())
    }

    async fn ack(&mut self, header: &Header, result: u8) -> anyhow::Result<()> {
        self.send(&TerminalMessage::GeneralResponse {
            reply_serial: header.serial,
            reply_id: header.msg_id,
            result,
        })
        .await
    }

    /// The next platform message (cancel-safe: what was read stays queued).
    async fn recv(&mut self) -> anyhow::Result<(Header, PlatformMessage)> {
        let mut buf = [0u8; 2048];
        loop {
            if let Some(next) = self.queued.pop_front() {
                return Ok(next);
            }
            let n = self.socket.read(&mut buf).await?;
            anyhow::ensure!(n > 0, "the edge closed the JT/T 808 link");
            let mut frames = Vec::new();
            self.decoder.feed(&buf[..n], &mut frames);
            for bytes in frames.into_iter().flatten() {
                let Ok((header, body)) = Header::parse(&bytes) else {
                    continue;
                };
                if let Ok(message) = PlatformMessage::decode(&header, body) {
                    self.queued.push_back((header.clone(), message));
                }
            }
        }
    }
}

/// Registers (0x0100) and authenticates (0x0102) the vehicle's terminal.
async fn sign_on(edge: &str, vehicle: &Vehicle) -> anyhow::Result<Link> {
    let socket = TcpStream::connect(edge)
        .await
        .with_context(|| format!("connect to the device edge {edge}"))?;
    socket.set_nodelay(true)?;
    let mut link = Link {
        socket,
        decoder: FrameDecoder::default(),
        queued: VecDeque::new(),
        phone: vehicle.sim.clone(),
        serial: 0,
    };
    link.send(&TerminalMessage::Register(Registration {
        province: 44,
        city: 300,
        manufacturer: "BENCH".into(),
        model: "BENCH-CAM".into(),
        terminal_id: vehicle.terminal_id.clone(),
        plate_color: 1,
        plate: vehicle.plate.clone(),
    }))
    .await?;
    let code = loop {
        if let (
            _,
            PlatformMessage::RegisterResponse {
                result, auth_code, ..
            },
        ) = link.recv().await?
        {
            anyhow::ensure!(
                result == RegisterResult::Ok,
                "registration refused: {result:?}"
            );
            break auth_code;
        }
    };
    link.send(&TerminalMessage::Authenticate(Authentication {
        code,
        imei: Some("860000000000001".into()),
        software_version: Some("bench".into()),
    }))
    .await?;
    loop {
        if let (_, PlatformMessage::GeneralResponse { result, .. }) = link.recv().await? {
            anyhow::ensure!(result == Ack::Ok, "authentication refused: {result:?}");
            return Ok(link);
        }
    }
}

/// Answers the edge until the link ends: one H.264 camera (0x1003), its
/// live stream opened (0x9101) and closed (0x9102); heartbeats meanwhile.
async fn terminal(mut link: Link, units: Arc<Vec<Unit>>, clock: Arc<Clock>) -> anyhow::Result<()> {
    let mut heartbeat = tokio::time::interval(Duration::from_secs(30));
    let mut streaming: Option<JoinHandle<()>> = None;
    loop {
        let (header, message) = tokio::select! {
            received = link.recv() => received?,
            _ = heartbeat.tick() => {
                link.send(&TerminalMessage::Heartbeat).await?;
                continue;
            }
        };
        match message {
            PlatformMessage::QueryAvAttributes => {
                link.send(&TerminalMessage::AvAttributes(AvAttributes {
                    audio_encoding: 6,
                    audio_channels: 1,
                    sampling_rate: 0,
                    sample_bits: 1,
                    audio_frame_len: 320,
                    audio_output: false,
                    video_encoding: PT_H264,
                    max_audio_channels: 0,
                    max_video_channels: 1,
                }))
                .await?;
            }
            PlatformMessage::LiveRequest(live) if live.channel == CHANNEL => {
                link.ack(&header, 0).await?;
                let addr = format!("{}:{}", live.server.address, live.server.tcp_port);
                if let Some(old) = streaming.replace(tokio::spawn(stream(
                    addr,
                    link.phone.clone(),
                    units.clone(),
                    clock.clone(),
                ))) {
                    old.abort();
                }
            }
            PlatformMessage::LiveControl(control) if control.channel == CHANNEL => {
                link.ack(&header, 0).await?;
                if control.command == LiveCommand::Close
                    && let Some(old) = streaming.take()
                {
                    old.abort();
                }
            }
            PlatformMessage::GeneralResponse { .. } | PlatformMessage::RegisterResponse { .. } => {}
            _ => link.ack(&header, 3).await?,
        }
    }
}

// ---- The bare relay -------------------------------------------------------

/// The baseline: the terminal's bytes from one socket copied to every
/// viewer's. Prints `ingest=ADDR viewers=ADDR` once both listen.
pub async fn relay() -> anyhow::Result<()> {
    let ingest = TcpListener::bind("127.0.0.1:0").await?;
    let viewers = TcpListener::bind("127.0.0.1:0").await?;
    println!(
        "ingest={} viewers={}",
        ingest.local_addr()?,
        viewers.local_addr()?
    );
    let (bytes, _) = broadcast::channel::<Bytes>(1024);
    let sender = bytes.clone();
    tokio::spawn(async move {
        while let Ok((socket, _)) = viewers.accept().await {
            socket.set_nodelay(true).ok();
            let mut receiver = sender.subscribe();
            tokio::spawn(async move {
                let mut socket = socket;
                loop {
                    match receiver.recv().await {
                        Ok(chunk) => {
                            if socket.write_all(&chunk).await.is_err() {
                                return;
                            }
                        }
                        Err(broadcast::error::RecvError::Lagged(_)) => {}
                        Err(broadcast::error::RecvError::Closed) => return,
                    }
                }
            });
        }
    });
    loop {
        let (mut socket, _) = ingest.accept().await?;
        let mut buf = BytesMut::with_capacity(64 * 1024);
        while socket.read_buf(&mut buf).await.is_ok_and(|n| n > 0) {
            let _ = bytes.send(buf.split().freeze());
            buf.reserve(64 * 1024);
        }
    }
}

/// The relay child process, killed when dropped.
struct RelayProcess {
    child: Child,
    ingest: String,
    viewers: String,
}

impl RelayProcess {
    fn start() -> anyhow::Result<RelayProcess> {
        let mut child = Command::new(std::env::current_exe()?)
            .arg("video-relay")
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .spawn()
            .context("start the bare relay")?;
        let mut line = String::new();
        std::io::BufReader::new(child.stdout.take().context("the relay's output")?)
            .read_line(&mut line)?;
        let addr = |key: &str| {
            line.split_whitespace()
                .find_map(|w| w.strip_prefix(key))
                .map(str::to_owned)
                .with_context(|| format!("the relay's {key} address in {line:?}"))
        };
        let (ingest, viewers) = (addr("ingest=")?, addr("viewers=")?);
        Ok(RelayProcess {
            child,
            ingest,
            viewers,
        })
    }
}

impl Drop for RelayProcess {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

// ---- The bench --------------------------------------------------------------

/// One measured phase's outcome.
struct Measured {
    seen: Seen,
    seconds: f64,
    written: u32,
    /// CPU seconds of each measured process.
    cpu: Vec<f64>,
}

/// Opens `viewers` viewers of `source`, waits for them all and the warmup,
/// then measures for `seconds` the CPU of `pids` and what the viewers see.
async fn measure(
    args: &Args,
    source: Source,
    phase: Phase,
    pids: &[u32],
    started: impl FnOnce(),
) -> anyhow::Result<Measured> {
    let readers: Vec<_> = (0..args.viewers)
        .map(|_| tokio::spawn(view(source.clone(), phase.clone())))
        .collect();
    started();
    let waited = Instant::now();
    while phase.connected.load(Ordering::Acquire) < args.viewers {
        if waited.elapsed() > Duration::from_secs(60) || readers.iter().any(|r| r.is_finished()) {
            phase.done.store(true, Ordering::Release);
            for r in readers {
                r.await??;
            }
            anyhow::bail!(
                "{} of {} viewers connected",
                phase.connected.load(Ordering::Acquire),
                args.viewers
            );
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    tokio::time::sleep(Duration::from_secs(args.warmup)).await;
    let cpu = |pids: &[u32]| -> anyhow::Result<Vec<Duration>> {
        pids.iter().map(|p| fleet::cpu_time(*p)).collect()
    };
    let cpu0 = cpu(pids)?;
    let (w0, t0) = (phase.clock.written(), Instant::now());
    phase.measuring.store(true, Ordering::Release);
    tokio::time::sleep(Duration::from_secs(args.seconds)).await;
    phase.measuring.store(false, Ordering::Release);
    let seconds = t0.elapsed().as_secs_f64();
    let cpu1 = cpu(pids)?;
    let written = phase.clock.written() - w0;
    phase.done.store(true, Ordering::Release);
    let mut seen = Seen::default();
    for r in readers {
        seen.add(r.await??);
    }
    Ok(Measured {
        seen,
        seconds,
        written,
        cpu: cpu0
            .iter()
            .zip(&cpu1)
            .map(|(a, b)| (*b - *a).as_secs_f64())
            .collect(),
    })
}

/// Waits until the edge has reported the terminal's camera to vehicle.
async fn camera_reported(
    pool: &sqlx_postgres::PgPool,
    vehicle: Uuid,
    since: chrono::DateTime<chrono::Utc>,
) -> anyhow::Result<()> {
    let waited = Instant::now();
    loop {
        let channels: Option<i16> = sqlx::query_scalar(
            "select video_channels from vehicle_camera where vehicle_id = $1 and reported_at >= $2",
        )
        .bind(vehicle)
        .bind(since)
        .fetch_optional(pool)
        .await?;
        if channels.is_some_and(|c| c > 0) {
            return Ok(());
        }
        anyhow::ensure!(
            waited.elapsed() < Duration::from_secs(30),
            "the edge did not report the bench terminal's camera (0x1003)"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

pub async fn run(args: Args) -> anyhow::Result<()> {
    let source = encode_source(&args.ffmpeg)?;
    let units = Arc::new(units(&source));
    anyhow::ensure!(
        units.first().is_some_and(|u| u.keyframe),
        "ffmpeg's stream does not start with a keyframe"
    );
    let kbps = source.len() as f64 * 8.0 / 1000.0 / (units.len() as f64 / FPS as f64);
    let clock = Arc::new(Clock::new());
    let pool = fleet::owner_pool(&args.database_url, 2).await?;
    let vehicle = vehicle(&pool).await?;

    // Baseline: the bare relay, fed the same terminal's bytes.
    let relay = RelayProcess::start()?;
    let relay_pid = relay.child.id();
    let baseline_phase = Phase::new(clock.clone());
    let mut feeder = None;
    let baseline = measure(
        &args,
        Source::Relay(relay.viewers.clone()),
        baseline_phase,
        &[relay_pid],
        || {
            feeder = Some(tokio::spawn(stream(
                relay.ingest.clone(),
                vehicle.sim.clone(),
                units.clone(),
                clock.clone(),
            )));
        },
    )
    .await?;
    if let Some(feeder) = feeder {
        feeder.abort();
    }
    drop(relay);

    // The system: the terminal signs on and the edge opens its camera for
    // the first viewer through the gateway.
    let since = chrono::Utc::now() - chrono::Duration::seconds(1);
    let link = sign_on(&args.edge_addr, &vehicle).await?;
    let terminal = tokio::spawn(terminal(link, units.clone(), clock.clone()));
    camera_reported(&pool, vehicle.id, since).await?;
    pool.close().await;
    let source = Source::Gateway {
        client: reqwest::Client::new(),
        url: format!(
            "{}/api/v1/video/vehicles/{}/live?channel={CHANNEL}",
            args.base_url, vehicle.id
        ),
        token: args.token.clone(),
    };
    let system = measure(
        &args,
        source,
        Phase::new(clock.clone()),
        &[args.gateway_pid, args.edge_pid],
        || {},
    )
    .await;
    terminal.abort();
    let system = system?;

    print(&args, kbps, &baseline, &system);
    Ok(())
}

fn print(args: &Args, kbps: f64, b: &Measured, e: &Measured) {
    let n = args.viewers as f64;
    // µs of CPU per viewer and second of video.
    let per_viewer = |cpu: f64, m: &Measured| cpu * 1e6 / n / m.seconds;
    let delivered = |m: &Measured| m.seen.fragments as f64 / (f64::from(m.written) * n).max(1.0);
    let (relay_us, gateway_us, edge_us) = (
        per_viewer(b.cpu[0], b),
        per_viewer(e.cpu[0], e),
        per_viewer(e.cpu[1], e),
    );
    let (b50, b99) = fleet::percentiles(b.seen.delays_ms.clone());
    let (e50, e99) = fleet::percentiles(e.seen.delays_ms.clone());
    let (n50, n99) = fleet::percentiles(e.seen.after_next_ms.clone());
    println!(
        "\n{:<58} {:>9} {:>8} {:>8} {:>7}  CPU µs per viewer-second",
        format!(
            "figure (1 camera {FPS} fps {kbps:.0} kbit/s, {} viewers, {} s)",
            args.viewers, args.seconds
        ),
        "frags/s",
        "p50 ms",
        "p99 ms",
        "ratio",
    );
    println!(
        "{:<58} {:>9.0} {b50:>8.1} {b99:>8.1} {:>7}  relay {relay_us:.0}",
        "baseline: bare TCP relay of the terminal's 1078 bytes",
        b.seen.fragments as f64 / b.seconds,
        "1.000",
    );
    println!(
        "{:<58} {:>9.0} {e50:>8.1} {e99:>8.1} {:>7.3}  gateway {gateway_us:.0} + edge {edge_us:.0}",
        "(m) /video/…/live: terminal write -> viewer's fragment",
        e.seen.fragments as f64 / e.seconds,
        b99 / e99,
    );
    println!(
        "{:<58} {:>9} {n50:>8.1} {n99:>8.1}",
        "(m) the same from the next frame's write (muxer waits)", ""
    );
    println!(
        "{:<58} {:>8.1}% of written frames x viewers (baseline {:.1}%); CPU ratio relay / (gateway + edge) {:.3}",
        "(m) delivered",
        delivered(e) * 100.0,
        delivered(b) * 100.0,
        relay_us / (gateway_us + edge_us),
    );
    println!(
        "(m) {} viewers of one channel: gateway {gateway_us:.0} µs CPU per viewer-second, edge {edge_us:.0} µs, \
         delay p50 {e50:.1} ms p99 {e99:.1} ms; bare relay: {relay_us:.0} µs, p50 {b50:.1} ms p99 {b99:.1} ms \
         (delays from the terminal's write to the viewer's read: an upper bound on edge arrival -> gateway departure, \
         same hops for the relay; {:.1} ms of it is the muxer waiting one frame interval)",
        args.viewers,
        e50 - n50,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stream_of(units: &[Vec<u8>]) -> Vec<u8> {
        units.concat()
    }

    #[test]
    fn a_mark_split_across_chunks_is_found_once() {
        let unit = Unit {
            before: vec![0, 0, 0, 1, 0x67, 1, 2],
            slices: vec![0, 0, 0, 1, 0x65, 9, 9, 9],
            keyframe: true,
        };
        let bytes = stream_of(&[unit.marked(7), unit.marked(0x1234_abcd), unit.marked(8)]);
        for size in [1, 5, 23, 24, 25, 1000] {
            let mut marks = Marks::default();
            let mut found = Vec::new();
            for chunk in bytes.chunks(size) {
                marks.feed(chunk, |s| found.push(s));
            }
            assert_eq!(found, vec![7, 0x1234_abcd, 8], "chunks of {size}");
        }
    }

    #[test]
    fn the_mark_has_no_start_code_and_is_an_sei_of_the_picture() {
        let unit = Unit {
            before: Vec::new(),
            slices: vec![0, 0, 0, 1, 0x41, 0x9a, 1],
            keyframe: false,
        };
        let marked = unit.marked(0);
        let nals = h264::nal_units(&marked);
        assert_eq!(nals.len(), 2);
        assert_eq!(h264::nal_type(nals[0]), h264::nal::SEI);
        assert_eq!(nals[0].len(), 3 + MARK_LEN + 1);
        assert!(!MARK[1..].contains(&MARK[0]));
    }

    #[test]
    fn sent_times_are_found_by_sequence() {
        let clock = Clock::new();
        let first = clock.stamp();
        assert!(clock.sent(first).is_some());
        assert!(clock.sent(first + 1).is_none());
        assert_eq!(clock.written(), 1);
    }
}
