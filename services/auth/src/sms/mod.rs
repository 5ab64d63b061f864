//! SMS verification codes: issuing them within the sending limits and
//! checking them.
//!
//! A code is 6 random digits, stored only as an HMAC bound to phone and
//! purpose, valid 5 minutes, good for one use; a newer code replaces older
//! ones, and 5 wrong entries kill it. Sending is limited per phone (one per
//! 60 s, 5 per hour, 10 per day) and per client address (20 per hour);
//! requests for the same address or phone are serialised by transaction
//! locks, so parallel requests cannot overrun a limit.

mod codes;
mod domain;
pub mod sender;
mod store;

pub use codes::SmsCodes;
pub use domain::{CodeKey, Phone, Purpose, RESEND_SECS};
pub use store::dev_messages;
