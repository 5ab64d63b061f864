//! The JT/T 1078 stream frame (the standard's table 19): how terminals cut
//! audio and video into RTP-like packets on a TCP connection. A connection
//! is a byte stream with no outer framing, so the decoder finds frames by
//! their header and, after garbage, resynchronises at the next one; the
//! reassembler joins a frame's sub-packages back into one access unit.

use std::collections::HashMap;

use bytes::{Buf as _, Bytes, BytesMut};

/// Every frame starts with these four bytes (`"01cd"`).
pub const HEADER: [u8; 4] = *b"01cd";
/// Largest body of one frame; longer access units are split.
pub const MAX_BODY: usize = 950;
/// RTP version 2, no padding, no extension, one CSRC: what terminals send.
const VPXCC: u8 = 0x81;
/// Payload types of the standard's table 12 this crate names.
pub const PT_H264: u8 = 98;
pub const PT_H265: u8 = 99;

/// Longest frame, header included (10-byte SIM, video, full body).
pub const MAX_FRAME: usize = 4 + 4 + 10 + 2 + 8 + 4 + 2 + MAX_BODY;
/// Largest access unit the reassembler builds (a 1080p I-frame is well under).
pub const MAX_ACCESS_UNIT: usize = 4 * 1024 * 1024;
/// Streams (SIM, channel) one reassembler follows at once.
pub const MAX_STREAMS: usize = 16;

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum Error {
    #[error("SIM {0:?} is not at most {1} decimal digits")]
    Sim(String, usize),
    #[error("a frame body of {0} bytes is over {MAX_BODY}")]
    BodyTooLong(usize),
}

/// How wide the SIM field is: JT/T 1078-2016 has 6 BCD bytes (12 digits);
/// terminals that speak JT/T 808-2019 send 10 (20 digits).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SimLayout {
    Bcd6,
    Bcd10,
}

impl SimLayout {
    fn bytes(self) -> usize {
        match self {
            SimLayout::Bcd6 => 6,
            SimLayout::Bcd10 => 10,
        }
    }
}

/// The high nibble of byte 15 (after a 6-byte SIM).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DataType {
    IFrame,
    PFrame,
    BFrame,
    Audio,
    Transparent,
}

impl DataType {
    fn from_nibble(nibble: u8) -> Option<DataType> {
        match nibble {
            0 => Some(DataType::IFrame),
            1 => Some(DataType::PFrame),
            2 => Some(DataType::BFrame),
            3 => Some(DataType::Audio),
            4 => Some(DataType::Transparent),
            _ => None,
        }
    }

    fn nibble(self) -> u8 {
        match self {
            DataType::IFrame => 0,
            DataType::PFrame => 1,
            DataType::BFrame => 2,
            DataType::Audio => 3,
            DataType::Transparent => 4,
        }
    }

    pub fn is_video(self) -> bool {
        matches!(self, DataType::IFrame | DataType::PFrame | DataType::BFrame)
    }

    /// Transparent data carries no timestamp.
    fn has_timestamp(self) -> bool {
        self != DataType::Transparent
    }
}

/// The low nibble of the data-type byte: where this frame sits in its
/// access unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubPackage {
    Atomic,
    First,
    Last,
    Middle,
}

impl SubPackage {
    fn from_nibble(nibble: u8) -> Option<SubPackage> {
        match nibble {
            0 => Some(SubPackage::Atomic),
            1 => Some(SubPackage::First),
            2 => Some(SubPackage::Last),
            3 => Some(SubPackage::Middle),
            _ => None,
        }
    }

    fn nibble(self) -> u8 {
        match self {
            SubPackage::Atomic => 0,
            SubPackage::First => 1,
            SubPackage::Last => 2,
            SubPackage::Middle => 3,
        }
    }
}

/// The two interval fields only video frames carry, in milliseconds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct VideoIntervals {
    pub since_last_i_frame: u16,
    pub since_last_frame: u16,
}

