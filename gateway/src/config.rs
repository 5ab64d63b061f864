//! Settings of the gateway.

use fleetdesk_kit::config::CommonConfig;

use crate::policy::{EdgeSettings, WECOM_QR_CONNECT_URL};

#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    #[command(flatten)]
    pub common: CommonConfig,

    /// Address the HTTP server listens on.
    #[arg(long, env = "FLEETDESK_HTTP_ADDR", default_value = "0.0.0.0:8080")]
    pub http_addr: String,

    /// gRPC URL of the auth service.
    #[arg(
        long,
        env = "FLEETDESK_AUTH_URL",
        default_value = "http://127.0.0.1:50051"
    )]
    pub auth_url: String,
    /// gRPC URL of the org service.
    #[arg(
        long,
        env = "FLEETDESK_ORG_URL",
        default_value = "http://127.0.0.1:50052"
    )]
    pub org_url: String,
    /// gRPC URL of the vehicle service.
    #[arg(
        long,
        env = "FLEETDESK_VEHICLE_URL",
        default_value = "http://127.0.0.1:50053"
    )]
    pub vehicle_url: String,
    /// gRPC URL of the energy service.
    #[arg(
        long,
        env = "FLEETDESK_ENERGY_URL",
        default_value = "http://127.0.0.1:50054"
    )]
    pub energy_url: String,
    /// gRPC URL of the finance service.
    #[arg(
        long,
        env = "FLEETDESK_FINANCE_URL",
        default_value = "http://127.0.0.1:50055"
    )]
    pub finance_url: String,
    /// gRPC URL of the device edge (telematics: MediaService, the vehicles'
    /// video).
    #[arg(
        long,
        env = "FLEETDESK_TELEMATICS_URL",
        default_value = "http://127.0.0.1:50051"
    )]
    pub telematics_url: String,

    /// Directory of the built console, served with SPA fallback when present.
    #[arg(long, env = "FLEETDESK_CONSOLE_DIR")]
    pub console_dir: Option<std::path::PathBuf>,

    /// Largest request body accepted, in bytes.
    #[arg(long, env = "FLEETDESK_BODY_LIMIT", default_value_t = 2 * 1024 * 1024)]
    pub body_limit: usize,

    /// Seconds a resolved session is reused before asking auth again.
    /// Logout and password change evict it at once through NATS.
    #[arg(long, env = "FLEETDESK_SESSION_CACHE_SECS", default_value_t = 10)]
    pub session_cache_secs: u64,

    /// Take the client address from X-Forwarded-For and the scheme from
    /// X-Forwarded-Proto (only behind a trusted proxy; HSTS is sent when that
    /// proxy says the request came over TLS).
    #[arg(long, env = "FLEETDESK_TRUST_FORWARDED_FOR", default_value_t = false)]
    pub trust_forwarded_for: bool,

    /// Directory of the object store (uploads, exports, statements).
    #[arg(
        long,
        env = "FLEETDESK_OBJECT_STORE_DIR",
        default_value = ".data/objects"
    )]
    pub object_store_dir: std::path::PathBuf,

    /// WeCom's QR sign-in page (the same setting auth reads): the login page
    /// frames it, so the Content-Security-Policy allows its origin.
    #[arg(long = "wecom-qr-url", env = "FLEETDESK_WECOM_QR_URL", default_value = WECOM_QR_CONNECT_URL)]
    pub wecom_qr_url: String,

    #[command(flatten)]
    pub edge: EdgeSettings,
}
