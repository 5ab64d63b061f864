//! Message bodies: what terminals send ([`TerminalMessage`]) and what the
//! platform answers ([`PlatformMessage`]). Field widths that changed between
//! 2013 and 2019 follow the header's [`Version`].
//!
//! Video (JT/T 1078-2016) and alarm evidence (苏标, T/JSATL 12-2017) ride on
//! the same link. `STRING` fields carry their length in the `BYTE` before
//! them; times are BCD[6] in Beijing time, all zeros for "none" where a
//! field allows it; the server is where the terminal opens a connection to
//! stream or upload.
//!
//! | id | from | message | body |
//! |---|---|---|---|
//! | 0x9003 | platform | query audio/video attributes | empty |
//! | 0x1003 | terminal | audio/video attributes ([`AvAttributes`]) | audio encoding, channels, sampling rate, sample bits BYTE; audio frame length WORD; audio output BYTE; video encoding, max audio channels, max video channels BYTE |
//! | 0x9101 | platform | live stream request ([`LiveRequest`]) | server; channel, data type, stream BYTE |
//! | 0x9102 | platform | live stream control ([`LiveControl`]) | channel, command, what to close, stream to switch to BYTE |
//! | 0x9205 | platform | query recordings ([`ResourceQuery`]) | channel BYTE; start, end BCD[6]; alarms 64 bits; kind, stream, storage BYTE |
//! | 0x1205 | terminal | recordings found | answered serial WORD; count DWORD; per recording ([`Resource`]): channel BYTE, start, end BCD[6], alarms 64 bits, kind, stream, storage BYTE, size DWORD |
//! | 0x9201 | platform | playback request ([`PlaybackRequest`]) | server; channel, kind, stream, storage, mode, speed BYTE; start, end BCD[6] |
//! | 0x9202 | platform | playback control ([`PlaybackControl`]) | channel, command, speed BYTE; seek position BCD[6] |
//! | 0x9208 | platform | upload an alarm's evidence ([`AttachmentUploadRequest`]) | server; alarm identifier BYTE[16]; alarm number BYTE[32]; reserved BYTE[16] |
//! | 0x1210 | terminal | the alarm's files ([`AlarmAttachments`]) | terminal id BYTE[7]; alarm identifier BYTE[16]; alarm number BYTE[32]; info type, file count BYTE; per file: name STRING, size DWORD |
//! | 0x1211 | terminal | a file is coming ([`FileInfo`]) | name STRING; file type BYTE; size DWORD |
//! | 0x1212 | terminal | a file was sent ([`FileInfo`]) | name STRING; file type BYTE; size DWORD |
//! | 0x9212 | platform | file received, or pieces to send again ([`FileUploadAnswer`]) | name STRING; file type, result, piece count BYTE; per piece: offset DWORD, length DWORD |
//!
//! server: address length BYTE | address STRING | TCP port WORD | UDP port WORD.
//! The files themselves travel outside 808 frames ([`super::attachment`]).
//!
//! The platform's encoder cannot fail: text too long for its field is cut
//! (at a character boundary) and lists to what their count byte can say.

use chrono::{DateTime, Utc};

use super::attachment::FilePiece;
use super::header::{Header, Version};
use super::location::{AlarmIdentifier, BASIC_LEN, Location, VendorLayouts};
use super::reader::{Reader, gbk, optional_time_bcd, time_bcd, to_gbk, to_gbk_cut};
use super::{Error, id};

/// Registration (0x0100). Text fields are GBK on the wire.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Registration {
    /// GB/T 2260 province and city/county codes.
    pub province: u16,
    pub city: u16,
    pub manufacturer: String,
    pub model: String,
    pub terminal_id: String,
    /// Plate colour (JT/T 697.7); 0 when the vehicle has no plate yet.
    pub plate_color: u8,
    /// Plate number, or the VIN when `plate_color` is 0.
    pub plate: String,
}

/// Authentication (0x0102).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Authentication {
    pub code: String,
    /// 2019 only.
    pub imei: Option<String>,
    /// 2019 only.
    pub software_version: Option<String>,
}

/// Multimedia fields shared by 0x0800 and 0x0801.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Media {
    pub id: u32,
    /// 0 image, 1 audio, 2 video.
    pub kind: u8,
    /// 0 JPEG, 1 TIF, 2 MP3, 3 WAV, 4 WMV.
    pub format: u8,
    /// 0 platform request, 1 timer, 2 robbery alarm, 3 collision, ...
    pub event: u8,
    pub channel: u8,
}

/// 0x1003: what the terminal can stream. Codes are JT/T 1078 Table 12
/// (encodings: 6 G.711A, 7 G.711U, 8 AAC, 19 AAC-LC, 26 ADPCM; 98 H.264, 99 H.265).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AvAttributes {
    pub audio_encoding: u8,
    pub audio_channels: u8,
    /// 0 8 kHz, 1 22.05 kHz, 2 44.1 kHz, 3 48 kHz.
    pub sampling_rate: u8,
    /// 0 8 bits, 1 16 bits, 2 32 bits.
    pub sample_bits: u8,
    /// Bytes per audio frame.
    pub audio_frame_len: u16,
    /// The terminal can play audio (two-way talk).
    pub audio_output: bool,
    pub video_encoding: u8,
    pub max_audio_channels: u8,
    pub max_video_channels: u8,
}

/// A recording stored on the terminal (an item of 0x1205).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resource {
    pub channel: u8,
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
    /// Alarms during the recording: bits 0-31 those of 0x0200, 32-63 the
    /// video alarms of JT/T 1078 Table 13.
    pub alarms: u64,
    pub kind: ResourceKind,
    pub stream: ResourceStream,
    pub storage: Storage,
    /// Bytes.
    pub size: u32,
}

/// 0x1210: the files the terminal holds for an alarm, before it sends them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlarmAttachments {
    pub terminal_id: String,
    pub identifier: AlarmIdentifier,
    /// The platform's number for the alarm, as sent in 0x9208.
    pub alarm_number: String,
    /// Files added to an alarm already reported (info type 1).
    pub supplement: bool,
    pub files: Vec<AttachmentFile>,
}

/// A file named in 0x1210.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentFile {
    /// `<type>_<channel>_<alarm type>_<serial>_<alarm number>.<ext>` in 苏标.
    pub name: String,
    pub size: u32,
}

/// 0x1211 (the file is coming) and 0x1212 (it was sent).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileInfo {
    pub name: String,
    pub file_type: FileType,
    pub size: u32,
}

#[derive(Debug, Clone, PartialEq)]
pub enum TerminalMessage {
    /// 0x0001: the terminal's answer to a platform message.
    GeneralResponse {
        reply_serial: u16,
        reply_id: u16,
        result: u8,
    },
    /// 0x0002.
    Heartbeat,
    /// 0x0003: the terminal signs off (2019; empty body).
    Logout,
    /// 0x0100.
    Register(Registration),
    /// 0x0102.
    Authenticate(Authentication),
    /// 0x0200.
    Location(Location),
    /// 0x0704: several reports; `blind_zone` when they were stored while offline.
    BatchLocation {
        blind_zone: bool,
        locations: Vec<Location>,
    },
    /// 0x0500: answer to a vehicle control, with the position after it.
    VehicleControlResponse {
        reply_serial: u16,
        location: Location,
    },
    /// 0x0800.
    MediaEvent(Media),
    /// 0x0801: a photo (or clip) with the position it was taken at.
    MediaData {
        media: Media,
        location: Location,
        data: Vec<u8>,
    },
    /// 0x1003, the answer to 0x9003.
    AvAttributes(AvAttributes),
    /// 0x1205, the answer to 0x9205.
    ResourceList {
        reply_serial: u16,
        resources: Vec<Resource>,
    },
    /// 0x1210, on the attachment connection.
    AlarmAttachments(AlarmAttachments),
    /// 0x1211, on the attachment connection.
    FileInfo(FileInfo),
    /// 0x1212, on the attachment connection; answered with 0x9212.
    FileUploaded(FileInfo),
    /// Anything else: answered "unsupported".
    Unsupported(u16),
}

