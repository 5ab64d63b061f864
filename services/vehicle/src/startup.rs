//! Start-up: the kit runtime (pool, NATS, listener, outbox relay) serving
//! every gRPC service of the vehicle target with the export worker and the
//! export jobs API (cancel, retry), and the org_unit replica that data scope
//! (kit::reach) and organisation names read; telemetry ingest (which
//! evaluates fences and temperatures too) with its partition job, and
//! lock-command results and sweeps; the risk records' daily warnings job;
//! the maintenance plans' daily job; the traffic violations' daily fetch
//! when an authority is configured; the consumer of org's approval
//! decisions about repair prices.

use fleetdesk_kit::internal_token::{TokenSigner, TokenVerifier};
use fleetdesk_kit::org_replica::OrgReplica;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc as kit_grpc};
use fleetdesk_maintenance::violations::authority::{Authority, AuthorityConfig};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use fleetdesk_telemetry::ingest::{self, Ingest};
use fleetdesk_telemetry::{lock, operation, positions};
use sqlx::migrate::Migrator;

use crate::{exports, grpc};

pub use fleetdesk_kit::config::ServiceConfig as Config;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "vehicle",
    migrator: &MIGRATOR,
    replicates_org: true,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
    /// Org's address and this service's signer, for the org_unit replica.
    org: Option<(OrgServiceClient<tonic::transport::Channel>, TokenSigner)>,
    /// The traffic authority the violation fetch job asks (none: no fetching).
    traffic: Option<Authority>,
}

impl Application {
    pub async fn build(config: Config, verifier: TokenVerifier) -> anyhow::Result<Application> {
        Ok(Application {
            runtime: Runtime::build(&config, SCHEMA, verifier).await?,
            org: None,
            traffic: None,
        })
    }

    /// Keeps the org_unit replica (data scope) from org at `org_url`.
    pub fn follow_org(&mut self, org_url: &str, signer: TokenSigner) -> anyhow::Result<()> {
        let client = OrgServiceClient::new(kit_grpc::lazy_channel(org_url)?);
        self.org = Some((client, signer));
        Ok(())
    }

    /// Fetches traffic violations daily from the authority `config` names.
    pub fn use_traffic_authority(&mut self, config: AuthorityConfig) -> anyhow::Result<()> {
        self.traffic = Some(Authority::new(config)?);
        Ok(())
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let replica = self.org.map(|(org, signer)| {
            OrgReplica::spawn(
                self.runtime.pool.clone(),
                self.runtime.nats.clone(),
                org,
                signer,
                SCHEMA.name,
                shutdown.clone(),
            )
        });
        let pool = self.runtime.pool.clone();
        let nats = self.runtime.nats.clone();
        let assets = fleetdesk_assets::context::Context {
            pool: pool.clone(),
            files: self.runtime.files.clone(),
        };
        let telemetry = fleetdesk_telemetry::context::Context {
            pool: pool.clone(),
            nats: nats.clone(),
            live: positions::live::Live::new(nats.clone(), pool.clone()),
        };
        // Telemetry: ingest (with fence and temperature evaluation), the
        // partition job, lock results and sweeps.
        let ingest = Ingest::new(pool.clone(), nats.clone()).await?;
        let results = lock::delivery::Results::new(pool.clone(), nats.clone()).await?;
        // Terminal photos and clips (the alarms' evidence).
        let media = fleetdesk_telemetry::media::Media::new(pool.clone(), nats.clone()).await?;
        if let Err(err) = ingest::drop_retired_consumers(&pool, nats.clone()).await {
            tracing::warn!(error = %format!("{err:#}"), "Retired telemetry consumers not dropped.");
        }
        // The operation log's charges: energy's settled sessions.
        let charges = operation::charging::consumer(pool.clone(), nats.clone()).await?;
        if let Err(err) = charges.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Settled sessions consumer not ready yet.");
        }
        // Org's approval decisions of repair prices.
        let repair_approvals =
            fleetdesk_maintenance::repairs::approval::consumer(pool.clone(), nats.clone()).await?;
        if let Err(err) = repair_approvals.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Repair approvals consumer not ready yet.");
        }
        // Warnings other domains ask for (vehicle management's due items).
        let warning_requests =
            fleetdesk_risk::warnings::requests::consumer(pool.clone(), nats.clone()).await?;
        if let Err(err) = warning_requests.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Warning requests consumer not ready yet.");
        }
        let risk = fleetdesk_risk::context::Context { pool: pool.clone() };
        let maintenance = fleetdesk_maintenance::context::Context {
            pool: pool.clone(),
            files: self.runtime.files.clone(),
        };
        let traffic = self.traffic.map(|authority| {
            tokio::spawn(fleetdesk_maintenance::violations::job::run(
                pool.clone(),
                authority,
                shutdown.clone(),
            ))
        });
        let background = [
            tokio::spawn(fleetdesk_risk::warnings::job::run(
                pool.clone(),
                shutdown.clone(),
            )),
            tokio::spawn(fleetdesk_maintenance::plans::job::run(
                pool.clone(),
                shutdown.clone(),
            )),
            tokio::spawn(fleetdesk_maintenance::due::run(
                pool.clone(),
                shutdown.clone(),
            )),
            tokio::spawn(warning_requests.run(shutdown.clone())),
            tokio::spawn(ingest.run(shutdown.clone())),
            tokio::spawn(fleetdesk_telemetry::alarms::offline::run(
                pool.clone(),
                shutdown.clone(),
            )),
            tokio::spawn(charges.run(shutdown.clone())),
            tokio::spawn(repair_approvals.run(shutdown.clone())),
            tokio::spawn(ingest::partitions::run(pool.clone(), shutdown.clone())),
            tokio::spawn(results.run(shutdown.clone())),
            tokio::spawn(media.run(shutdown.clone())),
            tokio::spawn(lock::delivery::run_sweeper(pool, nats, shutdown.clone())),
        ];
        let services = grpc::services(
            assets,
            telemetry,
            risk,
            maintenance,
            self.runtime.verifier.clone(),
        );
        let worker = exports::worker(self.runtime.pool.clone(), self.runtime.files.clone());
        let served = self
            .runtime
            .run_with_exports(services, worker, shutdown)
            .await;
        if let Some(replica) = replica {
            replica.await.ok();
        }
        for task in background.into_iter().chain(traffic) {
            task.await.ok();
        }
        served
    }
}
