//! The login log: every sign-in attempt (kept before any tenant is known),
//! and the log of the caller's enterprise — every attempt by its members'
//! accounts, newest first, filterable and paged.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// Permission to read the login log (`loginfoListPage`).
pub const PERM_LOGIN_LOG: &str = "as:sys:loginfo";
