//! Wiring of the `fleetdesk` binary's targets, shared with the stack tests.

use std::net::SocketAddr;

use anyhow::Context as _;
use fleetdesk_kit::config::{CommonConfig, ServiceConfig};
use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::{Shutdown, db};
use tokio::task::JoinSet;

/// Every service schema, in migration order.
pub const SCHEMAS: [fleetdesk_kit::service::Schema; 5] = [
    fleetdesk_auth::SCHEMA,
    fleetdesk_org::SCHEMA,
    fleetdesk_vehicle::SCHEMA,
    fleetdesk_energy::SCHEMA,
    fleetdesk_finance::SCHEMA,
];

/// Creates the database if needed and applies every service's migrations.
pub async fn migrate(common: &CommonConfig) -> anyhow::Result<()> {
    db::ensure_database(&common.database_url).await?;
    for schema in SCHEMAS {
        let pool = db::connect(&common.database_url, schema.name, 2).await?;
        db::migrate(&pool, schema.migrator)
            .await
            .with_context(|| format!("migrate {}", schema.name))?;
        pool.close().await;
        tracing::info!(schema = schema.name, "Migrations applied.");
    }
    Ok(())
}

/// Loads the demo data (idempotent).
pub async fn seed(common: &CommonConfig) -> anyhow::Result<()> {
    let auth = db::connect(&common.database_url, fleetdesk_auth::SCHEMA.name, 2).await?;
    fleetdesk_auth::seed::run(&auth)
        .await
        .context("seed auth")?;
    let org = db::connect(&common.database_url, fleetdesk_org::SCHEMA.name, 2).await?;
    fleetdesk_org::seed::run(&org).await.context("seed org")?;
    tracing::info!("Demo data loaded.");
    Ok(())
}

/// A running all-in-one stack: every service on a loopback port, the gateway in front.
#[derive(Debug)]
pub struct Stack {
    pub http_addr: SocketAddr,
    pub grpc_ports: Vec<(&'static str, u16)>,
    tasks: JoinSet<anyhow::Result<()>>,
}

impl Stack {
    /// Starts every service (gRPC on 127.0.0.1, random ports) and the gateway
    /// on `http_addr`, all sharing one signing key.
    pub async fn start(
        common: CommonConfig,
        http_addr: &str,
        console_dir: Option<std::path::PathBuf>,
        shutdown: Shutdown,
    ) -> anyhow::Result<Stack> {
        let signer: TokenSigner = common.signer()?;
        let service_config = |common: &CommonConfig| ServiceConfig {
            common: common.clone(),
            grpc_addr: "127.0.0.1:0".to_owned(),
            migrate_on_start: false,
        };
        let org =
            fleetdesk_org::Application::build(service_config(&common), signer.verifier()).await?;
        let org_url = format!("http://127.0.0.1:{}", org.port());
        let auth = fleetdesk_auth::Application::build(
            fleetdesk_auth::Config {
                service: service_config(&common),
                org_url: org_url.clone(),
                session_days: 30,
            },
            signer.clone(),
        )
        .await?;
        let vehicle =
            fleetdesk_vehicle::Application::build(service_config(&common), signer.verifier())
                .await?;
        let energy =
            fleetdesk_energy::Application::build(service_config(&common), signer.verifier())
                .await?;
        let finance =
            fleetdesk_finance::Application::build(service_config(&common), signer.verifier())
                .await?;
        let url = |port: u16| format!("http://127.0.0.1:{port}");
        let grpc_ports = vec![
            ("auth", auth.port()),
            ("org", org.port()),
            ("vehicle", vehicle.port()),
            ("energy", energy.port()),
            ("finance", finance.port()),
        ];
        let gateway = fleetdesk_gateway::Application::build(
            fleetdesk_gateway::Config {
                common: common.clone(),
                http_addr: http_addr.to_owned(),
                auth_url: url(auth.port()),
                org_url,
                vehicle_url: url(vehicle.port()),
                energy_url: url(energy.port()),
                finance_url: url(finance.port()),
                console_dir,
                body_limit: 2 * 1024 * 1024,
                session_cache_secs: 10,
                trust_forwarded_for: false,
            },
            signer,
        )
        .await?;
        let http_addr = SocketAddr::from(([127, 0, 0, 1], gateway.port()));

        let mut tasks = JoinSet::new();
        tasks.spawn(org.run_until_stopped(shutdown.clone()));
        tasks.spawn(auth.run_until_stopped(shutdown.clone()));
        tasks.spawn(vehicle.run_until_stopped(shutdown.clone()));
        tasks.spawn(energy.run_until_stopped(shutdown.clone()));
        tasks.spawn(finance.run_until_stopped(shutdown.clone()));
        tasks.spawn(gateway.run_until_stopped(shutdown));
        Ok(Stack {
            http_addr,
            grpc_ports,
            tasks,
        })
    }

    /// Waits for every part to stop; the first failure stops the rest.
    pub async fn wait(mut self, shutdown: Shutdown) -> anyhow::Result<()> {
        let mut first_error = None;
        while let Some(joined) = self.tasks.join_next().await {
            let result = joined.map_err(anyhow::Error::from).and_then(|r| r);
            if let Err(err) = result {
                tracing::error!(error = %format!("{err:#}"), "A component failed; stopping.");
                shutdown.trigger();
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
