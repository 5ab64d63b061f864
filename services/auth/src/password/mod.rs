//! Passwords: changing one (old, new, confirm) and setting one with an SMS
//! code. Both end every other session of the account at once.

pub mod domain;
pub mod handlers;
