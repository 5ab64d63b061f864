//! The alarm-evidence connection (苏标 §4.5). After 0x9208 the terminal
//! connects to the attachment server, announces the alarm's files with 808
//! frames (0x1210, then 0x1211 per file), sends each file as raw data
//! packets, and closes each file with 0x1212; the platform answers 0x9212
//! with the pieces that did not arrive, and the terminal sends those again.
//!
//! ```text
//! data packet: 0x30 0x31 0x63 0x64 | file name BYTE[50] (NUL-padded) | offset DWORD | length DWORD | data
//! ```
//!
//! [`AttachmentDecoder`] splits the connection's bytes into 808 frames and
//! data packets and skips noise between them; [`FileAssembly`] records which
//! ranges of one file arrived and answers which are missing.

use super::reader::{Reader, gbk, to_gbk};
use super::{Error, FrameDecoder, frame::DEFAULT_MAX_FRAME};

/// The first bytes of every data packet ("01cd").
pub const MAGIC: [u8; 4] = [0x30, 0x31, 0x63, 0x64];
const NAME_LEN: usize = 50;
const HEADER_LEN: usize = MAGIC.len() + NAME_LEN + 4 + 4;
const FLAG: u8 = 0x7e;
/// An escaped frame is at most twice its bytes, plus its two flags.
const MAX_ESCAPED_FRAME: usize = 2 * DEFAULT_MAX_FRAME + 2;
/// The largest data length accepted by default; terminals send 64 KiB or less.
pub const DEFAULT_MAX_DATA: usize = 1024 * 1024;

/// Part of a file: `length` bytes from `offset`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct FilePiece {
    pub offset: u32,
    pub length: u32,
}

/// One data packet of a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DataPacket {
    /// The name announced in 0x1210 and 0x1211.
    pub file_name: String,
    pub offset: u32,
    pub data: Vec<u8>,
}

impl DataPacket {
    /// The bytes a terminal writes (test terminals and the simulator).
    pub fn encode(&self) -> Result<Vec<u8>, Error> {
        let name = to_gbk(&self.file_name);
        if name.len() > NAME_LEN {
            return Err(Error::Invalid("attachment file name"));
        }
        let length =
            u32::try_from(self.data.len()).map_err(|_| Error::Invalid("attachment data"))?;
        let mut out = Vec::with_capacity(HEADER_LEN + self.data.len());
        out.extend(MAGIC);
        out.extend(&name);
        out.resize(MAGIC.len() + NAME_LEN, 0);
        out.extend(self.offset.to_be_bytes());
        out.extend(length.to_be_bytes());
        out.extend(&self.data);
        Ok(out)
    }

    /// The part of the file this packet carries, for [`FileAssembly::record`].
    pub fn piece(&self) -> FilePiece {
        FilePiece {
            offset: self.offset,
            length: self.data.len() as u32,
        }
    }
}

/// What the attachment connection carried.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Received {
    /// An 808 frame, unescaped and checked, as [`FrameDecoder`] gives it.
    Frame(Vec<u8>),
    Data(DataPacket),
}

/// Splits the attachment connection's bytes into frames and data packets.
/// Noise between them is reported once per run and skipped up to the next
/// flag or packet start; a frame or packet too long to be real is refused.
#[derive(Debug)]
pub struct AttachmentDecoder {
    buf: Vec<u8>,
    max_data: usize,
    /// Inside a run of noise already reported.
    skipping: bool,
}

impl Default for AttachmentDecoder {
    fn default() -> Self {
        AttachmentDecoder::new(DEFAULT_MAX_DATA)
    }
}

impl AttachmentDecoder {
    pub fn new(max_data: usize) -> AttachmentDecoder {
        AttachmentDecoder {
            buf: Vec::with_capacity(4096),
            max_data,
            skipping: false,
        }
    }

    /// Feeds bytes read from the connection; everything complete, good or
    /// bad, is pushed to `out` in order.
    pub fn feed(&mut self, data: &[u8], out: &mut Vec<Result<Received, Error>>) {
        self.buf.extend_from_slice(data);
        while let Some(&first) = self.buf.first() {
            let step = match first {
                FLAG => self.frame(out),
                b if b == MAGIC[0] && starts_like_magic(&self.buf) => self.packet(out),
                _ => {
                    let noise = 1 + self.buf[1..]
                        .iter()
                        .position(|&b| b == FLAG || b == MAGIC[0])
                        .unwrap_or(self.buf.len() - 1);
                    if !self.skipping {
                        out.push(Err(Error::Invalid("noise on the attachment connection")));
                        self.skipping = true;
                    }
                    Step::Consumed(noise)
                }
            };
            match step {
                Step::Wait => break,
                Step::Consumed(n) => {
                    self.buf.drain(..n);
                }
            }
        }
    }

