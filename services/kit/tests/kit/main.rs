//! The kit's tests on real PostgreSQL and NATS, one module per subject, in one
//! binary (CONTRIBUTING §2): each file directly under `tests/` would be a
//! binary of its own, linked with the whole crate.

mod export_support;

mod consumer;
mod export;
mod import;
mod late_consumer;
mod outbox;
mod pools;
mod pull;
mod reach;
mod retention;
mod tenancy;
mod wakeup;