impl TerminalMessage {
    /// Reads the body of a (reassembled) message of a terminal whose maker
    /// is not known.
    pub fn decode(header: &Header, body: &[u8]) -> Result<TerminalMessage, Error> {
        TerminalMessage::decode_with(header, body, VendorLayouts::Unreported)
    }

    /// Reads the body, the reports' vendor items as `vendor` says.
    pub fn decode_with(
        header: &Header,
        body: &[u8],
        vendor: VendorLayouts,
    ) -> Result<TerminalMessage, Error> {
        let v2019 = matches!(header.version, Version::V2019 { .. });
        let mut r = Reader::new(body);
        let message = match header.msg_id {
            id::TERMINAL_GENERAL_RESPONSE => TerminalMessage::GeneralResponse {
                reply_serial: r.u16("reply serial")?,
                reply_id: r.u16("reply id")?,
                result: r.u8("result")?,
            },
            id::HEARTBEAT => TerminalMessage::Heartbeat,
            id::LOGOUT => TerminalMessage::Logout,
            id::REGISTER => {
                let (m, t, i) = match (v2019, body.len()) {
                    (true, _) => (11, 30, 30),
                    // The 2011 layout (model BYTE[8]), still sent: its body
                    // is shorter than 2013's fixed 37 bytes.
                    (false, len) if len < 37 => (5, 8, 7),
                    (false, _) => (5, 20, 7),
                };
                TerminalMessage::Register(Registration {
                    province: r.u16("province")?,
                    city: r.u16("city")?,
                    manufacturer: r.fixed_text(m, "manufacturer")?,
                    model: r.fixed_text(t, "model")?,
                    terminal_id: r.fixed_text(i, "terminal id")?,
                    plate_color: r.u8("plate colour")?,
                    plate: gbk(r.rest()),
                })
            }
            id::AUTHENTICATE => TerminalMessage::Authenticate(if v2019 {
                let len = usize::from(r.u8("auth code length")?);
                Authentication {
                    code: gbk(r.take(len, "auth code")?),
                    imei: Some(r.fixed_text(15, "imei")?),
                    software_version: Some(r.fixed_text(20, "software version")?),
                }
            } else {
                Authentication {
                    code: gbk(r.rest()),
                    imei: None,
                    software_version: None,
                }
            }),
            id::LOCATION => TerminalMessage::Location(Location::parse_with(r.rest(), vendor)?),
            id::BATCH_LOCATION => {
                let count = r.u16("count")?;
                let blind_zone = r.u8("batch type")? == 1;
                let mut locations = Vec::with_capacity(usize::from(count).min(64));
                for _ in 0..count {
                    let len = usize::from(r.u16("report length")?);
                    locations.push(Location::parse_with(r.take(len, "report")?, vendor)?);
                }
                TerminalMessage::BatchLocation {
                    blind_zone,
                    locations,
                }
            }
            id::VEHICLE_CONTROL_RESPONSE => TerminalMessage::VehicleControlResponse {
                reply_serial: r.u16("reply serial")?,
                location: Location::parse_with(r.rest(), vendor)?,
            },
            id::MEDIA_EVENT => TerminalMessage::MediaEvent(media(&mut r)?),
            id::MEDIA_DATA => {
                let media = media(&mut r)?;
                let location = Location::parse_with(r.take(BASIC_LEN, "media location")?, vendor)?;
                TerminalMessage::MediaData {
                    media,
                    location,
                    data: r.rest().to_vec(),
                }
            }
            id::AV_ATTRIBUTES => TerminalMessage::AvAttributes(AvAttributes {
                audio_encoding: r.u8("audio encoding")?,
                audio_channels: r.u8("audio channels")?,
                sampling_rate: r.u8("sampling rate")?,
                sample_bits: r.u8("sample bits")?,
                audio_frame_len: r.u16("audio frame length")?,
                audio_output: r.u8("audio output")? != 0,
                video_encoding: r.u8("video encoding")?,
                max_audio_channels: r.u8("audio channel count")?,
                max_video_channels: r.u8("video channel count")?,
            }),
            id::RESOURCE_LIST => {
                let reply_serial = r.u16("reply serial")?;
                let count = r.u32("resource count")?;
                let mut resources = Vec::with_capacity((count as usize).min(64));
                for _ in 0..count {
                    resources.push(Resource {
                        channel: r.u8("channel")?,
                        start: r.time("resource start")?,
                        end: r.time("resource end")?,
                        alarms: r.u64("resource alarms")?,
                        kind: ResourceKind::read(&mut r)?,
                        stream: ResourceStream::read(&mut r)?,
                        storage: Storage::read(&mut r)?,
                        size: r.u32("resource size")?,
                    });
                }
                TerminalMessage::ResourceList {
                    reply_serial,
                    resources,
                }
            }
            id::ALARM_ATTACHMENTS => {
                let terminal_id = r.fixed_text(7, "terminal id")?;
                let identifier = AlarmIdentifier::read(&mut r)?;
                let alarm_number = r.fixed_text(ALARM_NUMBER_LEN, "alarm number")?;
                let supplement = match r.u8("info type")? {
                    0 => false,
                    1 => true,
                    _ => return Err(Error::Invalid("info type")),
                };
                let count = r.u8("attachment count")?;
                let mut files = Vec::with_capacity(usize::from(count));
                for _ in 0..count {
                    files.push(AttachmentFile {
                        name: short_text(&mut r, "file name")?,
                        size: r.u32("file size")?,
                    });
                }
                TerminalMessage::AlarmAttachments(AlarmAttachments {
                    terminal_id,
                    identifier,
                    alarm_number,
                    supplement,
                    files,
                })
            }
            id::FILE_INFO => TerminalMessage::FileInfo(file_info(&mut r)?),
            id::FILE_UPLOADED => TerminalMessage::FileUploaded(file_info(&mut r)?),
            other => TerminalMessage::Unsupported(other),
        };
        Ok(message)
    }

