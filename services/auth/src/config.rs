//! Settings of the auth service.

use fleetdesk_kit::config::ServiceConfig;

#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    #[command(flatten)]
    pub service: ServiceConfig,

    /// gRPC URL of the org service (memberships).
    #[arg(
        long,
        env = "FLEETDESK_ORG_URL",
        default_value = "http://127.0.0.1:50052"
    )]
    pub org_url: String,

    /// Days a session token stays valid.
    #[arg(long, env = "FLEETDESK_SESSION_DAYS", default_value_t = 30)]
    pub session_days: i64,
}
