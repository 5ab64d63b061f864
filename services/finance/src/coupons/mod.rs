//! Coupons (myCoupons): granted to the enterprise by the operator
//! (`GrantCoupons`, a service call naming the enterprise; one coupon per
//! (campaign, coupon_no), a repeat answers the first), listed
//! (`ListCoupons`: by status, kind, validity, or those usable right now
//! for the pay page's bills or an order kind), and used once on a payment.
//!
//! Rules ([`domain`]): AMOUNT_OFF takes its face value, PERCENT_OFF its
//! share rounded down to the fen and capped; never more than what the
//! payment pays; only when the amount meets the minimum spend and every
//! bill paid is of a kind the coupon lists (an ORDER bill: its order's
//! kind too). Coupons belong to the whole enterprise: no organisation, no
//! reach.
//!
//! Expiry is judged at read time, never stored: an AVAILABLE coupon past
//! `valid_until` reads and filters as EXPIRED (no job, no stale flag). A
//! LOCKED coupon stays held by its payment after its validity ends; when
//! released it reads as EXPIRED.
//!
//! Payments use it inside their own transaction ([`apply`]):
//!
//! - [`discount`]`(conn, actor, coupon_id, bills, amount_fen)` prices the
//!   coupon for the bills paid (reads only; 4004 for another tenant's
//!   coupon, 4009 with the reason when it does not apply);
//! - [`consume`]`(conn, actor, &discount, payment_id)` takes it for a
//!   payment whose money moved (USED), [`hold`] for a pending one
//!   (LOCKED) and [`settle`]`(conn, actor, payment_id)` when that succeeds;
//!   one conditional update, so of payments racing for one coupon only one
//!   takes it (the rest get 4009 and roll back);
//! - [`release`]`(conn, actor, payment_id)` gives it back when the payment
//!   fails or is cancelled (idempotent).
//!
//! Depends on bills (the bills paid) and orders (an ORDER bill's kind).

pub mod apply;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod store;

pub use apply::{Discount, consume, discount, hold, release, settle};

/// The permission of the coupon page (myCoupons).
pub const PERMISSION: &str = "as:coupon:pageInfo";
/// The pay page's permission: it lists the coupons usable on its bills.
pub const PAY_PERMISSION: &str = "oss:bill:pagepay";
