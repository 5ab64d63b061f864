//! The terminal directory the device edge asks (telematics.v1
//! TerminalDirectoryService): registration of a terminal whose SIM and
//! serial the binding log holds as an active terminal binding (→ an
//! authentication code, stored hashed, and the maker id it registered
//! with), and authentication of that code → the enterprise and vehicle the
//! terminal reports for, and its maker: the edge reads vendor items by it on
//! whichever connection or replica the terminal comes back to. Service
//! callers only.

pub mod domain;
pub mod handlers;
pub mod store;
