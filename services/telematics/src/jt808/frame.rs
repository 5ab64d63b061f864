//! Framing: splitting a TCP byte stream into frames and wrapping outgoing ones.
//!
//! Between two `0x7e` flags a frame is escaped (`0x7d 0x02` → `0x7e`,
//! `0x7d 0x01` → `0x7d`) and ends with a check byte, the XOR of everything
//! before it. Some terminals share one flag between consecutive frames
//! (`7e A 7e B 7e`), others send two (`7e A 7e 7e B 7e`); both work. A frame
//! that is too long, badly escaped or fails its check is reported once and
//! skipped; decoding resumes at the next flag.

use super::Error;

const FLAG: u8 = 0x7e;
const ESCAPE: u8 = 0x7d;

/// The largest unescaped frame accepted by default: a 1023-byte body (the
/// header's length field is 10 bits), a 2019 sub-package header, the check.
pub const DEFAULT_MAX_FRAME: usize = 1023 + 21 + 1;

#[derive(Debug)]
enum State {
    /// Before the first flag: bytes are noise.
    Idle,
    /// Inside a frame.
    Frame { escaped: bool },
    /// The current frame was refused; skip to the next flag.
    Skip,
}

/// Splits a byte stream into checked frames (header and body, unescaped,
/// check byte removed).
#[derive(Debug)]
pub struct FrameDecoder {
    state: State,
    buf: Vec<u8>,
    max_frame: usize,
}

impl Default for FrameDecoder {
    fn default() -> Self {
        FrameDecoder::new(DEFAULT_MAX_FRAME)
    }
}

impl FrameDecoder {
    pub fn new(max_frame: usize) -> FrameDecoder {
        FrameDecoder {
            state: State::Idle,
            buf: Vec::with_capacity(256),
            max_frame,
        }
    }

    /// Feeds bytes read from the connection; every complete frame, good or
    /// bad, is pushed to `out` in order.
    pub fn feed(&mut self, data: &[u8], out: &mut Vec<Result<Vec<u8>, Error>>) {
        for &byte in data {
            self.state = match (std::mem::replace(&mut self.state, State::Idle), byte) {
                (State::Idle | State::Skip, FLAG) => {
                    self.buf.clear();
                    State::Frame { escaped: false }
                }
                (state @ (State::Idle | State::Skip), _) => state,
                (State::Frame { escaped: true }, FLAG) => {
                    // A flag right after an escape: the frame is broken, and
                    // this flag starts the next one.
                    out.push(Err(Error::BadEscape(FLAG)));
                    self.buf.clear();
                    State::Frame { escaped: false }
                }
                (State::Frame { escaped: false }, FLAG) => {
                    if !self.buf.is_empty() {
                        out.push(checked(std::mem::take(&mut self.buf)));
                    }
                    State::Frame { escaped: false }
                }
                (State::Frame { escaped: false }, ESCAPE) => State::Frame { escaped: true },
                (State::Frame { escaped }, b) => {
                    let value = match (escaped, b) {
                        (false, b) => Some(b),
                        (true, 0x01) => Some(ESCAPE),
                        (true, 0x02) => Some(FLAG),
                        (true, _) => None,
                    };
                    match value {
                        None => {
                            out.push(Err(Error::BadEscape(b)));
                            State::Skip
                        }
                        Some(_) if self.buf.len() >= self.max_frame => {
                            out.push(Err(Error::FrameTooLong(self.max_frame)));
                            State::Skip
                        }
                        Some(v) => {
                            self.buf.push(v);
                            State::Frame { escaped: false }
                        }
                    }
                }
            };
        }
    }
}

fn xor(bytes: &[u8]) -> u8 {
    bytes.iter().fold(0, |acc, b| acc ^ b)
}

/// Verifies and strips the check byte.
fn checked(mut frame: Vec<u8>) -> Result<Vec<u8>, Error> {
    let found = frame.pop().ok_or(Error::Invalid("empty frame"))?;
    let computed = xor(&frame);
    if found != computed {
        return Err(Error::BadCheck { found, computed });
    }
    Ok(frame)
}

