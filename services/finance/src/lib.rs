//! The finance service. Its contract (`fleetdesk.finance.v1.FinanceService`) is
//! complete; until the domain's issue builds it, every RPC is listed in
//! [`not_built`] and answers UNIMPLEMENTED with its name, so the gateway and
//! reflection already see the whole surface.

mod not_built;

use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::finance::v1::finance_service_server::FinanceServiceServer;
use sqlx::migrate::Migrator;

pub use fleetdesk_kit::config::ServiceConfig as Config;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "finance",
    migrator: &MIGRATOR,
    replicates_org: false,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
}

impl Application {
    pub async fn build(config: Config, verifier: TokenVerifier) -> anyhow::Result<Application> {
        Ok(Application {
            runtime: Runtime::build(&config, SCHEMA, verifier).await?,
        })
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let service = FinanceServiceServer::with_interceptor(
            not_built::NotBuilt,
            grpc::authenticate(self.runtime.verifier.clone()),
        );
        self.runtime.run(service, shutdown).await
    }
}
