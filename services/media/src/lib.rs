//! Live video from vehicle cameras over JT/T 1078. A terminal, told over
//! its JT/T 808 link to stream (0x9101 live, 0x9201 playback), opens a TCP
//! connection to the media port and sends its cameras as JT/T 1078 frames;
//! Fleetdesk remuxes the H.264 into fragmented MP4 without transcoding and
//! fans each camera out to any number of browsers (Media Source
//! Extensions), so a camera costs the terminal's uplink once.
//!
//! - [`jt1078`]: the frame, its decoder, encoder and reassembler;
//! - [`h264`]: Annex B, SPS and `avcC`;
//! - [`h265`]: SPS and `hvcC`;
//! - [`fmp4`]: init segments, fragments and the per-stream timeline;
//! - [`hub`]: one channel per (terminal, camera), viewers with bounded queues;
//! - [`server`]: the media port.
//!
//! # Frame layout (JT/T 1078-2016, table 19; big-endian)
//!
//! | offset | field | size |
//! |---|---|---|
//! | 0 | header `30 31 63 64` | 4 |
//! | 4 | V (2 bits, = 2), P, X, CC (4 bits) | 1 |
//! | 5 | M (1 bit, ends an access unit), PT (7 bits: 98 H.264, 99 H.265, 6/7 G.711, 19 AAC, …) | 1 |
//! | 6 | sequence number | 2 |
//! | 8 | SIM, BCD | 6 (10 from 2019 terminals) |
//! | 14 | logical channel | 1 |
//! | 15 | data type (high nibble: 0 I, 1 P, 2 B, 3 audio, 4 transparent) and sub-package (low nibble: 0 atomic, 1 first, 2 last, 3 middle) | 1 |
//! | 16 | timestamp, ms (absent for transparent data) | 8 |
//! | 24 | last-I-frame interval, ms (video only) | 2 |
//! | 26 | last-frame interval, ms (video only) | 2 |
//! | 28 | body length, at most 950 | 2 |
//! | 30 | body | n |
//!
//! Offsets are for a video frame with a 6-byte SIM. Terminals speaking JT/T
//! 808-2019 send a 10-byte SIM; nothing in the frame says which, so a
//! connection's first frame is read both ways and the width whose body
//! length lands exactly on the next header wins (2016 if both do). The
//! width is then fixed for the connection.
//!
//! # Supported
//!
//! H.264 (PT 98, `avc1`) and H.265 (PT 99, `hvc1`) video in I and P
//! frames. B frames pass through without composition offsets (terminals'
//! streams have none). Audio and transparent data are decoded and dropped;
//! video of other payload types (AVS, SVAC) is counted as dropped.
//!
//! # Terminal identity
//!
//! A stream is keyed by [`terminal_id`]: the SIM's digits without leading
//! zeros, the rule the JT/T 808 edge applies to the header's phone number,
//! so `013800000001` (2016, 6 bytes), `00000000013800000001` (2019, 10
//! bytes) and the 808 registration's phone all name terminal
//! `13800000001`.
//!
//! # Limits
//!
//! A frame body is at most 950 bytes, an access unit at most
//! [`jt1078::MAX_ACCESS_UNIT`], a connection follows at most
//! [`jt1078::MAX_STREAMS`] cameras; the decoder holds about one frame plus
//! one read. See [`server::Limits`] for the connection limits and
//! [`hub::DEFAULT_QUEUE`] for a viewer's queue.

mod bits;
pub mod fmp4;
pub mod h264;
pub mod h265;
pub mod hub;
pub mod jt1078;
pub mod server;

pub use hub::{Hub, Publisher, Segment, StreamKey, Viewer};
pub use server::{Limits, serve, serve_with};

/// The terminal a SIM names: its digits without leading zeros ("0" if all
/// are zeros), the JT/T 808 edge's rule for the header's phone number.
pub fn terminal_id(sim: &str) -> String {
    let trimmed = sim.trim_start_matches('0');
    if trimmed.is_empty() {
        "0".to_owned()
    } else {
        trimmed.to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_11_digit_number_padded_to_12_or_20_digits_is_one_terminal() {
        assert_eq!(terminal_id("013800000001"), "13800000001");
        assert_eq!(terminal_id("00000000013800000001"), "13800000001");
    }

    #[test]
    fn a_12_digit_number_is_kept_whole() {
        assert_eq!(terminal_id("123456789012"), "123456789012");
        assert_eq!(terminal_id("00000000123456789012"), "123456789012");
    }

    #[test]
    fn an_all_zero_sim_is_terminal_zero() {
        assert_eq!(terminal_id("000000000000"), "0");
    }
}
