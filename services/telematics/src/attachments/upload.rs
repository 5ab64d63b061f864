//! One attachment connection: the alarm's file list (0x1210), each file's
//! announcement (0x1211), its data packets and its end (0x1212), answered
//! with what is still missing (0x9212). Files are kept in memory only while
//! they arrive, each bounded by the size limit and only under a name the
//! file list gave; a complete file is stored and announced once.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use chrono::Utc;
use fleetdesk_kit::files::{self, FileStore};
use fleetdesk_kit::subjects;
use fleetdesk_proto::telematics::v1 as pb;
use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
use tokio::net::TcpStream;

use super::registry::{Registry, Requested};
use crate::jt808::attachment::{AttachmentDecoder, DataPacket, FileAssembly, Received};
use crate::jt808::header::Header;
use crate::jt808::message::{
    Ack, AlarmAttachments, FileInfo, FileType, FileUploadAnswer, PlatformMessage, TerminalMessage,
    frame,
};
use crate::jt808::packets::Reassembler;
use crate::publish::Publisher;

/// What every attachment connection shares.
#[derive(Debug)]
pub(crate) struct Uploads {
    pub registry: Arc<Registry>,
    pub files: FileStore,
    pub publisher: Publisher,
    pub idle: std::time::Duration,
    /// The largest file taken, and the most bytes held for one connection.
    pub max_file: u32,
}

/// Malformed or refused frames and packets after which a connection is closed.
const MAX_STRIKES: u32 = 100;
/// Files one alarm may list (the count is a byte); more are ignored.
const MAX_LISTED: usize = 255;

/// A file on its way.
#[derive(Debug)]
struct Incoming {
    file_type: FileType,
    assembly: FileAssembly,
    bytes: Vec<u8>,
}

struct Connection<'a> {
    uploads: &'a Uploads,
    stream: TcpStream,
    serial: u16,
    strikes: u32,
    /// Files the terminal may send (0x1210), with their alarm.
    listed: HashMap<String, Arc<Requested>>,
    incoming: HashMap<String, Incoming>,
    stored: HashSet<String>,
}

