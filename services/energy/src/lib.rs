//! The energy service. Its contract (`fleetdesk.energy.v1.EnergyService`) is complete;
//! RPCs answer UNIMPLEMENTED until the domain's issue builds them, so the
//! gateway and reflection already see the whole surface.

mod codes;
pub mod ledger;

use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::energy::v1::energy_service_server::{EnergyService, EnergyServiceServer};
use sqlx::migrate::Migrator;

pub use fleetdesk_kit::config::ServiceConfig as Config;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "energy",
    migrator: &MIGRATOR,
    replicates_org: false,
};

#[derive(Debug, Clone)]
struct EnergyApi;

impl EnergyService for EnergyApi {}

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
        let service = EnergyServiceServer::with_interceptor(
            EnergyApi,
            grpc::authenticate(self.runtime.verifier.clone()),
        );
        self.runtime.run(service, shutdown).await
    }
}
