//! The ledger's tests: its schema and its books, one module per subject, in one
//! binary (CONTRIBUTING §2): each file directly under `tests/` would be a
//! binary of its own, linked with the whole crate.

mod books;
mod schemas;
