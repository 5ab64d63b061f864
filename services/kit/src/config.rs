//! Configuration every target shares. Each field reads an environment
//! variable, so `fleetdesk <target> --help` is the reference and no file is needed.

use crate::internal_token::TokenSigner;

/// Which kind of deployment this is; production refuses development shortcuts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Environment {
    Development,
    Production,
}

/// Settings shared by every service and the gateway.
#[derive(Debug, Clone, clap::Args)]
pub struct CommonConfig {
    /// PostgreSQL connection URL; each service uses its own schema in it.
    #[arg(
        long,
        env = "DATABASE_URL",
        default_value = "postgres://postgres@127.0.0.1:5432/fleetdesk"
    )]
    pub database_url: String,

    /// NATS server URL (JetStream enabled).
    #[arg(long, env = "NATS_URL", default_value = "nats://127.0.0.1:4222")]
    pub nats_url: String,

    /// Base64 of the 32-byte Ed25519 seed that signs internal access tokens.
    /// Required in production; a development run without it makes a random one.
    #[arg(long, env = "FLEETDESK_INTERNAL_SIGNING_KEY", hide_env_values = true)]
    pub internal_signing_key: Option<String>,

    /// development or production.
    #[arg(long, env = "FLEETDESK_ENV", value_enum, default_value = "development")]
    pub environment: Environment,

    /// Most connections one target keeps to PostgreSQL.
    #[arg(long, env = "FLEETDESK_DB_MAX_CONNECTIONS", default_value_t = 10)]
    pub db_max_connections: u32,
}

impl CommonConfig {
    /// The token signer, or an error when production has no key.
    pub fn signer(&self) -> anyhow::Result<TokenSigner> {
        match (&self.internal_signing_key, self.environment) {
            (Some(seed), _) => TokenSigner::from_base64_seed(seed)
                .map_err(|e| anyhow::anyhow!("FLEETDESK_INTERNAL_SIGNING_KEY: {e}")),
            (None, Environment::Production) => {
                anyhow::bail!("FLEETDESK_INTERNAL_SIGNING_KEY is required in production")
            }
            (None, Environment::Development) => {
                tracing::warn!("No internal signing key set; using a random one for this process.");
                Ok(TokenSigner::generate())
            }
        }
    }
}

/// Settings of a gRPC service target.
#[derive(Debug, Clone, clap::Args)]
pub struct ServiceConfig {
    #[command(flatten)]
    pub common: CommonConfig,

    /// Address the gRPC server listens on.
    #[arg(long, env = "FLEETDESK_GRPC_ADDR", default_value = "0.0.0.0:50051")]
    pub grpc_addr: String,

    /// Apply migrations at start-up (development convenience; `fleetdesk migrate` otherwise).
    #[arg(long, env = "FLEETDESK_MIGRATE_ON_START", default_value_t = false)]
    pub migrate_on_start: bool,

    /// Directory of the object store (export files), the gateway's too.
    #[arg(
        long,
        env = "FLEETDESK_OBJECT_STORE_DIR",
        default_value = ".data/objects"
    )]
    pub object_store_dir: std::path::PathBuf,
}

/// Settings of a domain service target: a gRPC service that also keeps a
/// replica of org's organisation tree (data scope).
#[derive(Debug, Clone, clap::Args)]
pub struct DomainServiceConfig {
    #[command(flatten)]
    pub service: ServiceConfig,

    /// gRPC URL of the org service (its organisation snapshot).
    #[arg(
        long,
        env = "FLEETDESK_ORG_URL",
        default_value = "http://127.0.0.1:50052"
    )]
    pub org_url: String,
}