    /// The body as a terminal writes it (test terminals and the simulator).
    pub fn encode(&self, version: Version) -> Result<(u16, Vec<u8>), Error> {
        let v2019 = matches!(version, Version::V2019 { .. });
        let mut out = Vec::new();
        let id = match self {
            TerminalMessage::GeneralResponse {
                reply_serial,
                reply_id,
                result,
            } => {
                out.extend(reply_serial.to_be_bytes());
                out.extend(reply_id.to_be_bytes());
                out.push(*result);
                id::TERMINAL_GENERAL_RESPONSE
            }
            TerminalMessage::Heartbeat => id::HEARTBEAT,
            TerminalMessage::Logout => id::LOGOUT,
            TerminalMessage::Register(reg) => {
                let (m, t, i) = if v2019 { (11, 30, 30) } else { (5, 20, 7) };
                out.extend(reg.province.to_be_bytes());
                out.extend(reg.city.to_be_bytes());
                fixed(&mut out, &reg.manufacturer, m)?;
                fixed(&mut out, &reg.model, t)?;
                fixed(&mut out, &reg.terminal_id, i)?;
                out.push(reg.plate_color);
                out.extend(to_gbk(&reg.plate));
                id::REGISTER
            }
            TerminalMessage::Authenticate(auth) => {
                let code = to_gbk(&auth.code);
                if v2019 {
                    out.push(u8::try_from(code.len()).map_err(|_| Error::Invalid("auth code"))?);
                    out.extend(code);
                    fixed(&mut out, auth.imei.as_deref().unwrap_or(""), 15)?;
                    fixed(&mut out, auth.software_version.as_deref().unwrap_or(""), 20)?;
                } else {
                    out.extend(code);
                }
                id::AUTHENTICATE
            }
            TerminalMessage::Location(loc) => {
                out.extend(loc.encode());
                id::LOCATION
            }
            TerminalMessage::BatchLocation {
                blind_zone,
                locations,
            } => {
                let count = u16::try_from(locations.len()).map_err(|_| Error::Invalid("count"))?;
                out.extend(count.to_be_bytes());
                out.push(u8::from(*blind_zone));
                for loc in locations {
                    let body = loc.encode();
                    out.extend((body.len() as u16).to_be_bytes());
                    out.extend(body);
                }
                id::BATCH_LOCATION
            }
            TerminalMessage::VehicleControlResponse {
                reply_serial,
                location,
            } => {
                out.extend(reply_serial.to_be_bytes());
                out.extend(location.encode());
                id::VEHICLE_CONTROL_RESPONSE
            }
            TerminalMessage::MediaEvent(m) => {
                write_media(&mut out, m);
                id::MEDIA_EVENT
            }
            TerminalMessage::MediaData {
                media,
                location,
                data,
            } => {
                write_media(&mut out, media);
                out.extend(&location.encode()[..BASIC_LEN]);
                out.extend(data);
                id::MEDIA_DATA
            }
            TerminalMessage::AvAttributes(a) => {
                out.extend([
                    a.audio_encoding,
                    a.audio_channels,
                    a.sampling_rate,
                    a.sample_bits,
                ]);
                out.extend(a.audio_frame_len.to_be_bytes());
                out.extend([
                    u8::from(a.audio_output),
                    a.video_encoding,
                    a.max_audio_channels,
                    a.max_video_channels,
                ]);
                id::AV_ATTRIBUTES
            }
            TerminalMessage::ResourceList {
                reply_serial,
                resources,
            } => {
                let count =
                    u32::try_from(resources.len()).map_err(|_| Error::Invalid("resource count"))?;
                out.extend(reply_serial.to_be_bytes());
                out.extend(count.to_be_bytes());
                for item in resources {
                    out.push(item.channel);
                    out.extend(time_bcd(item.start));
                    out.extend(time_bcd(item.end));
                    out.extend(item.alarms.to_be_bytes());
                    out.extend([item.kind as u8, item.stream as u8, item.storage as u8]);
                    out.extend(item.size.to_be_bytes());
                }
                id::RESOURCE_LIST
            }
            TerminalMessage::AlarmAttachments(a) => {
                fixed(&mut out, &a.terminal_id, 7)?;
                a.identifier.write(&mut out);
                fixed(&mut out, &a.alarm_number, ALARM_NUMBER_LEN)?;
                out.push(u8::from(a.supplement));
                out.push(
                    u8::try_from(a.files.len()).map_err(|_| Error::Invalid("attachment count"))?,
                );
                for file in &a.files {
                    write_short_text(&mut out, &file.name)?;
                    out.extend(file.size.to_be_bytes());
                }
                id::ALARM_ATTACHMENTS
            }
            TerminalMessage::FileInfo(info) => {
                write_file_info(&mut out, info)?;
                id::FILE_INFO
            }
            TerminalMessage::FileUploaded(info) => {
                write_file_info(&mut out, info)?;
                id::FILE_UPLOADED
            }
            TerminalMessage::Unsupported(id) => *id,
        };
        Ok((id, out))
    }
}

fn media(r: &mut Reader<'_>) -> Result<Media, Error> {
    Ok(Media {
        id: r.u32("media id")?,
        kind: r.u8("media type")?,
        format: r.u8("media format")?,
        event: r.u8("media event")?,
        channel: r.u8("channel")?,
    })
}

fn write_media(out: &mut Vec<u8>, m: &Media) {
    out.extend(m.id.to_be_bytes());
    out.extend([m.kind, m.format, m.event, m.channel]);
}

fn file_info(r: &mut Reader<'_>) -> Result<FileInfo, Error> {
    Ok(FileInfo {
        name: short_text(r, "file name")?,
        file_type: FileType::read(r)?,
        size: r.u32("file size")?,
    })
}

fn write_file_info(out: &mut Vec<u8>, info: &FileInfo) -> Result<(), Error> {
    write_short_text(out, &info.name)?;
    out.push(info.file_type as u8);
    out.extend(info.size.to_be_bytes());
    Ok(())
}

/// Text after its length byte.
fn short_text(r: &mut Reader<'_>, what: &'static str) -> Result<String, Error> {
    let len = usize::from(r.u8(what)?);
    Ok(gbk(r.take(len, what)?))
}

fn write_short_text(out: &mut Vec<u8>, text: &str) -> Result<(), Error> {
    let bytes = to_gbk(text);
    out.push(u8::try_from(bytes.len()).map_err(|_| Error::Invalid("text too long for its field"))?);
    out.extend(bytes);
    Ok(())
}

/// Text after its length byte, cut to what the byte can say.
fn write_short_text_cut(out: &mut Vec<u8>, text: &str) {
    let bytes = to_gbk_cut(text, usize::from(u8::MAX));
    out.push(bytes.len() as u8);
    out.extend(bytes);
}

/// Text in a fixed-width field, NUL-padded and cut to the width.
fn fixed_cut(out: &mut Vec<u8>, text: &str, width: usize) {
    let mut bytes = to_gbk_cut(text, width);
    bytes.resize(width, 0);
    out.extend(bytes);
}

/// Width of 苏标's alarm number, the platform's name for an alarm.
const ALARM_NUMBER_LEN: usize = 32;

/// Text in a fixed-width field, NUL-padded.
fn fixed(out: &mut Vec<u8>, text: &str, width: usize) -> Result<(), Error> {
    let bytes = to_gbk(text);
    if bytes.len() > width {
        return Err(Error::Invalid("text too long for its field"));
    }
    out.extend(&bytes);
    out.resize(out.len() + width - bytes.len(), 0);
    Ok(())
}

wire_code! {
    /// Results of the platform's general response (0x8001).
    Ack, "general response result" {
        Ok = 0,
        Failed = 1,
        BadMessage = 2,
        Unsupported = 3,
        AlarmConfirmed = 4,
    }
}

wire_code! {
    /// Results of a registration (0x8100).
    RegisterResult, "register result" {
        Ok = 0,
        VehicleAlreadyRegistered = 1,
        NoSuchVehicle = 2,
        TerminalAlreadyRegistered = 3,
        NoSuchTerminal = 4,
    }
}

/// Where the terminal connects to stream or upload: an address as text (an
/// IP address in practice) with a TCP and a UDP port.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MediaServer {
    pub address: String,
    pub tcp_port: u16,
    /// 0 when the terminal must use TCP.
    pub udp_port: u16,
}

impl MediaServer {
    fn read(r: &mut Reader<'_>) -> Result<MediaServer, Error> {
        Ok(MediaServer {
            address: short_text(r, "server address")?,
            tcp_port: r.u16("tcp port")?,
            udp_port: r.u16("udp port")?,
        })
    }

