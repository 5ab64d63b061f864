//! One terminal's TCP connection: frames in, answers out. A terminal must
//! register (once, ever) and authenticate (each connection) before its
//! reports are taken; a report is answered only after it is in the stream.
//! Every limit is per connection: frame size, reassembly buffer, message rate
//! and idle time. A malformed frame is counted and dropped; it never ends the
//! connection, but a terminal that keeps flooding is cut off.
//!
//! While a terminal is authenticated its connection also takes the platform's
//! commands for it (core NATS requests on `telematics.command.<phone>`):
//! each becomes a 0x8500 on the socket, and the terminal's answers to it
//! (0x0001, then 0x0500) become command results on the telemetry stream.
//! Video commands (0x9101, 0x9102, 0x9003, 0x9205, 0x9201, 0x9202) are
//! replied to only once the terminal answers: with 0x0001's result, 0x1003's
//! attributes (the oldest 0x9003 waiting: 0x1003 names no serial) or
//! 0x1205's recordings (by its answer serial).
//!
//! A logout (0x0003) is answered and ends the session, not the connection.
//!
//! A bound terminal's vendor items are read by its maker: the one the
//! directory kept from its registration (on whichever connection or
//! replica that was), or else the one it registered with on this
//! connection; neither known, ours where the length fits.
//!
//! Once authenticated, a terminal is asked 0x9003 (once per connection);
//! every 0x1003 it sends is reported to the directory. A report carrying
//! active-safety alarms with attachments is followed by one 0x9208 per
//! alarm (never twice for the same alarm on a connection), naming the
//! attachment server and an alarm number from the shared registry.

use std::collections::{HashMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};

use chrono::Utc;
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::subjects;
use fleetdesk_proto::telematics::v1 as pb;
use futures::StreamExt as _;
use prost::Message as _;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use crate::attachments::Registry;
use crate::directory::{Binding, Directory, Registered};
use crate::jt808::header::{Header, Version};
use crate::jt808::location::{AlarmIdentifier, VendorLayouts};
use crate::jt808::message::{
    Ack, AttachmentUploadRequest, Media, MediaServer, PlatformMessage, TerminalMessage, frame,
};
use crate::jt808::packets::Reassembler;
use crate::jt808::{FrameDecoder, Location, id};
use crate::publish::{self, Publisher};
use crate::video::convert;

/// What every connection shares.
#[derive(Debug)]
pub(crate) struct Edge<D> {
    pub directory: D,
    pub publisher: Publisher,
    /// Core NATS: the command subscriptions and their replies.
    pub nats: async_nats::Client,
    /// Where uploaded photos go.
    pub files: FileStore,
    pub idle: Duration,
    pub max_messages_per_sec: u32,
    /// The alarm numbers handed out in 0x9208, for the attachment server.
    pub evidence: Arc<Registry>,
    /// Where terminals upload evidence (this replica's attachment server).
    pub attachment_server: MediaServer,
}

#[derive(Debug)]
enum Session {
    /// Connected; may register or authenticate.
    Anonymous,
    /// Authenticated: reports go to this vehicle.
    Bound {
        terminal: String,
        binding: Binding,
        /// The authentication's header: the version and phone to answer in.
        header: Header,
        /// How its maker's vendor items are read.
        vendor: VendorLayouts,
    },
}

/// Token bucket: `rate` messages a second, bursts of twice that.
#[derive(Debug)]
struct RateLimit {
    rate: f64,
    tokens: f64,
    at: Instant,
}

impl RateLimit {
    fn new(rate: u32) -> RateLimit {
        RateLimit {
            rate: f64::from(rate),
            tokens: f64::from(rate) * 2.0,
            at: Instant::now(),
        }
    }

