//! Registration rules (JT/T 808 0x8100 results) and authentication codes.
//! Pure: no database, no proto messages.

use rand::RngCore as _;
use sha2::{Digest as _, Sha256};

/// What the binding log says about a registering terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// The active terminal binding of the SIM: (terminal serial, vehicle, enterprise).
    pub by_phone: Option<Bound>,
    /// Whether the serial is actively bound to some vehicle (under any SIM).
    pub serial_bound: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Bound {
    pub terminal_id: String,
    pub vehicle_id: uuid::Uuid,
    pub enterprise_id: uuid::Uuid,
}

/// The 0x8100 result of a registration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Registration {
    Accepted(Bound),
    /// The SIM's vehicle has another terminal (result 1).
    VehicleTaken,
    /// The serial is bound elsewhere under another SIM (result 3).
    TerminalTaken,
    /// Neither SIM nor serial is bound (result 4).
    NoTerminal,
}

/// Decides a registration of `terminal_id` from the binding log.
pub fn register(terminal_id: &str, lookup: Lookup) -> Registration {
    match lookup.by_phone {
        Some(bound) if bound.terminal_id.eq_ignore_ascii_case(terminal_id) => {
            Registration::Accepted(bound)
        }
        Some(_) if lookup.serial_bound => Registration::TerminalTaken,
        Some(_) => Registration::VehicleTaken,
        None if lookup.serial_bound => Registration::TerminalTaken,
        None => Registration::NoTerminal,
    }
}

/// A fresh authentication code: 16 random bytes as 32 hex digits (the
/// terminal echoes it as a string in 0x0102).
pub fn new_code() -> String {
    let mut bytes = [0u8; 16];
    rand::thread_rng().fill_bytes(&mut bytes);
    hex::encode(bytes)
}

/// What is stored of a code (never the code itself).
pub fn code_hash(code: &str) -> Vec<u8> {
    Sha256::digest(code.trim().as_bytes()).to_vec()
}

/// The SIM as terminals send it: BCD-padded with leading zeros, which the
/// binding log does not keep.
pub fn phone(raw: &str) -> String {
    let trimmed = raw.trim().trim_start_matches('0');
    trimmed.to_owned()
}

/// The maker id as kept: trimmed; none when the terminal sent none.
pub fn maker_id(raw: &str) -> Option<&str> {
    Some(raw.trim()).filter(|maker| !maker.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bound(serial: &str) -> Bound {
        Bound {
            terminal_id: serial.to_owned(),
            vehicle_id: uuid::Uuid::from_u128(1),
            enterprise_id: uuid::Uuid::from_u128(2),
        }
    }

    #[test]
    fn a_terminal_is_accepted_only_with_the_serial_its_sim_is_bound_with() {
        let accepted = register(
            "T1",
            Lookup {
                by_phone: Some(bound("t1")),
                serial_bound: true,
            },
        );
        assert_eq!(accepted, Registration::Accepted(bound("t1")));
        assert_eq!(
            register(
                "T2",
                Lookup {
                    by_phone: Some(bound("T1")),
                    serial_bound: false
                }
            ),
            Registration::VehicleTaken
        );
        assert_eq!(
            register(
                "T2",
                Lookup {
                    by_phone: Some(bound("T1")),
                    serial_bound: true
                }
            ),
            Registration::TerminalTaken
        );
        assert_eq!(
            register(
                "T2",
                Lookup {
                    by_phone: None,
                    serial_bound: false
                }
            ),
            Registration::NoTerminal
        );
    }

    #[test]
    fn codes_are_random_and_stored_as_hashes() {
        let (a, b) = (new_code(), new_code());
        assert_ne!(a, b);
        assert_eq!(a.len(), 32);
        assert_eq!(code_hash(&a), code_hash(&format!(" {a} ")));
        assert_ne!(code_hash(&a), code_hash(&b));
    }

    #[test]
    fn a_maker_id_is_kept_trimmed_and_a_blank_one_not_at_all() {
        assert_eq!(maker_id(" 70107 "), Some("70107"));
        assert_eq!(maker_id("  "), None);
    }

    #[test]
    fn sim_padding_is_dropped() {
        assert_eq!(phone("013800000001"), "13800000001");
        assert_eq!(phone(" 13800000001 "), "13800000001");
    }
}
