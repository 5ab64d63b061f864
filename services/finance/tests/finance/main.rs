//! The finance service's tests over its real gRPC server, one module per
//! subject, in one binary (CONTRIBUTING §2): each file directly under `tests/`
//! would be a binary of its own, linked with the whole crate.

mod support;

mod bills;
mod coupons;
mod enterprise_rules;
mod exports;
mod invariants;
mod invoices;
mod invoicing_client;
mod orders;
mod payments;
mod raised;
mod refunds;
mod rent;
mod top_ups;
