//! The demo data's tests: each seed run on a fresh database, one module per
//! subject, in one binary (CONTRIBUTING §2): each file directly under `tests/`
//! would be a binary of its own, linked with the whole crate.

mod drivers;
mod energy;
mod finance;
mod finance_rent;
mod history;
mod inspections;
mod telemetry;
