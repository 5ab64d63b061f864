//! A simulated vehicle's cameras, as JT/T 1078 asks of a terminal: told
//! over JT/T 808 to stream (0x9101 live, 0x9201 playback), a camera opens a
//! TCP connection to the media server and sends real H.264, made by a real
//! encoder, as JT/T 1078 frames, so everything from the media edge to the
//! browser runs on what a dashcam would send. The picture is ffmpeg's
//! moving `testsrc2` under a bar with the plate, channel and the
//! terminal's clock (Beijing time; the recorded time in a playback) burnt
//! in. Debian's DejaVu fonts have no CJK glyphs, so the plate shows its
//! Latin letters and digits only (粤B12345 as B12345).
//!
//! - [`CameraStream`]: one stream; ffmpeg runs while it does, paced here
//!   in real time, and both end when it is stopped or dropped, when the
//!   server closes the connection, or at a playback's end;
//! - [`Camera`]: a vehicle's channels, at most one stream per (channel,
//!   stream type), and its [`Recorder`];
//! - [`recorder`]: the recordings a 0x9205 query finds.
//!
//! Playback pause, resume and speed (0x9202) are honoured by pacing:
//! ffmpeg renders recorded time and blocks on its pipe while paused; at
//! 2× the frames go out twice as often with timestamps twice as close,
//! so a player shows the clock running twice as fast. Speeds above what
//! ffmpeg encodes in real time go as fast as it does. A seek starts the
//! playback again from the new position (a new connection, as ffmpeg
//! cannot jump); rewinding is not supported. A paused live stream
//! (0x9102) sends nothing and, on resume, carries on from the next
//! keyframe at the time it is then.
//!
//! [`clip`] renders the same picture into a short MP4 file: an
//! active-safety alarm's evidence clip.

mod ffmpeg;
pub mod recorder;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use chrono::{DateTime, NaiveDateTime, Utc};
use fleetdesk_media::h264;
use fleetdesk_media::jt1078::{self, DataType, Encoder, SimLayout, VideoIntervals};
use fleetdesk_telematics::jt808::message::{MediaServer, PlaybackSpeed, Stream};
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;
use tokio::process::{Child, Command};
use tokio::sync::watch;
use tokio::time::Instant;

pub use recorder::{NotRecorded, Recorder};

/// The encoder run when none is configured: ffmpeg on the PATH.
pub const FFMPEG: &str = "ffmpeg";
const CONNECT_TIMEOUT: Duration = Duration::from_secs(5);
/// Bytes of ffmpeg's error output kept for the report of a failed stream.
const STDERR_TAIL: usize = 2048;

/// Picture size, frame rate and bit rate of a stream type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Profile {
    pub width: u32,
    pub height: u32,
    pub fps: u32,
    pub bitrate_kbps: u64,
}

impl Profile {
    pub fn of(stream: Stream) -> Profile {
        match stream {
            Stream::Main => Profile {
                width: 640,
                height: 360,
                fps: 15,
                bitrate_kbps: 400,
            },
            Stream::Sub => Profile {
                width: 320,
                height: 180,
                fps: 10,
                bitrate_kbps: 128,
            },
        }
    }
}

/// Live, or a recording between two times played back at a speed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    Live,
    Playback {
        start: DateTime<Utc>,
        end: DateTime<Utc>,
        speed: PlaybackSpeed,
    },
}