    fn allow(&mut self) -> bool {
        let now = Instant::now();
        let refill = now.duration_since(self.at).as_secs_f64() * self.rate;
        self.tokens = (self.tokens + refill).min(self.rate * 2.0);
        self.at = now;
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// Malformed or refused frames after which a connection is closed.
const MAX_STRIKES: u32 = 100;
/// Commands awaiting the terminal's answers on one connection; past it the
/// oldest is forgotten (vehicle times it out).
const MAX_PENDING_COMMANDS: usize = 16;

/// How long a video command's answer is waited for on the connection; its
/// requester times out well before.
const MAX_VIDEO_ANSWER_WAIT: Duration = Duration::from_secs(120);

/// Alarms whose evidence a connection remembers asking for.
const MAX_ASKED_ALARMS: usize = 64;

/// A 0x8500 written to the terminal, by its platform serial.
#[derive(Debug)]
struct PendingCommand {
    command_id: String,
    lock: bool,
    sent_at: Instant,
}

/// A video command written to the terminal, awaiting its answer.
#[derive(Debug)]
struct PendingVideo {
    command_id: String,
    /// Where the requester waits for the answer.
    reply: async_nats::Subject,
    /// The 0x9xxx message sent.
    msg_id: u16,
    sent_at: Instant,
}

struct Connection<'a, D> {
    edge: &'a Edge<D>,
    stream: TcpStream,
    session: Session,
    serial: u16,
    strikes: u32,
    /// The platform's commands for this terminal, once authenticated.
    commands: Option<async_nats::Subscriber>,
    pending: HashMap<u16, PendingCommand>,
    /// Video commands awaiting the terminal's answer, by platform serial.
    video: HashMap<u16, PendingVideo>,
    /// Speed of the last report, to explain a refused command.
    last_speed_dkmh: Option<u16>,
    /// Alarms whose evidence was asked for (0x9208), oldest first.
    asked: VecDeque<AlarmIdentifier>,
    /// (terminal, maker) of a registration accepted on this connection.
    registered: Option<(String, String)>,
}

pub(crate) async fn serve<D: Directory>(stream: TcpStream, edge: Arc<Edge<D>>) {
    let mut conn = Connection {
        edge: &edge,
        stream,
        session: Session::Anonymous,
        serial: 0,
        strikes: 0,
        commands: None,
        pending: HashMap::new(),
        video: HashMap::new(),
        last_speed_dkmh: None,
        asked: VecDeque::new(),
        registered: None,
    };
    if let Err(err) = conn.run().await {
        tracing::debug!(error = %err, "Terminal connection ended.");
    }
    // Whoever waits for an answer hears now that none will come.
    for (_, pending) in conn.video.drain() {
        conn.edge
            .reply_video(
                pending.reply,
                unanswered(pending.command_id, "终端连接已断开"),
            )
            .await;
    }
}

/// What woke the connection up.
enum Event {
    Read(Result<std::io::Result<usize>, tokio::time::error::Elapsed>),
    Command(Option<async_nats::Message>),
}

/// The next command, or never while there is no subscription.
async fn next_command(
    commands: &mut Option<async_nats::Subscriber>,
) -> Option<async_nats::Message> {
    match commands {
        Some(subscriber) => subscriber.next().await,
        None => std::future::pending().await,
    }
}

impl<D: Directory> Connection<'_, D> {
    async fn run(&mut self) -> std::io::Result<()> {
        let mut decoder = FrameDecoder::default();
        let mut reassembler = Reassembler::default();
        let mut rate = RateLimit::new(self.edge.max_messages_per_sec);
        let mut buf = vec![0u8; 4096];
        let mut frames = Vec::new();
        loop {
            let event = tokio::select! {
                read = tokio::time::timeout(self.edge.idle, self.stream.read(&mut buf)) => Event::Read(read),
                command = next_command(&mut self.commands) => Event::Command(command),
            };
            let n = match event {
                Event::Command(Some(message)) => {
                    self.command(message).await?;
                    continue;
                }
                Event::Command(None) => {
                    self.commands = None;
                    continue;
                }
                Event::Read(Err(_)) => {
                    metrics::counter!("telematics_connections_closed_total", "reason" => "idle")
                        .increment(1);
                    return Ok(());
                }
                Event::Read(Ok(read)) => read?,
            };
            if n == 0 {
                return Ok(());
            }
            decoder.feed(&buf[..n], &mut frames);
            for frame in frames.drain(..) {
                let parsed = frame.map_err(|e| e.to_string()).and_then(|bytes| {
                    let (header, body) = Header::parse(&bytes).map_err(|e| e.to_string())?;
                    reassembler.push(header, body).map_err(|e| e.to_string())
                });
                match parsed {
                    Err(reason) => {
                        metrics::counter!("telematics_frames_total", "result" => "malformed")
                            .increment(1);
                        tracing::debug!(%reason, "Malformed frame dropped.");
                        self.strike()?;
                    }
                    Ok(None) => {}
                    Ok(Some(_)) if !rate.allow() => {
                        metrics::counter!("telematics_frames_total", "result" => "rate_limited")
                            .increment(1);
                        self.strike()?;
                    }
                    Ok(Some((header, body))) => {
                        match TerminalMessage::decode_with(&header, &body, self.vendor_layouts()) {
                            Ok(message) => {
                                metrics::counter!("telematics_frames_total", "result" => "ok")
                                    .increment(1);
                                self.handle(&header, message).await?;
                            }
                            Err(err) => {
                                metrics::counter!("telematics_frames_total", "result" => "malformed")
                                .increment(1);
                                tracing::debug!(error = %err, msg_id = header.msg_id, "Undecodable body.");
                                self.answer(&header, Ack::BadMessage).await?;
                                self.strike()?;
                            }
                        }
                    }
                }
            }
        }
    }

