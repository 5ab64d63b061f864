//! Building and running the org service.

use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::org::v1::org_service_server::OrgServiceServer;
use sqlx::migrate::Migrator;

use crate::grpc::OrgApi;
use crate::{Config, catalogue};

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "org",
    migrator: &MIGRATOR,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
}

impl Application {
    pub async fn build(config: Config, verifier: TokenVerifier) -> anyhow::Result<Application> {
        let runtime = Runtime::build(&config, SCHEMA, verifier).await?;
        catalogue::sync(&runtime.pool).await?;
        Ok(Application { runtime })
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let api = OrgApi {
            pool: self.runtime.pool.clone(),
        };
        let service = OrgServiceServer::with_interceptor(
            api,
            grpc::authenticate(self.runtime.verifier.clone()),
        );
        self.runtime.run(service, shutdown).await
    }
}