    fn frame(&mut self, out: &mut Vec<Result<Received, Error>>) -> Step {
        let rest = &self.buf[1..];
        if rest.is_empty() {
            return Step::Wait;
        }
        // A flag before another flag or a data packet closed the frame before it.
        if rest[0] == FLAG {
            return Step::Consumed(1);
        }
        if starts_like_magic(rest) {
            return if rest.len() < MAGIC.len() {
                Step::Wait
            } else {
                Step::Consumed(1)
            };
        }
        let Some(end) = rest.iter().position(|&b| b == FLAG).map(|i| i + 1) else {
            if self.buf.len() > MAX_ESCAPED_FRAME {
                out.push(Err(Error::FrameTooLong(DEFAULT_MAX_FRAME)));
                self.skipping = true;
                return Step::Consumed(1);
            }
            return Step::Wait;
        };
        let mut frames = Vec::with_capacity(1);
        FrameDecoder::default().feed(&self.buf[..=end], &mut frames);
        out.extend(frames.into_iter().map(|f| f.map(Received::Frame)));
        self.skipping = false;
        // The closing flag may also open the next frame.
        Step::Consumed(end)
    }

    fn packet(&mut self, out: &mut Vec<Result<Received, Error>>) -> Step {
        let Ok((file_name, offset, length)) = packet_header(&self.buf) else {
            return Step::Wait;
        };
        let length = length as usize;
        if length > self.max_data {
            out.push(Err(Error::Invalid("attachment data length")));
            self.skipping = true;
            return Step::Consumed(1);
        }
        let Some(data) = self.buf.get(HEADER_LEN..HEADER_LEN + length) else {
            return Step::Wait;
        };
        out.push(Ok(Received::Data(DataPacket {
            file_name,
            offset,
            data: data.to_vec(),
        })));
        self.skipping = false;
        Step::Consumed(HEADER_LEN + length)
    }
}

/// File name, offset and data length of the packet `bytes` begin with;
/// `Truncated` until the whole header is there.
fn packet_header(bytes: &[u8]) -> Result<(String, u32, u32), Error> {
    let mut r = Reader::new(bytes);
    r.take(MAGIC.len(), "packet start")?;
    let name = r.take(NAME_LEN, "file name")?;
    Ok((gbk(name), r.u32("data offset")?, r.u32("data length")?))
}

enum Step {
    Wait,
    Consumed(usize),
}

/// Whether `bytes` begin with [`MAGIC`], or with as much of it as they hold.
fn starts_like_magic(bytes: &[u8]) -> bool {
    let n = bytes.len().min(MAGIC.len());
    bytes[..n] == MAGIC[..n]
}

/// The ranges of one file that arrived, out of its declared size; the
/// basis of the 0x9212 answer. Pieces may come in any order, overlap and
/// repeat; each byte counts once.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileAssembly {
    size: u32,
    /// Sorted, disjoint, never touching: `[start, end)`.
    received: Vec<(u32, u32)>,
}

impl FileAssembly {
    pub fn new(size: u32) -> FileAssembly {
        FileAssembly {
            size,
            received: Vec::new(),
        }
    }

    pub fn size(&self) -> u32 {
        self.size
    }

    /// Records a piece; one reaching past the declared size is refused and
    /// changes nothing.
    pub fn record(&mut self, piece: FilePiece) -> Result<(), Error> {
        let start = piece.offset;
        let end = start
            .checked_add(piece.length)
            .filter(|end| *end <= self.size)
            .ok_or(Error::Invalid("piece beyond the file's size"))?;
        if start == end {
            return Ok(());
        }
        let first = self.received.partition_point(|&(_, e)| e < start);
        let last = self.received.partition_point(|&(s, _)| s <= end);
        let merged = if first < last {
            (
                start.min(self.received[first].0),
                end.max(self.received[last - 1].1),
            )
        } else {
            (start, end)
        };
        self.received.splice(first..last, [merged]);
        Ok(())
    }

    /// Bytes received, each counted once.
    pub fn received_bytes(&self) -> u32 {
        self.received.iter().map(|(s, e)| e - s).sum()
    }