    fn strike(&mut self) -> std::io::Result<()> {
        self.strikes += 1;
        if self.strikes > MAX_STRIKES {
            metrics::counter!("telematics_connections_closed_total", "reason" => "abuse")
                .increment(1);
            return Err(std::io::Error::other("too many malformed or excess frames"));
        }
        Ok(())
    }

    async fn handle(&mut self, header: &Header, message: TerminalMessage) -> std::io::Result<()> {
        let terminal = header.terminal().to_owned();
        match message {
            TerminalMessage::Register(registration) => {
                let (result, auth_code) = match self
                    .edge
                    .directory
                    .register(&terminal, &registration)
                    .await
                {
                    Ok(Registered::Accepted { auth_code }) => {
                        self.registered =
                            Some((terminal.clone(), registration.manufacturer.clone()));
                        (crate::jt808::message::RegisterResult::Ok, auth_code)
                    }
                    Ok(Registered::Refused(result)) => {
                        metrics::counter!("telematics_terminals_refused_total", "step" => "register")
                                .increment(1);
                        tracing::info!(%terminal, ?result, "Registration refused.");
                        (result, String::new())
                    }
                    // 0x8100 has no "try later": a failed general response
                    // tells the terminal to register again.
                    Err(err) => {
                        tracing::warn!(error = %err, %terminal, "Registration not decided.");
                        return self.answer(header, Ack::Failed).await;
                    }
                };
                let reply = PlatformMessage::RegisterResponse {
                    reply_serial: header.serial,
                    result,
                    auth_code,
                };
                self.send(header, &reply).await.map(|_| ())
            }
            TerminalMessage::Authenticate(auth) => {
                match self
                    .edge
                    .directory
                    .authenticate(&terminal, &auth.code)
                    .await
                {
                    Ok(Some(binding)) => {
                        tracing::debug!(%terminal, vehicle = %binding.vehicle_id, "Terminal authenticated.");
                        self.take_commands(&terminal).await;
                        let vendor = self.vendor_of(&terminal).await;
                        self.session = Session::Bound {
                            terminal,
                            binding,
                            header: header.clone(),
                            vendor,
                        };
                        self.answer(header, Ack::Ok).await?;
                        // Whether it has cameras; its 0x1003 is reported
                        // whenever it comes, a silence is left alone.
                        self.send(header, &PlatformMessage::QueryAvAttributes)
                            .await
                            .map(|_| ())
                    }
                    Ok(None) => {
                        metrics::counter!("telematics_terminals_refused_total", "step" => "authenticate")
                            .increment(1);
                        self.answer(header, Ack::Failed).await?;
                        Err(std::io::Error::other("authentication refused"))
                    }
                    // The connection stays: the terminal may authenticate again.
                    Err(err) => {
                        tracing::warn!(error = %err, %terminal, "Authentication not decided.");
                        self.answer(header, Ack::Failed).await
                    }
                }
            }
            TerminalMessage::Heartbeat => self.answer(header, Ack::Ok).await,
            // Signed off: its reports are refused and its commands find no
            // responder until it authenticates again on this connection.
            TerminalMessage::Logout => {
                if let Session::Bound { terminal, .. } = &self.session {
                    tracing::info!(%terminal, "Terminal logged out.");
                    metrics::counter!("telematics_logouts_total").increment(1);
                }
                self.session = Session::Anonymous;
                self.commands = None;
                self.answer(header, Ack::Ok).await
            }
            TerminalMessage::Location(fix) => {
                self.last_speed_dkmh = Some(fix.speed_dkmh);
                self.report(header, &[fix], false).await
            }
            TerminalMessage::BatchLocation {
                blind_zone,
                locations,
            } => self.report(header, &locations, blind_zone).await,
            TerminalMessage::GeneralResponse {
                reply_serial,
                reply_id,
                result,
            } => {
                if reply_id == id::VEHICLE_CONTROL {
                    self.control_acknowledged(reply_serial, result).await;
                } else {
                    self.video_acknowledged(reply_serial, reply_id, result)
                        .await;
                }
                Ok(())
            }
            TerminalMessage::VehicleControlResponse {
                reply_serial,
                location,
            } => {
                self.last_speed_dkmh = Some(location.speed_dkmh);
                self.control_done(reply_serial, location).await;
                Ok(())
            }
            // The event's fields come again with the data (0x0801); the
            // event itself only needs its answer.
            TerminalMessage::MediaEvent(_) => {
                if self.bound().is_none() {
                    return self.refuse_unauthenticated(header).await;
                }
                self.answer(header, Ack::Ok).await
            }
            TerminalMessage::MediaData {
                media,
                location,
                data,
            } => self.media(header, media, &location, data).await,
            TerminalMessage::AvAttributes(attributes) => {
                if self.bound().is_none() {
                    return self.refuse_unauthenticated(header).await;
                }
                self.av_attributes(&attributes).await;
                self.answer(header, Ack::Ok).await
            }
            TerminalMessage::ResourceList {
                reply_serial,
                resources,
            } => {
                if self.bound().is_none() {
                    return self.refuse_unauthenticated(header).await;
                }
                self.resource_list(reply_serial, &resources).await;
                self.answer(header, Ack::Ok).await
            }
            // Alarm evidence belongs on the attachment server's connection.
            TerminalMessage::AlarmAttachments(_)
            | TerminalMessage::FileInfo(_)
            | TerminalMessage::FileUploaded(_) => {
                tracing::debug!(msg_id = header.msg_id, "Evidence message on the 808 link.");
                self.answer(header, Ack::Unsupported).await
            }
            TerminalMessage::Unsupported(_) => self.answer(header, Ack::Unsupported).await,
        }
    }

