//! Limits on guessing: failure counters per account, per (address, account)
//! and per client address.
//!
//! An attempt is counted *before* its secret is checked, in one atomic upsert
//! per key, so parallel guesses cannot slip past the limit: of 200 parallel
//! wrong passwords from one address exactly 5 reach the hash check. A
//! successful attempt clears the account's counters and gives its count back
//! to the address.
//!
//! - account: 10 failures within 15 minutes lock it for 15 minutes, from
//!   everywhere (guessing spread over many addresses);
//! - (address, account): 5 failures within 15 minutes lock the account for
//!   that address for 15 minutes, so one address alone cannot lock an account
//!   out for everyone else;
//! - address: never refuses (a company behind one address must not be locked
//!   out by one person's typos). Beyond 10 failures within 10 minutes every
//!   attempt from it waits a little longer, up to [`MAX_DELAY`], which slows
//!   guessing across many accounts down without refusing anyone.
//!
//! Unknown accounts are counted under what was typed, so they lock exactly
//! like real ones and the answers stay the same.

mod domain;
mod store;

pub use domain::{Admission, Key, locked_error, sign_in_keys};
pub use store::{admit, clear, give_back, locked_until, succeeded};
