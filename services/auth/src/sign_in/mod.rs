//! The three ways in: password, phone + SMS code, WeCom QR. Each counts the
//! attempt against the guard before any secret is checked, records it in
//! the login log, and on success opens a session.

pub mod handlers;
