//! The energy service's tests over its real gRPC server and ledger, one module
//! per subject, in one binary (CONTRIBUTING §2): each file directly under
//! `tests/` would be a binary of its own, linked with the whole crate.

mod support;

mod allocations;
mod cards;
mod grouped_captures;
mod grouped_settlements;
mod ledger;
mod ocpi_credentials;
mod ocpi_objects;
mod opening;
mod reports;
mod sessions;
mod statements;
mod top_ups;
