//! The organisation service's tests over its real gRPC server, one module per
//! subject, in one binary (CONTRIBUTING §2): each file directly under `tests/`
//! would be a binary of its own, linked with the whole crate.

mod support;

mod builtin_admin;
mod charging_flags;
mod data_scope;
mod org_settings;
mod reach_replica;
mod shared_lookups;
mod workflow_events;
