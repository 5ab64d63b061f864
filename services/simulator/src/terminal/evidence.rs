//! Active-safety alarms of a camera vehicle (苏标, T/JSATL 12-2017) and
//! their evidence. While driving, the terminal now and then puts an ADAS
//! (0x64: forward collision, lane departure, headway) or, more often, a
//! DMS item (0x65: phone call, smoking, distraction, fatigue) in a 0x0200,
//! its [`AlarmIdentifier`] naming two files: a JPEG photo and an MP4 clip
//! of about five seconds around the alarm (one file, the photo, when
//! ffmpeg is missing).
//!
//! Asked with 0x9208, the terminal opens a connection to the attachment
//! server named in it, in a task of its own: 0x1210 lists the files; per
//! file, 0x1211, its data in packets of at most 64 KiB, 0x1212; a 0x9212
//! naming missing pieces gets exactly those again, then 0x1212 again; the
//! connection closes once every file was acknowledged complete. Files are
//! named `<type>_<channel>_<alarm type>_<serial>_<alarm number>.<ext>` as
//! 苏标 asks: type 00 picture, 02 video; channel 1 (road camera) for ADAS,
//! 2 (cab camera) for DMS; the alarm type as the peripheral's item id and
//! event in hex (`6502` a phone call).

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::time::Duration;

use chrono::{DateTime, Timelike as _, Utc};
use fleetdesk_telematics::jt808::Location;
use fleetdesk_telematics::jt808::attachment::{DataPacket, FilePiece};
use fleetdesk_telematics::jt808::location::{
    AlarmFlag, AlarmIdentifier, AlarmScene, SafetyAlarm, SafetyKind, item,
};
use fleetdesk_telematics::jt808::message::{
    AlarmAttachments, AttachmentFile, AttachmentUploadRequest, FileInfo, FileType, PlatformMessage,
    TerminalMessage,
};
use rand::Rng as _;
use rand::rngs::StdRng;
use tokio::io::AsyncWriteExt as _;
use tokio::net::TcpStream;

use super::{Link, result};
use crate::{camera, photo};

/// Bytes per data packet (苏标: at most 64 KiB).
pub(crate) const PACKET_BYTES: usize = 64 * 1024;
/// Alarms whose files the terminal keeps for a later 0x9208.
const KEPT: usize = 64;
/// Rounds of 0x1212 and re-sent pieces before a file is given up.
const MAX_ROUNDS: usize = 5;
/// How long the attachment server may take to answer a 0x1212.
const ANSWER_WAIT: Duration = Duration::from_secs(30);
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// The clip starts this long before the alarm and lasts [`CLIP_SECONDS`].
const CLIP_LEAD_SECONDS: i64 = 3;
const CLIP_SECONDS: f64 = 5.0;
/// Clips rendered at once across the fleet: a burst of alarms queues
/// rather than starting an ffmpeg per vehicle on a small machine.
static RENDERING: tokio::sync::Semaphore = tokio::sync::Semaphore::const_new(2);

/// An alarm raised, what its files show.
#[derive(Debug, Clone)]
struct Raised {
    identifier: AlarmIdentifier,
    /// Peripheral item id (0x64, 0x65) and event: the file names' alarm type.
    item: u8,
    event: u8,
    channel: u8,
    photo_seed: u64,
}

pub(crate) struct Evidence {
    /// 苏标's seven-character terminal id.
    terminal_id: String,
    phone: String,
    plate: String,
    ffmpeg: PathBuf,
    clips: bool,
    alarm_id: u32,
    /// The second of the last alarm and how many fell in it.
    last_second: Option<(DateTime<Utc>, u8)>,
    raised: VecDeque<Raised>,
}

impl Evidence {
    pub(crate) fn new(terminal_id: &str, phone: &str, plate: &str, ffmpeg: &Path) -> Evidence {
        Evidence {
            terminal_id: alarm_terminal_id(terminal_id),
            phone: phone.to_owned(),
            plate: plate.to_owned(),
            ffmpeg: ffmpeg.to_owned(),
            clips: super::video::found(ffmpeg),
            alarm_id: 0,
            last_second: None,
            raised: VecDeque::new(),
        }
    }

