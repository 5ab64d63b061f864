//! The whole stack in one process against real PostgreSQL and NATS:
//! services over loopback gRPC, the gateway over real HTTP.

mod helpers;
mod isolation;
mod reflection;
mod sessions;
mod sign_in;