    fn write(&self, out: &mut Vec<u8>) {
        write_short_text_cut(out, &self.address);
        out.extend(self.tcp_port.to_be_bytes());
        out.extend(self.udp_port.to_be_bytes());
    }
}

wire_code! {
    /// What a live stream carries (0x9101).
    LiveData, "live data type" {
        AudioVideo = 0,
        Video = 1,
        /// Two-way talk.
        Talk = 2,
        /// The platform listens to the cab.
        Listen = 3,
        /// The platform speaks to the cab.
        Broadcast = 4,
        /// Transparent serial data.
        Transparent = 5,
    }
}

wire_code! {
    /// Main (full resolution) or sub (low bit-rate) stream of a live channel.
    Stream, "stream type" {
        Main = 0,
        Sub = 1,
    }
}

wire_code! {
    /// What 0x9102 does to a live stream.
    LiveCommand, "live control" {
        Close = 0,
        /// To `LiveControl::switch_to`.
        SwitchStream = 1,
        Pause = 2,
        /// Resume after a pause.
        Resume = 3,
        CloseTalk = 4,
    }
}

wire_code! {
    /// What a close (0x9102, command 0) stops.
    CloseWhat, "close type" {
        /// Audio and video of the channel.
        All = 0,
        /// The audio; the video goes on.
        Audio = 1,
        /// The video; the audio goes on.
        Video = 2,
    }
}

wire_code! {
    /// What a stored recording holds, or which recordings are meant.
    ResourceKind, "av resource type" {
        AudioVideo = 0,
        Audio = 1,
        Video = 2,
        /// Video, with or without audio (queries and playback only).
        AudioOrVideo = 3,
    }
}

wire_code! {
    /// The stream a recording was taken from; `Any` in queries and playback.
    ResourceStream, "resource stream type" {
        Any = 0,
        Main = 1,
        Sub = 2,
    }
}

wire_code! {
    /// Where a recording is stored; `Any` in queries and playback.
    Storage, "storage type" {
        Any = 0,
        Main = 1,
        /// The disaster-recovery store.
        Backup = 2,
    }
}

wire_code! {
    /// How a recording is played back (0x9201).
    PlaybackMode, "playback mode" {
        Normal = 0,
        FastForward = 1,
        KeyFrameRewind = 2,
        KeyFramePlay = 3,
        /// One frame, taken at `start`.
        SingleFrame = 4,
    }
}

wire_code! {
    /// Fast-forward or rewind speed; `Unset` for other modes.
    PlaybackSpeed, "playback multiplier" {
        Unset = 0,
        X1 = 1,
        X2 = 2,
        X4 = 3,
        X8 = 4,
        X16 = 5,
    }
}

wire_code! {
    /// What 0x9202 does to a playback.
    PlaybackCommand, "playback control" {
        /// Start or resume.
        Play = 0,
        Pause = 1,
        Stop = 2,
        FastForward = 3,
        KeyFrameRewind = 4,
        /// To `PlaybackControl::seek_to`.
        Seek = 5,
        Slow = 6,
    }
}

wire_code! {
    /// An evidence file's type (苏标 0x1211).
    FileType, "file type" {
        Picture = 0,
        Audio = 1,
        Video = 2,
        Text = 3,
        Other = 4,
    }
}

/// 0x9101: stream a channel live to `server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveRequest {
    pub server: MediaServer,
    /// Logical channel (JT/T 1078 Table 2), from 1.
    pub channel: u8,
    pub data: LiveData,
    pub stream: Stream,
}

/// 0x9102: control a live stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LiveControl {
    pub channel: u8,
    pub command: LiveCommand,
    pub close: CloseWhat,
    pub switch_to: Stream,
}

/// 0x9205: which recordings the terminal holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResourceQuery {
    /// 0 for every channel.
    pub channel: u8,
    /// `None`: no bound.
    pub start: Option<DateTime<Utc>>,
    pub end: Option<DateTime<Utc>>,
    /// Recordings during any of these alarms (bits as [`Resource::alarms`]); 0 for all.
    pub alarms: u64,
    pub kind: ResourceKind,
    pub stream: ResourceStream,
    pub storage: Storage,
}

/// 0x9201: play a stored recording back to `server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaybackRequest {
    pub server: MediaServer,
    pub channel: u8,
    pub kind: ResourceKind,
    pub stream: ResourceStream,
    pub storage: Storage,
    pub mode: PlaybackMode,
    pub speed: PlaybackSpeed,
    pub start: DateTime<Utc>,
    /// `None`: play on until stopped.
    pub end: Option<DateTime<Utc>>,
}

/// 0x9202: control a playback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlaybackControl {
    pub channel: u8,
    pub command: PlaybackCommand,
    pub speed: PlaybackSpeed,
    /// Only for [`PlaybackCommand::Seek`].
    pub seek_to: Option<DateTime<Utc>>,
}

/// 0x9208: upload the evidence of an alarm to the attachment `server`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachmentUploadRequest {
    pub server: MediaServer,
    /// As the terminal reported it with the alarm.
    pub identifier: AlarmIdentifier,
    /// The platform's unique number for the alarm, at most 32 bytes.
    pub alarm_number: String,
}

/// 0x9212: the answer to 0x1212.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileUploadAnswer {
    pub file_name: String,
    pub file_type: FileType,
    /// Pieces to send again; empty when the file is complete (result 0,
    /// else result 1).
    pub missing: Vec<FilePiece>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PlatformMessage {
    /// 0x8001.
    GeneralResponse {
        reply_serial: u16,
        reply_id: u16,
        result: Ack,
    },
    /// 0x8100; the auth code only on success.
    RegisterResponse {
        reply_serial: u16,
        result: RegisterResult,
        auth_code: String,
    },
    /// 0x8203: an operator dealt with the alarm; the terminal clears the
    /// bits of `types` (0x0200 bits 0, 3, 20, 21, 22, 27, 28) of the
    /// message `alarm_serial`, or of every message when it is 0.
    ManualAlarmConfirm { alarm_serial: u16, types: u32 },
    /// 0x8500: lock (true) or unlock the doors.
    VehicleControl { lock: bool },
    /// 0x8800: the media arrived (`retransmit` empty) or these packages must come again.
    MediaDataResponse { media_id: u32, retransmit: Vec<u16> },
    /// 0x9003.
    QueryAvAttributes,
    /// 0x9101.
    LiveRequest(LiveRequest),
    /// 0x9102.
    LiveControl(LiveControl),
    /// 0x9205.
    QueryResources(ResourceQuery),
    /// 0x9201.
    PlaybackRequest(PlaybackRequest),
    /// 0x9202.
    PlaybackControl(PlaybackControl),
    /// 0x9208.
    AttachmentUpload(AttachmentUploadRequest),
    /// 0x9212.
    FileUploadAnswer(FileUploadAnswer),
}