/// Everything a stream needs: 0x9101's or 0x9201's request for one camera.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StreamRequest {
    pub server: MediaServer,
    /// The terminal's phone number, at most 12 digits (sent as 6 BCD bytes).
    pub sim: String,
    pub channel: u8,
    pub stream: Stream,
    pub plate: String,
    pub mode: Mode,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0:?} not found: install ffmpeg (deploy/ensure-tools.sh ffmpeg)")]
    FfmpegMissing(PathBuf),
    #[error("could not start {0:?}")]
    Spawn(PathBuf, #[source] std::io::Error),
    #[error("could not connect to the media server {0}")]
    Connect(String, #[source] std::io::Error),
    #[error(transparent)]
    Sim(#[from] jt1078::Error),
    #[error("channel {0} has no camera")]
    NoSuchChannel(u8),
    #[error(transparent)]
    NotRecorded(#[from] NotRecorded),
    #[error("ffmpeg made no clip: {0}")]
    Clip(String),
}

/// Why a stream ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Ended {
    /// Stopped by its handle (or the handle dropped).
    Stopped,
    /// The media server closed the connection or stopped reading.
    ServerClosed,
    /// A playback reached the end of its range.
    RangeEnd,
    /// ffmpeg failed; its exit status and last error lines.
    EncoderFailed(String),
}

#[derive(Debug, Clone, Copy, PartialEq)]
struct Control {
    stop: bool,
    paused: bool,
    speed: f64,
}

/// One running stream. Dropping it stops the stream as [`Self::stop`]
/// does, without waiting.
#[derive(Debug)]
pub struct CameraStream {
    request: StreamRequest,
    control: watch::Sender<Control>,
    ended: watch::Receiver<Option<Ended>>,
    ffmpeg_pid: Option<u32>,
}

impl CameraStream {
    /// Connects to the media server, starts `ffmpeg_path` and streams
    /// until stopped. Returns once both are up.
    pub async fn start(request: StreamRequest, ffmpeg_path: &Path) -> Result<CameraStream, Error> {
        // JT/T 1078-2016's 6 BCD bytes hold 12 digits; a longer number
        // goes in the 10 bytes of terminals speaking JT/T 808-2019.
        let layout = if request.sim.len() > 12 {
            SimLayout::Bcd10
        } else {
            SimLayout::Bcd6
        };
        let encoder = Encoder::new(&request.sim, request.channel, layout, jt1078::PT_H264)?;
        let server = format!("{}:{}", request.server.address, request.server.tcp_port);
        let socket = tokio::time::timeout(
            CONNECT_TIMEOUT,
            TcpStream::connect((request.server.address.as_str(), request.server.tcp_port)),
        )
        .await
        .unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into()))
        .map_err(|err| Error::Connect(server, err))?;
        socket.set_nodelay(true).ok();

        let profile = Profile::of(request.stream);
        let (clock_start, seconds, speed) = match request.mode {
            Mode::Live => (Utc::now(), None, 1.0),
            Mode::Playback { start, end, speed } => (
                start,
                Some((end - start).as_seconds_f64().max(0.0)),
                multiplier(speed),
            ),
        };
        let picture = ffmpeg::Picture {
            profile,
            plate: &request.plate,
            channel: request.channel,
            playback: matches!(request.mode, Mode::Playback { .. }),
            clock_start: beijing(clock_start).and_utc().timestamp(),
            seconds,
        };
        let mut child = Command::new(ffmpeg_path)
            .args(ffmpeg::args(&picture))
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| match err.kind() {
                std::io::ErrorKind::NotFound => Error::FfmpegMissing(ffmpeg_path.to_owned()),
                _ => Error::Spawn(ffmpeg_path.to_owned(), err),
            })?;
        let ffmpeg_pid = child.id();

        let (control, control_rx) = watch::channel(Control {
            stop: false,
            paused: false,
            speed,
        });
        let (ended_tx, ended) = watch::channel(None);
        let stream = Streaming {
            encoder,
            frame_ms: 1000.0 / f64::from(profile.fps),
            control: control_rx,
            playback: seconds.is_some(),
        };
        tokio::spawn(async move {
            let ended = stream.run(&mut child, socket).await;
            tracing::debug!(?ended, "Camera stream ended.");
            ended_tx.send_replace(Some(ended));
        });
        Ok(CameraStream {
            request,
            control,
            ended,
            ffmpeg_pid,
        })
    }

    /// What was asked for: server, channel, stream type, mode.
    pub fn request(&self) -> &StreamRequest {
        &self.request
    }

    /// The encoder's process id while it runs.
    pub fn ffmpeg_pid(&self) -> Option<u32> {
        self.ffmpeg_pid
    }

    pub fn pause(&self) {
        self.control.send_modify(|c| c.paused = true);
    }

    pub fn resume(&self) {
        self.control.send_modify(|c| c.paused = false);
    }

    /// Playback speed; `Unset` and `X1` are normal speed. Kept in the
    /// request, so a seek goes on at the speed last set.
    pub fn set_speed(&mut self, speed: PlaybackSpeed) {
        if let Mode::Playback {
            speed: ref mut kept,
            ..
        } = self.request.mode
        {
            *kept = speed;
        }
        self.control.send_modify(|c| c.speed = multiplier(speed));
    }

    pub fn is_finished(&self) -> bool {
        self.ended.borrow().is_some()
    }

    /// Waits for the stream to end by itself (server gone, range played)
    /// or by [`Self::stop`]; ffmpeg has been reaped by then.
    pub async fn wait(&mut self) -> Ended {
        match self.ended.wait_for(Option::is_some).await {
            Ok(ended) => ended.clone().unwrap_or(Ended::Stopped),
            Err(_) => Ended::EncoderFailed("the camera task ended without a report".into()),
        }
    }

    /// Stops the stream: kills and reaps ffmpeg, closes the connection.
    pub async fn stop(mut self) -> Ended {
        self.control.send_modify(|c| c.stop = true);
        self.wait().await
    }
}

