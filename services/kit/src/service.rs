//! What every service process has: a listener, a pool on its own schema, a
//! NATS connection and its outbox relay, and a gRPC server behind the
//! internal-token check.

use sqlx::PgPool;
use sqlx::migrate::Migrator;
use tokio::net::TcpListener;

use crate::config::ServiceConfig;
use crate::events::{self, OutboxRelay};
use crate::internal_token::TokenVerifier;
use crate::{Shutdown, db, grpc};

/// A service's database schema and migrations.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    pub name: &'static str,
    pub migrator: &'static Migrator,
}

/// A built service: listening and connected, not yet serving.
pub struct Runtime {
    pub listener: TcpListener,
    pub pool: PgPool,
    pub nats: async_nats::Client,
    pub verifier: TokenVerifier,
    name: &'static str,
}

impl std::fmt::Debug for Runtime {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Runtime")
            .field("name", &self.name)
            .finish_non_exhaustive()
    }
}

impl Runtime {
    pub async fn build(
        config: &ServiceConfig,
        schema: Schema,
        verifier: TokenVerifier,
    ) -> anyhow::Result<Runtime> {
        if config.migrate_on_start {
            let owner = db::connect_owner(&config.common.database_url, schema.name, 1).await?;
            db::migrate(&owner, schema.migrator).await?;
            owner.close().await;
        }
        let pool = db::connect(
            &config.common.database_url,
            schema.name,
            config.common.db_max_connections,
        )
        .await?;
        let nats = events::connect_nats(
            &config.common.nats_url,
            &format!("fleetdesk-{}", schema.name),
        )
        .await?;
        let listener = TcpListener::bind(&config.grpc_addr).await?;
        Ok(Runtime {
            listener,
            pool,
            nats,
            verifier,
            name: schema.name,
        })
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Serves `service` (already wrapped in [`grpc::authenticate`]) and relays
    /// the outbox until shutdown.
    pub async fn run<S: grpc::GrpcService>(
        self,
        service: S,
        shutdown: Shutdown,
    ) -> anyhow::Result<()> {
        let relay = tokio::spawn(
            OutboxRelay::new(self.pool.clone(), events::jetstream(self.nats)).run(shutdown.clone()),
        );
        let served = grpc::serve(self.listener, service, shutdown).await;
        relay.await.ok();
        served
    }
}
