//! Building and running the org service.

use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::auth::v1::auth_service_client::AuthServiceClient;
use fleetdesk_proto::org::v1::org_service_server::OrgServiceServer;
use sqlx::migrate::Migrator;

use crate::grpc::OrgApi;
use crate::users::AuthLink;
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
    auth: AuthLink,
}

impl Application {
    pub async fn build(config: Config, signer: TokenSigner) -> anyhow::Result<Application> {
        let runtime = Runtime::build(&config.service, SCHEMA, signer.verifier()).await?;
        catalogue::sync(&runtime.pool).await?;
        let auth = AuthLink {
            client: AuthServiceClient::new(grpc::lazy_channel(&config.auth_url)?),
            signer,
        };
        Ok(Application { runtime, auth })
    }

    /// Points account creation at auth's gRPC URL (for stacks that learn it
    /// only after building org).
    pub fn use_auth(&mut self, url: &str) -> anyhow::Result<()> {
        self.auth.client = AuthServiceClient::new(grpc::lazy_channel(url)?);
        Ok(())
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let api = OrgApi {
            pool: self.runtime.pool.clone(),
            auth: self.auth,
        };
        let service = OrgServiceServer::with_interceptor(
            api,
            grpc::authenticate(self.runtime.verifier.clone()),
        );
        self.runtime.run(service, shutdown).await
    }
}
