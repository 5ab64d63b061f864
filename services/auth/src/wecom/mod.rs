//! WeCom (企业微信) QR sign-in: the `state` that ties a QR scan to the browser
//! that asked for it, and the exchange of WeCom's code for a user id.
//!
//! A state is 128 random bits, stored as its SHA-256 together with the hash
//! of the browser's binding cookie; it lives 10 minutes and is deleted by its
//! first use, whatever the outcome. The code is exchanged with the app's
//! access token (`gettoken`, cached until shortly before it expires) at
//! `auth/getuserinfo`, which names a member of the app's corp by `userid`
//! and anyone else only by `openid`.

mod client;
mod store;

pub use client::{ExchangeError, WeComClient};
pub use store::{consume_state, issue_state};