/// The multiplier of a 0x9201/0x9202 speed.
fn multiplier(speed: PlaybackSpeed) -> f64 {
    match speed {
        PlaybackSpeed::Unset | PlaybackSpeed::X1 => 1.0,
        PlaybackSpeed::X2 => 2.0,
        PlaybackSpeed::X4 => 4.0,
        PlaybackSpeed::X8 => 8.0,
        PlaybackSpeed::X16 => 16.0,
    }
}

/// The task's side of a stream.
struct Streaming {
    encoder: Encoder,
    frame_ms: f64,
    control: watch::Receiver<Control>,
    playback: bool,
}

enum Step {
    Go,
    End(Ended),
}

impl Streaming {
    async fn run(mut self, child: &mut Child, socket: TcpStream) -> Ended {
        let stderr = child.stderr.take().map(|err| {
            let tail = Arc::new(Mutex::new(Vec::new()));
            (tail.clone(), tokio::spawn(keep_tail(err, tail)))
        });
        let Some(stdout) = child.stdout.take() else {
            return Ended::EncoderFailed("no stdout".into());
        };
        let (mut from_server, mut to_server) = socket.into_split();
        let ended = self
            .pump(
                ffmpeg::AccessUnits::new(stdout),
                &mut from_server,
                &mut to_server,
            )
            .await;
        // After a clean end of stream ffmpeg is exiting; otherwise it is killed.
        let status = match ended {
            Ended::RangeEnd => tokio::time::timeout(Duration::from_secs(5), child.wait())
                .await
                .ok()
                .and_then(Result::ok),
            _ => None,
        };
        let status = match status {
            Some(status) => Some(status),
            None => {
                child.start_kill().ok();
                child.wait().await.ok()
            }
        };
        let _ = tokio::time::timeout(Duration::from_secs(1), to_server.shutdown()).await;
        let failed = match &ended {
            Ended::EncoderFailed(why) => why.clone(),
            Ended::RangeEnd if !status.is_some_and(|s| s.success()) => {
                let status = status.map_or("unknown".to_owned(), |s| s.to_string());
                format!("ffmpeg {status}")
            }
            Ended::RangeEnd | Ended::Stopped | Ended::ServerClosed => return ended,
        };
        let tail = match stderr {
            Some((tail, reader)) => {
                let _ = reader.await;
                String::from_utf8_lossy(&tail.lock().unwrap_or_else(PoisonError::into_inner))
                    .trim()
                    .to_owned()
            }
            None => String::new(),
        };
        Ended::EncoderFailed(format!("{failed}: {tail}"))
    }

    /// Sends access units as they come, one per frame interval (divided
    /// by the speed), until something ends the stream.
    async fn pump(
        &mut self,
        mut units: ffmpeg::AccessUnits<tokio::process::ChildStdout>,
        from_server: &mut tokio::net::tcp::OwnedReadHalf,
        to_server: &mut tokio::net::tcp::OwnedWriteHalf,
    ) -> Ended {
        // Set by the first picture: pacing starts however long ffmpeg took to start.
        let mut due: Option<Instant> = None;
        let (mut clock_ms, mut last_i_frame_ms) = (0.0_f64, 0.0_f64);
        let mut probe = [0_u8; 256];
        let mut frames = Vec::new();
        let mut resync = false;
        loop {
            let unit = tokio::select! {
                unit = units.next() => unit,
                step = self.interrupted(from_server, &mut probe) => match step {
                    Step::Go => continue,
                    Step::End(ended) => return ended,
                },
            };
            let unit = match unit {
                Ok(Some(unit)) => unit,
                Ok(None) if self.playback => return Ended::RangeEnd,
                Ok(None) => return Ended::EncoderFailed("ffmpeg ended a live stream".into()),
                Err(err) => return Ended::EncoderFailed(format!("reading ffmpeg: {err}")),
            };
            let mut due_at = *due.get_or_insert_with(Instant::now);
            loop {
                let control = *self.control.borrow();
                if control.stop {
                    return Ended::Stopped;
                }
                // A paused playback holds its place; a paused live stream
                // keeps time and drops its frames.
                let holding = control.paused && self.playback;
                tokio::select! {
                    () = tokio::time::sleep_until(due_at), if !holding => break,
                    step = self.interrupted(from_server, &mut probe) => match step {
                        Step::Go if holding => due_at = Instant::now(),
                        Step::Go => {}
                        Step::End(ended) => return ended,
                    },
                }
            }

            let keyframe = h264::is_keyframe(&h264::nal_units(&unit));
            let step_ms = self.frame_ms / self.control.borrow().speed.max(0.1);
            if keyframe {
                last_i_frame_ms = clock_ms;
            }
            let intervals = VideoIntervals {
                since_last_i_frame: ms_u16(clock_ms - last_i_frame_ms),
                since_last_frame: ms_u16(step_ms),
            };
            let data_type = if keyframe {
                DataType::IFrame
            } else {
                DataType::PFrame
            };
            // After a live pause, the picture resumes at a keyframe: the
            // frames before it refer to pictures never sent.
            if self.control.borrow().paused && !self.playback {
                resync = true;
            } else if keyframe {
                resync = false;
            }
            if !resync {
                frames.clear();
                self.encoder.encode(
                    data_type,
                    clock_ms.round() as u64,
                    intervals,
                    &unit,
                    &mut frames,
                );
                // Only a stop interrupts a write: half a frame would corrupt the stream.
                tokio::select! {
                    sent = to_server.write_all(&frames) => if sent.is_err() {
                        return Ended::ServerClosed;
                    },
                    _ = self.control.wait_for(|c| c.stop) => return Ended::Stopped,
                }
            }
            clock_ms += step_ms;
            due_at += Duration::from_secs_f64(step_ms / 1000.0);
            // More than a second behind (a slow encoder at high speed):
            // go on from now rather than burst to catch up.
            let now = Instant::now();
            due = Some(if due_at + Duration::from_secs(1) < now {
                now
            } else {
                due_at
            });
        }
    }