/// Why a connection ends early.
enum Close {
    Io(std::io::Error),
    /// Refused: an unknown alarm number, or too many bad frames.
    Refused(&'static str),
}

impl From<std::io::Error> for Close {
    fn from(err: std::io::Error) -> Close {
        Close::Io(err)
    }
}

pub(crate) async fn serve(stream: TcpStream, uploads: Arc<Uploads>) {
    let mut conn = Connection {
        uploads: &uploads,
        stream,
        serial: 0,
        strikes: 0,
        listed: HashMap::new(),
        incoming: HashMap::new(),
        stored: HashSet::new(),
    };
    match conn.run().await {
        Ok(()) => {}
        Err(Close::Io(err)) => tracing::debug!(error = %err, "Attachment connection ended."),
        Err(Close::Refused(reason)) => {
            metrics::counter!("telematics_attachment_connections_closed_total", "reason" => reason)
                .increment(1);
            tracing::info!(reason, "Attachment connection refused.");
        }
    }
}

fn count(result: &'static str) {
    metrics::counter!("telematics_attachment_frames_total", "result" => result).increment(1);
}

impl Connection<'_> {
    async fn run(&mut self) -> Result<(), Close> {
        let max_data = (self.uploads.max_file as usize).min(1024 * 1024);
        let mut decoder = AttachmentDecoder::new(max_data);
        let mut reassembler = Reassembler::default();
        let mut buf = vec![0u8; 16 * 1024];
        let mut received = Vec::new();
        loop {
            let Ok(read) =
                tokio::time::timeout(self.uploads.idle, self.stream.read(&mut buf)).await
            else {
                metrics::counter!("telematics_attachment_connections_closed_total", "reason" => "idle")
                    .increment(1);
                return Ok(());
            };
            let n = read?;
            if n == 0 {
                return Ok(());
            }
            decoder.feed(&buf[..n], &mut received);
            for item in std::mem::take(&mut received) {
                match item {
                    Err(err) => {
                        count("malformed");
                        tracing::debug!(error = %err, "Malformed bytes on the attachment connection.");
                        self.strike()?;
                    }
                    Ok(Received::Data(packet)) => self.data(&packet)?,
                    Ok(Received::Frame(bytes)) => {
                        let parsed = Header::parse(&bytes)
                            .and_then(|(header, body)| reassembler.push(header, body));
                        match parsed {
                            Err(err) => {
                                count("malformed");
                                tracing::debug!(error = %err, "Malformed attachment frame.");
                                self.strike()?;
                            }
                            Ok(None) => {}
                            Ok(Some((header, body))) => {
                                match TerminalMessage::decode(&header, &body) {
                                    Ok(message) => self.handle(&header, message).await?,
                                    Err(err) => {
                                        count("malformed");
                                        tracing::debug!(error = %err, "Undecodable attachment message.");
                                        self.answer(&header, Ack::BadMessage).await?;
                                        self.strike()?;
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    fn strike(&mut self) -> Result<(), Close> {
        self.strikes += 1;
        if self.strikes > MAX_STRIKES {
            return Err(Close::Refused("abuse"));
        }
        Ok(())
    }

    async fn handle(&mut self, header: &Header, message: TerminalMessage) -> Result<(), Close> {
        match message {
            TerminalMessage::AlarmAttachments(list) => self.list(header, list).await,
            TerminalMessage::FileInfo(info) => {
                let ack = match self.start(&info) {
                    Ok(()) => Ack::Ok,
                    Err(reason) => {
                        count(reason);
                        self.strike()?;
                        Ack::Failed
                    }
                };
                self.answer(header, ack).await
            }
            TerminalMessage::FileUploaded(info) => self.finished(header, info).await,
            // Only the upload's messages belong here.
            _ => {
                count("unsupported");
                self.answer(header, Ack::Unsupported).await?;
                self.strike()
            }
        }
    }

    /// 0x1210: the files of an alarm this replica asked for, or the end.
    async fn list(&mut self, header: &Header, list: AlarmAttachments) -> Result<(), Close> {
        let AlarmAttachments {
            terminal_id,
            identifier,
            alarm_number,
            supplement: _,
            files,
        } = list;
        let alarm = self
            .uploads
            .registry
            .find(&alarm_number, &identifier)
            .filter(|alarm| alarm.identifier.terminal_id == terminal_id);
        let Some(alarm) = alarm else {
            count("unknown_alarm");
            self.answer(header, Ack::Failed).await?;
            return Err(Close::Refused("unknown_alarm"));
        };
        count("ok");
        for file in files.into_iter().take(MAX_LISTED) {
            self.listed.insert(file.name, alarm.clone());
        }
        self.answer(header, Ack::Ok).await
    }

    /// 0x1211: a listed file is coming; its bytes are held from now on.
    fn start(&mut self, info: &FileInfo) -> Result<(), &'static str> {
        if !self.listed.contains_key(&info.name) {
            return Err("unknown_file");
        }
        if info.size > self.uploads.max_file {
            return Err("too_large");
        }
        if self.stored.contains(&info.name) {
            return Ok(());
        }
        if let Some(incoming) = self.incoming.get(&info.name)
            && incoming.assembly.size() == info.size
        {
            return Ok(());
        }
        self.incoming.remove(&info.name);
        let held: u64 = self
            .incoming
            .values()
            .map(|f| u64::from(f.assembly.size()))
            .sum();
        if held + u64::from(info.size) > u64::from(self.uploads.max_file) {
            return Err("too_large");
        }
        count("ok");
        self.incoming.insert(
            info.name.clone(),
            Incoming {
                file_type: info.file_type,
                assembly: FileAssembly::new(info.size),
                bytes: vec![0; info.size as usize],
            },
        );
        Ok(())
    }

    /// A data packet of a file announced with 0x1211.
    fn data(&mut self, packet: &DataPacket) -> Result<(), Close> {
        let Some(file) = self.incoming.get_mut(&packet.file_name) else {
            if !self.stored.contains(&packet.file_name) {
                count("unknown_file");
                self.strike()?;
            }
            return Ok(());
        };
        if file.assembly.record(packet.piece()).is_err() {
            count("malformed");
            return self.strike();
        }
        let at = packet.offset as usize;
        file.bytes[at..at + packet.data.len()].copy_from_slice(&packet.data);
        metrics::counter!("telematics_attachment_bytes_total").increment(packet.data.len() as u64);
        Ok(())
    }

    /// 0x1212: the pieces still missing, or the file stored and announced.
    async fn finished(&mut self, header: &Header, info: FileInfo) -> Result<(), Close> {
        if !self.stored.contains(&info.name) {
            if !self.incoming.contains_key(&info.name)
                && let Err(reason) = self.start(&info)
            {
                count(reason);
                self.strike()?;
                return self.answer(header, Ack::Failed).await;
            }
            let Some(file) = self.incoming.get(&info.name) else {
                return Ok(());
            };
            let missing = file.assembly.missing();
            if !missing.is_empty() {
                metrics::counter!("telematics_attachment_files_total", "result" => "resend")
                    .increment(1);
                let answer = FileUploadAnswer {
                    file_name: info.name,
                    file_type: file.file_type,
                    missing,
                };
                return self
                    .send(header, &PlatformMessage::FileUploadAnswer(answer))
                    .await;
            }
            let Some(file) = self.incoming.remove(&info.name) else {
                return Ok(());
            };
            let Some(alarm) = self.listed.get(&info.name).cloned() else {
                return Ok(());
            };
            if !store(self.uploads, &alarm, &info.name, file.file_type, file.bytes).await {
                // No answer: the terminal sends 0x1212 again, and the file
                // once more if it must.
                self.incoming.insert(
                    info.name.clone(),
                    Incoming {
                        file_type: file.file_type,
                        assembly: FileAssembly::new(info.size),
                        bytes: vec![0; info.size as usize],
                    },
                );
                return Ok(());
            }
            self.stored.insert(info.name.clone());
        }
        let answer = FileUploadAnswer {
            file_name: info.name,
            file_type: info.file_type,
            missing: Vec::new(),
        };
        self.send(header, &PlatformMessage::FileUploadAnswer(answer))
            .await
    }

    async fn answer(&mut self, header: &Header, result: Ack) -> Result<(), Close> {
        let reply = PlatformMessage::GeneralResponse {
            reply_serial: header.serial,
            reply_id: header.msg_id,
            result,
        };
        self.send(header, &reply).await
    }

    /// Writes a platform message in the version and to the phone of `to`.
    async fn send(&mut self, to: &Header, message: &PlatformMessage) -> Result<(), Close> {
        let (msg_id, body) = message.encode(to.version);
        let header = Header {
            msg_id,
            version: to.version,
            phone: to.phone.clone(),
            serial: self.serial,
            package: None,
        };
        self.serial = self.serial.wrapping_add(1);
        let bytes = frame(&header, &body).map_err(std::io::Error::other)?;
        self.stream.write_all(&bytes).await?;
        Ok(())
    }
}

/// Puts a complete file in the object store under its vehicle's enterprise
/// and announces it on the vehicle's media subject; false when either
/// failed (the same key and message id make a second try land once).
async fn store(
    uploads: &Uploads,
    alarm: &Requested,
    name: &str,
    file_type: FileType,
    bytes: Vec<u8>,
) -> bool {
    let Ok(enterprise) = uuid::Uuid::parse_str(&alarm.enterprise_id) else {
        tracing::warn!(enterprise = %alarm.enterprise_id, "Evidence of an enterprise without a uuid dropped.");
        return false;
    };
    let key = files::key(
        enterprise,
        "media",
        &format!("{}-{}", alarm.vehicle_id, alarm.alarm_key),
        name,
    );
    let size = bytes.len() as i64;
    if let Err(err) = uploads.files.put(&key, bytes.into()).await {
        tracing::warn!(error = %err.message, %key, "Evidence not stored.");
        return false;
    }
    let stored = pb::MediaStored {
        enterprise_id: alarm.enterprise_id.clone(),
        vehicle_id: alarm.vehicle_id.clone(),
        media_id: 0,
        media_type: i32::from(file_type as u8),
        event_code: 0,
        channel: channel(name),
        object_key: key.clone(),
        content_type: content_type(name).to_owned(),
        size_bytes: size,
        position: None,
        alarm_key: alarm.alarm_key.clone(),
        file_name: name.to_owned(),
    };
    let subject = subjects::telemetry_media(&alarm.enterprise_id, &alarm.vehicle_id);
    if let Err(err) = uploads.publisher.publish_one(subject, &key, &stored).await {
        tracing::warn!(error = %err, %key, "Evidence not announced.");
        return false;
    }
    metrics::counter!("telematics_attachment_files_total", "result" => "stored").increment(1);
    tracing::debug!(%key, at = %Utc::now(), "Evidence stored.");
    true
}

/// The content type of an evidence file, by its extension: photos, MP4
/// clips and raw H.264 as 苏标 terminals name them.
fn content_type(name: &str) -> &'static str {
    match files::extension(name).as_str() {
        "mp4" => "video/mp4",
        "h264" | "264" => "video/h264",
        "wav" => "audio/wav",
        "mp3" => "audio/mpeg",
        "txt" => "text/plain; charset=utf-8",
        _ => files::content_type(name),
    }
}

/// The camera of a 苏标 file name, `<type>_<channel>_<alarm type>_<serial>_<alarm number>.<ext>`;
/// 0 when the name does not follow it.
fn channel(name: &str) -> i32 {
    name.split('_')
        .nth(1)
        .and_then(|c| c.parse::<u8>().ok())
        .map_or(0, i32::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evidence_names_give_their_type_and_camera() {
        assert_eq!(content_type("00_65_6501_0_abc.jpg"), "image/jpeg");
        assert_eq!(content_type("02_65_6501_0_abc.MP4"), "video/mp4");
        assert_eq!(content_type("02_64_6401_0_abc.h264"), "video/h264");
        assert_eq!(content_type("02_64_6401_0_abc.264"), "video/h264");
        assert_eq!(channel("02_65_6501_0_abc.mp4"), 65);
        assert_eq!(channel("clip.mp4"), 0);
    }
}