    /// With `chance`, while driving, adds an ADAS or DMS alarm to `location`.
    pub(crate) fn maybe_raise(
        &mut self,
        rng: &mut StdRng,
        location: &mut Location,
        driving: bool,
        chance: f64,
    ) {
        if !driving || !rng.gen_bool(chance.clamp(0.0, 1.0)) {
            return;
        }
        let level = if rng.gen_bool(0.25) { 2 } else { 1 };
        let speed_kmh = location.speed_kmh().clamp(0.0, 255.0) as u8;
        let (item, event, channel, kind) = if rng.gen_bool(0.6) {
            // Distraction, phone calls and smoking are the usual; fatigue rarer.
            let event = match rng.gen_range(0..100) {
                0..35 => 4,
                35..65 => 2,
                65..85 => 3,
                _ => 1,
            };
            let fatigue = if event == 1 { rng.gen_range(3..=9) } else { 0 };
            let kind = SafetyKind::Dms {
                event,
                level,
                fatigue,
            };
            (item::DMS, event, 2, kind)
        } else {
            let event = match rng.gen_range(0..100) {
                0..25 => 1,
                25..65 => 2,
                _ => 3,
            };
            let ahead = matches!(event, 1 | 3);
            let kind = SafetyKind::Adas {
                event,
                level,
                front_speed_kmh: if ahead {
                    speed_kmh.saturating_sub(rng.gen_range(0..20))
                } else {
                    0
                },
                headway_ds: if ahead { rng.gen_range(5..=25) } else { 0 },
                departure: if event == 2 { rng.gen_range(1..=2) } else { 0 },
                road_sign: 0,
                road_sign_value: 0,
            };
            (item::ADAS, event, 1, kind)
        };
        let time = location.time.with_nanosecond(0).unwrap_or(location.time);
        let serial = match self.last_second {
            Some((second, n)) if second == time => n.wrapping_add(1),
            _ => 0,
        };
        self.last_second = Some((time, serial));
        self.alarm_id = self.alarm_id.wrapping_add(1);
        // 苏标 table 4-18: bit 0 ACC, bit 4 braking, bit 10 positioned.
        let braking = item == item::ADAS && event == 1;
        let vehicle_status = u16::from(location.acc_on())
            | u16::from(braking) << 4
            | u16::from(location.positioned()) << 10;
        let identifier = AlarmIdentifier {
            terminal_id: self.terminal_id.clone(),
            time,
            serial,
            attachment_count: if self.clips { 2 } else { 1 },
        };
        location.safety_alarms.push(SafetyAlarm {
            alarm_id: self.alarm_id,
            flag: AlarmFlag::Unavailable,
            kind,
            scene: AlarmScene {
                speed_kmh,
                altitude_m: location.altitude_m,
                latitude: location.latitude.abs(),
                longitude: location.longitude.abs(),
                time,
                vehicle_status,
            },
            identifier: identifier.clone(),
        });
        self.raised.push_back(Raised {
            identifier,
            item,
            event,
            channel,
            photo_seed: rng.r#gen(),
        });
        if self.raised.len() > KEPT {
            self.raised.pop_front();
        }
        tracing::debug!(phone = %self.phone, item, event, "Active-safety alarm raised.");
    }

    /// 0x9208: the 0x0001 result; the upload runs in a task of its own.
    /// An alarm this terminal did not raise (or no longer keeps) fails.
    pub(crate) fn upload(&self, request: AttachmentUploadRequest) -> u8 {
        let Some(raised) = self
            .raised
            .iter()
            .find(|r| r.identifier == request.identifier)
            .cloned()
        else {
            return result::FAILED;
        };
        let upload = Upload {
            phone: self.phone.clone(),
            plate: self.plate.clone(),
            terminal_id: self.terminal_id.clone(),
            ffmpeg: self.clips.then(|| self.ffmpeg.clone()),
            raised,
            request,
        };
        tokio::spawn(async move {
            let phone = upload.phone.clone();
            match upload.run().await {
                Ok(()) => tracing::debug!(%phone, "Alarm evidence uploaded."),
                Err(err) => {
                    tracing::warn!(%phone, error = %err, "Alarm evidence upload failed.")
                }
            }
        });
        result::OK
    }
}

/// The last seven letters and digits of the terminal's serial, upper
/// case, zero-padded: 苏标's terminal id is seven such characters.
pub(crate) fn alarm_terminal_id(serial: &str) -> String {
    let chars: Vec<char> = serial
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .map(|c| c.to_ascii_uppercase())
        .collect();
    let tail: String = chars[chars.len().saturating_sub(7)..].iter().collect();
    format!("{tail:0>7}")
}

/// One file of an alarm's evidence.
struct EvidenceFile {
    name: String,
    file_type: FileType,
    data: Vec<u8>,
}

impl EvidenceFile {
    fn info(&self) -> FileInfo {
        FileInfo {
            name: self.name.clone(),
            file_type: self.file_type,
            size: self.data.len() as u32,
        }
    }
}

struct Upload {
    phone: String,
    plate: String,
    terminal_id: String,
    /// `None`: no clip, only the photo.
    ffmpeg: Option<PathBuf>,
    raised: Raised,
    request: AttachmentUploadRequest,
}

