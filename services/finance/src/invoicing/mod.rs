//! The invoicing platform finance issues VAT invoices through (fully
//! digital invoices, 全电发票/数电票): an outside boundary, so finance owns
//! its client ([`client`]), as vehicle's maintenance owns the traffic
//! authority's. In development and tests the platform is
//! `fleetdesk-invoice-standin` (`fleetdesk invoice-standin`), given to
//! finance as `FLEETDESK_INVOICING_URL`, `_APP_ID` and `_SECRET`.
//!
//! Also the check of an invoice title's taxpayer id ([`credit_code`]),
//! made before anything is sent so the user sees the field at fault.

pub mod client;
pub mod credit_code;