/// One decoded frame.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// RTP marker: set on the frame that ends an access unit.
    pub marker: bool,
    pub payload_type: u8,
    pub sequence: u16,
    /// The SIM's digits as sent, zero padding kept.
    pub sim: String,
    pub channel: u8,
    pub data_type: DataType,
    pub sub_package: SubPackage,
    /// Milliseconds; 0 for transparent data, which has none.
    pub timestamp_ms: u64,
    /// Present exactly for video frames.
    pub intervals: Option<VideoIntervals>,
    pub body: Bytes,
}

impl Frame {
    /// Appends the frame's bytes. The SIM is left-padded with zeros to the
    /// layout's width.
    pub fn encode(&self, layout: SimLayout, out: &mut Vec<u8>) -> Result<(), Error> {
        let sim = bcd(&self.sim, layout.bytes())?;
        if self.body.len() > MAX_BODY {
            return Err(Error::BodyTooLong(self.body.len()));
        }
        out.extend_from_slice(&HEADER);
        out.push(VPXCC);
        out.push(u8::from(self.marker) << 7 | (self.payload_type & 0x7F));
        out.extend_from_slice(&self.sequence.to_be_bytes());
        out.extend_from_slice(&sim);
        out.push(self.channel);
        out.push(self.data_type.nibble() << 4 | self.sub_package.nibble());
        if self.data_type.has_timestamp() {
            out.extend_from_slice(&self.timestamp_ms.to_be_bytes());
        }
        if self.data_type.is_video() {
            let intervals = self.intervals.unwrap_or_default();
            out.extend_from_slice(&intervals.since_last_i_frame.to_be_bytes());
            out.extend_from_slice(&intervals.since_last_frame.to_be_bytes());
        }
        out.extend_from_slice(&(self.body.len() as u16).to_be_bytes());
        out.extend_from_slice(&self.body);
        Ok(())
    }
}

fn bcd(digits: &str, width: usize) -> Result<Vec<u8>, Error> {
    let invalid = || Error::Sim(digits.to_owned(), width * 2);
    if digits.len() > width * 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(invalid());
    }
    let padded = format!("{digits:0>w$}", w = width * 2);
    Ok(padded
        .as_bytes()
        .chunks(2)
        .map(|pair| (pair[0] - b'0') << 4 | (pair[1] - b'0'))
        .collect())
}

/// Cuts access units into frames for one (SIM, channel): the terminal's
/// side, used by the simulator and the tests.
#[derive(Debug)]
pub struct Encoder {
    sim: String,
    channel: u8,
    layout: SimLayout,
    payload_type: u8,
    sequence: u16,
}

impl Encoder {
    pub fn new(
        sim: &str,
        channel: u8,
        layout: SimLayout,
        payload_type: u8,
    ) -> Result<Encoder, Error> {
        bcd(sim, layout.bytes())?;
        Ok(Encoder {
            sim: sim.to_owned(),
            channel,
            layout,
            payload_type,
            sequence: 0,
        })
    }

    /// Appends the frames of one access unit: one atomic frame when it
    /// fits in [`MAX_BODY`], else first, middles and last, each with the
    /// next sequence number; the marker is set on the frame that ends it.
    pub fn encode(
        &mut self,
        data_type: DataType,
        timestamp_ms: u64,
        intervals: VideoIntervals,
        access_unit: &[u8],
        out: &mut Vec<u8>,
    ) {
        let pieces: Vec<&[u8]> = if access_unit.is_empty() {
            vec![access_unit]
        } else {
            access_unit.chunks(MAX_BODY).collect()
        };
        let count = pieces.len();
        for (index, piece) in pieces.into_iter().enumerate() {
            let sub_package = match (index, count) {
                (_, 1) => SubPackage::Atomic,
                (0, _) => SubPackage::First,
                (i, n) if i + 1 == n => SubPackage::Last,
                _ => SubPackage::Middle,
            };
            let frame = Frame {
                marker: index + 1 == count,
                payload_type: self.payload_type,
                sequence: self.sequence,
                sim: self.sim.clone(),
                channel: self.channel,
                data_type,
                sub_package,
                timestamp_ms,
                intervals: data_type.is_video().then_some(intervals),
                body: Bytes::copy_from_slice(piece),
            };
            frame
                .encode(self.layout, out)
                .expect("the SIM was checked when the encoder was made, pieces fit a body");
            self.sequence = self.sequence.wrapping_add(1);
        }
    }
}

