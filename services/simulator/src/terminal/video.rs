//! The video side of a terminal with cameras (JT/T 1078 over its 808
//! link). A command is checked in the 808 loop and answered there when its
//! answer is known at once: 0x9003 with 0x1003, 0x9205 with 0x1205 from
//! the [`Recorder`], 0x9101 with its 0x0001, 0x9201 with the 0x1205 of
//! what will be played. What touches running streams goes, in order, to
//! one task that owns the [`Camera`], so starting ffmpeg or waiting for a
//! media server never holds up the reports; the task's 0x0001 answers
//! (0x9102, 0x9202) come back through a channel the loop reads.
//!
//! Without ffmpeg every stream command is refused (0x0001 result 1) and
//! the terminal says why in its log once; attributes and recordings are
//! still answered, as a terminal whose encoder failed still knows them.

use std::path::Path;

use chrono::{DateTime, Utc};
use fleetdesk_telematics::jt808::id;
use fleetdesk_telematics::jt808::message::{
    AvAttributes, CloseWhat, LiveCommand, LiveControl, LiveData, MediaServer, PlatformMessage,
    PlaybackCommand, PlaybackControl, PlaybackMode, PlaybackSpeed, ResourceKind, ResourceQuery,
    ResourceStream, Storage, Stream, TerminalMessage,
};
use tokio::sync::mpsc;

use super::result;
use crate::camera::{Camera, Recorder};

/// Stream commands waiting for the camera task; more are refused.
const QUEUE: usize = 16;

/// A 0x0001 the camera task decided.
#[derive(Debug)]
pub(crate) struct Answer {
    pub reply_serial: u16,
    pub reply_id: u16,
    pub result: u8,
}

impl Answer {
    pub(crate) fn message(&self) -> TerminalMessage {
        TerminalMessage::GeneralResponse {
            reply_serial: self.reply_serial,
            reply_id: self.reply_id,
            result: self.result,
        }
    }
}

#[derive(Debug)]
enum Command {
    Live {
        server: MediaServer,
        channel: u8,
        stream: Stream,
    },
    LiveControl {
        serial: u16,
        control: LiveControl,
    },
    Playback {
        server: MediaServer,
        channel: u8,
        range: (DateTime<Utc>, Option<DateTime<Utc>>),
        speed: PlaybackSpeed,
    },
    PlaybackControl {
        serial: u16,
        control: PlaybackControl,
    },
}

pub(crate) struct Video {
    phone: String,
    channels: Vec<u8>,
    recorder: Recorder,
    ffmpeg_found: bool,
    /// The missing encoder was logged.
    warned: bool,
    commands: mpsc::Sender<Command>,
    answers: mpsc::Receiver<Answer>,
}

impl Video {
    /// Starts the camera task; it ends when this is dropped, its streams
    /// with it.
    pub(crate) fn start(phone: &str, plate: &str, channels: &[u8], ffmpeg: &Path) -> Video {
        let camera = Camera::new(phone, plate, channels).with_ffmpeg(ffmpeg);
        let (commands, commands_rx) = mpsc::channel(QUEUE);
        let (answers_tx, answers) = mpsc::channel(QUEUE);
        tokio::spawn(serve(camera, commands_rx, answers_tx));
        Video {
            phone: phone.to_owned(),
            channels: channels.to_vec(),
            recorder: Recorder::new(phone, channels),
            ffmpeg_found: found(ffmpeg),
            warned: false,
            commands,
            answers,
        }
    }

    /// The next 0x0001 the camera task decided.
    pub(crate) async fn answer(&mut self) -> Option<Answer> {
        self.answers.recv().await
    }

    /// Drops answers to commands of a connection that is gone.
    pub(crate) fn forget_answers(&mut self) {
        while self.answers.try_recv().is_ok() {}
    }