    /// How the reports on this connection read vendor items.
    fn vendor_layouts(&self) -> VendorLayouts {
        match &self.session {
            Session::Bound { vendor, .. } => *vendor,
            Session::Anonymous => VendorLayouts::Unreported,
        }
    }

    /// The vendor layouts of `terminal`'s maker: the directory's, else the
    /// registration on this connection.
    async fn vendor_of(&self, terminal: &str) -> VendorLayouts {
        let kept = match self.edge.directory.maker(terminal).await {
            Ok(maker) => maker,
            Err(err) => {
                tracing::warn!(error = %err, %terminal, "Maker not known; vendor items read by length.");
                None
            }
        };
        let seen = self
            .registered
            .as_ref()
            .filter(|(registered, _)| registered == terminal)
            .map(|(_, maker)| maker.clone());
        VendorLayouts::of_maker(kept.or(seen).as_deref())
    }

    fn bound(&self) -> Option<(&str, &Binding)> {
        match &self.session {
            Session::Bound {
                terminal, binding, ..
            } => Some((terminal.as_str(), binding)),
            Session::Anonymous => None,
        }
    }

    async fn refuse_unauthenticated(&mut self, header: &Header) -> std::io::Result<()> {
        metrics::counter!("telematics_terminals_refused_total", "step" => "unauthenticated")
            .increment(1);
        self.strike()?;
        self.answer(header, Ack::Failed).await
    }

    /// Publishes reports of an authenticated terminal; answers once they are stored.
    async fn report(
        &mut self,
        header: &Header,
        fixes: &[Location],
        backfill: bool,
    ) -> std::io::Result<()> {
        let Some((terminal, binding)) = self.bound() else {
            return self.refuse_unauthenticated(header).await;
        };
        match self
            .edge
            .publisher
            .publish(terminal, binding, fixes, backfill)
            .await
        {
            Ok(()) => {
                metrics::counter!("telematics_fixes_total").increment(fixes.len() as u64);
                self.answer(header, Ack::Ok).await?;
                self.request_evidence(header, fixes).await
            }
            // No answer: the terminal keeps the report and sends it again.
            Err(err) => {
                tracing::warn!(error = %err, "Fixes not stored; the terminal will resend.");
                Ok(())
            }
        }
    }

    /// 0x9208 for each alarm of `fixes` with attachments not asked for yet
    /// on this connection.
    async fn request_evidence(
        &mut self,
        header: &Header,
        fixes: &[Location],
    ) -> std::io::Result<()> {
        for alarm in fixes.iter().flat_map(|f| &f.safety_alarms) {
            let identifier = &alarm.identifier;
            if identifier.attachment_count == 0 || self.asked.contains(identifier) {
                continue;
            }
            let Some((_, binding)) = self.bound() else {
                return Ok(());
            };
            let alarm_number = self.edge.evidence.request(binding, identifier);
            if self.asked.len() >= MAX_ASKED_ALARMS {
                self.asked.pop_front();
            }
            self.asked.push_back(identifier.clone());
            let request = PlatformMessage::AttachmentUpload(AttachmentUploadRequest {
                server: self.edge.attachment_server.clone(),
                identifier: identifier.clone(),
                alarm_number,
            });
            metrics::counter!("telematics_evidence_requests_total").increment(1);
            self.send(header, &request).await?;
        }
        Ok(())
    }

