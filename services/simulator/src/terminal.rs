//! One simulated terminal: a TCP connection to the edge speaking JT/T
//! 808-2019 as a vehicle's terminal does. It registers (0x0100, once) and
//! authenticates (0x0102, every connection), reports every interval (0x0200;
//! every third interval while standing, with heartbeats between), keeps
//! what was not answered and what it took in a blind zone for one 0x0704
//! upload later, sends an alarm photo now and then (0x0800 + 0x0801 in
//! packages), and answers door commands (0x8500) honestly: refused while
//! the vehicle moves, else done, with the door state in its 0x0500.
//!
//! A vehicle with cameras also answers the video commands ([`video`]) and
//! raises active-safety alarms whose evidence it uploads ([`evidence`]);
//! one without answers them "not supported" (0x0001 result 3).

mod evidence;
mod video;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use chrono::Utc;
use fleetdesk_kit::Shutdown;
use fleetdesk_telematics::jt808::header::{Header, Package, Version};
use fleetdesk_telematics::jt808::location::alarm;
use fleetdesk_telematics::jt808::message::{
    Ack, Authentication, Media, PlatformMessage, RegisterResult, Registration, TerminalMessage,
    frame,
};
use fleetdesk_telematics::jt808::{FrameDecoder, Location, id};
use rand::Rng as _;
use rand::rngs::StdRng;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::motion::{Motion, city_of_plate};
use crate::photo;
use crate::{Settings, SimVehicle};
use evidence::Evidence;
use video::Video;

/// Results of the terminal's general response (0x0001).
pub(crate) mod result {
    pub const OK: u8 = 0;
    pub const FAILED: u8 = 1;
    pub const BAD_MESSAGE: u8 = 2;
    pub const UNSUPPORTED: u8 = 3;
}

const VERSION: Version = Version::V2019 { protocol: 1 };
/// Reports per 0x0704 (its body must stay under 1023 bytes).
const BATCH: usize = 15;
/// Fixes kept for later upload at most; the oldest go first.
const MAX_BACKLOG: usize = 2_000;
/// Body bytes per 0x0801 package.
const PACKAGE_BYTES: usize = 900;

/// The socket, framed.
struct Link {
    stream: TcpStream,
    decoder: FrameDecoder,
    frames: std::collections::VecDeque<(Header, PlatformMessage)>,
    phone: String,
    serial: u16,
}

impl Link {
    async fn connect(addr: &str, phone: &str) -> std::io::Result<Link> {
        Ok(Link::over(TcpStream::connect(addr).await?, phone))
    }

    /// 808 frames over a connection already open.
    fn over(stream: TcpStream, phone: &str) -> Link {
        stream.set_nodelay(true).ok();
        Link {
            stream,
            decoder: FrameDecoder::default(),
            frames: Default::default(),
            phone: phone.to_owned(),
            serial: 0,
        }
    }

    fn next_serial(&mut self) -> u16 {
        let s = self.serial;
        self.serial = self.serial.wrapping_add(1);
        s
    }

    /// Sends a terminal message, in packages when its body is longer than
    /// one frame may carry (a long 0x1205); returns its (first) serial.
    async fn send(&mut self, message: &TerminalMessage) -> std::io::Result<u16> {
        let (msg_id, body) = message.encode(VERSION).map_err(std::io::Error::other)?;
        if body.len() <= PACKAGE_BYTES {
            let serial = self.next_serial();
            self.write(msg_id, serial, None, &body).await?;
            return Ok(serial);
        }
        let parts: Vec<&[u8]> = body.chunks(PACKAGE_BYTES).collect();
        let total = u16::try_from(parts.len())
            .map_err(|_| std::io::Error::other("message too long for 65535 packages"))?;
        let first = self.serial;
        for (i, part) in parts.into_iter().enumerate() {
            let serial = self.next_serial();
            let package = Package {
                total,
                index: i as u16 + 1,
            };
            self.write(msg_id, serial, Some(package), part).await?;
        }
        Ok(first)
    }

