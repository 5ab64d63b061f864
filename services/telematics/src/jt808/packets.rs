//! Reassembly of messages sent in several packages (header bit 13), e.g. a
//! photo in 0x0801. Packages of one message carry consecutive serials and
//! `index` 1..=`total`. Everything is bounded per connection: the number of
//! messages being assembled, their total size and how long one may wait.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::Error;
use super::header::Header;

/// Limits of one connection's reassembly.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Messages being assembled at once.
    pub messages: usize,
    /// Bytes held across them.
    pub bytes: usize,
    /// Packages in one message.
    pub packages: u16,
    /// How long an incomplete message is kept.
    pub max_age: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            messages: 4,
            bytes: 4 * 1024 * 1024,
            packages: 4096,
            max_age: Duration::from_secs(120),
        }
    }
}

#[derive(Debug)]
struct Partial {
    started: Instant,
    parts: Vec<Option<Vec<u8>>>,
    received: u16,
    bytes: usize,
    /// Header of the first package, kept for the whole message.
    header: Header,
}

/// Collects packages until a message is whole.
#[derive(Debug, Default)]
pub struct Reassembler {
    limits: Limits,
    partial: HashMap<(u16, u16), Partial>,
    bytes: usize,
}

impl Reassembler {
    pub fn new(limits: Limits) -> Reassembler {
        Reassembler {
            limits,
            partial: HashMap::new(),
            bytes: 0,
        }
    }

    /// Adds one frame. A message that was not sub-packaged comes straight
    /// back; the last missing package of one gives back the whole body with
    /// the header of its first package (its `package` cleared).
    pub fn push(
        &mut self,
        header: Header,
        body: &[u8],
    ) -> Result<Option<(Header, Vec<u8>)>, Error> {
        let Some(package) = header.package else {
            return Ok(Some((header, body.to_vec())));
        };
        if package.total > self.limits.packages {
            return Err(Error::Invalid("too many packages"));
        }
        self.expire(Instant::now());
        // The first package's serial names the message.
        let first_serial = header.serial.wrapping_sub(package.index - 1);
        let key = (header.msg_id, first_serial);
        if !self.partial.contains_key(&key) {
            if self.partial.len() >= self.limits.messages {
                return Err(Error::Invalid("too many messages being reassembled"));
            }
            self.partial.insert(
                key,
                Partial {
                    started: Instant::now(),
                    parts: vec![None; usize::from(package.total)],
                    received: 0,
                    bytes: 0,
                    header: Header {
                        serial: first_serial,
                        package: None,
                        ..header.clone()
                    },
                },
            );
        }
        if self.bytes + body.len() > self.limits.bytes {
            self.drop_message(key);
            return Err(Error::Invalid("reassembly buffer full"));
        }
        let partial = self.partial.get_mut(&key).expect("inserted above");
        if partial.parts.len() != usize::from(package.total) {
            self.drop_message(key);
            return Err(Error::Invalid("package total changed"));
        }
        let slot = &mut partial.parts[usize::from(package.index - 1)];
        if slot.is_none() {
            *slot = Some(body.to_vec());
            partial.received += 1;
            partial.bytes += body.len();
            self.bytes += body.len();
        }
        if partial.received < package.total {
            return Ok(None);
        }
        let done = self.partial.remove(&key).expect("present");
        self.bytes -= done.bytes;
        let body = done.parts.into_iter().flatten().flatten().collect();
        Ok(Some((done.header, body)))
    }

    fn drop_message(&mut self, key: (u16, u16)) {
        if let Some(p) = self.partial.remove(&key) {
            self.bytes -= p.bytes;
        }
    }

    fn expire(&mut self, now: Instant) {
        let max_age = self.limits.max_age;
        let before = self.partial.len();
        let mut freed = 0;
        self.partial.retain(|_, p| {
            let keep = now.duration_since(p.started) < max_age;
            if !keep {
                freed += p.bytes;
            }
            keep
        });
        if self.partial.len() != before {
            self.bytes -= freed;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::jt808::header::{Package, Version};

    fn part(serial: u16, index: u16, total: u16) -> Header {
        Header {
            msg_id: 0x0801,
            version: Version::V2019 { protocol: 1 },
            phone: "1".into(),
            serial,
            package: Some(Package { total, index }),
        }
    }

    #[test]
    fn packages_in_any_order_make_one_message() {
        let mut r = Reassembler::default();
        assert_eq!(r.push(part(12, 3, 3), b"ghi").unwrap(), None);
        assert_eq!(r.push(part(10, 1, 3), b"abc").unwrap(), None);
        assert_eq!(
            r.push(part(10, 1, 3), b"abc").unwrap(),
            None,
            "a duplicate is ignored"
        );
        let (h, body) = r.push(part(11, 2, 3), b"def").unwrap().unwrap();
        assert_eq!(body, b"abcdefghi");
        assert_eq!((h.serial, h.package), (10, None));
        assert_eq!(r.bytes, 0);
    }

    #[test]
    fn the_buffer_and_message_count_are_bounded() {
        let mut r = Reassembler::new(Limits {
            messages: 1,
            bytes: 8,
            ..Limits::default()
        });
        r.push(part(1, 1, 2), b"1234").unwrap();
        assert!(
            r.push(part(100, 1, 2), b"x").is_err(),
            "second message refused"
        );
        assert!(
            r.push(part(2, 2, 2), b"123456789").is_err(),
            "too many bytes"
        );
        assert_eq!(r.bytes, 0);
        assert!(r.partial.is_empty());
    }
}
