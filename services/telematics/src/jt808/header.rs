//! The message header, in its 2013 and 2019 forms.
//!
//! ```text
//! 2013: id WORD | props WORD | phone BCD[6]                   | serial WORD | [total WORD, index WORD]
//! 2019: id WORD | props WORD | protocol version BYTE | phone BCD[10] | serial WORD | [total WORD, index WORD]
//! props: bits 0-9 body length, 10-12 encryption, 13 sub-packaged, 14 2019 version flag
//! ```

use super::Error;
use super::reader::{Reader, to_bcd};

const LENGTH_MASK: u16 = 0x03ff;
const SUBPACKAGED: u16 = 1 << 13;
const VERSION_FLAG: u16 = 1 << 14;

/// Which header a terminal speaks; answers use the same.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Version {
    V2013,
    V2019 { protocol: u8 },
}

/// One part of a message sent in several packages (`index` counts from 1).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Package {
    pub total: u16,
    pub index: u16,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    pub msg_id: u16,
    pub version: Version,
    /// The terminal's phone number (SIM) as sent, with its zero padding.
    pub phone: String,
    pub serial: u16,
    pub package: Option<Package>,
}

impl Header {
    /// Splits a frame (from [`super::FrameDecoder`]) into header and body.
    pub fn parse(frame: &[u8]) -> Result<(Header, &[u8]), Error> {
        let mut r = Reader::new(frame);
        let msg_id = r.u16("message id")?;
        let props = r.u16("body properties")?;
        let encryption = ((props >> 10) & 0b111) as u8;
        if encryption != 0 {
            return Err(Error::Encrypted(encryption));
        }
        let (version, phone) = if props & VERSION_FLAG != 0 {
            let protocol = r.u8("protocol version")?;
            (Version::V2019 { protocol }, r.bcd(10, "phone")?)
        } else {
            (Version::V2013, r.bcd(6, "phone")?)
        };
        let serial = r.u16("serial")?;
        let package = if props & SUBPACKAGED != 0 {
            let total = r.u16("package total")?;
            let index = r.u16("package index")?;
            if total == 0 || index == 0 || index > total {
                return Err(Error::Invalid("package numbering"));
            }
            Some(Package { total, index })
        } else {
            None
        };
        let declared = usize::from(props & LENGTH_MASK);
        let body = r.rest();
        if body.len() != declared {
            return Err(Error::LengthMismatch {
                declared,
                actual: body.len(),
            });
        }
        Ok((
            Header {
                msg_id,
                version,
                phone,
                serial,
                package,
            },
            body,
        ))
    }

    /// The terminal's identity: its phone number without the zero padding,
    /// by the one rule the JT/T 1078 media port applies to a frame's SIM
    /// ([`fleetdesk_media::terminal_id`]), so a terminal's streams and its
    /// 808 link name the same terminal.
    pub fn terminal(&self) -> String {
        fleetdesk_media::terminal_id(&self.phone)
    }

