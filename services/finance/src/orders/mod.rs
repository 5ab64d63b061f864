//! The order centre (orderManage): orders the enterprise places for
//! vehicles, services and top-ups, with their items and states. An order
//! is paid through its ORDER bill (raised with it, one line per item), so
//! payments know orders only to mark them paid (`paid`).
//!
//! Rules: an order is placed once per source (`source_service` +
//! `source_id`; a console order without one is keyed by its
//! Idempotency-Key): the same source answers the first order, another
//! total for it is refused. Only a PENDING_PAYMENT order is cancelled, and
//! its bill with it. An order turns PAID with its bill (`paid`); a paid
//! charging top-up is announced to energy. Depends on `bills`.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod paid;
pub mod store;

/// The permission of the order centre.
pub const PERMISSION: &str = "as:order:center";
