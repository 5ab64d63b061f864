//! A big-endian cursor over a body that fails instead of panicking.

use chrono::{DateTime, FixedOffset, NaiveDate, TimeZone as _, Utc};

use super::Error;

#[derive(Debug)]
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    pub(crate) fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    pub(crate) fn remaining(&self) -> usize {
        self.bytes.len()
    }

    pub(crate) fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], Error> {
        if self.bytes.len() < n {
            return Err(Error::Truncated {
                what,
                needed: n - self.bytes.len(),
            });
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    pub(crate) fn rest(&mut self) -> &'a [u8] {
        std::mem::take(&mut self.bytes)
    }

    pub(crate) fn u8(&mut self, what: &'static str) -> Result<u8, Error> {
        Ok(self.take(1, what)?[0])
    }

    pub(crate) fn u16(&mut self, what: &'static str) -> Result<u16, Error> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    pub(crate) fn u32(&mut self, what: &'static str) -> Result<u32, Error> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    pub(crate) fn u64(&mut self, what: &'static str) -> Result<u64, Error> {
        let b = self.take(8, what)?;
        let mut word = [0; 8];
        word.copy_from_slice(b);
        Ok(u64::from_be_bytes(word))
    }

    /// BCD digits, e.g. a terminal phone number, leading zeros kept.
    pub(crate) fn bcd(&mut self, n: usize, what: &'static str) -> Result<String, Error> {
        let mut out = String::with_capacity(n * 2);
        for byte in self.take(n, what)? {
            for nibble in [byte >> 4, byte & 0x0f] {
                if nibble > 9 {
                    return Err(Error::BadBcd(what));
                }
                out.push(char::from(b'0' + nibble));
            }
        }
        Ok(out)
    }

    /// A BCD[6] time, `YYMMDDhhmmss` in Beijing time.
    pub(crate) fn time(&mut self, what: &'static str) -> Result<DateTime<Utc>, Error> {
        bcd_time(&self.bcd(6, what)?, what)
    }

    /// A BCD[6] time where all zeros means "none" (an open end of a range).
    pub(crate) fn optional_time(
        &mut self,
        what: &'static str,
    ) -> Result<Option<DateTime<Utc>>, Error> {
        let digits = self.bcd(6, what)?;
        if digits.bytes().all(|d| d == b'0') {
            return Ok(None);
        }
        bcd_time(&digits, what).map(Some)
    }

    /// A fixed-width text field: GBK, padded with NULs or spaces.
    pub(crate) fn fixed_text(&mut self, n: usize, what: &'static str) -> Result<String, Error> {
        Ok(gbk(self.take(n, what)?))
    }
}

/// The standard's clock is Beijing time (UTC+8) with a two-digit year.
fn bcd_time(digits: &str, what: &'static str) -> Result<DateTime<Utc>, Error> {
    let n = |i: usize| {
        digits[i..i + 2]
            .parse::<u32>()
            .map_err(|_| Error::BadBcd(what))
    };
    let (year, month, day) = (n(0)?, n(2)?, n(4)?);
    let (hour, minute, second) = (n(6)?, n(8)?, n(10)?);
    let date = NaiveDate::from_ymd_opt(2000 + year as i32, month, day)
        .and_then(|d| d.and_hms_opt(hour, minute, second))
        .ok_or(Error::Invalid(what))?;
    beijing()
        .from_local_datetime(&date)
        .single()
        .map(|t| t.with_timezone(&Utc))
        .ok_or(Error::Invalid(what))
}

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// `time` as BCD[6] in Beijing time.
pub(crate) fn time_bcd(time: DateTime<Utc>) -> [u8; 6] {
    let text = time
        .with_timezone(&beijing())
        .format("%y%m%d%H%M%S")
        .to_string();
    let b = text.as_bytes();
    std::array::from_fn(|i| ((b[2 * i] - b'0') << 4) | (b[2 * i + 1] - b'0'))
}

/// `time` as BCD[6], all zeros for none.
pub(crate) fn optional_time_bcd(time: Option<DateTime<Utc>>) -> [u8; 6] {
    time.map(time_bcd).unwrap_or_default()
}