enum Parse {
    NeedMore,
    Invalid,
    Frame(Frame, usize),
}

/// Reads one frame at the start of `buf` (which starts with [`HEADER`]).
fn parse(buf: &[u8], layout: SimLayout) -> Parse {
    let sim_len = layout.bytes();
    let type_at = 8 + sim_len + 1;
    if buf.len() <= type_at {
        return Parse::NeedMore;
    }
    if buf[4] >> 6 != 2 {
        return Parse::Invalid;
    }
    let sim_bytes = &buf[8..8 + sim_len];
    if sim_bytes.iter().any(|b| b >> 4 > 9 || b & 0x0F > 9) {
        return Parse::Invalid;
    }
    let (Some(data_type), Some(sub_package)) = (
        DataType::from_nibble(buf[type_at] >> 4),
        SubPackage::from_nibble(buf[type_at] & 0x0F),
    ) else {
        return Parse::Invalid;
    };
    let mut at = type_at + 1;
    let timestamp_at = at;
    if data_type.has_timestamp() {
        at += 8;
    }
    let intervals_at = at;
    if data_type.is_video() {
        at += 4;
    }
    if buf.len() < at + 2 {
        return Parse::NeedMore;
    }
    let body_len = usize::from(u16::from_be_bytes([buf[at], buf[at + 1]]));
    if body_len > MAX_BODY {
        return Parse::Invalid;
    }
    let end = at + 2 + body_len;
    if buf.len() < end {
        return Parse::NeedMore;
    }
    let word = |i: usize| u16::from_be_bytes([buf[i], buf[i + 1]]);
    let frame = Frame {
        marker: buf[5] & 0x80 != 0,
        payload_type: buf[5] & 0x7F,
        sequence: word(6),
        sim: sim_bytes
            .iter()
            .flat_map(|b| [char::from(b'0' + (b >> 4)), char::from(b'0' + (b & 0x0F))])
            .collect(),
        channel: buf[8 + sim_len],
        data_type,
        sub_package,
        timestamp_ms: if data_type.has_timestamp() {
            u64::from_be_bytes(
                buf[timestamp_at..timestamp_at + 8]
                    .try_into()
                    .unwrap_or([0; 8]),
            )
        } else {
            0
        },
        intervals: data_type.is_video().then(|| VideoIntervals {
            since_last_i_frame: word(intervals_at),
            since_last_frame: word(intervals_at + 2),
        }),
        body: Bytes::copy_from_slice(&buf[at + 2..end]),
    };
    Parse::Frame(frame, end)
}

/// Whether a frame ending at `end` is followed by another header: `Some`
/// once enough bytes are there to tell.
fn followed_by_header(buf: &[u8], end: usize) -> Option<bool> {
    let next = &buf[end..];
    let seen = next.len().min(HEADER.len());
    if next[..seen] != HEADER[..seen] {
        Some(false)
    } else if seen == HEADER.len() {
        Some(true)
    } else {
        None
    }
}

/// Frames out of a growing byte buffer.
///
/// The SIM width is not marked in the frame, so until it is known the
/// decoder reads the first frame both ways and keeps the width whose
/// length field lands exactly on the next frame's header (2016 wins if both
/// do); from then on it decodes without looking ahead. A stream's first
/// frame is therefore yielded only once the second starts to arrive.
#[derive(Debug, Default)]
pub struct Decoder {
    buf: BytesMut,
    layout: Option<SimLayout>,
    malformed: u64,
    /// Bytes thrown away since the last good frame.
    garbage: usize,
    /// Inside a run of garbage already counted as one malformed frame.
    resyncing: bool,
}

impl Decoder {
    /// A decoder that learns the SIM width from the stream.
    pub fn new() -> Decoder {
        Decoder::default()
    }

    /// A decoder for a known SIM width.
    pub fn with_layout(layout: SimLayout) -> Decoder {
        Decoder {
            layout: Some(layout),
            ..Decoder::default()
        }
    }

    /// The SIM width, once known.
    pub fn layout(&self) -> Option<SimLayout> {
        self.layout
    }