    /// Subscribes to the terminal's commands (replacing an earlier
    /// subscription). Without NATS the terminal still reports; commands then
    /// find no responder, which vehicle reads as offline.
    async fn take_commands(&mut self, terminal: &str) {
        self.commands = None;
        match self
            .edge
            .nats
            .subscribe(subjects::telematics_command(terminal))
            .await
        {
            Ok(subscriber) => self.commands = Some(subscriber),
            Err(err) => tracing::warn!(error = %err, %terminal, "Commands not subscribed."),
        }
    }

    /// A platform command (0x8500 door control, 0x8203 alarm confirmation,
    /// video) to the terminal, and the delivery as the reply: at once for
    /// doors and alarms, once the terminal answers for video.
    async fn command(&mut self, message: async_nats::Message) -> std::io::Result<()> {
        let Some(reply) = message.reply.clone() else {
            return Ok(());
        };
        let (delivery, written) = match pb::VehicleCommand::decode(message.payload) {
            Err(err) => {
                tracing::warn!(error = %err, "Undecodable command.");
                (not_sent(String::new(), "指令无法解析"), Ok(()))
            }
            Ok(pb::VehicleCommand {
                command_id,
                phone: _,
                action,
            }) => match (action, &self.session) {
                (_, Session::Anonymous) => (not_sent(command_id, "终端未连接"), Ok(())),
                (None, _) => (not_sent(command_id, "不支持的指令"), Ok(())),
                (
                    Some(pb::vehicle_command::Action::LockDoors(lock)),
                    Session::Bound { header, .. },
                ) => {
                    let to = header.clone();
                    match self
                        .send(&to, &PlatformMessage::VehicleControl { lock })
                        .await
                    {
                        Ok(serial) => {
                            self.remember(serial, command_id.clone(), lock);
                            (sent(command_id, serial), Ok(()))
                        }
                        Err(err) => (not_sent(command_id, "终端连接已断开"), Err(err)),
                    }
                }
                (
                    Some(pb::vehicle_command::Action::ConfirmAlarm(confirm)),
                    Session::Bound { header, .. },
                ) => {
                    let to = header.clone();
                    let message = PlatformMessage::ManualAlarmConfirm {
                        alarm_serial: u16::try_from(confirm.alarm_serial).unwrap_or(0),
                        types: confirm.alarm_types,
                    };
                    // Its general response needs no answer of ours: the
                    // terminal clears the bits, and its next report shows it.
                    match self.send(&to, &message).await {
                        Ok(serial) => (sent(command_id, serial), Ok(())),
                        Err(err) => (not_sent(command_id, "终端连接已断开"), Err(err)),
                    }
                }
                (Some(video), Session::Bound { header, .. }) => {
                    let to = header.clone();
                    let message = match video {
                        pb::vehicle_command::Action::LockDoors(_)
                        | pb::vehicle_command::Action::ConfirmAlarm(_) => None,
                        pb::vehicle_command::Action::OpenLive(open) => {
                            Some(convert::open_live(open))
                        }
                        pb::vehicle_command::Action::ControlLive(control) => {
                            Some(convert::control_live(control))
                        }
                        pb::vehicle_command::Action::QueryAvAttributes(query) => {
                            Some(Ok(convert::query_av_attributes(query)))
                        }
                        pb::vehicle_command::Action::QueryResources(query) => {
                            Some(convert::query_resources(query))
                        }
                        pb::vehicle_command::Action::OpenPlayback(open) => {
                            Some(convert::open_playback(open))
                        }
                        pb::vehicle_command::Action::ControlPlayback(control) => {
                            Some(convert::control_playback(control))
                        }
                    };
                    match message {
                        // Doors and alarms are matched above.
                        None => (not_sent(command_id, "不支持的指令"), Ok(())),
                        Some(Err(invalid)) => (not_sent(command_id, invalid.0), Ok(())),
                        Some(Ok(message)) => match self.send(&to, &message).await {
                            Ok(serial) => {
                                let (msg_id, _) = message.encode(to.version);
                                self.await_answer(serial, command_id, reply, msg_id).await;
                                return Ok(());
                            }
                            Err(err) => (not_sent(command_id, "终端连接已断开"), Err(err)),
                        },
                    }
                }
            },
        };
        if let Err(err) = self
            .edge
            .nats
            .publish(reply, delivery.encode_to_vec().into())
            .await
        {
            tracing::warn!(error = %err, "Command delivery not replied.");
        }
        written
    }

