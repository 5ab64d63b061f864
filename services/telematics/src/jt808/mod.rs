//! JT/T 808 (2019, and the 2013 header still sent by many terminals).
//!
//! A message on the wire is `0x7e | header | body | check | 0x7e`, with `0x7e`
//! and `0x7d` inside escaped as `0x7d 0x02` and `0x7d 0x01`, and `check` the
//! XOR of header and body. Words are big-endian; times are BCD in UTC+8.
//!
//! - [`frame`] splits a byte stream into unescaped, checked frames and
//!   escapes outgoing ones;
//! - [`header`] reads and writes the message header (both versions);
//! - [`message`] knows the bodies: the terminal's messages the platform reads
//!   and the platform's messages it writes;
//! - [`location`] is the 0x0200 location report with its additional items,
//!   the active-safety alarms (ADAS, DMS, tyres, blind spot) among them;
//! - [`packets`] reassembles sub-packaged messages;
//! - [`attachment`] reads the alarm-evidence connection, where files arrive
//!   in raw data packets between 808 frames, and tracks which parts of a
//!   file are still missing.
//!
//! Video (JT/T 1078) and active safety (the Jiangsu "苏标" extension,
//! T/JSATL 12-2017) are signalled with 808 messages, listed in [`message`].
//!
//! Nothing here panics on input: every malformed byte sequence is an
//! [`Error`], so the connection can count it and drop the frame.

/// A one-byte code of the standard as an enum; reading refuses a value the
/// standard does not define, writing is `code as u8`.
macro_rules! wire_code {
    ($(#[$meta:meta])* $name:ident, $what:literal {
        $($(#[$vmeta:meta])* $variant:ident = $code:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vmeta])* $variant = $code),+
        }

        impl $name {
            pub(crate) fn read(
                r: &mut $crate::jt808::reader::Reader<'_>,
            ) -> Result<$name, $crate::jt808::Error> {
                match r.u8($what)? {
                    $($code => Ok($name::$variant),)+
                    _ => Err($crate::jt808::Error::Invalid($what)),
                }
            }
        }
    };
}

pub mod attachment;
pub mod frame;
pub mod header;
pub mod location;
pub mod message;
pub mod packets;
mod reader;

pub use frame::{FrameDecoder, encode_frame};
pub use header::{Header, Version};
pub use location::Location;
pub use message::{PlatformMessage, TerminalMessage};

/// Why bytes from a terminal could not be understood.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    #[error("frame longer than {0} bytes")]
    FrameTooLong(usize),
    #[error("0x7d escape followed by {0:#04x}")]
    BadEscape(u8),
    #[error("check code {found:#04x}, computed {computed:#04x}")]
    BadCheck { found: u8, computed: u8 },
    #[error("message truncated: needed {needed} more bytes for {what}")]
    Truncated { what: &'static str, needed: usize },
    #[error("body length {declared} in the header, {actual} in the frame")]
    LengthMismatch { declared: usize, actual: usize },
    #[error("encrypted bodies (method {0}) are not accepted")]
    Encrypted(u8),
    #[error("bad BCD digit in {0}")]
    BadBcd(&'static str),
    #[error("invalid {0}")]
    Invalid(&'static str),
}

/// Message ids (Table 2 of the standard, JT/T 1078 Table 4, 苏标 Table 4-1),
/// terminal → platform.
pub mod id {
    pub const TERMINAL_GENERAL_RESPONSE: u16 = 0x0001;
    pub const HEARTBEAT: u16 = 0x0002;
    pub const LOGOUT: u16 = 0x0003;
    pub const REGISTER: u16 = 0x0100;
    pub const AUTHENTICATE: u16 = 0x0102;
    pub const LOCATION: u16 = 0x0200;
    pub const VEHICLE_CONTROL_RESPONSE: u16 = 0x0500;
    pub const BATCH_LOCATION: u16 = 0x0704;
    pub const MEDIA_EVENT: u16 = 0x0800;
    pub const MEDIA_DATA: u16 = 0x0801;
    pub const AV_ATTRIBUTES: u16 = 0x1003;
    pub const RESOURCE_LIST: u16 = 0x1205;
    pub const ALARM_ATTACHMENTS: u16 = 0x1210;
    pub const FILE_INFO: u16 = 0x1211;
    pub const FILE_UPLOADED: u16 = 0x1212;
    // Platform → terminal.
    pub const PLATFORM_GENERAL_RESPONSE: u16 = 0x8001;
    pub const REGISTER_RESPONSE: u16 = 0x8100;
    pub const MANUAL_ALARM_CONFIRM: u16 = 0x8203;
    pub const VEHICLE_CONTROL: u16 = 0x8500;
    pub const MEDIA_DATA_RESPONSE: u16 = 0x8800;
    pub const QUERY_AV_ATTRIBUTES: u16 = 0x9003;
    pub const LIVE_REQUEST: u16 = 0x9101;
    pub const LIVE_CONTROL: u16 = 0x9102;
    pub const PLAYBACK_REQUEST: u16 = 0x9201;
    pub const PLAYBACK_CONTROL: u16 = 0x9202;
    pub const QUERY_RESOURCES: u16 = 0x9205;
    pub const ATTACHMENT_UPLOAD: u16 = 0x9208;
    pub const FILE_UPLOAD_ANSWER: u16 = 0x9212;
}
