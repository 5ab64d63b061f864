//! The whole stack in one process against real PostgreSQL and NATS:
//! services over loopback gRPC, the gateway over real HTTP.

mod enterprises;
mod helpers;
mod isolation;
mod lockout;
mod login_log;
mod password;
mod production;
mod reflection;
mod sessions;
mod sign_in;
mod sms;
mod wecom;
