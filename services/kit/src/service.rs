//! What every service process has: a listener, a pool on its own schema, a
//! NATS connection and its outbox relay, and a gRPC server behind the
//! internal-token check.

use sqlx::migrate::Migrator;
use sqlx_postgres::PgPool;
use tokio::net::TcpListener;

use crate::config::ServiceConfig;
use crate::events::{self, OutboxRelay};
use crate::export::{ExportJobApi, ExportWorker};
use crate::files::FileStore;
use crate::internal_token::TokenVerifier;
use crate::retention::{self, RetentionJob};
use crate::{Shutdown, db, grpc};
use fleetdesk_proto::common::v1::export_job_service_server::ExportJobServiceServer;

/// A service's database schema and migrations.
#[derive(Debug, Clone, Copy)]
pub struct Schema {
    pub name: &'static str,
    pub migrator: &'static Migrator,
    /// Keeps a replica of org's organisation tree for data scope
    /// ([`crate::reach`]); its migrations are applied with the service's.
    pub replicates_org: bool,
}

impl Schema {
    /// Applies the kit's, the replica's (when kept) and the service's migrations.
    pub async fn migrate(&self, pool: &PgPool) -> anyhow::Result<()> {
        db::migrate_with(pool, self.migrator, self.replicates_org).await
    }
}

/// A built service: listening and connected, not yet serving.
pub struct Runtime {
    pub listener: TcpListener,
    pub pool: PgPool,
    pub nats: async_nats::Client,
    pub verifier: TokenVerifier,
    /// The object store, for the files the service writes (exports).
    pub files: FileStore,
    /// How long kit's growing tables keep rows ([`retention`]).
    retention: retention::Periods,
    /// The service's own growing tables, pruned beside kit's.
    prunings: Vec<retention::Pruning>,
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
        // A period that undercuts a guarantee stops the start, not a later round.
        let retention = retention::RetentionConfig::from_env()?;
        if config.migrate_on_start {
            let owner = db::connect_owner(&config.common.database_url, schema.name, 1).await?;
            schema.migrate(&owner).await?;
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
        let files = FileStore::local(&config.object_store_dir).map_err(|e| {
            anyhow::anyhow!("object store {}: {e}", config.object_store_dir.display())
        })?;
        Ok(Runtime {
            listener,
            pool,
            nats,
            verifier,
            files,
            retention,
            prunings: Vec::new(),
            name: schema.name,
        })
    }

    /// Prunes a table of the service's own in each retention round.
    pub fn prune_also(&mut self, pruning: retention::Pruning) {
        self.prunings.push(pruning);
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
        self.run_all(grpc::Services::new(service), shutdown).await
    }

    /// [`Runtime::run_all`] for a service that exports lists: also runs its
    /// export worker and hosts the export jobs API (cancel, retry).
    pub async fn run_with_exports(
        self,
        services: grpc::Services,
        worker: ExportWorker,
        shutdown: Shutdown,
    ) -> anyhow::Result<()> {
        let api = ExportJobApi {
            pool: self.pool.clone(),
            files: self.files.clone(),
            domain: worker.domain(),
        };
        let exports = tonic::service::interceptor::InterceptedService::new(
            ExportJobServiceServer::new(api),
            grpc::Authenticator(self.verifier.clone()),
        );
        let jobs = tokio::spawn(worker.run(shutdown.clone()));
        let served = self.run_all(services.with(exports), shutdown).await;
        jobs.await.ok();
        served
    }

    /// Serves several gRPC services on the one listener, relays the outbox
    /// and prunes kit's tables hourly until shutdown.
    pub async fn run_all(self, services: grpc::Services, shutdown: Shutdown) -> anyhow::Result<()> {
        let relay = tokio::spawn(
            OutboxRelay::new(self.pool.clone(), events::jetstream(self.nats)).run(shutdown.clone()),
        );
        let job = self.prunings.iter().fold(
            RetentionJob::new(self.pool.clone(), self.files.clone(), self.retention),
            |job, pruning| job.also(*pruning),
        );
        let retention = tokio::spawn(job.run(shutdown.clone()));
        let services = services.needing(self.pool.clone());
        let served = grpc::serve_all(self.listener, services, shutdown).await;
        relay.await.ok();
        retention.await.ok();
        served
    }
}
