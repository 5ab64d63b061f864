//! Warnings (warnRecord): forward-looking notices the platform raises once
//! a day (`job`), which members read and acknowledge.
//!
//! What the job raises, each once per subject and period (the table's
//! unique key, so rerunning the job raises nothing twice):
//! - LICENCE_EXPIRING: a driver (not left) whose licence expires within 30
//!   days or has expired, once per expiry date (a renewed licence is a new
//!   period);
//! - ID_CARD_EXPIRING: the same for a driver's resident ID card (a
//!   long-term card, 长期, has no end and is never warned of);
//! - PAYMENT_OVERDUE: an active rent-to-own usage record with overdue
//!   instalments, once per newest overdue instalment.
//!
//! Asked for by other domains (`requests`, typed events): maintenance,
//! inspections and insurance falling due (vehicle management's `due`).
//!
//! Not raised, for want of data: plain rentals (a rent record has a
//! payment day but no record of payments, so an unpaid month cannot be
//! told from a paid one).
//!
//! Acknowledging moves UNREAD to ACKNOWLEDGED with who and when, one or a
//! batch of up to 250; others stay as they are.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod job;
pub mod requests;
pub mod store;

/// The permission of the warning pages.
pub const PERMISSION: &str = "as:risk:warn";
