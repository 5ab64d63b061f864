//! Start-up: the kit runtime (pool, NATS, listener, outbox relay) serving
//! EnergyService with the export worker (every subject's export kind) and
//! the export jobs API, and the
//! org_unit replica that data scope (kit::reach) and the account tree read;
//! with a charging platform configured, the OCPI side (receiver, station
//! sync, sweeper) beside it; the month-end statement job; and the daily
//! proof of the ledger's invariants (`fleetdesk_ledger::run_daily`); and
//! the consumer of top-ups paid in finance (`top_ups`).

use fleetdesk_kit::export::ExportWorker;
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::internal_token::{TokenSigner, TokenVerifier};
use fleetdesk_kit::org_replica::OrgReplica;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, events, grpc as kit_grpc};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use secrecy::{ExposeSecret as _, SecretString};
use sqlx::migrate::Migrator;
use sqlx_postgres::PgPool;

use crate::context::Context;
use crate::telemetry::Distances;
use crate::{
    accounts, allocations, analysis, card_changes, cards, exports, grpc, opening, plate_scans,
    sessions, statements, top_ups, vehicles,
};

pub use fleetdesk_kit::config::ServiceConfig as Config;

/// Settings of the energy target: a domain service (org replica) that also
/// reads the vehicles and drivers cards are bound to.
#[derive(Debug, Clone, clap::Args)]
pub struct TargetConfig {
    #[command(flatten)]
    pub domain: fleetdesk_kit::config::DomainServiceConfig,

    /// gRPC URL of the vehicle service (vehicles and drivers of cards).
    #[arg(
        long,
        env = "FLEETDESK_VEHICLE_URL",
        default_value = "http://127.0.0.1:50053"
    )]
    pub vehicle_url: String,

    #[command(flatten)]
    pub ocpi: crate::ocpi::OcpiConfig,
}

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "energy",
    migrator: &MIGRATOR,
    replicates_org: true,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
    /// Org's address and this service's signer, for the org_unit replica
    /// and enterprise names.
    org: Option<(OrgServiceClient<tonic::transport::Channel>, TokenSigner)>,
    /// The vehicle service, for the vehicles and drivers cards are bound to.
    vehicles: Option<vehicles::Vehicles>,
    /// The vehicle service's telemetry (the analysis' kilometres).
    distances: Option<Distances>,
    /// The charging platform's side (OCPI), when one is configured.
    ocpi: Option<crate::ocpi::Ocpi>,
    /// Top-ups paid in finance, consumed from build on so none is missed.
    top_ups: events::Consumer<top_ups::PaidTopUps>,
    /// For the OCPI side's own pool (its capture group); secret, as it may
    /// carry the password.
    database_url: SecretString,
}

impl Application {
    pub async fn build(config: Config, verifier: TokenVerifier) -> anyhow::Result<Application> {
        let runtime = Runtime::build(&config, SCHEMA, verifier).await?;
        let top_ups = top_ups::consumer(runtime.pool.clone(), runtime.nats.clone()).await?;
        if let Err(err) = top_ups.ensure().await {
            tracing::warn!(consumer = top_ups::CONSUMER, error = %format!("{err:#}"), "Consumer not ready yet.");
        }
        Ok(Application {
            runtime,
            org: None,
            vehicles: None,
            distances: None,
            ocpi: None,
            top_ups,
            database_url: config.common.database_url.clone().into(),
        })
    }

    /// Keeps the org_unit replica (data scope, the account tree) from org at `org_url`.
    pub fn follow_org(&mut self, org_url: &str, signer: TokenSigner) -> anyhow::Result<()> {
        let client = OrgServiceClient::new(kit_grpc::lazy_channel(org_url)?);
        self.org = Some((client, signer));
        Ok(())
    }

    /// Looks up the vehicles and drivers cards are bound to, and the
    /// distances vehicles drove, at `vehicle_url`.
    pub fn use_vehicles(&mut self, vehicle_url: &str, signer: TokenSigner) -> anyhow::Result<()> {
        self.distances = Some(Distances::new(vehicle_url, signer.clone())?);
        self.vehicles = Some(vehicles::Vehicles::new(vehicle_url, signer)?);
        Ok(())
    }

    /// Meets the charging platform over OCPI: binds the receiver (its port
    /// answered; None when no platform is configured).
    pub async fn serve_ocpi(
        &mut self,
        config: &crate::ocpi::OcpiConfig,
    ) -> anyhow::Result<Option<u16>> {
        self.ocpi = crate::ocpi::Ocpi::bind(config, self.database_url.expose_secret()).await?;
        Ok(self.ocpi.as_ref().map(crate::ocpi::Ocpi::port))
    }

    pub fn port(&self) -> u16 {
        self.runtime.port()
    }

    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let replica = self.org.clone().map(|(org, signer)| {
            OrgReplica::spawn(
                self.runtime.pool.clone(),
                self.runtime.nats.clone(),
                org,
                signer,
                SCHEMA.name,
                shutdown.clone(),
            )
        });
        let context = Context {
            pool: self.runtime.pool.clone(),
            org: self.org,
            vehicles: self.vehicles,
            distances: self.distances.clone(),
            files: self.runtime.files.clone(),
        };
        let statements = tokio::spawn(statements::job::run(
            self.runtime.pool.clone(),
            self.runtime.files.clone(),
            shutdown.clone(),
        ));
        let ledger_check = tokio::spawn(fleetdesk_ledger::run_daily(
            self.runtime.pool.clone(),
            SCHEMA.name,
            shutdown.clone(),
        ));
        let top_ups = tokio::spawn(self.top_ups.run(shutdown.clone()));
        let ocpi = self
            .ocpi
            .map(|o| tokio::spawn(o.run(self.runtime.pool.clone(), shutdown.clone())));
        let services = grpc::services(context, self.runtime.verifier.clone());
        let worker = export_worker(
            self.runtime.pool.clone(),
            self.runtime.files.clone(),
            self.distances,
        );
        let served = self
            .runtime
            .run_with_exports(services, worker, shutdown)
            .await;
        if let Some(replica) = replica {
            replica.await.ok();
        }
        statements.await.ok();
        ledger_check.await.ok();
        top_ups.await.ok();
        if let Some(ocpi) = ocpi {
            ocpi.await??;
        }
        served
    }
}

/// The worker that runs every export kind of this service (`distances`:
/// the kilometres of the behaviour export).
fn export_worker(pool: PgPool, files: FileStore, distances: Option<Distances>) -> ExportWorker {
    ExportWorker::new(pool, files, exports::DOMAIN)
        .kind(opening::export::KIND, opening::export::ApplicationsExport)
        .kind(accounts::export::KIND, accounts::export::AccountsExport)
        .kind(
            allocations::export::KIND,
            allocations::export::AllocationsExport,
        )
        .kind(cards::export::KIND, cards::export::CardsExport)
        .kind(
            card_changes::export::KIND,
            card_changes::export::ChangesExport,
        )
        .kind(sessions::export::KIND, sessions::export::SessionsExport)
        .kind(plate_scans::export::KIND, plate_scans::export::ScansExport)
        .kind(
            statements::export::KIND,
            statements::export::StatementsExport,
        )
        .kind(
            analysis::export::KIND,
            analysis::export::BehaviorsExport { distances },
        )
}