impl PlatformMessage {
    /// (message id, body) for a terminal speaking `version`.
    pub fn encode(&self, version: Version) -> (u16, Vec<u8>) {
        let mut out = Vec::new();
        let id = match self {
            PlatformMessage::GeneralResponse {
                reply_serial,
                reply_id,
                result,
            } => {
                out.extend(reply_serial.to_be_bytes());
                out.extend(reply_id.to_be_bytes());
                out.push(*result as u8);
                id::PLATFORM_GENERAL_RESPONSE
            }
            PlatformMessage::RegisterResponse {
                reply_serial,
                result,
                auth_code,
            } => {
                out.extend(reply_serial.to_be_bytes());
                out.push(*result as u8);
                if *result == RegisterResult::Ok {
                    out.extend(to_gbk(auth_code));
                }
                id::REGISTER_RESPONSE
            }
            PlatformMessage::ManualAlarmConfirm {
                alarm_serial,
                types,
            } => {
                out.extend(alarm_serial.to_be_bytes());
                out.extend(types.to_be_bytes());
                id::MANUAL_ALARM_CONFIRM
            }
            PlatformMessage::VehicleControl { lock } => {
                match version {
                    // 2019: one control item, type 0x0001 (doors): 0 lock, 1 open.
                    Version::V2019 { .. } => {
                        out.extend(1u16.to_be_bytes());
                        out.extend(0x0001u16.to_be_bytes());
                        out.push(if *lock { 0 } else { 1 });
                    }
                    // 2013: control flag, bit 0: 1 lock, 0 unlock.
                    Version::V2013 => out.push(u8::from(*lock)),
                }
                id::VEHICLE_CONTROL
            }
            PlatformMessage::MediaDataResponse {
                media_id,
                retransmit,
            } => {
                out.extend(media_id.to_be_bytes());
                if !retransmit.is_empty() {
                    out.push(retransmit.len().min(255) as u8);
                    for index in retransmit.iter().take(255) {
                        out.extend(index.to_be_bytes());
                    }
                }
                id::MEDIA_DATA_RESPONSE
            }
            PlatformMessage::QueryAvAttributes => id::QUERY_AV_ATTRIBUTES,
            PlatformMessage::LiveRequest(live) => {
                live.server.write(&mut out);
                out.extend([live.channel, live.data as u8, live.stream as u8]);
                id::LIVE_REQUEST
            }
            PlatformMessage::LiveControl(control) => {
                out.extend([
                    control.channel,
                    control.command as u8,
                    control.close as u8,
                    control.switch_to as u8,
                ]);
                id::LIVE_CONTROL
            }
            PlatformMessage::QueryResources(query) => {
                out.push(query.channel);
                out.extend(optional_time_bcd(query.start));
                out.extend(optional_time_bcd(query.end));
                out.extend(query.alarms.to_be_bytes());
                out.extend([query.kind as u8, query.stream as u8, query.storage as u8]);
                id::QUERY_RESOURCES
            }
            PlatformMessage::PlaybackRequest(playback) => {
                playback.server.write(&mut out);
                out.extend([
                    playback.channel,
                    playback.kind as u8,
                    playback.stream as u8,
                    playback.storage as u8,
                    playback.mode as u8,
                    playback.speed as u8,
                ]);
                out.extend(time_bcd(playback.start));
                out.extend(optional_time_bcd(playback.end));
                id::PLAYBACK_REQUEST
            }
            PlatformMessage::PlaybackControl(control) => {
                out.extend([control.channel, control.command as u8, control.speed as u8]);
                out.extend(optional_time_bcd(control.seek_to));
                id::PLAYBACK_CONTROL
            }
            PlatformMessage::AttachmentUpload(upload) => {
                upload.server.write(&mut out);
                upload.identifier.write(&mut out);
                fixed_cut(&mut out, &upload.alarm_number, ALARM_NUMBER_LEN);
                out.extend([0; 16]);
                id::ATTACHMENT_UPLOAD
            }
            PlatformMessage::FileUploadAnswer(answer) => {
                write_short_text_cut(&mut out, &answer.file_name);
                out.push(answer.file_type as u8);
                let missing = &answer.missing[..answer.missing.len().min(255)];
                out.extend([u8::from(!missing.is_empty()), missing.len() as u8]);
                for piece in missing {
                    out.extend(piece.offset.to_be_bytes());
                    out.extend(piece.length.to_be_bytes());
                }
                id::FILE_UPLOAD_ANSWER
            }
        };
        (id, out)
    }

    /// Reads a platform message (what a test terminal or the simulator does).
    pub fn decode(header: &Header, body: &[u8]) -> Result<PlatformMessage, Error> {
        let mut r = Reader::new(body);
        Ok(match header.msg_id {
            id::PLATFORM_GENERAL_RESPONSE => PlatformMessage::GeneralResponse {
                reply_serial: r.u16("reply serial")?,
                reply_id: r.u16("reply id")?,
                result: Ack::read(&mut r)?,
            },
            id::REGISTER_RESPONSE => {
                let reply_serial = r.u16("reply serial")?;
                let result = RegisterResult::read(&mut r)?;
                PlatformMessage::RegisterResponse {
                    reply_serial,
                    result,
                    auth_code: gbk(r.rest()),
                }
            }
            id::MANUAL_ALARM_CONFIRM => PlatformMessage::ManualAlarmConfirm {
                alarm_serial: r.u16("alarm serial")?,
                types: r.u32("alarm types")?,
            },
            id::VEHICLE_CONTROL => match header.version {
                Version::V2019 { .. } => {
                    let count = r.u16("control count")?;
                    let mut lock = None;
                    for _ in 0..count {
                        let kind = r.u16("control type")?;
                        let value = r.u8("control value")?;
                        if kind == 0x0001 {
                            lock = Some(value == 0);
                        }
                    }
                    PlatformMessage::VehicleControl {
                        lock: lock.ok_or(Error::Invalid("no door control"))?,
                    }
                }
                Version::V2013 => PlatformMessage::VehicleControl {
                    lock: r.u8("control flag")? & 1 == 1,
                },
            },
            id::MEDIA_DATA_RESPONSE => {
                let media_id = r.u32("media id")?;
                let mut retransmit = Vec::new();
                if r.remaining() > 0 {
                    for _ in 0..r.u8("retransmit count")? {
                        retransmit.push(r.u16("package index")?);
                    }
                }
                PlatformMessage::MediaDataResponse {
                    media_id,
                    retransmit,
                }
            }
            id::QUERY_AV_ATTRIBUTES => PlatformMessage::QueryAvAttributes,
            id::LIVE_REQUEST => PlatformMessage::LiveRequest(LiveRequest {
                server: MediaServer::read(&mut r)?,
                channel: r.u8("channel")?,
                data: LiveData::read(&mut r)?,
                stream: Stream::read(&mut r)?,
            }),
            id::LIVE_CONTROL => PlatformMessage::LiveControl(LiveControl {
                channel: r.u8("channel")?,
                command: LiveCommand::read(&mut r)?,
                close: CloseWhat::read(&mut r)?,
                switch_to: Stream::read(&mut r)?,
            }),
            id::QUERY_RESOURCES => PlatformMessage::QueryResources(ResourceQuery {
                channel: r.u8("channel")?,
                start: r.optional_time("query start")?,
                end: r.optional_time("query end")?,
                alarms: r.u64("query alarms")?,
                kind: ResourceKind::read(&mut r)?,
                stream: ResourceStream::read(&mut r)?,
                storage: Storage::read(&mut r)?,
            }),
            id::PLAYBACK_REQUEST => PlatformMessage::PlaybackRequest(PlaybackRequest {
                server: MediaServer::read(&mut r)?,
                channel: r.u8("channel")?,
                kind: ResourceKind::read(&mut r)?,
                stream: ResourceStream::read(&mut r)?,
                storage: Storage::read(&mut r)?,
                mode: PlaybackMode::read(&mut r)?,
                speed: PlaybackSpeed::read(&mut r)?,
                start: r.time("playback start")?,
                end: r.optional_time("playback end")?,
            }),
            id::PLAYBACK_CONTROL => PlatformMessage::PlaybackControl(PlaybackControl {
                channel: r.u8("channel")?,
                command: PlaybackCommand::read(&mut r)?,
                speed: PlaybackSpeed::read(&mut r)?,
                seek_to: r.optional_time("seek position")?,
            }),
            id::ATTACHMENT_UPLOAD => {
                let upload = AttachmentUploadRequest {
                    server: MediaServer::read(&mut r)?,
                    identifier: AlarmIdentifier::read(&mut r)?,
                    alarm_number: r.fixed_text(ALARM_NUMBER_LEN, "alarm number")?,
                };
                r.take(16, "reserved")?;
                PlatformMessage::AttachmentUpload(upload)
            }
            id::FILE_UPLOAD_ANSWER => {
                let file_name = short_text(&mut r, "file name")?;
                let file_type = FileType::read(&mut r)?;
                let resend = r.u8("upload result")?;
                let count = r.u8("piece count")?;
                if resend > 1 || (resend == 1) != (count > 0) {
                    return Err(Error::Invalid("upload result"));
                }
                let mut missing = Vec::with_capacity(usize::from(count));
                for _ in 0..count {
                    missing.push(FilePiece {
                        offset: r.u32("piece offset")?,
                        length: r.u32("piece length")?,
                    });
                }
                PlatformMessage::FileUploadAnswer(FileUploadAnswer {
                    file_name,
                    file_type,
                    missing,
                })
            }
            _ => return Err(Error::Invalid("not a platform message")),
        })
    }
}

