//! Message bodies: what terminals send ([`TerminalMessage`]) and what the
//! platform answers ([`PlatformMessage`]). Field widths that changed between
//! 2013 and 2019 follow the header's [`Version`].

use super::header::{Header, Version};
use super::location::{BASIC_LEN, Location};
use super::reader::{Reader, gbk, to_gbk};
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
    /// Anything else: answered "unsupported".
    Unsupported(u16),
}

impl TerminalMessage {
    /// Reads the body of a (reassembled) message.
    pub fn decode(header: &Header, body: &[u8]) -> Result<TerminalMessage, Error> {
        let v2019 = matches!(header.version, Version::V2019 { .. });
        let mut r = Reader::new(body);
        let message = match header.msg_id {
            id::TERMINAL_GENERAL_RESPONSE => TerminalMessage::GeneralResponse {
                reply_serial: r.u16("reply serial")?,
                reply_id: r.u16("reply id")?,
                result: r.u8("result")?,
            },
            id::HEARTBEAT => TerminalMessage::Heartbeat,
            id::REGISTER => {
                let (m, t, i) = if v2019 { (11, 30, 30) } else { (5, 20, 7) };
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
            id::LOCATION => TerminalMessage::Location(Location::parse(r.rest())?),
            id::BATCH_LOCATION => {
                let count = r.u16("count")?;
                let blind_zone = r.u8("batch type")? == 1;
                let mut locations = Vec::with_capacity(usize::from(count).min(64));
                for _ in 0..count {
                    let len = usize::from(r.u16("report length")?);
                    locations.push(Location::parse(r.take(len, "report")?)?);
                }
                TerminalMessage::BatchLocation {
                    blind_zone,
                    locations,
                }
            }
            id::VEHICLE_CONTROL_RESPONSE => TerminalMessage::VehicleControlResponse {
                reply_serial: r.u16("reply serial")?,
                location: Location::parse(r.rest())?,
            },
            id::MEDIA_EVENT => TerminalMessage::MediaEvent(media(&mut r)?),
            id::MEDIA_DATA => {
                let media = media(&mut r)?;
                let location = Location::parse(r.take(BASIC_LEN, "media location")?)?;
                TerminalMessage::MediaData {
                    media,
                    location,
                    data: r.rest().to_vec(),
                }
            }
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

/// Results of the platform's general response (0x8001).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ack {
    Ok = 0,
    Failed = 1,
    BadMessage = 2,
    Unsupported = 3,
    AlarmConfirmed = 4,
}

/// Results of a registration (0x8100).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RegisterResult {
    Ok = 0,
    VehicleAlreadyRegistered = 1,
    NoSuchVehicle = 2,
    TerminalAlreadyRegistered = 3,
    NoSuchTerminal = 4,
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
                result: match r.u8("result")? {
                    0 => Ack::Ok,
                    1 => Ack::Failed,
                    2 => Ack::BadMessage,
                    3 => Ack::Unsupported,
                    4 => Ack::AlarmConfirmed,
                    _ => return Err(Error::Invalid("general response result")),
                },
            },
            id::REGISTER_RESPONSE => {
                let reply_serial = r.u16("reply serial")?;
                let result = match r.u8("result")? {
                    0 => RegisterResult::Ok,
                    1 => RegisterResult::VehicleAlreadyRegistered,
                    2 => RegisterResult::NoSuchVehicle,
                    3 => RegisterResult::TerminalAlreadyRegistered,
                    4 => RegisterResult::NoSuchTerminal,
                    _ => return Err(Error::Invalid("register result")),
                };
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
    use super::*;
    use crate::jt808::location::tests::sample;
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
