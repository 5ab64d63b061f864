//! The bank: finance's payment orders (bills paid by bank transfer) and
//! refunds go through the bank's merchant gateway, whose answers arrive
//! later as signed callbacks. [`client`] speaks the gateway's protocol as
//! its documentation describes it; in development and tests the gateway is
//! `fleetdesk-bank-standin`, which finance does not share code with (a
//! stand-in that shares our code agrees with our mistakes).
//!
//! What the caller still owns: storing the bank's `order_id` beside its own
//! order number, answering a callback 2xx only once it is recorded (the bank
//! retries until then), and applying each `event_id` once (the bank repeats
//! callbacks).

pub mod client;

#[cfg(test)]
mod tests;

pub use client::{
    Bank, BankConfig, BankError, BankRefund, EventType, Notification, NotifyError, PaymentOrder,
    PaymentStatus, RefundStatus,
};