    /// Resolves on a control change (`Go`, to look again) or when the
    /// stream must end: stopped, handle dropped, or the server gone (it
    /// never writes, so a read that ends means it closed).
    async fn interrupted(
        &mut self,
        from_server: &mut tokio::net::tcp::OwnedReadHalf,
        probe: &mut [u8],
    ) -> Step {
        tokio::select! {
            changed = self.control.changed() => match changed {
                Ok(()) if !self.control.borrow_and_update().stop => Step::Go,
                _ => Step::End(Ended::Stopped),
            },
            read = from_server.read(probe) => match read {
                Ok(n) if n > 0 => Step::Go,
                _ => Step::End(Ended::ServerClosed),
            },
        }
    }
}

fn ms_u16(ms: f64) -> u16 {
    ms.round().clamp(0.0, f64::from(u16::MAX)) as u16
}

/// Keeps the last [`STDERR_TAIL`] bytes ffmpeg writes to stderr, reading
/// it all so ffmpeg never blocks on a full pipe.
async fn keep_tail(mut stderr: tokio::process::ChildStderr, tail: Arc<Mutex<Vec<u8>>>) {
    let mut buf = [0_u8; 1024];
    while let Ok(n) = stderr.read(&mut buf).await {
        if n == 0 {
            break;
        }
        let mut tail = tail.lock().unwrap_or_else(PoisonError::into_inner);
        tail.extend_from_slice(&buf[..n]);
        let excess = tail.len().saturating_sub(STDERR_TAIL);
        tail.drain(..excess);
    }
}

/// A vehicle's cameras: which channels it has, what they recorded, and
/// the streams running now, at most one per (channel, stream type).
#[derive(Debug)]
pub struct Camera {
    sim: String,
    plate: String,
    channels: Vec<u8>,
    recorder: Recorder,
    ffmpeg_path: PathBuf,
    streams: HashMap<(u8, Stream), CameraStream>,
}

impl Camera {
    pub fn new(sim: &str, plate: &str, channels: &[u8]) -> Camera {
        Camera {
            sim: sim.to_owned(),
            plate: plate.to_owned(),
            channels: channels.to_vec(),
            recorder: Recorder::new(sim, channels),
            ffmpeg_path: PathBuf::from(FFMPEG),
            streams: HashMap::new(),
        }
    }

    /// Runs this encoder instead of `ffmpeg` from the PATH.
    pub fn with_ffmpeg(mut self, path: impl Into<PathBuf>) -> Camera {
        self.ffmpeg_path = path.into();
        self
    }

    pub fn channels(&self) -> &[u8] {
        &self.channels
    }

    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    /// 0x9101: streams `channel` live, replacing a stream already running
    /// on the same (channel, stream type).
    pub async fn live(
        &mut self,
        server: MediaServer,
        channel: u8,
        stream: Stream,
    ) -> Result<&CameraStream, Error> {
        if !self.channels.contains(&channel) {
            return Err(Error::NoSuchChannel(channel));
        }
        self.start(server, channel, stream, Mode::Live).await
    }