    /// Malformed frames and garbage runs seen so far.
    pub fn malformed(&self) -> u64 {
        self.malformed
    }

    /// Bytes discarded since the last good frame.
    pub fn garbage_since_last_frame(&self) -> usize {
        self.garbage
    }

    /// Bytes held: never much more than one frame plus the last push.
    pub fn buffered(&self) -> usize {
        self.buf.len()
    }

    pub fn push(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// The next whole frame, or `None` until more bytes are pushed.
    pub fn next_frame(&mut self) -> Option<Frame> {
        loop {
            let Some(start) = find_header(&self.buf) else {
                // Keep a tail that may be the start of a header.
                let keep = (0..HEADER.len().min(self.buf.len() + 1))
                    .rev()
                    .find(|&n| self.buf.ends_with(&HEADER[..n]))
                    .unwrap_or(0);
                self.discard(self.buf.len() - keep);
                return None;
            };
            self.discard(start);
            match self.parse_here() {
                Parse::NeedMore => return None,
                Parse::Invalid => {
                    self.malformed += 1;
                    self.resyncing = true;
                    self.garbage += 1;
                    self.buf.advance(1);
                }
                Parse::Frame(frame, len) => {
                    self.buf.advance(len);
                    self.garbage = 0;
                    self.resyncing = false;
                    return Some(frame);
                }
            }
        }
    }

    fn discard(&mut self, n: usize) {
        if n == 0 {
            return;
        }
        if !self.resyncing {
            self.malformed += 1;
            self.resyncing = true;
        }
        self.garbage += n;
        self.buf.advance(n);
    }

    fn parse_here(&mut self) -> Parse {
        if let Some(layout) = self.layout {
            return parse(&self.buf, layout);
        }
        let mut waiting = false;
        for layout in [SimLayout::Bcd6, SimLayout::Bcd10] {
            match parse(&self.buf, layout) {
                Parse::NeedMore => waiting = true,
                Parse::Invalid => {}
                Parse::Frame(frame, end) => match followed_by_header(&self.buf, end) {
                    Some(true) => {
                        self.layout = Some(layout);
                        return Parse::Frame(frame, end);
                    }
                    Some(false) => {}
                    None => waiting = true,
                },
            }
        }
        if waiting && self.buf.len() < MAX_FRAME + HEADER.len() {
            Parse::NeedMore
        } else {
            Parse::Invalid
        }
    }
}

fn find_header(buf: &[u8]) -> Option<usize> {
    buf.windows(HEADER.len()).position(|w| w == HEADER)
}

/// A whole access unit (a video frame or an audio packet) of one stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AccessUnit {
    pub sim: String,
    pub channel: u8,
    pub payload_type: u8,
    pub data_type: DataType,
    pub timestamp_ms: u64,
    pub intervals: Option<VideoIntervals>,
    pub data: Bytes,
}

#[derive(Debug)]
struct Partial {
    unit: AccessUnit,
    data: BytesMut,
}

#[derive(Debug, Default)]
struct StreamState {
    last_sequence: Option<u16>,
    partial: Option<Partial>,
}

/// Joins sub-packages per (SIM, channel). A partial access unit is dropped
/// (and counted) when a sequence number is skipped, when a new one starts
/// before it ended, or when it outgrows [`MAX_ACCESS_UNIT`]; frames of
/// another data type (audio between video sub-packages) pass through it.
#[derive(Debug, Default)]
pub struct Reassembler {
    streams: HashMap<(String, u8), StreamState>,
    dropped: u64,
}

impl Reassembler {
    pub fn new() -> Reassembler {
        Reassembler::default()
    }

    /// Access units dropped incomplete so far.
    pub fn dropped(&self) -> u64 {
        self.dropped
    }