    /// The pieces still to come, in file order.
    pub fn missing(&self) -> Vec<FilePiece> {
        let mut missing = Vec::new();
        let mut at = 0;
        for &(start, end) in self.received.iter().chain([&(self.size, self.size)]) {
            if start > at {
                missing.push(FilePiece {
                    offset: at,
                    length: start - at,
                });
            }
            at = end;
        }
        missing
    }

    pub fn is_complete(&self) -> bool {
        self.received_bytes() == self.size
    }
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;
    use crate::jt808::encode_frame;

    fn piece(offset: u32, length: u32) -> FilePiece {
        FilePiece { offset, length }
    }

    fn decode(chunks: &[&[u8]]) -> Vec<Result<Received, Error>> {
        let mut decoder = AttachmentDecoder::default();
        let mut out = Vec::new();
        for chunk in chunks {
            decoder.feed(chunk, &mut out);
        }
        out
    }

    fn packet() -> DataPacket {
        DataPacket {
            file_name: "00_65_6501_0_A1.jpg".into(),
            offset: 0x0100,
            data: vec![0xff, 0xd8, 0x7e, 0x30, 0x31],
        }
    }

    #[test]
    fn a_data_packet_is_read_from_its_bytes_and_written_back() {
        // 30 31 63 64 | "00_65_6501_0_A1.jpg" NUL-padded to 50 | offset 256 | length 5 | data
        let mut wire = vec![0x30, 0x31, 0x63, 0x64];
        wire.extend(b"00_65_6501_0_A1.jpg");
        wire.extend([0; 31]);
        wire.extend([0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00, 0x05]);
        wire.extend([0xff, 0xd8, 0x7e, 0x30, 0x31]);
        assert_eq!(decode(&[&wire]), vec![Ok(Received::Data(packet()))]);
        assert_eq!(packet().encode().unwrap(), wire);
    }

    #[test]
    fn frames_and_packets_interleave_in_any_chunking() {
        let info = encode_frame(&[0x12, 0x11, 0x00, 0x01]);
        let done = encode_frame(&[0x12, 0x12, 0x7e]);
        let data = packet().encode().unwrap();
        let stream: Vec<u8> = [&info[..], &data, &data, &done[1..], &done].concat();
        let expected = vec![
            Ok(Received::Frame(vec![0x12, 0x11, 0x00, 0x01])),
            Ok(Received::Data(packet())),
            Ok(Received::Data(packet())),
            // Without its opening flag a frame is noise, up to its closing flag.
            Err(Error::Invalid("noise on the attachment connection")),
            Ok(Received::Frame(vec![0x12, 0x12, 0x7e])),
        ];
        for cut in [1, 3, 7, 64, stream.len()] {
            let chunks: Vec<&[u8]> = stream.chunks(cut).collect();
            assert_eq!(decode(&chunks), expected, "cut {cut}");
        }
    }

    #[test]
    fn frames_sharing_a_flag_are_both_read() {
        let a = encode_frame(&[1, 2, 3]);
        let b = encode_frame(&[4, 5]);
        let stream: Vec<u8> = a.iter().chain(&b[1..]).copied().collect();
        assert_eq!(
            decode(&[&stream]),
            vec![
                Ok(Received::Frame(vec![1, 2, 3])),
                Ok(Received::Frame(vec![4, 5]))
            ]
        );
    }

    #[test]
    fn garbage_is_reported_once_and_the_next_packet_found() {
        let data = packet().encode().unwrap();
        let stream: Vec<u8> = [&[0x00, 0x30, 0x31, 0x99, 0x11][..], &data].concat();
        assert_eq!(
            decode(&[&stream]),
            vec![
                Err(Error::Invalid("noise on the attachment connection")),
                Ok(Received::Data(packet())),
            ]
        );
    }

    #[test]
    fn an_impossible_length_is_refused_without_waiting_for_it() {
        let mut decoder = AttachmentDecoder::new(16);
        let mut out = Vec::new();
        let mut big = packet();
        big.data = vec![1; 17];
        decoder.feed(&big.encode().unwrap(), &mut out);
        decoder.feed(&packet().encode().unwrap(), &mut out);
        assert_eq!(
            out,
            vec![
                Err(Error::Invalid("attachment data length")),
                Ok(Received::Data(packet())),
            ]
        );
    }