    /// 0x9201: plays a recording back from `start` to `end` (`None`: to the
    /// end of the recording), refused unless the recorder holds it all.
    pub async fn playback(
        &mut self,
        server: MediaServer,
        channel: u8,
        stream: Stream,
        (start, end): (DateTime<Utc>, Option<DateTime<Utc>>),
        speed: PlaybackSpeed,
    ) -> Result<&CameraStream, Error> {
        let end = self.recorder.playback(channel, start, end, Utc::now())?;
        let mode = Mode::Playback { start, end, speed };
        self.start(server, channel, stream, mode).await
    }

    async fn start(
        &mut self,
        server: MediaServer,
        channel: u8,
        stream: Stream,
        mode: Mode,
    ) -> Result<&CameraStream, Error> {
        if let Some(old) = self.streams.remove(&(channel, stream)) {
            old.stop().await;
        }
        self.streams.retain(|_, s| !s.is_finished());
        let request = StreamRequest {
            server,
            sim: self.sim.clone(),
            channel,
            stream,
            plate: self.plate.clone(),
            mode,
        };
        let running = CameraStream::start(request, &self.ffmpeg_path).await?;
        Ok(self.streams.entry((channel, stream)).or_insert(running))
    }

    /// The streams of `channel` still running (0x9102 and 0x9202 name a
    /// channel, not a stream type).
    pub fn streams_of(&self, channel: u8) -> impl Iterator<Item = &CameraStream> {
        self.streams
            .iter()
            .filter(move |((c, _), s)| *c == channel && !s.is_finished())
            .map(|(_, s)| s)
    }

    /// 0x9102 switch: moves a live stream of `channel` to the stream type
    /// `to`, on the same server; `false` when none is running.
    pub async fn switch(&mut self, channel: u8, to: Stream) -> Result<bool, Error> {
        let running = self
            .streams
            .iter()
            .find(|((c, _), s)| *c == channel && s.request.mode == Mode::Live && !s.is_finished());
        let Some((&key, stream)) = running else {
            return Ok(false);
        };
        let server = stream.request.server.clone();
        if key.1 != to {
            if let Some(old) = self.streams.remove(&key) {
                old.stop().await;
            }
            self.live(server, channel, to).await?;
        }
        Ok(true)
    }

    /// Applies `apply` (pause, resume, speed) to the running live streams
    /// of `channel` (0x9102), or to its playbacks (0x9202); `false` when
    /// none runs.
    pub fn control(&mut self, channel: u8, live: bool, apply: impl Fn(&mut CameraStream)) -> bool {
        let mut any = false;
        for (_, stream) in self.streams.iter_mut().filter(|((c, _), s)| {
            *c == channel && (s.request.mode == Mode::Live) == live && !s.is_finished()
        }) {
            apply(stream);
            any = true;
        }
        any
    }

    /// 0x9102 close (`live`) or 0x9202 stop: ends those streams of
    /// `channel`; `false` when none was running.
    pub async fn close_mode(&mut self, channel: u8, live: bool) -> bool {
        let keys: Vec<_> = self
            .streams
            .iter()
            .filter(|((c, _), s)| *c == channel && (s.request.mode == Mode::Live) == live)
            .map(|(key, _)| *key)
            .collect();
        let mut any = false;
        for key in keys {
            if let Some(stream) = self.streams.remove(&key) {
                any |= !stream.is_finished();
                stream.stop().await;
            }
        }
        any
    }

    /// 0x9202 seek: plays `channel`'s running playback again from `to` to
    /// the end it had, at its speed; `false` when none runs. Refused, the
    /// playback going on, unless the recorder holds `to` to that end.
    pub async fn seek(&mut self, channel: u8, to: DateTime<Utc>) -> Result<bool, Error> {
        let running = self.streams.iter().find(|((c, _), s)| {
            *c == channel && matches!(s.request.mode, Mode::Playback { .. }) && !s.is_finished()
        });
        let Some((&key, stream)) = running else {
            return Ok(false);
        };
        let Mode::Playback { end, speed, .. } = stream.request.mode else {
            return Ok(false);
        };
        let server = stream.request.server.clone();
        let end = self.recorder.playback(channel, to, Some(end), Utc::now())?;
        if let Some(old) = self.streams.remove(&key) {
            old.stop().await;
        }
        let mode = Mode::Playback {
            start: to,
            end,
            speed,
        };
        self.start(server, channel, key.1, mode).await?;
        Ok(true)
    }

    /// 0x9102 close, 0x9202 stop: ends every stream of `channel`.
    pub async fn close(&mut self, channel: u8) {
        let keys: Vec<_> = self
            .streams
            .keys()
            .filter(|(c, _)| *c == channel)
            .copied()
            .collect();
        for key in keys {
            if let Some(stream) = self.streams.remove(&key) {
                stream.stop().await;
            }
        }
    }
}