    async fn write(
        &mut self,
        msg_id: u16,
        serial: u16,
        package: Option<Package>,
        body: &[u8],
    ) -> std::io::Result<()> {
        let header = Header {
            msg_id,
            version: VERSION,
            phone: self.phone.clone(),
            serial,
            package,
        };
        let bytes = frame(&header, body).map_err(std::io::Error::other)?;
        self.stream.write_all(&bytes).await
    }

    /// The next platform message (cancel-safe: what was read stays queued).
    async fn recv(&mut self) -> std::io::Result<(Header, PlatformMessage)> {
        let mut buf = [0u8; 2048];
        loop {
            if let Some(next) = self.frames.pop_front() {
                return Ok(next);
            }
            let n = self.stream.read(&mut buf).await?;
            if n == 0 {
                return Err(std::io::ErrorKind::UnexpectedEof.into());
            }
            let mut frames = Vec::new();
            self.decoder.feed(&buf[..n], &mut frames);
            for bytes in frames.into_iter().flatten() {
                let Ok((header, body)) = Header::parse(&bytes) else {
                    continue;
                };
                if let Ok(message) = PlatformMessage::decode(&header, body) {
                    self.frames.push_back((header.clone(), message));
                }
            }
        }
    }

    /// Waits up to `within` for the answer to the message with `serial`.
    async fn answer_to(
        &mut self,
        serial: u16,
        within: Duration,
    ) -> std::io::Result<Option<PlatformMessage>> {
        let deadline = tokio::time::Instant::now() + within;
        loop {
            let Ok(received) = tokio::time::timeout_at(deadline, self.recv()).await else {
                return Ok(None);
            };
            let (_, message) = received?;
            let reply = match &message {
                PlatformMessage::GeneralResponse { reply_serial, .. }
                | PlatformMessage::RegisterResponse { reply_serial, .. } => *reply_serial,
                _ => continue,
            };
            if reply == serial {
                return Ok(Some(message));
            }
        }
    }
}

/// Why a sign-on did not get to reporting.
enum SignOn {
    Done,
    /// Try again after this long.
    Later(Duration),
}

pub(crate) struct Terminal {
    vehicle: SimVehicle,
    motion: Motion,
    rng: StdRng,
    auth_code: Option<String>,
    /// Fixes waiting for a 0x0704: taken in a blind zone, or sent and not answered.
    backlog: Vec<Location>,
    blind_ticks: u32,
    unanswered: HashMap<u16, (Vec<Location>, Instant)>,
    media_id: u32,
    ticks: u64,
    /// The emergency button's bit, held in every report until the platform
    /// confirms it (0x8203), as JT/T 808 table 24 asks.
    latched: u32,
    /// Ticks the driver leaves the button alone after a confirmation.
    calm_ticks: u32,
    /// The cameras' side; `None` without cameras.
    video: Option<Video>,
    evidence: Option<Evidence>,
}

/// After the platform confirmed an emergency, the driver (called back)
/// does not press the button again for this many reports.
const CALM_AFTER_CONFIRMATION: u32 = 60;