    #[test]
    fn a_frame_that_never_closes_is_refused() {
        let mut decoder = AttachmentDecoder::default();
        let mut out = Vec::new();
        decoder.feed(&[FLAG], &mut out);
        decoder.feed(&vec![0x11; MAX_ESCAPED_FRAME + 1], &mut out);
        assert_eq!(out, vec![Err(Error::FrameTooLong(DEFAULT_MAX_FRAME))]);
        decoder.feed(&packet().encode().unwrap(), &mut out);
        assert_eq!(out.last(), Some(&Ok(Received::Data(packet()))));
    }

    #[test]
    fn an_overlong_file_name_is_not_written() {
        let mut long = packet();
        long.file_name = "x".repeat(51);
        assert_eq!(long.encode(), Err(Error::Invalid("attachment file name")));
    }

    #[test]
    fn an_empty_assembly_misses_the_whole_file() {
        let file = FileAssembly::new(100);
        assert_eq!(file.missing(), vec![piece(0, 100)]);
        assert!(!file.is_complete());
        assert!(FileAssembly::new(0).is_complete());
    }

    #[test]
    fn gaps_at_the_start_middle_and_end_are_missing() {
        let mut file = FileAssembly::new(100);
        file.record(piece(10, 20)).unwrap();
        file.record(piece(50, 20)).unwrap();
        assert_eq!(
            file.missing(),
            vec![piece(0, 10), piece(30, 20), piece(70, 30)]
        );
        assert_eq!(file.received_bytes(), 40);
    }

    #[test]
    fn overlaps_and_repeats_count_each_byte_once() {
        let mut file = FileAssembly::new(100);
        file.record(piece(0, 40)).unwrap();
        file.record(piece(0, 40)).unwrap();
        file.record(piece(30, 20)).unwrap();
        file.record(piece(60, 10)).unwrap();
        file.record(piece(50, 10)).unwrap(); // touches both neighbours
        assert_eq!(file.received_bytes(), 70);
        assert_eq!(file.missing(), vec![piece(70, 30)]);
        file.record(piece(65, 35)).unwrap();
        assert!(file.is_complete());
        assert_eq!(file.missing(), vec![]);
        assert_eq!(file.received, vec![(0, 100)]);
    }

    #[test]
    fn pieces_outside_the_file_are_refused_and_change_nothing() {
        let mut file = FileAssembly::new(100);
        let refused = Err(Error::Invalid("piece beyond the file's size"));
        assert_eq!(file.record(piece(90, 11)), refused);
        assert_eq!(file.record(piece(100, 1)), refused);
        assert_eq!(file.record(piece(u32::MAX, 2)), refused);
        assert_eq!(file.record(piece(100, 0)), Ok(()));
        assert_eq!(file.received_bytes(), 0);
        assert_eq!(file.missing(), vec![piece(0, 100)]);
    }

    proptest! {
        #[test]
        fn arbitrary_bytes_never_panic(chunks in proptest::collection::vec(
            proptest::collection::vec(
                prop_oneof![Just(FLAG), Just(0x30u8), Just(0x31), Just(0x63), Just(0x64), any::<u8>()],
                0..200,
            ),
            0..8,
        )) {
            let mut decoder = AttachmentDecoder::new(64);
            let mut out = Vec::new();
            for chunk in &chunks {
                decoder.feed(chunk, &mut out);
            }
            prop_assert!(decoder.buf.len() <= MAX_ESCAPED_FRAME.max(HEADER_LEN + 64));
        }

        #[test]
        fn missing_pieces_are_exactly_the_bytes_not_received(
            size in 0u32..300,
            pieces in proptest::collection::vec((0u32..320, 0u32..80), 0..12),
        ) {
            let mut file = FileAssembly::new(size);
            let mut seen = vec![false; size as usize];
            for (offset, length) in pieces {
                let fits = offset + length <= size;
                prop_assert_eq!(file.record(piece(offset, length)).is_ok(), fits);
                if fits {
                    seen[offset as usize..(offset + length) as usize].fill(true);
                }
            }
            let mut missing = vec![false; size as usize];
            for p in file.missing() {
                prop_assert!(p.length > 0);
                missing[p.offset as usize..(p.offset + p.length) as usize].fill(true);
            }
            prop_assert!(seen.iter().zip(&missing).all(|(s, m)| s != m));
            let received = seen.iter().filter(|s| **s).count() as u32;
            prop_assert_eq!(file.received_bytes(), received);
            prop_assert_eq!(file.is_complete(), received == size);
        }
    }
}
