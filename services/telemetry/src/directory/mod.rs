//! The terminal directory the device edge asks (telematics.v1
//! TerminalDirectoryService): registration of a terminal whose SIM and
//! serial the binding log holds as an active terminal binding (→ an
//! authentication code, stored hashed), and authentication of that code →
//! the enterprise and vehicle the terminal reports for. Service callers only.

pub mod domain;
pub mod handlers;
pub mod store;
