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

    #[command(flatten)]
    pub customer_service: CustomerServiceConfig,
}

/// The customer-service line, e-mail, chat hours and chat channel that the
/// console's float and online customer page show (docs/console-spec.md §1: 08:00-22:00).
#[derive(Debug, Clone, clap::Args)]
pub struct CustomerServiceConfig {
    /// Customer-service hotline.
    #[arg(long, env = "FLEETDESK_SERVICE_PHONE", default_value = "400-820-8820")]
    pub service_phone: String,

    /// Customer-service e-mail address.
    #[arg(
        long,
        env = "FLEETDESK_SERVICE_EMAIL",
        default_value = "kefu@fleetdesk.cn"
    )]
    pub service_email: String,

    /// When chat opens, HH:MM China time (Asia/Shanghai).
    #[arg(long, env = "FLEETDESK_SERVICE_OPEN_TIME", default_value = "08:00")]
    pub service_open_time: String,

    /// When chat closes, HH:MM China time (Asia/Shanghai).
    #[arg(long, env = "FLEETDESK_SERVICE_CLOSE_TIME", default_value = "22:00")]
    pub service_close_time: String,

    /// Link of the chat channel (e.g. a WeCom customer-service link); empty hides chat.
    #[arg(long, env = "FLEETDESK_SERVICE_CHAT_URL", default_value = "")]
    pub service_chat_url: String,
}

impl Default for CustomerServiceConfig {
    /// The same values as the command-line defaults (for stacks built in code).
    fn default() -> Self {
        CustomerServiceConfig {
            service_phone: "400-820-8820".to_owned(),
            service_email: "kefu@fleetdesk.cn".to_owned(),
            service_open_time: "08:00".to_owned(),
            service_close_time: "22:00".to_owned(),
            service_chat_url: String::new(),
        }
    }
}