impl Upload {
    fn name(&self, file_type: FileType, ext: &str) -> String {
        let Raised {
            item,
            event,
            channel,
            identifier,
            ..
        } = &self.raised;
        format!(
            "{:02}_{channel}_{item:02X}{event:02X}_{}_{}.{ext}",
            file_type as u8, identifier.serial, self.request.alarm_number
        )
    }

    async fn files(&self) -> std::io::Result<Vec<EvidenceFile>> {
        let mut files = vec![EvidenceFile {
            name: self.name(FileType::Picture, "jpg"),
            file_type: FileType::Picture,
            data: photo::jpeg(self.raised.photo_seed),
        }];
        if let Some(ffmpeg) = &self.ffmpeg {
            let start = self.raised.identifier.time - chrono::Duration::seconds(CLIP_LEAD_SECONDS);
            let _turn = RENDERING.acquire().await.map_err(std::io::Error::other)?;
            let data = camera::clip(
                ffmpeg,
                &self.plate,
                self.raised.channel,
                start,
                CLIP_SECONDS,
            )
            .await
            .map_err(std::io::Error::other)?;
            files.push(EvidenceFile {
                name: self.name(FileType::Video, "mp4"),
                file_type: FileType::Video,
                data,
            });
        }
        Ok(files)
    }

    async fn run(self) -> std::io::Result<()> {
        let files = self.files().await?;
        let server = &self.request.server;
        let stream = tokio::time::timeout(
            CONNECT_TIMEOUT,
            TcpStream::connect((server.address.as_str(), server.tcp_port)),
        )
        .await
        .unwrap_or_else(|_| Err(std::io::ErrorKind::TimedOut.into()))?;
        let mut link = Link::over(stream, &self.phone);
        link.send(&TerminalMessage::AlarmAttachments(AlarmAttachments {
            terminal_id: self.terminal_id.clone(),
            identifier: self.raised.identifier.clone(),
            alarm_number: self.request.alarm_number.clone(),
            supplement: false,
            files: files
                .iter()
                .map(|f| AttachmentFile {
                    name: f.name.clone(),
                    size: f.data.len() as u32,
                })
                .collect(),
        }))
        .await?;
        for file in &files {
            send_file(&mut link, file).await?;
        }
        link.stream.shutdown().await
    }
}

/// 0x1211, the data, 0x1212; then the pieces each 0x9212 names, until one
/// says the file is complete.
async fn send_file(link: &mut Link, file: &EvidenceFile) -> std::io::Result<()> {
    let info = file.info();
    link.send(&TerminalMessage::FileInfo(info.clone())).await?;
    let whole = FilePiece {
        offset: 0,
        length: info.size,
    };
    send_pieces(link, file, &[whole]).await?;
    for _ in 0..MAX_ROUNDS {
        link.send(&TerminalMessage::FileUploaded(info.clone()))
            .await?;
        let missing = missing_of(link, &file.name).await?;
        if missing.is_empty() {
            return Ok(());
        }
        send_pieces(link, file, &missing).await?;
    }
    Err(std::io::Error::other(format!(
        "{} still incomplete after {MAX_ROUNDS} rounds",
        file.name
    )))
}

/// The file's bytes in `pieces`, each cut to the file and sent in data
/// packets of at most [`PACKET_BYTES`].
async fn send_pieces(
    link: &mut Link,
    file: &EvidenceFile,
    pieces: &[FilePiece],
) -> std::io::Result<()> {
    for piece in pieces {
        let start = (piece.offset as usize).min(file.data.len());
        let end = (start + piece.length as usize).min(file.data.len());
        for (i, chunk) in file.data[start..end].chunks(PACKET_BYTES).enumerate() {
            let packet = DataPacket {
                file_name: file.name.clone(),
                offset: (start + i * PACKET_BYTES) as u32,
                data: chunk.to_vec(),
            };
            let bytes = packet.encode().map_err(std::io::Error::other)?;
            link.stream.write_all(&bytes).await?;
        }
    }
    Ok(())
}

/// The pieces the server's 0x9212 for `name` asks for again (none: complete).
async fn missing_of(link: &mut Link, name: &str) -> std::io::Result<Vec<FilePiece>> {
    let deadline = tokio::time::Instant::now() + ANSWER_WAIT;
    loop {
        let Ok(received) = tokio::time::timeout_at(deadline, link.recv()).await else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                format!("no 0x9212 for {name}"),
            ));
        };
        if let (_, PlatformMessage::FileUploadAnswer(answer)) = received?
            && answer.file_name == name
        {
            return Ok(answer.missing);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_alarm_terminal_id_is_seven_letters_and_digits() {
        assert_eq!(alarm_terminal_id("JT808D000012"), "D000012");
        assert_eq!(alarm_terminal_id("jt-808s0000000123"), "0000123");
        assert_eq!(alarm_terminal_id("AB12"), "000AB12");
    }
}