    pub fn push(&mut self, frame: Frame) -> Option<AccessUnit> {
        let key = (frame.sim.clone(), frame.channel);
        if !self.streams.contains_key(&key) && self.streams.len() >= MAX_STREAMS {
            self.dropped += 1;
            return None;
        }
        let stream = self.streams.entry(key).or_default();
        let in_sequence = stream
            .last_sequence
            .is_some_and(|last| last.wrapping_add(1) == frame.sequence);
        stream.last_sequence = Some(frame.sequence);
        let same_kind = |p: &Partial| p.unit.data_type.is_video() == frame.data_type.is_video();

        match frame.sub_package {
            SubPackage::Atomic | SubPackage::First => {
                if stream.partial.as_ref().is_some_and(same_kind) {
                    stream.partial = None;
                    self.dropped += 1;
                }
                let unit = AccessUnit {
                    sim: frame.sim,
                    channel: frame.channel,
                    payload_type: frame.payload_type,
                    data_type: frame.data_type,
                    timestamp_ms: frame.timestamp_ms,
                    intervals: frame.intervals,
                    data: frame.body,
                };
                if frame.sub_package == SubPackage::Atomic {
                    return Some(unit);
                }
                if stream.partial.is_some() {
                    stream.partial = None;
                    self.dropped += 1;
                }
                let data = BytesMut::from(&unit.data[..]);
                stream.partial = Some(Partial { unit, data });
                None
            }
            SubPackage::Middle | SubPackage::Last => {
                let Some(partial) = stream.partial.as_mut() else {
                    self.dropped += 1;
                    return None;
                };
                if !in_sequence
                    || partial.unit.data_type != frame.data_type
                    || partial.data.len() + frame.body.len() > MAX_ACCESS_UNIT
                {
                    stream.partial = None;
                    self.dropped += 1;
                    return None;
                }
                partial.data.extend_from_slice(&frame.body);
                if frame.sub_package == SubPackage::Middle {
                    return None;
                }
                let Partial { mut unit, data } = stream.partial.take()?;
                unit.data = data.freeze();
                Some(unit)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 2016 frame written out from table 19: an atomic P-frame of SIM
    /// 013800000001, channel 1, sequence 7, timestamp 1000 ms, 40/40 ms
    /// intervals, body `AA BB CC`.
    const P_FRAME_2016: [u8; 33] = [
        0x30, 0x31, 0x63, 0x64, // header
        0x81, // V=2 P=0 X=0 CC=1
        0xE2, // M=1 PT=98
        0x00, 0x07, // sequence
        0x01, 0x38, 0x00, 0x00, 0x00, 0x01, // SIM BCD[6]
        0x01, // channel
        0x10, // P-frame, atomic
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE8, // timestamp
        0x00, 0x28, 0x00, 0x28, // intervals
        0x00, 0x03, // body length
        0xAA, 0xBB, 0xCC,
    ];

    /// An audio frame: timestamp but no intervals.
    const AUDIO_2016: [u8; 28] = [
        0x30, 0x31, 0x63, 0x64, 0x81, 0x86, // M=1 PT=6 (G.711A)
        0x00, 0x08, 0x01, 0x38, 0x00, 0x00, 0x00, 0x01, 0x01, 0x30, // audio, atomic
        0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xE8, 0x00, 0x02, 0x11, 0x22,
    ];

    fn decode_all(decoder: &mut Decoder) -> Vec<Frame> {
        std::iter::from_fn(|| decoder.next_frame()).collect()
    }

    #[test]
    fn decodes_a_video_frame_written_from_the_standard() {
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&P_FRAME_2016);
        let f = d.next_frame().expect("a frame");
        assert!(f.marker);
        assert_eq!(f.payload_type, PT_H264);
        assert_eq!(f.sequence, 7);
        assert_eq!(f.sim, "013800000001");
        assert_eq!(f.channel, 1);
        assert_eq!(f.data_type, DataType::PFrame);
        assert_eq!(f.sub_package, SubPackage::Atomic);
        assert_eq!(f.timestamp_ms, 1000);
        assert_eq!(
            f.intervals,
            Some(VideoIntervals {
                since_last_i_frame: 40,
                since_last_frame: 40
            })
        );
        assert_eq!(&f.body[..], &[0xAA, 0xBB, 0xCC]);
        assert_eq!(d.malformed(), 0);
        assert_eq!(d.buffered(), 0);
    }

    #[test]
    fn audio_frames_have_no_interval_fields() {
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&AUDIO_2016);
        let f = d.next_frame().expect("a frame");
        assert_eq!(f.data_type, DataType::Audio);
        assert_eq!(f.intervals, None);
        assert_eq!(&f.body[..], &[0x11, 0x22]);
    }

    #[test]
    fn transparent_frames_have_no_timestamp() {
        let bytes = [
            0x30, 0x31, 0x63, 0x64, 0x81, 0x00, 0x00, 0x01, 0x01, 0x38, 0x00, 0x00, 0x00, 0x01,
            0x01, 0x40, 0x00, 0x01, 0x55,
        ];
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&bytes);
        let f = d.next_frame().expect("a frame");
        assert_eq!(f.data_type, DataType::Transparent);
        assert_eq!(f.timestamp_ms, 0);
        assert_eq!(&f.body[..], &[0x55]);
    }