/// An evidence clip: `seconds` of `channel`'s picture from `start` (its
/// clock burnt in), H.264 in an MP4 file with its index first
/// (`+faststart`), so a browser plays it while it downloads.
pub async fn clip(
    ffmpeg_path: &Path,
    plate: &str,
    channel: u8,
    start: DateTime<Utc>,
    seconds: f64,
) -> Result<Vec<u8>, Error> {
    // The MP4 muxer seeks back to write its index: a file, not a pipe.
    let file =
        std::env::temp_dir().join(format!("fleetdesk-sim-clip-{}.mp4", uuid::Uuid::new_v4()));
    let picture = ffmpeg::Picture {
        profile: Profile::of(Stream::Main),
        plate,
        channel,
        playback: true,
        clock_start: beijing(start).and_utc().timestamp(),
        seconds: Some(seconds),
    };
    let output = Command::new(ffmpeg_path)
        .args(ffmpeg::clip_args(&picture, &file))
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .output()
        .await
        .map_err(|err| match err.kind() {
            std::io::ErrorKind::NotFound => Error::FfmpegMissing(ffmpeg_path.to_owned()),
            _ => Error::Spawn(ffmpeg_path.to_owned(), err),
        })?;
    let clip = if output.status.success() {
        tokio::fs::read(&file)
            .await
            .map_err(|err| Error::Clip(err.to_string()))
    } else {
        let stderr = String::from_utf8_lossy(&output.stderr);
        let tail = &stderr[stderr.floor_char_boundary(stderr.len().saturating_sub(STDERR_TAIL))..];
        Err(Error::Clip(format!("{}: {}", output.status, tail.trim())))
    };
    let _ = tokio::fs::remove_file(&file).await;
    clip
}

/// Beijing time (the terminal's clock, UTC+8) of an instant.
pub(crate) fn beijing(time: DateTime<Utc>) -> NaiveDateTime {
    time.naive_utc() + chrono::Duration::hours(8)
}

/// The instant of a Beijing time.
pub(crate) fn from_beijing(local: NaiveDateTime) -> DateTime<Utc> {
    (local - chrono::Duration::hours(8)).and_utc()
}

#[cfg(test)]
mod tests {
    use fleetdesk_media::{Hub, Segment, StreamKey, serve};
    use tokio::net::TcpListener;
    use tokio::sync::oneshot;

    use super::*;

    const SIM: &str = "13800000001";

    /// A media server on port 0 and the means to shut it down.
    async fn media_server() -> (Hub, MediaServer, oneshot::Sender<()>) {
        let hub = Hub::new();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let (stop, stopped) = oneshot::channel::<()>();
        tokio::spawn(serve(listener, hub.clone(), async {
            let _ = stopped.await;
        }));
        let server = MediaServer {
            address: "127.0.0.1".into(),
            tcp_port: port,
            udp_port: 0,
        };
        (hub, server, stop)
    }

    fn live(server: MediaServer) -> StreamRequest {
        StreamRequest {
            server,
            sim: SIM.into(),
            channel: 1,
            stream: Stream::Main,
            plate: "粤B12345".into(),
            mode: Mode::Live,
        }
    }

    fn gone(pid: Option<u32>) -> bool {
        let pid = pid.expect("ffmpeg had a pid");
        !Path::new(&format!("/proc/{pid}")).exists()
    }