/// Decodes GBK text, dropping NUL padding and surrounding blanks.
pub(crate) fn gbk(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let (text, _, _) = encoding_rs::GBK.decode(&bytes[..end]);
    text.trim().to_owned()
}

/// Encodes text as GBK (characters GBK lacks become `?`; encoding_rs alone
/// would write HTML character references, longer than the character).
pub(crate) fn to_gbk(text: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(text.len());
    let mut utf8 = [0; 4];
    for c in text.chars() {
        let (bytes, _, unmappable) = encoding_rs::GBK.encode(c.encode_utf8(&mut utf8));
        if unmappable {
            out.push(b'?');
        } else {
            out.extend_from_slice(&bytes);
        }
    }
    out
}

/// Text as GBK cut to at most `width` bytes, never inside a character: for
/// encoders that cannot fail.
pub(crate) fn to_gbk_cut(text: &str, width: usize) -> Vec<u8> {
    let mut bytes = to_gbk(text);
    let mut end = 0;
    while end < bytes.len() {
        // GBK's lead bytes are 0x81 to 0xFE; 0x80 alone is the euro sign.
        let next = end + if bytes[end] <= 0x80 { 1 } else { 2 };
        if next > width {
            break;
        }
        end = next;
    }
    bytes.truncate(end);
    bytes
}

/// `digits` as `n` bytes of BCD, left-padded with zeros; `None` if it has a
/// non-digit or is too long.
pub(crate) fn to_bcd(digits: &str, n: usize) -> Option<Vec<u8>> {
    if digits.len() > n * 2 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let padded = format!("{digits:0>width$}", width = n * 2);
    Some(
        padded
            .as_bytes()
            .chunks(2)
            .map(|pair| ((pair[0] - b'0') << 4) | (pair[1] - b'0'))
            .collect(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bcd_round_trips_with_leading_zeros() {
        let bytes = to_bcd("13800000001", 6).unwrap();
        assert_eq!(bytes, [0x01, 0x38, 0x00, 0x00, 0x00, 0x01]);
        assert_eq!(Reader::new(&bytes).bcd(6, "phone").unwrap(), "013800000001");
        assert_eq!(to_bcd("12a", 6), None);
        assert_eq!(to_bcd("1234567", 3), None);
    }

    #[test]
    fn a_nibble_above_nine_is_not_bcd() {
        assert_eq!(
            Reader::new(&[0x1a]).bcd(1, "time"),
            Err(Error::BadBcd("time"))
        );
    }

    #[test]
    fn gbk_text_is_decoded_and_padding_dropped() {
        let mut bytes = to_gbk("粤B12345D");
        bytes.extend([0, 0, 0]);
        assert_eq!(gbk(&bytes), "粤B12345D");
    }

    #[test]
    fn cut_text_keeps_whole_characters() {
        assert_eq!(to_gbk_cut("粤B1", 2), to_gbk("粤"));
        assert_eq!(to_gbk_cut("粤B1", 1), Vec::<u8>::new());
        assert_eq!(to_gbk_cut("ab", 5), b"ab");
        assert_eq!(to_gbk_cut("€€粤", 3), [0x80, 0x80]);
        assert_eq!(to_gbk("a😀\u{fffd}"), b"a??");
    }

    #[test]
    fn all_zero_times_are_none_and_others_beijing_time() {
        let zeros = [0u8; 6];
        assert_eq!(Reader::new(&zeros).optional_time("t"), Ok(None));
        let wire = [0x26, 0x11, 0x23, 0x10, 0x03, 0x04];
        let time = Reader::new(&wire).optional_time("t").unwrap().unwrap();
        assert_eq!(time.to_rfc3339(), "2026-11-23T02:03:04+00:00");
        assert_eq!(optional_time_bcd(Some(time)), wire);
        assert_eq!(optional_time_bcd(None), zeros);
    }

    #[test]
    fn reading_past_the_end_is_an_error() {
        let mut r = Reader::new(&[1, 2, 3]);
        assert_eq!(r.u16("a").unwrap(), 0x0102);
        assert_eq!(
            r.u32("b"),
            Err(Error::Truncated {
                what: "b",
                needed: 3
            })
        );
    }
}
