//! The simulator's tests: its terminals against a real edge, one module per
//! subject, in one binary (CONTRIBUTING §2): each file directly under `tests/`
//! would be a binary of its own, linked with the whole crate.

mod simulator;
mod video;
