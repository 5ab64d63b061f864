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
//! - [`location`] is the 0x0200 location report with its additional items;
//! - [`packets`] reassembles sub-packaged messages.
//!
//! Nothing here panics on input: every malformed byte sequence is an
//! [`Error`], so the connection can count it and drop the frame.

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

/// Message ids (Table 2 of the standard), terminal → platform.
pub mod id {
    pub const TERMINAL_GENERAL_RESPONSE: u16 = 0x0001;
    pub const HEARTBEAT: u16 = 0x0002;
    pub const REGISTER: u16 = 0x0100;
    pub const AUTHENTICATE: u16 = 0x0102;
    pub const LOCATION: u16 = 0x0200;
    pub const VEHICLE_CONTROL_RESPONSE: u16 = 0x0500;
    pub const BATCH_LOCATION: u16 = 0x0704;
    pub const MEDIA_EVENT: u16 = 0x0800;
    pub const MEDIA_DATA: u16 = 0x0801;
    // Platform → terminal.
    pub const PLATFORM_GENERAL_RESPONSE: u16 = 0x8001;
    pub const REGISTER_RESPONSE: u16 = 0x8100;
    pub const MANUAL_ALARM_CONFIRM: u16 = 0x8203;
    pub const VEHICLE_CONTROL: u16 = 0x8500;
    pub const MEDIA_DATA_RESPONSE: u16 = 0x8800;
}