impl Terminal {
    pub(crate) fn new(vehicle: SimVehicle, mut rng: StdRng) -> Terminal {
        let motion = Motion::new(
            city_of_plate(&vehicle.plate),
            vehicle.refrigerated,
            vehicle.start,
            vehicle.odometer_m,
            rand::SeedableRng::seed_from_u64(rng.r#gen()),
        );
        Terminal {
            vehicle,
            motion,
            rng,
            auth_code: None,
            backlog: Vec::new(),
            blind_ticks: 0,
            unanswered: HashMap::new(),
            media_id: 0,
            ticks: 0,
            latched: 0,
            calm_ticks: 0,
            video: None,
            evidence: None,
        }
    }

    /// Connects, signs on and reports until shutdown, reconnecting after failures.
    pub(crate) async fn run(mut self, settings: &Settings, shutdown: Shutdown) {
        let vehicle = &self.vehicle;
        if !vehicle.cameras.is_empty() {
            self.video = Some(Video::start(
                &vehicle.phone,
                &vehicle.plate,
                &vehicle.cameras,
                &settings.ffmpeg,
            ));
            self.evidence = Some(Evidence::new(
                &vehicle.terminal_id,
                &vehicle.phone,
                &vehicle.plate,
                &settings.ffmpeg,
            ));
        }
        let mut backoff = Duration::from_secs(1);
        loop {
            let outcome = tokio::select! {
                o = self.connection(settings) => o,
                () = shutdown.wait() => return,
            };
            let wait = match outcome {
                Ok(SignOn::Done) => Duration::from_secs(1),
                Ok(SignOn::Later(wait)) => wait,
                Err(err) => {
                    tracing::debug!(error = %err, phone = %self.vehicle.phone, "Terminal connection failed.");
                    backoff = (backoff * 2).min(Duration::from_secs(30));
                    backoff
                }
            };
            tokio::select! {
                () = tokio::time::sleep(wait) => {}
                () = shutdown.wait() => return,
            }
        }
    }

    async fn connection(&mut self, settings: &Settings) -> std::io::Result<SignOn> {
        let mut link = Link::connect(&settings.edge_addr, &self.vehicle.phone).await?;
        if let SignOn::Later(wait) = self.sign_on(&mut link).await? {
            return Ok(SignOn::Later(wait));
        }
        tracing::debug!(phone = %self.vehicle.phone, "Terminal signed on.");
        if let Some(video) = &mut self.video {
            video.forget_answers();
        }
        let mut ticker = tokio::time::interval(settings.interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = ticker.tick() => self.tick(&mut link, settings).await?,
                received = link.recv() => {
                    let (header, message) = received?;
                    self.platform(&mut link, &header, message).await?;
                }
                Some(answer) = camera_answer(&mut self.video) => {
                    link.send(&answer.message()).await?;
                }
            }
        }
    }

    async fn sign_on(&mut self, link: &mut Link) -> std::io::Result<SignOn> {
        let within = Duration::from_secs(10);
        if self.auth_code.is_none() {
            let city = city_of_plate(&self.vehicle.plate);
            let serial = link
                .send(&TerminalMessage::Register(Registration {
                    province: city.province,
                    city: city.city,
                    manufacturer: "FLEETSIM".into(),
                    model: "FD-808-SIM".into(),
                    terminal_id: self.vehicle.terminal_id.clone(),
                    // JT/T 697.7: 5 green (new-energy plates).
                    plate_color: 5,
                    plate: self.vehicle.plate.clone(),
                }))
                .await?;
            match link.answer_to(serial, within).await? {
                Some(PlatformMessage::RegisterResponse {
                    result: RegisterResult::Ok,
                    auth_code,
                    ..
                }) => self.auth_code = Some(auth_code),
                Some(PlatformMessage::RegisterResponse { result, .. }) => {
                    tracing::warn!(phone = %self.vehicle.phone, ?result, "Registration refused.");
                    return Ok(SignOn::Later(Duration::from_secs(60)));
                }
                // Not decided (the directory is away): again shortly.
                _ => return Ok(SignOn::Later(Duration::from_secs(5))),
            }
        }
        let code = self.auth_code.clone().unwrap_or_default();
        let serial = link
            .send(&TerminalMessage::Authenticate(Authentication {
                code,
                imei: Some(format!(
                    "86{:013}",
                    self.rng.gen_range(0..10_000_000_000_000u64)
                )),
                software_version: Some("SIM-1.0".into()),
            }))
            .await?;
        match link.answer_to(serial, within).await? {
            Some(PlatformMessage::GeneralResponse {
                result: Ack::Ok, ..
            }) => Ok(SignOn::Done),
            Some(PlatformMessage::GeneralResponse {
                result: Ack::Failed,
                ..
            }) => {
                // Refused (the edge closes) or not decided: register again.
                self.auth_code = None;
                Ok(SignOn::Later(Duration::from_secs(5)))
            }
            _ => Ok(SignOn::Later(Duration::from_secs(5))),
        }
    }

