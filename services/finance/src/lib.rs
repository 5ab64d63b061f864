//! The finance service (console spec §2 `financialManagement`): the order
//! centre ([`orders`]), bills with their lines traced to the records they
//! bill ([`bills`], raised by service calls and from other domains' events),
//! the month's bills taken together ([`monthly`]) and the bill dashboard
//! ([`dashboard`]), and the coupons the operator grants ([`coupons`]).
//! Payments ([`payments`]: from the prepaid balance or through the bank,
//! whose signed callbacks settle them) and refunds ([`refunds`]) move money
//! on finance's double-entry [`ledger`]. Invoices: the titles and addresses
//! they name ([`invoice_titles`], [`invoice_addresses`]) and applications
//! against paid bills ([`invoices`]), issued through the invoicing platform
//! ([`invoicing`]) by a worker, reversed with red-letter invoices.
//!
//! Layout, as in every domain service: `grpc/` on top (thin: one line per
//! RPC into a subject's handlers) with start-up (`startup`: wiring, the
//! event consumers, the export worker) beside it. Each subject is a folder
//! with `handlers` (validate → domain → store → response), `domain` (pure
//! rules, stored codes), `store` (its queries), `convert` (proto ↔ domain)
//! and, for a list with an export, `export`. Subjects never import a layer.
//!
//! Which subjects each subject uses (one way):
//!
//! - bills → none (its `raised` module: the consumers of energy's confirmed
//!   statements and vehicle's repair bills; its `rent` module: rent
//!   instalments of vehicle's usage records, by their events and a tick)
//! - orders → bills (an order's payment is its ORDER bill)
//! - monthly → bills (aggregations of the bills table by period and kind)
//! - dashboard → bills, monthly (the same aggregations over a range)
//! - coupons → bills, orders (the bills a coupon pays; its payment-side
//!   functions are what payments call)
//! - payments → bills, coupons, ledger (paying bills from the balance or the bank)
//! - refunds → bills, payments, ledger (money back for paid bills)
//! - invoice_titles, invoice_addresses → none (what applications name)
//! - invoices → bills, invoice_titles, invoice_addresses (applications
//!   against paid bills; its `issuing` worker)
//!
//! Shared pieces, each with one job, none using a subject:
//!
//! - `context`: what a request runs with — [`Actor`], [`Context`], and the
//!   service caller that names its enterprise.
//! - `codes`: stored codes (kit's `stored_code!`).
//! - `enterprise_rules`: which enterprises may make which calls (spec §6).
//! - [`calendar`]: the operator's calendar (Asia/Shanghai): bill months.
//! - `filters`: parsing of list filters (ids, codes, months, organisation
//!   subtrees).
//! - `files`: attachments between the wire and their jsonb column.
//! - [`exports`]: the export domain, queueing and cell labels.
//! - [`ledger`]: finance's accounts and transfers over `fleetdesk-ledger`.
//! - [`invoicing`]: the invoicing platform's client and the GB 32100 check.
//! - [`bank`]: the bank's merchant gateway client; `notify`, beside
//!   `grpc`, the endpoint its signed callbacks arrive at.

pub mod bank;
pub mod bills;
pub mod calendar;
mod codes;
mod context;
pub mod coupons;
pub mod dashboard;
mod enterprise_rules;
pub mod exports;
mod files;
mod filters;
mod grpc;
pub mod invoice_addresses;
pub mod invoice_titles;
pub mod invoices;
pub mod invoicing;
pub mod ledger;
pub mod monthly;
mod notify;
pub mod orders;
pub mod payments;
pub mod refunds;
mod startup;

pub use context::{Actor, Context};
pub use startup::{Application, Config, MIGRATOR, SCHEMA};