    /// What to send at once for a video command with `serial`; the camera
    /// task answers 0x9102 and 0x9202 later.
    pub(crate) fn command(
        &mut self,
        serial: u16,
        message: PlatformMessage,
    ) -> Vec<TerminalMessage> {
        let reply = |reply_id, result| {
            vec![TerminalMessage::GeneralResponse {
                reply_serial: serial,
                reply_id,
                result,
            }]
        };
        match message {
            PlatformMessage::QueryAvAttributes => {
                vec![TerminalMessage::AvAttributes(self.attributes())]
            }
            PlatformMessage::QueryResources(query) => vec![TerminalMessage::ResourceList {
                reply_serial: serial,
                resources: self.recorder.find(&query, Utc::now()),
            }],
            PlatformMessage::LiveRequest(request) => {
                // No microphone: talk, listening and broadcast are not there.
                let result = if !matches!(request.data, LiveData::AudioVideo | LiveData::Video) {
                    result::UNSUPPORTED
                } else if !self.channels.contains(&request.channel) || !self.encoder() {
                    result::FAILED
                } else {
                    self.queue(Command::Live {
                        server: request.server,
                        channel: request.channel,
                        stream: request.stream,
                    })
                };
                reply(id::LIVE_REQUEST, result)
            }
            PlatformMessage::LiveControl(control) => {
                if !self.channels.contains(&control.channel) {
                    return reply(id::LIVE_CONTROL, result::FAILED);
                }
                match self.queue(Command::LiveControl { serial, control }) {
                    result::OK => Vec::new(),
                    refused => reply(id::LIVE_CONTROL, refused),
                }
            }
            PlatformMessage::PlaybackRequest(request) => {
                let speed = match request.mode {
                    PlaybackMode::Normal => PlaybackSpeed::X1,
                    PlaybackMode::FastForward => request.speed,
                    PlaybackMode::KeyFrameRewind
                    | PlaybackMode::KeyFramePlay
                    | PlaybackMode::SingleFrame => {
                        return reply(id::PLAYBACK_REQUEST, result::UNSUPPORTED);
                    }
                };
                // The recorder keeps the main stream's video only.
                let recorded = !matches!(request.stream, ResourceStream::Sub)
                    && !matches!(request.kind, ResourceKind::Audio)
                    && !matches!(request.storage, Storage::Backup);
                let now = Utc::now();
                let end = self
                    .recorder
                    .playback(request.channel, request.start, request.end, now);
                let Ok(end) = end.map_err(|why| {
                    tracing::debug!(phone = %self.phone, %why, "Playback refused.");
                }) else {
                    return reply(id::PLAYBACK_REQUEST, result::FAILED);
                };
                if !recorded || !self.encoder() {
                    return reply(id::PLAYBACK_REQUEST, result::FAILED);
                }
                let queued = self.queue(Command::Playback {
                    server: request.server,
                    channel: request.channel,
                    range: (request.start, request.end),
                    speed,
                });
                if queued != result::OK {
                    return reply(id::PLAYBACK_REQUEST, queued);
                }
                // JT/T 1078 answers 0x9201 with the recordings being played.
                let playing = ResourceQuery {
                    channel: request.channel,
                    start: Some(request.start),
                    end: Some(end),
                    alarms: 0,
                    kind: ResourceKind::Video,
                    stream: ResourceStream::Main,
                    storage: Storage::Main,
                };
                vec![TerminalMessage::ResourceList {
                    reply_serial: serial,
                    resources: self.recorder.find(&playing, now),
                }]
            }
            PlatformMessage::PlaybackControl(control) => {
                if !self.channels.contains(&control.channel) {
                    return reply(id::PLAYBACK_CONTROL, result::FAILED);
                }
                match self.queue(Command::PlaybackControl { serial, control }) {
                    result::OK => Vec::new(),
                    refused => reply(id::PLAYBACK_CONTROL, refused),
                }
            }
            PlatformMessage::GeneralResponse { .. }
            | PlatformMessage::RegisterResponse { .. }
            | PlatformMessage::ManualAlarmConfirm { .. }
            | PlatformMessage::VehicleControl { .. }
            | PlatformMessage::MediaDataResponse { .. }
            | PlatformMessage::AttachmentUpload(_)
            | PlatformMessage::FileUploadAnswer(_) => Vec::new(),
        }
    }

    /// What the cameras send: H.264 video on each channel, no audio (the
    /// encoding byte 0 is reserved in JT/T 1078 table 12: none).
    fn attributes(&self) -> AvAttributes {
        AvAttributes {
            audio_encoding: 0,
            audio_channels: 0,
            sampling_rate: 0,
            sample_bits: 0,
            audio_frame_len: 0,
            audio_output: false,
            video_encoding: fleetdesk_media::jt1078::PT_H264,
            max_audio_channels: 0,
            max_video_channels: u8::try_from(self.channels.len()).unwrap_or(u8::MAX),
        }
    }

