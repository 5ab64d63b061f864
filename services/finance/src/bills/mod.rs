//! Bills (billManagement, billDetail): money the enterprise owes for one
//! thing — a month's rent, a charging statement, a repair statement, an
//! order — with lines traced to the records they bill (a usage record, a
//! statement, a repair bill, an order).
//!
//! Rules: a bill is raised once per source (`source_service` +
//! `source_id`): the same source answers the first bill, the same source
//! with another amount is refused. Its lines add up to its amount (the
//! domain checks it, a deferred trigger re-checks it at commit). B2B bills
//! may start PENDING_CONFIRMATION until the enterprise reconciles them
//! (`ConfirmBills`). Overdue is computed, never stored: unpaid or partly
//! paid and due before now.
//!
//! Raised by service callers (`CreateBill`), by orders (their ORDER bill)
//! and from events ([`raised`]: energy's confirmed statements, vehicle's
//! repair bills; [`rent`]: monthly rent instalments of vehicle's usage
//! records). Depends on no other subject.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod raised;
pub mod rent;
pub mod store;

/// The permission of the bill list and detail (billList, billDetail).
pub const PERMISSION: &str = "bill:biz:pageInfo";
/// The permission of B2B reconciliation (monthPayBillList, confirming bills).
pub const RECONCILIATION: &str = "oss:bill:reconciliation";