    /// Keeps a video command until the terminal answers it; past the limit
    /// the oldest waiting one is told the terminal did not answer.
    async fn await_answer(
        &mut self,
        serial: u16,
        command_id: String,
        reply: async_nats::Subject,
        msg_id: u16,
    ) {
        metrics::counter!("telematics_commands_total", "result" => "sent").increment(1);
        // Their requesters gave up long ago.
        self.video
            .retain(|_, p| p.sent_at.elapsed() < MAX_VIDEO_ANSWER_WAIT);
        if self.video.len() >= MAX_PENDING_COMMANDS
            && let Some(oldest) = self
                .video
                .iter()
                .min_by_key(|(_, p)| p.sent_at)
                .map(|(serial, _)| *serial)
            && let Some(dropped) = self.video.remove(&oldest)
        {
            self.edge
                .reply_video(dropped.reply, unanswered(dropped.command_id, "终端未应答"))
                .await;
        }
        self.video.insert(
            serial,
            PendingVideo {
                command_id,
                reply,
                msg_id,
                sent_at: Instant::now(),
            },
        );
    }

    /// The terminal's 0x0001 to a video command. A query's success waits for
    /// its data (0x1003, 0x1205); a playback request is done by either.
    async fn video_acknowledged(&mut self, serial: u16, reply_id: u16, result: u8) {
        let Some(pending) = self.video.get(&serial) else {
            return;
        };
        let query = matches!(
            pending.msg_id,
            id::QUERY_AV_ATTRIBUTES | id::QUERY_RESOURCES
        );
        if pending.msg_id != reply_id || (query && result == 0) {
            return;
        }
        let Some(pending) = self.video.remove(&serial) else {
            return;
        };
        let delivery = answered(pending.command_id, serial, result, None, Vec::new());
        self.edge.reply_video(pending.reply, delivery).await;
    }

    /// 0x1003: reported to the directory, and the answer of the oldest
    /// 0x9003 waiting.
    async fn av_attributes(&mut self, attributes: &crate::jt808::message::AvAttributes) {
        if let Some((terminal, _)) = self.bound()
            && let Err(err) = self
                .edge
                .directory
                .report_av_attributes(terminal, attributes)
                .await
        {
            tracing::warn!(error = %err, %terminal, "Audio/video attributes not reported.");
        }
        let Some(serial) = self
            .video
            .iter()
            .filter(|(_, p)| p.msg_id == id::QUERY_AV_ATTRIBUTES)
            .min_by_key(|(_, p)| p.sent_at)
            .map(|(serial, _)| *serial)
        else {
            return;
        };
        let Some(pending) = self.video.remove(&serial) else {
            return;
        };
        let attributes = Some(convert::av_attributes(attributes));
        let delivery = answered(pending.command_id, serial, 0, attributes, Vec::new());
        self.edge.reply_video(pending.reply, delivery).await;
    }

    /// 0x1205: answers the 0x9205 (or 0x9201) it names.
    async fn resource_list(&mut self, serial: u16, resources: &[crate::jt808::message::Resource]) {
        if !self
            .video
            .get(&serial)
            .is_some_and(|p| matches!(p.msg_id, id::QUERY_RESOURCES | id::PLAYBACK_REQUEST))
        {
            return;
        }
        let Some(pending) = self.video.remove(&serial) else {
            return;
        };
        let resources = resources.iter().map(convert::resource).collect();
        let delivery = answered(pending.command_id, serial, 0, None, resources);
        self.edge.reply_video(pending.reply, delivery).await;
    }

    fn remember(&mut self, serial: u16, command_id: String, lock: bool) {
        if self.pending.len() >= MAX_PENDING_COMMANDS
            && let Some(oldest) = self
                .pending
                .iter()
                .min_by_key(|(_, p)| p.sent_at)
                .map(|(serial, _)| *serial)
        {
            self.pending.remove(&oldest);
        }
        self.pending.insert(
            serial,
            PendingCommand {
                command_id,
                lock,
                sent_at: Instant::now(),
            },
        );
    }

