//! Settings of the auth service.

use fleetdesk_kit::config::ServiceConfig;
use secrecy::SecretString;

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

    #[command(flatten)]
    pub sms: SmsConfig,

    #[command(flatten)]
    pub wecom: WeComConfig,
}

/// SMS verification codes and how they are delivered.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SmsConfig {
    /// Key of the HMAC under which SMS codes are stored (any text, 32+ characters).
    /// Required in production; development makes a random one per process.
    #[arg(
        long = "sms-code-key",
        env = "FLEETDESK_SMS_CODE_KEY",
        hide_env_values = true
    )]
    pub code_key: Option<SecretString>,

    /// URL of the SMS provider: codes are POSTed there as JSON `{phone, text}`.
    /// Unset means the development sender, which only records messages in the
    /// database; production refuses to start without a provider.
    #[arg(long = "sms-provider-url", env = "FLEETDESK_SMS_PROVIDER_URL")]
    pub provider_url: Option<String>,

    /// API key for the SMS provider, sent as `Authorization: Bearer`.
    #[arg(
        long = "sms-provider-key",
        env = "FLEETDESK_SMS_PROVIDER_KEY",
        hide_env_values = true
    )]
    pub provider_key: Option<SecretString>,
}

/// WeCom's public API base.
pub const WECOM_API_BASE: &str = "https://qyapi.weixin.qq.com";
/// WeCom's QR sign-in page.
pub const WECOM_QR_CONNECT_URL: &str = "https://open.work.weixin.qq.com/wwopen/sso/qrConnect";

/// WeCom (企业微信) QR sign-in through a self-built app of one corp.
#[derive(Debug, Clone, clap::Args)]
pub struct WeComConfig {
    /// The corp id, shown to the QR frame as `appid`. Unset turns WeCom sign-in off.
    #[arg(long = "wecom-corp-id", env = "FLEETDESK_WECOM_CORP_ID")]
    pub corp_id: Option<String>,

    /// Secret of the app, for `gettoken`. Required with a corp id.
    #[arg(
        long = "wecom-secret",
        env = "FLEETDESK_WECOM_SECRET",
        hide_env_values = true
    )]
    pub secret: Option<SecretString>,

    /// Agent id of the app, shown to the QR frame as `agentid`.
    #[arg(
        long = "wecom-agent-id",
        env = "FLEETDESK_WECOM_AGENT_ID",
        default_value = ""
    )]
    pub agent_id: String,

    /// Base URL of WeCom's server API (`/cgi-bin/gettoken`, `/cgi-bin/auth/getuserinfo`).
    #[arg(long = "wecom-api-base", env = "FLEETDESK_WECOM_API_BASE", default_value = WECOM_API_BASE)]
    pub api_base: String,

    /// Where WeCom sends the browser back with `?code=&state=` (the console's
    /// /login). Required with a corp id.
    #[arg(long = "wecom-redirect-uri", env = "FLEETDESK_WECOM_REDIRECT_URI")]
    pub redirect_uri: Option<String>,

    /// The QR frame page the console embeds.
    #[arg(long = "wecom-qr-url", env = "FLEETDESK_WECOM_QR_URL", default_value = WECOM_QR_CONNECT_URL)]
    pub qr_connect_url: String,
}

impl Default for WeComConfig {
    fn default() -> Self {
        WeComConfig {
            corp_id: None,
            secret: None,
            agent_id: String::new(),
            api_base: WECOM_API_BASE.to_owned(),
            redirect_uri: None,
            qr_connect_url: WECOM_QR_CONNECT_URL.to_owned(),
        }
    }
}