    #[test]
    fn encoding_writes_the_standard_layout() {
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&P_FRAME_2016);
        let frame = d.next_frame().expect("a frame");
        let mut out = Vec::new();
        frame.encode(SimLayout::Bcd6, &mut out).expect("encodes");
        assert_eq!(out, P_FRAME_2016);
    }

    #[test]
    fn frames_arrive_byte_by_byte() {
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        let mut frames = Vec::new();
        for b in P_FRAME_2016.iter().chain(AUDIO_2016.iter()) {
            d.push(&[*b]);
            frames.extend(decode_all(&mut d));
        }
        assert_eq!(frames.len(), 2);
        assert_eq!(d.malformed(), 0);
    }

    #[test]
    fn learns_the_2016_sim_width_from_the_next_header() {
        let mut d = Decoder::new();
        d.push(&P_FRAME_2016);
        assert_eq!(d.next_frame(), None, "needs the next header to decide");
        d.push(&AUDIO_2016);
        let frames = decode_all(&mut d);
        assert_eq!(d.layout(), Some(SimLayout::Bcd6));
        assert_eq!(frames.len(), 2, "once the width is known, no lookahead");
        assert_eq!(frames[0].sim, "013800000001");
        assert_eq!(frames[1].data_type, DataType::Audio);
    }

    #[test]
    fn learns_the_2019_sim_width_from_the_next_header() {
        let mut enc = Encoder::new("13800000001", 2, SimLayout::Bcd10, PT_H264).unwrap();
        let mut bytes = Vec::new();
        for ts in [0, 66, 133] {
            enc.encode(
                DataType::PFrame,
                ts,
                VideoIntervals::default(),
                &[0x41; 20],
                &mut bytes,
            );
        }
        // 2019: the SIM takes bytes 8..18, the channel is byte 18.
        assert_eq!(&bytes[8..18], &[0, 0, 0, 0, 0x01, 0x38, 0, 0, 0, 0x01]);
        assert_eq!(bytes[18], 2);
        let mut d = Decoder::new();
        d.push(&bytes);
        let frames = decode_all(&mut d);
        assert_eq!(d.layout(), Some(SimLayout::Bcd10));
        assert_eq!(frames.len(), 3);
        assert_eq!(frames[0].sim, "00000000013800000001");
        assert_eq!(frames[2].timestamp_ms, 133);
        assert_eq!(d.malformed(), 0);
    }

    #[test]
    fn resynchronises_after_garbage_and_counts_it_once() {
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(b"garbage!");
        d.push(&P_FRAME_2016);
        d.push(&[0x30, 0x31, 0x63, 0x64, 0xFF, 0xFF, 0xFF]);
        d.push(&AUDIO_2016);
        let frames = decode_all(&mut d);
        assert_eq!(frames.len(), 2);
        assert_eq!(d.malformed(), 2);
    }

    #[test]
    fn an_impossible_body_length_is_malformed() {
        let mut bytes = P_FRAME_2016;
        bytes[28..30].copy_from_slice(&951u16.to_be_bytes());
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&bytes);
        d.push(&P_FRAME_2016);
        let frames = decode_all(&mut d);
        assert_eq!(frames.len(), 1);
        assert_eq!(d.malformed(), 1);
    }

    #[test]
    fn encoder_splits_into_first_middles_and_last() {
        let unit: Vec<u8> = (0..2500u32).map(|i| i as u8).collect();
        let mut enc = Encoder::new("13800000001", 1, SimLayout::Bcd6, PT_H264).unwrap();
        let mut bytes = Vec::new();
        enc.encode(
            DataType::IFrame,
            5,
            VideoIntervals::default(),
            &unit,
            &mut bytes,
        );
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&bytes);
        let frames = decode_all(&mut d);
        let subs: Vec<_> = frames.iter().map(|f| f.sub_package).collect();
        assert_eq!(
            subs,
            [SubPackage::First, SubPackage::Middle, SubPackage::Last]
        );
        assert_eq!(
            frames.iter().map(|f| f.sequence).collect::<Vec<_>>(),
            [0, 1, 2]
        );
        assert_eq!(
            frames.iter().map(|f| f.marker).collect::<Vec<_>>(),
            [false, false, true]
        );
        assert!(frames.iter().all(|f| f.body.len() <= MAX_BODY));

        let mut r = Reassembler::new();
        let units: Vec<_> = frames.into_iter().filter_map(|f| r.push(f)).collect();
        assert_eq!(units.len(), 1);
        assert_eq!(&units[0].data[..], &unit[..]);
        assert_eq!(units[0].data_type, DataType::IFrame);
    }

    #[test]
    fn a_sequence_gap_drops_the_partial_unit() {
        let mut enc = Encoder::new("1", 1, SimLayout::Bcd6, PT_H264).unwrap();
        let mut bytes = Vec::new();
        enc.encode(
            DataType::IFrame,
            0,
            VideoIntervals::default(),
            &[7; 2000],
            &mut bytes,
        );
        enc.encode(
            DataType::PFrame,
            66,
            VideoIntervals::default(),
            &[8; 10],
            &mut bytes,
        );
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&bytes);
        let mut frames = decode_all(&mut d);
        frames.remove(1); // the middle of the I-frame is lost
        let mut r = Reassembler::new();
        let units: Vec<_> = frames.into_iter().filter_map(|f| r.push(f)).collect();
        assert_eq!(units.len(), 1);
        assert_eq!(units[0].data_type, DataType::PFrame);
        assert_eq!(r.dropped(), 1);
    }

    #[test]
    fn audio_between_sub_packages_does_not_break_the_video() {
        let mut enc = Encoder::new("1", 1, SimLayout::Bcd6, PT_H264).unwrap();
        let mut video = Vec::new();
        enc.encode(
            DataType::IFrame,
            0,
            VideoIntervals::default(),
            &[7; 1200],
            &mut video,
        );
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&video);
        let mut frames = decode_all(&mut d);
        let mut audio = frames[0].clone();
        audio.data_type = DataType::Audio;
        audio.sub_package = SubPackage::Atomic;
        audio.sequence = 1;
        frames[1].sequence = 2;
        frames.insert(1, audio);
        let mut r = Reassembler::new();
        let units: Vec<_> = frames.into_iter().filter_map(|f| r.push(f)).collect();
        assert_eq!(units.len(), 2);
        assert_eq!(units[1].data.len(), 1200);
        assert_eq!(r.dropped(), 0);
    }

    #[test]
    fn a_body_over_950_bytes_is_refused() {
        let mut d = Decoder::with_layout(SimLayout::Bcd6);
        d.push(&P_FRAME_2016);
        let mut frame = d.next_frame().expect("a frame");
        frame.body = Bytes::from(vec![0; MAX_BODY + 1]);
        let mut out = Vec::new();
        assert_eq!(
            frame.encode(SimLayout::Bcd6, &mut out),
            Err(Error::BodyTooLong(951))
        );
        assert!(out.is_empty());
    }

    #[test]
    fn sims_too_long_for_the_layout_are_refused() {
        assert!(Encoder::new("1234567890123", 1, SimLayout::Bcd6, PT_H264).is_err());
        assert!(Encoder::new("12a", 1, SimLayout::Bcd6, PT_H264).is_err());
        assert!(Encoder::new("1234567890123", 1, SimLayout::Bcd10, PT_H264).is_ok());
    }
}