    /// Runs a tool and returns its stdout, failing the test on error.
    fn run(program: &str, args: &[&str]) -> Vec<u8> {
        let out = std::process::Command::new(program)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{program} {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        out.stdout
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_live_camera_streams_h264_of_the_requested_size_with_a_running_clock() {
        let (hub, server, _server) = media_server().await;
        let mut viewer = hub.subscribe(StreamKey {
            terminal: SIM.into(),
            channel: 1,
        });
        let camera = CameraStream::start(live(server), Path::new(FFMPEG))
            .await
            .unwrap();
        let pid = camera.ffmpeg_pid();

        let mut mp4 = Vec::new();
        let (mut inits, mut keyframes) = (0, 0);
        let first = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
        let mut next = first.ok().flatten();
        // Three seconds from the first picture, however long ffmpeg took to start.
        let deadline = Instant::now() + Duration::from_secs(3);
        while let Some(segment) = next.take() {
            match &segment {
                Segment::Init { codec, .. } => {
                    assert!(codec.starts_with("avc1.42"), "baseline: {codec}");
                    inits += 1;
                }
                Segment::Fragment { keyframe, .. } => keyframes += usize::from(*keyframe),
            }
            mp4.extend_from_slice(segment.data());
            next = tokio::time::timeout_at(deadline, viewer.next())
                .await
                .ok()
                .flatten();
        }
        assert_eq!(camera.stop().await, Ended::Stopped);
        assert!(gone(pid), "ffmpeg was reaped");
        assert_eq!(inits, 1);
        assert!(
            (2..=4).contains(&keyframes),
            "one keyframe a second: {keyframes}"
        );

        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("camera.mp4");
        std::fs::write(&file, &mp4).unwrap();
        let file = file.to_str().unwrap();
        let probe: serde_json::Value = serde_json::from_slice(&run(
            "ffprobe",
            &[
                "-v",
                "error",
                "-count_frames",
                "-show_entries",
                "stream=codec_name,width,height,nb_read_frames",
                "-of",
                "json",
                file,
            ],
        ))
        .unwrap();
        let stream = &probe["streams"][0];
        assert_eq!(stream["codec_name"], "h264");
        assert_eq!(
            (stream["width"].as_u64(), stream["height"].as_u64()),
            (Some(640), Some(360))
        );
        let frames: u32 = stream["nb_read_frames"].as_str().unwrap().parse().unwrap();
        assert!((38..=52).contains(&frames), "about 3 s at 15 fps: {frames}");

        // The bar with the plate and clock, decoded, holds still within a
        // second and changes when the clock ticks (the moving picture is below).
        let bar = ffmpeg::bar_height(360) as usize - 8;
        let pixels = run(
            "ffmpeg",
            &[
                "-v",
                "error",
                "-i",
                file,
                "-frames:v",
                "16",
                "-vf",
                &format!("crop=640:{bar}:0:0,format=gray"),
                "-f",
                "rawvideo",
                "-",
            ],
        );
        let frame = |n: usize| &pixels[n * 640 * bar..(n + 1) * 640 * bar];
        let changed = |a: &[u8], b: &[u8]| {
            a.iter()
                .zip(b)
                .filter(|(x, y)| x.abs_diff(**y) > 64)
                .count()
        };
        // Frames 0 to 14 share the first second; frame 15 is the next.
        let (same, next) = (changed(frame(0), frame(14)), changed(frame(0), frame(15)));
        assert!(
            same <= 5 && next > 20,
            "{same} pixels moved within a second, {next} across"
        );
    }

    #[tokio::test]
    async fn a_stream_whose_server_goes_away_ends_and_reaps_ffmpeg() {
        let (_hub, server, stop_server) = media_server().await;
        let mut camera = CameraStream::start(live(server), Path::new(FFMPEG))
            .await
            .unwrap();
        tokio::time::sleep(Duration::from_millis(500)).await;
        stop_server.send(()).unwrap();
        let ended = tokio::time::timeout(Duration::from_secs(5), camera.wait()).await;
        assert_eq!(ended.ok(), Some(Ended::ServerClosed));
        assert!(gone(camera.ffmpeg_pid()));
    }

    #[tokio::test]
    async fn a_playback_ends_at_the_end_of_its_range() {
        let (hub, server, _server) = media_server().await;
        let mut viewer = hub.subscribe(StreamKey {
            terminal: SIM.into(),
            channel: 2,
        });
        let start = Utc::now() - chrono::Duration::hours(30);
        let request = StreamRequest {
            channel: 2,
            stream: Stream::Sub,
            mode: Mode::Playback {
                start,
                end: start + chrono::Duration::seconds(2),
                speed: PlaybackSpeed::X4,
            },
            ..live(server)
        };
        let mut camera = CameraStream::start(request, Path::new(FFMPEG))
            .await
            .unwrap();
        let init = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
        assert!(matches!(init, Ok(Some(Segment::Init { .. }))), "{init:?}");
        let began = Instant::now();
        let ended = tokio::time::timeout(Duration::from_secs(5), camera.wait()).await;
        assert_eq!(ended.ok(), Some(Ended::RangeEnd));
        assert!(
            began.elapsed() < Duration::from_millis(1500),
            "2 s at 4×: {:?}",
            began.elapsed()
        );
        assert!(gone(camera.ffmpeg_pid()));
    }

    #[tokio::test]
    async fn a_paused_playback_holds_its_place_until_resumed() {
        let (_hub, server, _server) = media_server().await;
        let start = Utc::now() - chrono::Duration::hours(30);
        let request = StreamRequest {
            stream: Stream::Sub,
            mode: Mode::Playback {
                start,
                end: start + chrono::Duration::seconds(1),
                speed: PlaybackSpeed::X1,
            },
            ..live(server)
        };
        let began = Instant::now();
        let mut camera = CameraStream::start(request, Path::new(FFMPEG))
            .await
            .unwrap();
        camera.pause();
        tokio::time::sleep(Duration::from_millis(800)).await;
        assert!(!camera.is_finished());
        camera.resume();
        let ended = tokio::time::timeout(Duration::from_secs(5), camera.wait()).await;
        assert_eq!(ended.ok(), Some(Ended::RangeEnd));
        assert!(
            began.elapsed() >= Duration::from_millis(1600),
            "{:?}",
            began.elapsed()
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_paused_live_stream_sends_nothing_and_resumes_at_a_keyframe() {
        let (hub, server, _server) = media_server().await;
        let mut viewer = hub.subscribe(StreamKey {
            terminal: SIM.into(),
            channel: 1,
        });
        let camera = CameraStream::start(live(server), Path::new(FFMPEG))
            .await
            .unwrap();
        // Streaming: an init segment and a few fragments.
        for _ in 0..4 {
            let segment = tokio::time::timeout(Duration::from_secs(5), viewer.next()).await;
            assert!(matches!(segment, Ok(Some(_))), "{segment:?}");
        }
        camera.pause();
        tokio::time::sleep(Duration::from_millis(200)).await;
        while viewer.try_next().is_some() {}
        tokio::time::sleep(Duration::from_millis(700)).await;
        assert_eq!(viewer.try_next(), None, "nothing while paused");

        camera.resume();
        // The muxer first releases the frame it held from before the pause;
        // the first frame sent after it is a keyframe.
        let mut after = Vec::new();
        while after.len() < 2 {
            match tokio::time::timeout(Duration::from_secs(5), viewer.next()).await {
                Ok(Some(Segment::Fragment { keyframe, .. })) => after.push(keyframe),
                other => panic!("{other:?}"),
            }
        }
        assert!(after[1], "{after:?}");
        assert_eq!(camera.stop().await, Ended::Stopped);
    }

    #[tokio::test]
    async fn dropping_a_stream_reaps_its_ffmpeg() {
        let (_hub, server, _server) = media_server().await;
        let camera = CameraStream::start(live(server), Path::new(FFMPEG))
            .await
            .unwrap();
        let pid = camera.ffmpeg_pid();
        drop(camera);
        let deadline = Instant::now() + Duration::from_secs(3);
        while !gone(pid) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert!(gone(pid));
    }

    #[tokio::test]
    async fn a_missing_ffmpeg_is_an_error_naming_it() {
        let (_hub, server, _server) = media_server().await;
        let err = CameraStream::start(live(server), Path::new("/nonexistent/ffmpeg"))
            .await
            .unwrap_err();
        assert!(matches!(err, Error::FfmpegMissing(_)), "{err}");
        assert!(err.to_string().contains("ensure-tools.sh ffmpeg"));
    }

    #[tokio::test]
    async fn a_second_request_for_a_channel_replaces_the_first_stream() {
        let (_hub, server, _server) = media_server().await;
        let mut camera = Camera::new(SIM, "粤B12345", &[1, 2]);
        let first = camera
            .live(server.clone(), 1, Stream::Main)
            .await
            .unwrap()
            .ffmpeg_pid();
        let second = camera
            .live(server.clone(), 1, Stream::Main)
            .await
            .unwrap()
            .ffmpeg_pid();
        assert_ne!(first, second);
        assert!(gone(first));
        assert_eq!(camera.streams_of(1).count(), 1);

        assert!(camera.switch(1, Stream::Sub).await.unwrap());
        assert!(gone(second));
        let running: Vec<_> = camera.streams_of(1).map(|s| s.request().stream).collect();
        assert_eq!(running, [Stream::Sub]);
        let sub = camera
            .streams_of(1)
            .next()
            .and_then(CameraStream::ffmpeg_pid);
        assert!(matches!(
            camera.live(server, 3, Stream::Main).await,
            Err(Error::NoSuchChannel(3))
        ));
        camera.close(1).await;
        assert!(gone(sub));
        assert!(!camera.switch(1, Stream::Main).await.unwrap());
    }

    #[tokio::test]
    async fn a_playback_of_a_time_not_recorded_is_refused() {
        let (_hub, server, _server) = media_server().await;
        let mut camera = Camera::new(SIM, "粤B12345", &[1]);
        let night = from_beijing(beijing(Utc::now()).date().and_hms_opt(3, 0, 0).unwrap())
            - chrono::Duration::days(1);
        let refused = camera
            .playback(server, 1, Stream::Main, (night, None), PlaybackSpeed::X1)
            .await;
        assert!(matches!(
            refused,
            Err(Error::NotRecorded(NotRecorded::NoRecordingAtStart))
        ));
        assert_eq!(camera.streams_of(1).count(), 0);
    }
}