    /// Whether streams can start; says once in the log when they cannot.
    fn encoder(&mut self) -> bool {
        if !self.ffmpeg_found && !self.warned {
            tracing::warn!(
                phone = %self.phone,
                "ffmpeg not found: this terminal refuses camera commands (install it with deploy/ensure-tools.sh ffmpeg)."
            );
            self.warned = true;
        }
        self.ffmpeg_found
    }

    fn queue(&self, command: Command) -> u8 {
        match self.commands.try_send(command) {
            Ok(()) => result::OK,
            Err(_) => result::FAILED,
        }
    }
}

/// Whether `program` is a file, or (a bare name) a file in a `PATH` directory.
pub(crate) fn found(program: &Path) -> bool {
    if program.components().count() > 1 {
        return program.is_file();
    }
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join(program).is_file()))
}

/// The camera task: runs the stream commands in order.
async fn serve(
    mut camera: Camera,
    mut commands: mpsc::Receiver<Command>,
    answers: mpsc::Sender<Answer>,
) {
    while let Some(command) = commands.recv().await {
        let answer = match command {
            Command::Live {
                server,
                channel,
                stream,
            } => {
                if let Err(err) = camera.live(server, channel, stream).await {
                    tracing::warn!(error = %err, channel, "Live stream did not start.");
                }
                None
            }
            Command::Playback {
                server,
                channel,
                range,
                speed,
            } => {
                let started = camera
                    .playback(server, channel, Stream::Main, range, speed)
                    .await;
                if let Err(err) = started {
                    tracing::warn!(error = %err, channel, "Playback did not start.");
                }
                None
            }
            Command::LiveControl { serial, control } => Some(Answer {
                reply_serial: serial,
                reply_id: id::LIVE_CONTROL,
                result: live_control(&mut camera, &control).await,
            }),
            Command::PlaybackControl { serial, control } => Some(Answer {
                reply_serial: serial,
                reply_id: id::PLAYBACK_CONTROL,
                result: playback_control(&mut camera, &control).await,
            }),
        };
        if let Some(answer) = answer
            && answers.send(answer).await.is_err()
        {
            return;
        }
    }
}

fn done(ok: bool) -> u8 {
    if ok { result::OK } else { result::FAILED }
}

/// 0x9102 on the running live streams: a pause, resume or switch with
/// nothing running fails; a close of nothing is done.
async fn live_control(camera: &mut Camera, control: &LiveControl) -> u8 {
    let channel = control.channel;
    match control.command {
        LiveCommand::Close => {
            // No audio is sent: closing it alone leaves the video going.
            if control.close != CloseWhat::Audio {
                camera.close_mode(channel, true).await;
            }
            result::OK
        }
        LiveCommand::SwitchStream => match camera.switch(channel, control.switch_to).await {
            Ok(switched) => done(switched),
            Err(err) => {
                tracing::warn!(error = %err, channel, "Stream switch failed.");
                result::FAILED
            }
        },
        LiveCommand::Pause => done(camera.control(channel, true, |s| s.pause())),
        LiveCommand::Resume => done(camera.control(channel, true, |s| s.resume())),
        LiveCommand::CloseTalk => result::UNSUPPORTED,
    }
}

/// 0x9202 on the running playback of a channel.
async fn playback_control(camera: &mut Camera, control: &PlaybackControl) -> u8 {
    let channel = control.channel;
    match control.command {
        PlaybackCommand::Play => done(camera.control(channel, false, |s| s.resume())),
        PlaybackCommand::Pause => done(camera.control(channel, false, |s| s.pause())),
        // A playback that reached its end has stopped already.
        PlaybackCommand::Stop => {
            camera.close_mode(channel, false).await;
            result::OK
        }
        PlaybackCommand::FastForward => done(camera.control(channel, false, |s| {
            s.set_speed(control.speed);
        })),
        PlaybackCommand::Seek => {
            let Some(to) = control.seek_to else {
                return result::BAD_MESSAGE;
            };
            match camera.seek(channel, to).await {
                Ok(sought) => done(sought),
                Err(err) => {
                    tracing::debug!(error = %err, channel, "Seek refused.");
                    result::FAILED
                }
            }
        }
        PlaybackCommand::KeyFrameRewind | PlaybackCommand::Slow => result::UNSUPPORTED,
    }
}