    /// The terminal's general response to a 0x8500.
    async fn control_acknowledged(&mut self, serial: u16, result: u8) {
        let Some(pending) = self.pending.get(&serial) else {
            return;
        };
        let command_id = pending.command_id.clone();
        let (outcome, detail) = if result == 0 {
            (pb::CommandOutcome::Acknowledged, String::new())
        } else {
            self.pending.remove(&serial);
            let moving = self.last_speed_dkmh.is_some_and(|s| s > 0);
            let detail = match result {
                1 if moving => "终端拒绝: 车辆行驶中",
                1 => "终端拒绝执行",
                2 => "终端报告指令有误",
                3 => "终端不支持该指令",
                _ => "终端应答失败",
            };
            (pb::CommandOutcome::Failed, detail.to_owned())
        };
        self.publish_result(command_id, outcome, detail, None).await;
    }

    /// The terminal's 0x0500: the door state after the command, with its position.
    async fn control_done(&mut self, serial: u16, location: Location) {
        let Some((terminal, binding)) = self.bound() else {
            return;
        };
        let position = publish::to_pb(terminal, binding, &location, Utc::now(), false);
        // The position is a report like any other (the latest lock state).
        if let Err(err) = self
            .edge
            .publisher
            .publish(terminal, binding, std::slice::from_ref(&location), false)
            .await
        {
            tracing::warn!(error = %err, "Position of a control answer not stored.");
        }
        let Some(pending) = self.pending.remove(&serial) else {
            return;
        };
        let (outcome, detail) = if location.door_locked() == pending.lock {
            (pb::CommandOutcome::Succeeded, String::new())
        } else if pending.lock {
            (pb::CommandOutcome::Failed, "终端回报车门未上锁".to_owned())
        } else {
            (pb::CommandOutcome::Failed, "终端回报车门仍上锁".to_owned())
        };
        self.publish_result(pending.command_id, outcome, detail, Some(position))
            .await;
    }

    async fn publish_result(
        &self,
        command_id: String,
        outcome: pb::CommandOutcome,
        detail: String,
        position: Option<pb::Fix>,
    ) {
        let Some((_, binding)) = self.bound() else {
            return;
        };
        let label = match outcome {
            pb::CommandOutcome::Acknowledged => "acknowledged",
            pb::CommandOutcome::Succeeded => "succeeded",
            pb::CommandOutcome::Failed => "failed",
            pb::CommandOutcome::Unspecified => "unspecified",
        };
        let msg_id = format!("{command_id}:{label}");
        let result = pb::CommandResult {
            command_id,
            enterprise_id: binding.enterprise_id.clone(),
            vehicle_id: binding.vehicle_id.clone(),
            outcome: outcome as i32,
            detail,
            receive_time: Some(publish::timestamp(Utc::now())),
            position,
        };
        let subject = subjects::telemetry_command(&binding.enterprise_id, &binding.vehicle_id);
        match self
            .edge
            .publisher
            .publish_one(subject, &msg_id, &result)
            .await
        {
            Ok(()) => {
                metrics::counter!("telematics_commands_total", "result" => label).increment(1);
            }
            // Vehicle times the command out; the terminal does not resend answers.
            Err(err) => tracing::warn!(error = %err, "Command result not stored."),
        }
    }

    /// A photo (or clip): into the object store, announced on the stream,
    /// and only then answered with 0x8800 (else the terminal uploads again).
    async fn media(
        &mut self,
        header: &Header,
        media: Media,
        location: &Location,
        data: Vec<u8>,
    ) -> std::io::Result<()> {
        let Some((terminal, binding)) = self.bound() else {
            return self.refuse_unauthenticated(header).await;
        };
        let Ok(enterprise) = uuid::Uuid::parse_str(&binding.enterprise_id) else {
            tracing::warn!(enterprise = %binding.enterprise_id, "Media of an enterprise without a uuid dropped.");
            return self.answer(header, Ack::Failed).await;
        };
        // The same upload again (a lost answer) lands on the same key.
        let name = format!("{}.{}", media.id, media_extension(media.format));
        let key = files::key(
            enterprise,
            "media",
            &format!(
                "{}-{}-{}",
                binding.vehicle_id,
                media.id,
                location.time.timestamp()
            ),
            &name,
        );
        let size = data.len() as i64;
        if let Err(err) = self.edge.files.put(&key, data.into()).await {
            tracing::warn!(error = %err.message, %key, "Media not stored; the terminal will resend.");
            return Ok(());
        }
        let stored = pb::MediaStored {
            enterprise_id: binding.enterprise_id.clone(),
            vehicle_id: binding.vehicle_id.clone(),
            media_id: media.id,
            media_type: i32::from(media.kind),
            event_code: i32::from(media.event),
            channel: i32::from(media.channel),
            content_type: files::content_type(&name).to_owned(),
            size_bytes: size,
            position: Some(publish::to_pb(
                terminal,
                binding,
                location,
                Utc::now(),
                false,
            )),
            object_key: key.clone(),
            alarm_key: String::new(),
            file_name: String::new(),
        };
        let subject = subjects::telemetry_media(&binding.enterprise_id, &binding.vehicle_id);
        if let Err(err) = self
            .edge
            .publisher
            .publish_one(subject, &key, &stored)
            .await
        {
            tracing::warn!(error = %err, "Media not announced; the terminal will resend.");
            return Ok(());
        }
        metrics::counter!("telematics_media_total").increment(1);
        let reply = PlatformMessage::MediaDataResponse {
            media_id: media.id,
            retransmit: Vec::new(),
        };
        self.send(header, &reply).await.map(|_| ())
    }

