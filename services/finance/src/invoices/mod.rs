//! Invoice applications (applyInvoice and its B2B submit, applyBill,
//! invoiceHistory with detail and B2B detail): invoices asked for paid
//! bills, issued through the invoicing platform (`crate::invoicing`), and
//! red-letter reversal.
//!
//! Rules: an application takes money of paid or partly paid bills the
//! applicant reaches, at most what was paid minus refunded minus already
//! invoiced, under the bills' row locks, so concurrent applications for
//! the same money cannot both win; the bills' invoiced amounts (and so
//! their invoice state) follow. A special VAT invoice needs a title with
//! the buyer's tax id, address, phone, bank and account; a paper one an
//! address. Applications are idempotent by key (kit::idempotency).
//!
//! States: the proto has no review RPC, so an application is approved as
//! applied (review time = apply time) and goes straight to ISSUING; the
//! [`issuing`] worker, never the user's request, calls the platform:
//! ISSUING → ISSUED with the 20-digit number, issue time and the PDF kept
//! in the object store, or REJECTED (freeing the amounts) when the
//! platform refuses; its retryable failures are tried again later with the
//! same request number. Cancelling an application not yet sent withdraws
//! it; an issued one is reversed with a red-letter invoice, once, which
//! frees its amounts to be invoiced again. Depends on `bills`,
//! `invoice_titles` and `invoice_addresses`.

pub mod convert;
pub mod domain;
pub mod export;
pub mod handlers;
pub mod issuing;
pub mod store;

/// Applying for invoices and their history.
pub const PERMISSION: &str = "as:invoice";
