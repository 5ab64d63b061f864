//! Settings of the org service.

use fleetdesk_kit::config::ServiceConfig;

#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    #[command(flatten)]
    pub service: ServiceConfig,

    /// gRPC URL of the auth service (creating sign-in accounts for new users).
    #[arg(
        long,
        env = "FLEETDESK_AUTH_URL",
        default_value = "http://127.0.0.1:50051"
    )]
    pub auth_url: String,
}