    async fn tick(&mut self, link: &mut Link, settings: &Settings) -> std::io::Result<()> {
        self.ticks += 1;
        let secs = settings.interval.as_secs_f64();
        self.motion.tick(secs);
        // What the edge did not answer is uploaded again later.
        let stale = settings.interval.mul_f64(2.0).max(Duration::from_secs(5));
        let late: Vec<u16> = self
            .unanswered
            .iter()
            .filter(|(_, (_, at))| at.elapsed() > stale)
            .map(|(s, _)| *s)
            .collect();
        for serial in late {
            if let Some((fixes, _)) = self.unanswered.remove(&serial) {
                self.keep(fixes);
            }
        }

        self.calm_ticks = self.calm_ticks.saturating_sub(1);
        let raised = if self.rng.gen_bool(settings.alarm_chance) {
            if self.rng.gen_bool(0.5) {
                alarm::COLLISION
            } else if self.calm_ticks == 0 {
                alarm::EMERGENCY
            } else {
                0
            }
        } else {
            0
        };
        // A new emergency (not one still held) sends its photo.
        let alarm_bits = raised & !self.latched;
        self.latched |= raised & alarm::EMERGENCY;
        let reported = alarm_bits | self.latched;
        let mut location = self.motion.location(Utc::now(), reported);
        if let Some(evidence) = &mut self.evidence {
            let chance = settings.safety_alarms_per_hour * secs / 3600.0;
            let driving = self.motion.driving();
            evidence.maybe_raise(&mut self.rng, &mut location, driving, chance);
        }
        if self.blind_ticks == 0
            && self.motion.driving()
            && self.rng.gen_bool(settings.blind_zone_chance)
        {
            self.blind_ticks = self.rng.gen_range(3..12);
        }
        if self.blind_ticks > 0 {
            self.blind_ticks -= 1;
            self.keep(vec![location]);
            return Ok(());
        }
        // Standing: a report every third interval, heartbeats between.
        if !self.motion.driving() && reported == 0 && !self.ticks.is_multiple_of(3) {
            link.send(&TerminalMessage::Heartbeat).await?;
        } else {
            let serial = link
                .send(&TerminalMessage::Location(location.clone()))
                .await?;
            self.unanswered
                .insert(serial, (vec![location.clone()], Instant::now()));
        }
        self.upload_backlog(link).await?;
        if alarm_bits != 0 {
            self.photo(link, &location, alarm_bits).await?;
        }
        Ok(())
    }

    fn keep(&mut self, fixes: Vec<Location>) {
        self.backlog.extend(fixes);
        if self.backlog.len() > MAX_BACKLOG {
            let drop = self.backlog.len() - MAX_BACKLOG;
            self.backlog.drain(..drop);
        }
    }

    /// The blind-zone fixes, oldest first, as 0x0704 type 1.
    async fn upload_backlog(&mut self, link: &mut Link) -> std::io::Result<()> {
        if self.backlog.is_empty() {
            return Ok(());
        }
        self.backlog.sort_by_key(|l| l.time);
        let backlog = std::mem::take(&mut self.backlog);
        for batch in backlog.chunks(BATCH) {
            let serial = link
                .send(&TerminalMessage::BatchLocation {
                    blind_zone: true,
                    locations: batch.to_vec(),
                })
                .await?;
            self.unanswered
                .insert(serial, (batch.to_vec(), Instant::now()));
        }
        Ok(())
    }

