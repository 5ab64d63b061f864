//! Invoice addresses (addressManage): where paper invoices are posted and
//! electronic ones e-mailed, shared by every applicant of the tenant.
//!
//! Rules: a recipient and a phone, and a postal address or an e-mail; the
//! phone is shown masked, and an update without one keeps the stored one.
//! One address is the default; choosing another moves it. Applications keep
//! a copy of the address. Depends on no subject.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;

/// Addresses are managed by whoever applies for invoices.
pub const PERMISSION: &str = "as:invoice";
