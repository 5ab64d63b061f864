//! Monthly reconciliation statements (chargeReconciliation): per enterprise
//! and month, the settled sessions by organisation and card with every
//! amount, checked against the ledger's captures, with a workbook in the
//! object store; drafts of the current month on demand, issued statements
//! after month end (`job`), confirmed or disputed once.

pub mod build;
pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod job;
pub mod store;
pub mod workbook;

/// The permission of the statement page.
pub const PERMISSION: &str = "as:charge:settlement:page";