/// A whole frame for the wire: header (with `msg_id` and the body length) plus body.
pub fn frame(header: &Header, body: &[u8]) -> Result<Vec<u8>, Error> {
    let mut bytes = Vec::with_capacity(body.len() + 24);
    header.write(body.len(), &mut bytes)?;
    bytes.extend(body);
    Ok(super::encode_frame(&bytes))
}

#[cfg(test)]
mod tests {
    use chrono::TimeZone as _;
    use proptest::prelude::*;

    use super::*;
    use crate::jt808::location::tests::{IDENTIFIER, identifier, sample};
    use crate::jt808::{FrameDecoder, header::Package};

    fn header(msg_id: u16, version: Version) -> Header {
        Header {
            msg_id,
            version,
            phone: "13800000001".into(),
            serial: 9,
            package: None,
        }
    }

    fn round_trip(message: &TerminalMessage, version: Version) -> TerminalMessage {
        let (id, body) = message.encode(version).unwrap();
        let wire = frame(&header(id, version), &body).unwrap();
        let mut frames = Vec::new();
        FrameDecoder::default().feed(&wire, &mut frames);
        let bytes = frames.pop().unwrap().unwrap();
        let (h, body) = Header::parse(&bytes).unwrap();
        TerminalMessage::decode(&h, body).unwrap()
    }

    #[test]
    fn registration_reads_both_versions_field_widths() {
        for version in [Version::V2013, Version::V2019 { protocol: 1 }] {
            let reg = TerminalMessage::Register(Registration {
                province: 44,
                city: 300,
                manufacturer: "FLEET".into(),
                model: "FD-808".into(),
                terminal_id: "T000001".into(),
                plate_color: 5,
                plate: "粤B12345D".into(),
            });
            assert_eq!(round_trip(&reg, version), reg);
        }
    }

    #[test]
    fn authentication_2019_carries_imei_and_version() {
        let auth = TerminalMessage::Authenticate(Authentication {
            code: "a1b2c3".into(),
            imei: Some("860000000000001".into()),
            software_version: Some("1.0.3".into()),
        });
        let v2019 = Version::V2019 { protocol: 1 };
        assert_eq!(round_trip(&auth, v2019), auth);
        let plain = TerminalMessage::Authenticate(Authentication {
            code: "a1b2c3".into(),
            imei: None,
            software_version: None,
        });
        assert_eq!(round_trip(&plain, Version::V2013), plain);
    }

    #[test]
    fn batch_and_media_messages_round_trip() {
        let v = Version::V2019 { protocol: 1 };
        let batch = TerminalMessage::BatchLocation {
            blind_zone: true,
            locations: vec![sample(), sample()],
        };
        assert_eq!(round_trip(&batch, v), batch);
        let mut basic = sample();
        basic.mileage_m = None;
        basic.signal = None;
        basic.satellites = None;
        basic.soc_percent = None;
        basic.temperatures.clear();
        let photo = TerminalMessage::MediaData {
            media: Media {
                id: 77,
                kind: 0,
                format: 0,
                event: 3,
                channel: 1,
            },
            location: basic,
            data: vec![0xff, 0xd8, 0x7e, 0x7d, 0xff, 0xd9],
        };
        assert_eq!(round_trip(&photo, v), photo);
    }

    #[test]
    fn an_unknown_message_is_unsupported_not_an_error() {
        let h = header(0x0f0f, Version::V2013);
        assert_eq!(
            TerminalMessage::decode(&h, &[1, 2]).unwrap(),
            TerminalMessage::Unsupported(0x0f0f)
        );
    }

    const V2019: Version = Version::V2019 { protocol: 1 };