    /// Header bytes for a message of `body_len` bytes (at most 1023).
    pub fn write(&self, body_len: usize, out: &mut Vec<u8>) -> Result<(), Error> {
        let len = u16::try_from(body_len)
            .ok()
            .filter(|l| *l <= LENGTH_MASK)
            .ok_or(Error::Invalid("body length"))?;
        let mut props = len;
        if self.package.is_some() {
            props |= SUBPACKAGED;
        }
        let phone_bytes = match self.version {
            Version::V2013 => 6,
            Version::V2019 { .. } => 10,
        };
        if matches!(self.version, Version::V2019 { .. }) {
            props |= VERSION_FLAG;
        }
        out.extend(self.msg_id.to_be_bytes());
        out.extend(props.to_be_bytes());
        if let Version::V2019 { protocol } = self.version {
            out.push(protocol);
        }
        // Keep the number as the terminal sent it, re-padded to this width.
        let phone = to_bcd(&self.terminal(), phone_bytes).ok_or(Error::Invalid("phone"))?;
        out.extend(phone);
        out.extend(self.serial.to_be_bytes());
        if let Some(p) = self.package {
            out.extend(p.total.to_be_bytes());
            out.extend(p.index.to_be_bytes());
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_2013_header_from_the_wire_is_read() {
        // 0x0200, 2 body bytes, phone 013800000001, serial 7.
        let frame = [
            0x02, 0x00, 0x00, 0x02, 0x01, 0x38, 0x00, 0x00, 0x00, 0x01, 0x00, 0x07, 0xaa, 0xbb,
        ];
        let (h, body) = Header::parse(&frame).unwrap();
        assert_eq!(h.msg_id, 0x0200);
        assert_eq!(h.version, Version::V2013);
        assert_eq!(h.phone, "013800000001");
        assert_eq!(h.terminal(), "13800000001");
        assert_eq!(h.serial, 7);
        assert_eq!(body, &[0xaa, 0xbb]);
    }

    #[test]
    fn a_2019_subpackaged_header_round_trips() {
        let h = Header {
            msg_id: 0x0801,
            version: Version::V2019 { protocol: 1 },
            phone: "00000000013800000001".into(),
            serial: 42,
            package: Some(Package { total: 3, index: 2 }),
        };
        let mut bytes = Vec::new();
        h.write(5, &mut bytes).unwrap();
        assert_eq!(bytes.len(), 21);
        bytes.extend([1, 2, 3, 4, 5]);
        let (read, body) = Header::parse(&bytes).unwrap();
        assert_eq!(read, h);
        assert_eq!(body.len(), 5);
    }

    /// A JT/T 1078 video frame (Table 19) with `sim` as BCD, written by
    /// hand: header, V=2 CC=1, M + PT 98, sequence, SIM, channel 1, an
    /// atomic I frame, timestamp, intervals, body length, body.
    fn frame_1078(sim: &[u8]) -> Vec<u8> {
        let mut f = vec![0x30, 0x31, 0x63, 0x64, 0x81, 0x80 | 98, 0x00, 0x01];
        f.extend(sim);
        f.extend([0x01, 0x00]);
        f.extend(40u64.to_be_bytes());
        f.extend([0x00, 0x00, 0x00, 0x00]);
        f.extend(4u16.to_be_bytes());
        f.extend([0x00, 0x00, 0x01, 0x65]);
        f
    }

    #[test]
    fn a_1078_frames_sim_and_the_808_phone_name_one_terminal() {
        use fleetdesk_media::jt1078::{Decoder, SimLayout};

        let sim6 = [0x01, 0x38, 0x00, 0x00, 0x00, 0x01];
        let sim10 = [0x00, 0x00, 0x00, 0x00, 0x01, 0x38, 0x00, 0x00, 0x00, 0x01];
        // 0x0200 headers, 2013 (6-byte phone) and 2019 (10-byte phone), no body.
        let mut h2013 = vec![0x02, 0x00, 0x00, 0x00];
        h2013.extend(sim6);
        h2013.extend([0x00, 0x07]);
        let mut h2019 = vec![0x02, 0x00, 0x40, 0x00, 0x01];
        h2019.extend(sim10);
        h2019.extend([0x00, 0x07]);
        let (h2013, _) = Header::parse(&h2013).unwrap();
        let (h2019, _) = Header::parse(&h2019).unwrap();
        for (sim, layout) in [(&sim6[..], SimLayout::Bcd6), (&sim10[..], SimLayout::Bcd10)] {
            let mut decoder = Decoder::with_layout(layout);
            decoder.push(&frame_1078(sim));
            let frame = decoder.next_frame().expect("a 1078 frame");
            let media = fleetdesk_media::terminal_id(&frame.sim);
            assert_eq!(media, "13800000001");
            assert_eq!(h2013.terminal(), media, "{layout:?}");
            assert_eq!(h2019.terminal(), media, "{layout:?}");
        }
        // All zeros is one terminal on both sides, not an empty id.
        let zeros = Header {
            phone: "000000000000".into(),
            ..h2013
        };
        assert_eq!(
            zeros.terminal(),
            fleetdesk_media::terminal_id("00000000000000000000")
        );
    }

    #[test]
    fn a_wrong_length_or_encryption_is_refused() {
        let mut bytes = Vec::new();
        let h = Header {
            msg_id: 2,
            version: Version::V2013,
            phone: "1".into(),
            serial: 0,
            package: None,
        };
        h.write(3, &mut bytes).unwrap();
        bytes.push(0);
        assert_eq!(
            Header::parse(&bytes),
            Err(Error::LengthMismatch {
                declared: 3,
                actual: 1
            })
        );
        bytes[2] |= 0b100; // RSA bit (10)
        assert_eq!(Header::parse(&bytes), Err(Error::Encrypted(1)));
    }
}