    async fn answer(&mut self, header: &Header, result: Ack) -> std::io::Result<()> {
        let reply = PlatformMessage::GeneralResponse {
            reply_serial: header.serial,
            reply_id: header.msg_id,
            result,
        };
        self.send(header, &reply).await.map(|_| ())
    }

    /// Writes a platform message in the version the terminal speaks;
    /// returns the platform serial it carried.
    async fn send(&mut self, to: &Header, message: &PlatformMessage) -> std::io::Result<u16> {
        let version: Version = to.version;
        let (msg_id, body) = message.encode(version);
        debug_assert!(msg_id != id::TERMINAL_GENERAL_RESPONSE);
        let serial = self.serial;
        let header = Header {
            msg_id,
            version,
            phone: to.phone.clone(),
            serial,
            package: None,
        };
        self.serial = self.serial.wrapping_add(1);
        let bytes = frame(&header, &body).map_err(std::io::Error::other)?;
        self.stream.write_all(&bytes).await?;
        Ok(serial)
    }
}

impl<D> Edge<D> {
    /// Replies to a video command's requester.
    async fn reply_video(&self, reply: async_nats::Subject, delivery: pb::CommandDelivery) {
        if let Err(err) = self
            .nats
            .publish(reply, delivery.encode_to_vec().into())
            .await
        {
            tracing::warn!(error = %err, "Video command answer not replied.");
        }
    }
}

/// The delivery of a command written to the socket with `serial`.
fn sent(command_id: String, serial: u16) -> pb::CommandDelivery {
    metrics::counter!("telematics_commands_total", "result" => "sent").increment(1);
    pb::CommandDelivery {
        command_id,
        sent: true,
        serial: u32::from(serial),
        detail: String::new(),
        answered: false,
        result: 0,
        av_attributes: None,
        resources: Vec::new(),
    }
}

fn not_sent(command_id: String, detail: &str) -> pb::CommandDelivery {
    metrics::counter!("telematics_commands_total", "result" => "not_sent").increment(1);
    pb::CommandDelivery {
        command_id,
        sent: false,
        serial: 0,
        detail: detail.to_owned(),
        answered: false,
        result: 0,
        av_attributes: None,
        resources: Vec::new(),
    }
}

/// The terminal's answer to the video command it got with `serial`.
fn answered(
    command_id: String,
    serial: u16,
    result: u8,
    av_attributes: Option<pb::AvAttributes>,
    resources: Vec<pb::Resource>,
) -> pb::CommandDelivery {
    pb::CommandDelivery {
        command_id,
        sent: true,
        serial: u32::from(serial),
        detail: convert::refusal(result).to_owned(),
        answered: true,
        result: u32::from(result),
        av_attributes,
        resources,
    }
}

/// A video command sent but never answered.
fn unanswered(command_id: String, detail: &str) -> pb::CommandDelivery {
    metrics::counter!("telematics_commands_total", "result" => "unanswered").increment(1);
    pb::CommandDelivery {
        command_id,
        sent: true,
        serial: 0,
        detail: detail.to_owned(),
        answered: false,
        result: 0,
        av_attributes: None,
        resources: Vec::new(),
    }
}

/// File extension of a multimedia format code (Table 82).
fn media_extension(format: u8) -> &'static str {
    match format {
        0 => "jpg",
        1 => "tif",
        2 => "mp3",
        3 => "wav",
        4 => "wmv",
        _ => "bin",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_rate_limit_allows_a_burst_then_refuses() {
        let mut limit = RateLimit::new(5);
        let allowed = (0..20).filter(|_| limit.allow()).count();
        assert_eq!(allowed, 10);
    }
}
