//! Sensitive data: values are masked wherever they are listed; the reveal
//! call returns one unmasked value only together with its audit row,
//! written in the same transaction — no audit row, no value.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// Permission to reveal a masked value and read the audit.
pub const PERM_SENSITIVE: &str = "as:sensitive:view";
