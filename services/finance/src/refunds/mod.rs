//! Refunds (billRefund, billRefundSure, refundRecord): money going back to
//! the enterprise for a paid bill.
//!
//! State machine: CreateRefund → PENDING_REVIEW. ConfirmRefund (from
//! PENDING_REVIEW or PENDING_CONFIRMATION; no operator review is built, so
//! the confirmation approves the requested amount) pays out:
//! PREPAID_BALANCE, or ORIGINAL_ROUTE of a bill paid from the balance, at
//! once (REVENUE → MAIN, the bill's refunded amount; COMPLETED);
//! ORIGINAL_ROUTE of a bill paid through the bank two-phase (REVENUE →
//! HOLD(refund) and the bank refund against that payment's order;
//! PROCESSING), then the bank's callback ([`settle`]) pays the hold out
//! (HOLD → BANK; COMPLETED) or voids it (HOLD → REVENUE; FAILED) — never
//! both. CancelRefund withdraws an open refund (CANCELLED). REJECTED
//! (operator review) and BANK_TRANSFER to another account are not built.
//!
//! Rules: a bill never has more refunded, or in flight (applied, proposed,
//! paying out), than was paid — checked under the bill's row lock; the
//! bank refund never more than what that payment paid for the bill less
//! its refunds. CreateRefund and ConfirmRefund carry an idempotency key
//! (the first answer is stored and replayed, another request under the key
//! is 4009); ConfirmRefund checks the amount the user saw.
//!
//! Depends on bills (the bill refunded), payments (the payment it goes
//! back through, the bank's events applied once) and the ledger.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod settle;
pub mod store;

/// The permission of refunds (refundManagement).
pub const PERMISSION: &str = "as:refund";
