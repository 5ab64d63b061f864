//! Sessions: opening one after a sign-in, choosing an enterprise, ending one
//! or all of an account's. Every ended session is announced through the
//! outbox, so every gateway drops it from its cache within a second.

pub mod convert;
pub mod domain;
pub mod handlers;
pub mod store;