/// Wraps header-and-body bytes for the wire: check byte, escapes, flags.
pub fn encode_frame(message: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(message.len() + 8);
    out.push(FLAG);
    for &b in message.iter().chain(std::iter::once(&xor(message))) {
        match b {
            FLAG => out.extend([ESCAPE, 0x02]),
            ESCAPE => out.extend([ESCAPE, 0x01]),
            b => out.push(b),
        }
    }
    out.push(FLAG);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn decode(bytes: &[u8]) -> Vec<Result<Vec<u8>, Error>> {
        let mut out = Vec::new();
        FrameDecoder::default().feed(bytes, &mut out);
        out
    }

    #[test]
    fn the_standards_escape_example_round_trips() {
        // Body 30 7e 08 7d 55 (the standard's example), check byte appended.
        let body = [0x30, 0x7e, 0x08, 0x7d, 0x55];
        let wire = encode_frame(&body);
        let check = xor(&body);
        let mut expected = vec![0x7e, 0x30, 0x7d, 0x02, 0x08, 0x7d, 0x01, 0x55];
        expected.push(check);
        expected.push(0x7e);
        assert_eq!(wire, expected);
        assert_eq!(decode(&wire), vec![Ok(body.to_vec())]);
    }

    #[test]
    fn shared_and_doubled_flags_and_split_reads_all_work() {
        let (a, b) = (encode_frame(&[1, 2, 3]), encode_frame(&[4, 5]));
        let shared: Vec<u8> = a.iter().chain(&b[1..]).copied().collect();
        assert_eq!(decode(&shared), vec![Ok(vec![1, 2, 3]), Ok(vec![4, 5])]);
        let doubled: Vec<u8> = a.iter().chain(&b).copied().collect();
        assert_eq!(decode(&doubled), vec![Ok(vec![1, 2, 3]), Ok(vec![4, 5])]);
        let mut decoder = FrameDecoder::default();
        let mut out = Vec::new();
        for byte in &doubled {
            decoder.feed(std::slice::from_ref(byte), &mut out);
        }
        assert_eq!(out, vec![Ok(vec![1, 2, 3]), Ok(vec![4, 5])]);
    }

    #[test]
    fn a_bad_check_or_escape_drops_only_that_frame() {
        let mut bad = encode_frame(&[1, 2, 3]);
        let at = bad.len() - 2;
        bad[at] ^= 0xff;
        let good = encode_frame(&[9]);
        let stream: Vec<u8> = bad.iter().chain(&good).copied().collect();
        let out = decode(&stream);
        assert!(matches!(out[0], Err(Error::BadCheck { .. })));
        assert_eq!(out[1], Ok(vec![9]));

        let stream: Vec<u8> = [0x7e, 0x01, 0x7d, 0x05, 0x02, 0x7e]
            .iter()
            .chain(&good)
            .copied()
            .collect();
        assert_eq!(
            decode(&stream),
            vec![Err(Error::BadEscape(0x05)), Ok(vec![9])]
        );
    }

    #[test]
    fn an_overlong_frame_is_refused_without_growing() {
        let mut decoder = FrameDecoder::new(16);
        let mut out = Vec::new();
        decoder.feed(&[0x7e], &mut out);
        decoder.feed(&[0x11; 1000], &mut out);
        assert_eq!(out, vec![Err(Error::FrameTooLong(16))]);
        assert!(decoder.buf.capacity() < 1000);
        decoder.feed(&encode_frame(&[7]), &mut out);
        assert_eq!(out.last(), Some(&Ok(vec![7])));
    }

    #[test]
    fn noise_before_the_first_flag_is_ignored() {
        let stream: Vec<u8> = [0x00, 0x33]
            .iter()
            .chain(&encode_frame(&[5]))
            .copied()
            .collect();
        assert_eq!(decode(&stream), vec![Ok(vec![5])]);
    }
}