    /// An alarm photo: the event (0x0800), then the JPEG in packages (0x0801).
    async fn photo(
        &mut self,
        link: &mut Link,
        location: &Location,
        alarm_bits: u32,
    ) -> std::io::Result<()> {
        self.media_id = self.media_id.wrapping_add(1);
        let media = Media {
            id: self.media_id,
            kind: 0,
            format: 0,
            // 2 robbery (emergency button), 3 collision.
            event: if alarm_bits & alarm::COLLISION != 0 {
                3
            } else {
                2
            },
            channel: 1,
        };
        link.send(&TerminalMessage::MediaEvent(media)).await?;
        let mut basic = location.clone();
        basic.mileage_m = None;
        basic.signal = None;
        basic.satellites = None;
        basic.soc_percent = None;
        basic.temperatures.clear();
        let (msg_id, body) = TerminalMessage::MediaData {
            media,
            location: basic,
            data: photo::jpeg(self.rng.r#gen()),
        }
        .encode(VERSION)
        .map_err(std::io::Error::other)?;
        let parts: Vec<&[u8]> = body.chunks(PACKAGE_BYTES).collect();
        let total = parts.len() as u16;
        for (i, part) in parts.into_iter().enumerate() {
            let serial = link.next_serial();
            let package = Package {
                total,
                index: i as u16 + 1,
            };
            link.write(msg_id, serial, Some(package), part).await?;
        }
        Ok(())
    }

    async fn platform(
        &mut self,
        link: &mut Link,
        header: &Header,
        message: PlatformMessage,
    ) -> std::io::Result<()> {
        match message {
            PlatformMessage::GeneralResponse {
                reply_serial,
                result,
                ..
            } => {
                // "Failed" means the platform did not take the report: keep
                // its fixes for the next upload, as a real terminal does.
                if let Some((fixes, _)) = self.unanswered.remove(&reply_serial)
                    && result == Ack::Failed
                {
                    self.keep(fixes);
                }
            }
            PlatformMessage::VehicleControl { lock } => {
                let refuse = self.motion.moving();
                link.send(&TerminalMessage::GeneralResponse {
                    reply_serial: header.serial,
                    reply_id: id::VEHICLE_CONTROL,
                    result: u8::from(refuse),
                })
                .await?;
                tracing::info!(phone = %self.vehicle.phone, lock, refused = refuse, "Door command.");
                if !refuse {
                    self.motion.set_locked(lock);
                    let location = self.motion.location(Utc::now(), 0);
                    link.send(&TerminalMessage::VehicleControlResponse {
                        reply_serial: header.serial,
                        location,
                    })
                    .await?;
                }
            }
            PlatformMessage::ManualAlarmConfirm { types, .. } => {
                link.send(&TerminalMessage::GeneralResponse {
                    reply_serial: header.serial,
                    reply_id: id::MANUAL_ALARM_CONFIRM,
                    result: 0,
                })
                .await?;
                if self.latched & types != 0 {
                    self.calm_ticks = CALM_AFTER_CONFIRMATION;
                }
                self.latched &= !types;
                tracing::info!(phone = %self.vehicle.phone, types, "Alarm confirmed by the platform.");
            }
            PlatformMessage::QueryAvAttributes
            | PlatformMessage::LiveRequest(_)
            | PlatformMessage::LiveControl(_)
            | PlatformMessage::QueryResources(_)
            | PlatformMessage::PlaybackRequest(_)
            | PlatformMessage::PlaybackControl(_) => {
                let answers = match &mut self.video {
                    Some(video) => video.command(header.serial, message),
                    None => vec![TerminalMessage::GeneralResponse {
                        reply_serial: header.serial,
                        reply_id: header.msg_id,
                        result: result::UNSUPPORTED,
                    }],
                };
                for answer in answers {
                    link.send(&answer).await?;
                }
            }
            PlatformMessage::AttachmentUpload(request) => {
                let result = match &self.evidence {
                    Some(evidence) => evidence.upload(request),
                    None => result::UNSUPPORTED,
                };
                link.send(&TerminalMessage::GeneralResponse {
                    reply_serial: header.serial,
                    reply_id: id::ATTACHMENT_UPLOAD,
                    result,
                })
                .await?;
            }
            // 0x9212 comes on the attachment connection, not here.
            PlatformMessage::RegisterResponse { .. }
            | PlatformMessage::MediaDataResponse { .. }
            | PlatformMessage::FileUploadAnswer(_) => {}
        }
        Ok(())
    }
}

/// The next answer of the camera task; never, without cameras.
async fn camera_answer(video: &mut Option<Video>) -> Option<video::Answer> {
    match video {
        Some(video) => video.answer().await,
        None => std::future::pending().await,
    }
}
