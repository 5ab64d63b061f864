//! The session: signing in and out, passwords, and who the caller is.

pub mod auth;
pub mod me;
pub mod password;
