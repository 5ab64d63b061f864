//! Building and running the auth service.

use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::auth::v1::auth_service_server::AuthServiceServer;
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use sqlx::migrate::Migrator;

use crate::Config;
use crate::credentials::PasswordHasher;
use crate::grpc::AuthApi;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "auth",
    migrator: &MIGRATOR,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
    api: AuthApi,
}

impl Application {
    pub async fn build(config: Config, signer: TokenSigner) -> anyhow::Result<Application> {
        let runtime = Runtime::build(&config.service, SCHEMA, signer.verifier()).await?;
        let api = AuthApi {
            pool: runtime.pool.clone(),
            hasher: PasswordHasher::new(),
            org: OrgServiceClient::new(grpc::lazy_channel(&config.org_url)?),
            signer,
            session_days: config.session_days,
        };
        Ok(Application { runtime, api })
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let service = AuthServiceServer::with_interceptor(
            self.api,
            grpc::authenticate(self.runtime.verifier.clone()),
        );
        self.runtime.run(service, shutdown).await
    }
}