    /// 2026-11-23 at `hh:mm:ss` Beijing time.
    fn beijing(hour: u32, minute: u32, second: u32) -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2026, 11, 23, hour - 8, minute, second)
            .unwrap()
    }

    /// `body` reads as `expected`, writes back to the same bytes, and
    /// every shorter body is refused as truncated.
    fn assert_body<M: PartialEq + std::fmt::Debug>(
        msg_id: u16,
        body: &[u8],
        expected: &M,
        decode: fn(&Header, &[u8]) -> Result<M, Error>,
        encode: impl Fn(&M) -> (u16, Vec<u8>),
    ) {
        let h = header(msg_id, V2019);
        assert_eq!(&decode(&h, body).unwrap(), expected);
        assert_eq!(encode(expected), (msg_id, body.to_vec()));
        for len in 0..body.len() {
            assert!(
                matches!(decode(&h, &body[..len]), Err(Error::Truncated { .. })),
                "{msg_id:#06x} cut to {len}"
            );
        }
    }

    fn assert_terminal(msg_id: u16, body: &[u8], expected: &TerminalMessage) {
        assert_body(msg_id, body, expected, TerminalMessage::decode, |m| {
            m.encode(V2019).unwrap()
        });
    }

    fn assert_platform(msg_id: u16, body: &[u8], expected: &PlatformMessage) {
        assert_body(msg_id, body, expected, PlatformMessage::decode, |m| {
            m.encode(V2019)
        });
    }

    fn server(address: &str, tcp_port: u16, udp_port: u16) -> MediaServer {
        MediaServer {
            address: address.into(),
            tcp_port,
            udp_port,
        }
    }

    const ALARM_NUMBER: &[u8; 32] = b"0123456789abcdef0123456789abcdef";
    const PHOTO: &[u8] = b"00_65_6501_0_A1.jpg";
    const CLIP: &[u8] = b"02_65_6501_1_A1.mp4";

    #[test]
    fn an_av_attribute_query_has_no_body() {
        assert_platform(0x9003, &[], &PlatformMessage::QueryAvAttributes);
    }

    #[test]
    fn av_attributes_are_read() {
        // audio G.711A (6) | 1 channel | 8 kHz (0) | 16 bits (1) | frame 320 bytes
        // | audio output yes | video H.264 (98) | 1 audio channel | 4 video channels
        let body = [0x06, 0x01, 0x00, 0x01, 0x01, 0x40, 0x01, 0x62, 0x01, 0x04];
        assert_terminal(
            0x1003,
            &body,
            &TerminalMessage::AvAttributes(AvAttributes {
                audio_encoding: 6,
                audio_channels: 1,
                sampling_rate: 0,
                sample_bits: 1,
                audio_frame_len: 320,
                audio_output: true,
                video_encoding: 98,
                max_audio_channels: 1,
                max_video_channels: 4,
            }),
        );
    }

    #[test]
    fn a_live_request_names_the_server_channel_and_stream() {
        // address length 8 | "10.0.0.5" | TCP 1078 | UDP 0 | channel 1 | audio and video (0) | sub stream (1)
        let body = [
            &[0x08][..],
            b"10.0.0.5",
            &[0x04, 0x36, 0x00, 0x00, 0x01, 0x00, 0x01],
        ]
        .concat();
        assert_platform(
            0x9101,
            &body,
            &PlatformMessage::LiveRequest(LiveRequest {
                server: server("10.0.0.5", 1078, 0),
                channel: 1,
                data: LiveData::AudioVideo,
                stream: Stream::Sub,
            }),
        );
    }

    #[test]
    fn a_live_control_is_four_bytes() {
        // channel 2 | close (0) | audio only, video goes on (1) | switch to main (0)
        assert_platform(
            0x9102,
            &[0x02, 0x00, 0x01, 0x00],
            &PlatformMessage::LiveControl(LiveControl {
                channel: 2,
                command: LiveCommand::Close,
                close: CloseWhat::Audio,
                switch_to: Stream::Main,
            }),
        );
    }

    #[test]
    fn a_resource_query_with_an_open_end() {
        // channel 0 (all) | start 26-11-23 10:03:04 | end all zeros (none)
        // | alarms: bit 32 (video signal lost) and bit 1 | audio or video (3) | any stream (0) | main storage (1)
        let body = [
            0x00, 0x26, 0x11, 0x23, 0x10, 0x03, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
            0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x02, 0x03, 0x00, 0x01,
        ];
        assert_platform(
            0x9205,
            &body,
            &PlatformMessage::QueryResources(ResourceQuery {
                channel: 0,
                start: Some(beijing(10, 3, 4)),
                end: None,
                alarms: 1 << 32 | 1 << 1,
                kind: ResourceKind::AudioOrVideo,
                stream: ResourceStream::Any,
                storage: Storage::Main,
            }),
        );
    }

    #[test]
    fn a_resource_list_is_read_item_by_item() {
        // answered serial 9 | 1 item: channel 1 | 10:00:00 to 10:05:00 | no alarms
        // | video (2) | main stream (1) | main storage (1) | 1 MiB
        let body = [
            0x00, 0x09, 0x00, 0x00, 0x00, 0x01, 0x01, 0x26, 0x11, 0x23, 0x10, 0x00, 0x00, 0x26,
            0x11, 0x23, 0x10, 0x05, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02,
            0x01, 0x01, 0x00, 0x10, 0x00, 0x00,
        ];
        assert_terminal(
            0x1205,
            &body,
            &TerminalMessage::ResourceList {
                reply_serial: 9,
                resources: vec![Resource {
                    channel: 1,
                    start: beijing(10, 0, 0),
                    end: beijing(10, 5, 0),
                    alarms: 0,
                    kind: ResourceKind::Video,
                    stream: ResourceStream::Main,
                    storage: Storage::Main,
                    size: 1 << 20,
                }],
            },
        );
    }

    #[test]
    fn a_playback_request_names_mode_speed_and_range() {
        // address length 8 | "10.0.0.5" | TCP 1078 | UDP 1079 | channel 1 | video (2) | main stream (1)
        // | main storage (1) | fast-forward (1) | 4x (3) | 10:00:00 | 10:05:00
        let body = [
            &[0x08][..],
            b"10.0.0.5",
            &[
                0x04, 0x36, 0x04, 0x37, 0x01, 0x02, 0x01, 0x01, 0x01, 0x03, 0x26, 0x11, 0x23, 0x10,
                0x00, 0x00, 0x26, 0x11, 0x23, 0x10, 0x05, 0x00,
            ],
        ]
        .concat();
        assert_platform(
            0x9201,
            &body,
            &PlatformMessage::PlaybackRequest(PlaybackRequest {
                server: server("10.0.0.5", 1078, 1079),
                channel: 1,
                kind: ResourceKind::Video,
                stream: ResourceStream::Main,
                storage: Storage::Main,
                mode: PlaybackMode::FastForward,
                speed: PlaybackSpeed::X4,
                start: beijing(10, 0, 0),
                end: Some(beijing(10, 5, 0)),
            }),
        );
    }

    #[test]
    fn a_playback_seek_carries_its_position() {
        // channel 1 | seek (5) | no multiplier (0) | 10:02:30
        let body = [0x01, 0x05, 0x00, 0x26, 0x11, 0x23, 0x10, 0x02, 0x30];
        assert_platform(
            0x9202,
            &body,
            &PlatformMessage::PlaybackControl(PlaybackControl {
                channel: 1,
                command: PlaybackCommand::Seek,
                speed: PlaybackSpeed::Unset,
                seek_to: Some(beijing(10, 2, 30)),
            }),
        );
        // pause (1): the position is all zeros
        let body = [0x01, 0x01, 0x00, 0, 0, 0, 0, 0, 0];
        assert_platform(
            0x9202,
            &body,
            &PlatformMessage::PlaybackControl(PlaybackControl {
                channel: 1,
                command: PlaybackCommand::Pause,
                speed: PlaybackSpeed::Unset,
                seek_to: None,
            }),
        );
    }

    #[test]
    fn an_attachment_upload_echoes_the_alarm_identifier() {
        // address length 8 | "10.0.0.6" | TCP 7611 | UDP 0 | identifier (16) | alarm number (32) | reserved (16)
        let body = [
            &[0x08][..],
            b"10.0.0.6",
            &[0x1d, 0xbb, 0x00, 0x00],
            &IDENTIFIER,
            ALARM_NUMBER,
            &[0; 16],
        ]
        .concat();
        assert_platform(
            0x9208,
            &body,
            &PlatformMessage::AttachmentUpload(AttachmentUploadRequest {
                server: server("10.0.0.6", 7611, 0),
                identifier: identifier(),
                alarm_number: "0123456789abcdef0123456789abcdef".into(),
            }),
        );
    }

    #[test]
    fn alarm_attachments_list_their_files() {
        // terminal id "TERM001" | identifier (16) | alarm number (32) | normal (0) | 2 files:
        // 19 "00_65_6501_0_A1.jpg" 20480 bytes | 19 "02_65_6501_1_A1.mp4" 1 MiB
        let body = [
            &b"TERM001"[..],
            &IDENTIFIER,
            ALARM_NUMBER,
            &[0x00, 0x02, 19],
            PHOTO,
            &[0x00, 0x00, 0x50, 0x00, 19],
            CLIP,
            &[0x00, 0x10, 0x00, 0x00],
        ]
        .concat();
        assert_terminal(
            0x1210,
            &body,
            &TerminalMessage::AlarmAttachments(AlarmAttachments {
                terminal_id: "TERM001".into(),
                identifier: identifier(),
                alarm_number: "0123456789abcdef0123456789abcdef".into(),
                supplement: false,
                files: vec![
                    AttachmentFile {
                        name: "00_65_6501_0_A1.jpg".into(),
                        size: 20480,
                    },
                    AttachmentFile {
                        name: "02_65_6501_1_A1.mp4".into(),
                        size: 1 << 20,
                    },
                ],
            }),
        );
        let mut bad = body.clone();
        bad[7 + 16 + 32] = 2;
        let h = header(0x1210, V2019);
        assert_eq!(
            TerminalMessage::decode(&h, &bad),
            Err(Error::Invalid("info type"))
        );
    }

    #[test]
    fn file_info_and_upload_complete_share_a_layout() {
        // 19 "00_65_6501_0_A1.jpg" | picture (0) | 20480 bytes
        let body = [&[19][..], PHOTO, &[0x00, 0x00, 0x00, 0x50, 0x00]].concat();
        let info = FileInfo {
            name: "00_65_6501_0_A1.jpg".into(),
            file_type: FileType::Picture,
            size: 20480,
        };
        assert_terminal(0x1211, &body, &TerminalMessage::FileInfo(info.clone()));
        assert_terminal(0x1212, &body, &TerminalMessage::FileUploaded(info));
        let mut bad = body;
        bad[20] = 5;
        let h = header(0x1211, V2019);
        assert_eq!(
            TerminalMessage::decode(&h, &bad),
            Err(Error::Invalid("file type"))
        );
    }

    #[test]
    fn a_file_upload_answer_lists_the_pieces_to_send_again() {
        // 19 "02_65_6501_1_A1.mp4" | video (2) | re-send (1) | 2 pieces: 0+1024, 4096+512
        let body = [
            &[19][..],
            CLIP,
            &[
                0x02, 0x01, 0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x10,
                0x00, 0x00, 0x00, 0x02, 0x00,
            ],
        ]
        .concat();
        let missing = vec![
            FilePiece {
                offset: 0,
                length: 1024,
            },
            FilePiece {
                offset: 4096,
                length: 512,
            },
        ];
        assert_platform(
            0x9212,
            &body,
            &PlatformMessage::FileUploadAnswer(FileUploadAnswer {
                file_name: "02_65_6501_1_A1.mp4".into(),
                file_type: FileType::Video,
                missing,
            }),
        );
        // complete (0), no pieces
        let body = [&[19][..], CLIP, &[0x02, 0x00, 0x00]].concat();
        assert_platform(
            0x9212,
            &body,
            &PlatformMessage::FileUploadAnswer(FileUploadAnswer {
                file_name: "02_65_6501_1_A1.mp4".into(),
                file_type: FileType::Video,
                missing: Vec::new(),
            }),
        );
        // "complete" with pieces, or "re-send" without, contradict themselves.
        let h = header(0x9212, V2019);
        for (result, count) in [(0, 1), (1, 0), (2, 0)] {
            let body = [
                &[19][..],
                CLIP,
                &[0x02, result, count, 0, 0, 0, 0, 0, 0, 0, 1],
            ]
            .concat();
            assert_eq!(
                PlatformMessage::decode(&h, &body),
                Err(Error::Invalid("upload result"))
            );
        }
    }

    #[test]
    fn codes_outside_the_standard_are_refused() {
        let h = header(0x9102, V2019);
        for (at, what) in [(1, "live control"), (2, "close type"), (3, "stream type")] {
            let mut body = [0x01, 0x00, 0x00, 0x00];
            body[at] = 9;
            assert_eq!(
                PlatformMessage::decode(&h, &body),
                Err(Error::Invalid(what))
            );
        }
    }

    #[test]
    fn the_platform_cuts_text_its_fields_cannot_hold() {
        let long = "9".repeat(300);
        let (_, body) = PlatformMessage::LiveRequest(LiveRequest {
            server: server(&long, 1, 2),
            channel: 1,
            data: LiveData::Video,
            stream: Stream::Main,
        })
        .encode(V2019);
        assert_eq!(body[0], 255);
        assert_eq!(body.len(), 1 + 255 + 7);
        let (_, body) = PlatformMessage::AttachmentUpload(AttachmentUploadRequest {
            server: server("h", 1, 2),
            identifier: identifier(),
            alarm_number: long.clone(),
        })
        .encode(V2019);
        assert_eq!(body.len(), 2 + 4 + 16 + 32 + 16);
        let too_long = TerminalMessage::FileInfo(FileInfo {
            name: long,
            file_type: FileType::Other,
            size: 0,
        });
        assert_eq!(
            too_long.encode(V2019),
            Err(Error::Invalid("text too long for its field"))
        );
    }

    fn video_ids() -> impl Strategy<Value = u16> {
        prop::sample::select(vec![
            0x1003, 0x1205, 0x1210, 0x1211, 0x1212, 0x9003, 0x9101, 0x9102, 0x9201, 0x9202, 0x9205,
            0x9208, 0x9212,
        ])
    }

    proptest! {
        #[test]
        fn arbitrary_video_and_evidence_bodies_never_panic(
            msg_id in video_ids(),
            body in proptest::collection::vec(any::<u8>(), 0..200),
        ) {
            let h = header(msg_id, V2019);
            let _ = TerminalMessage::decode(&h, &body);
            let _ = PlatformMessage::decode(&h, &body);
        }

        /// Text GBK cannot hold, padding and blanks are dropped on the first
        /// reading; from then on reading and writing agree byte for byte.
        #[test]
        fn whatever_decodes_is_written_back_stably(
            msg_id in video_ids(),
            body in proptest::collection::vec(any::<u8>(), 0..120),
        ) {
            let h = header(msg_id, V2019);
            if let Ok(message) = PlatformMessage::decode(&h, &body) {
                let (id, written) = message.encode(V2019);
                prop_assert_eq!(id, msg_id);
                let reread = PlatformMessage::decode(&h, &written).unwrap();
                prop_assert_eq!(reread.encode(V2019), (id, written));
            }
            if let Ok(message) = TerminalMessage::decode(&h, &body)
                && let Ok((id, written)) = message.encode(V2019)
            {
                prop_assert_eq!(id, msg_id);
                let reread = TerminalMessage::decode(&h, &written).unwrap();
                prop_assert_eq!(reread.encode(V2019), Ok((id, written)));
            }
        }
    }

    #[test]
    fn platform_messages_round_trip_in_both_versions() {
        for version in [Version::V2013, Version::V2019 { protocol: 1 }] {
            for message in [
                PlatformMessage::GeneralResponse {
                    reply_serial: 3,
                    reply_id: 0x0200,
                    result: Ack::Ok,
                },
                PlatformMessage::RegisterResponse {
                    reply_serial: 1,
                    result: RegisterResult::Ok,
                    auth_code: "secret-code".into(),
                },
                PlatformMessage::RegisterResponse {
                    reply_serial: 1,
                    result: RegisterResult::NoSuchTerminal,
                    auth_code: String::new(),
                },
                PlatformMessage::VehicleControl { lock: true },
                PlatformMessage::VehicleControl { lock: false },
                PlatformMessage::ManualAlarmConfirm {
                    alarm_serial: 0,
                    types: 1,
                },
                PlatformMessage::MediaDataResponse {
                    media_id: 5,
                    retransmit: vec![2, 4],
                },
            ] {
                let (id, body) = message.encode(version);
                let mut h = header(id, version);
                h.package = None::<Package>;
                assert_eq!(PlatformMessage::decode(&h, &body).unwrap(), message);
            }
        }
    }

    #[test]
    fn a_manual_alarm_confirmation_is_the_serial_then_the_type_bits() {
        let (id, body) = PlatformMessage::ManualAlarmConfirm {
            alarm_serial: 0x0102,
            types: 1 << 3 | 1,
        }
        .encode(Version::V2013);
        assert_eq!(id, 0x8203);
        assert_eq!(body, [0x01, 0x02, 0x00, 0x00, 0x00, 0x09]);
    }

    #[test]
    fn a_2019_door_lock_is_control_type_one_with_value_zero() {
        let (id, body) =
            PlatformMessage::VehicleControl { lock: true }.encode(Version::V2019 { protocol: 1 });
        assert_eq!(id, 0x8500);
        assert_eq!(body, [0x00, 0x01, 0x00, 0x01, 0x00]);
    }
}
