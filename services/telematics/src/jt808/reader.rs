//! A big-endian cursor over a body that fails instead of panicking.

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

    /// A fixed-width text field: GBK, padded with NULs or spaces.
    pub(crate) fn fixed_text(&mut self, n: usize, what: &'static str) -> Result<String, Error> {
        Ok(gbk(self.take(n, what)?))
    }
}

/// Decodes GBK text, dropping NUL padding and surrounding blanks.
pub(crate) fn gbk(bytes: &[u8]) -> String {
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    let (text, _, _) = encoding_rs::GBK.decode(&bytes[..end]);
    text.trim().to_owned()
}

/// Encodes text as GBK (characters GBK lacks become `?`).
pub(crate) fn to_gbk(text: &str) -> Vec<u8> {
    encoding_rs::GBK.encode(text).0.into_owned()
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
