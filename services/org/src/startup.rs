//! Building and running the org service.

use fleetdesk_kit::events;
use fleetdesk_kit::export::ExportWorker;
use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, grpc};
use fleetdesk_proto::auth::v1::auth_service_client::AuthServiceClient;
use sqlx::migrate::Migrator;

use crate::auth_link::AuthLink;
use crate::config::CustomerServiceConfig;
use crate::context::Context;
use crate::{Config, approvals, catalogue, charging, exports, users, workflow};

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "org",
    migrator: &MIGRATOR,
    replicates_org: false,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
    auth: AuthLink,
    customer_service: CustomerServiceConfig,
    /// Org's consumer of export events, created before serving.
    export_records: events::Consumer<exports::jobs::ExportRecords>,
    /// Org's consumer of energy's charging states (enterprise flags).
    charging_states: events::Consumer<charging::consumer::ChargingStates>,
    /// Org's consumers of other services' notice and approval requests.
    notice_requests: events::Consumer<workflow::notices::NoticeRequests>,
    approval_requests: events::Consumer<workflow::approvals::ApprovalRequests>,
}

impl Application {
    pub async fn build(config: Config, signer: TokenSigner) -> anyhow::Result<Application> {
        let mut runtime = Runtime::build(&config.service, SCHEMA, signer.verifier()).await?;
        runtime.prune_also(exports::store::RECORD_RETENTION);
        catalogue::sync(&runtime.pool).await?;
        let auth = AuthLink {
            client: AuthServiceClient::new(grpc::lazy_channel(&config.auth_url)?),
            signer,
        };
        let export_records =
            exports::jobs::consumer(runtime.pool.clone(), runtime.nats.clone()).await?;
        let charging_states =
            charging::consumer::consumer(runtime.pool.clone(), runtime.nats.clone()).await?;
        let notice_requests =
            workflow::notices::consumer(runtime.pool.clone(), runtime.nats.clone()).await?;
        let approval_requests =
            workflow::approvals::consumer(runtime.pool.clone(), runtime.nats.clone()).await?;
        // Best effort: a NATS server not up yet is retried by the consumer's run.
        if let Err(err) = export_records.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Export records consumer not ready yet.");
        }
        if let Err(err) = charging_states.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Charging states consumer not ready yet.");
        }
        if let Err(err) = notice_requests.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Notice requests consumer not ready yet.");
        }
        if let Err(err) = approval_requests.ensure().await {
            tracing::warn!(error = %format!("{err:#}"), "Approval requests consumer not ready yet.");
        }
        Ok(Application {
            runtime,
            auth,
            customer_service: config.customer_service,
            export_records,
            charging_states,
            notice_requests,
            approval_requests,
        })
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
        let context = Context {
            pool: self.runtime.pool.clone(),
            auth: self.auth,
            customer_service: self.customer_service,
        };
        let services = crate::grpc::services(context, self.runtime.verifier.clone());
        // Each subject with an export registers its kind with org's worker.
        let worker = ExportWorker::new(
            self.runtime.pool.clone(),
            self.runtime.files.clone(),
            exports::DOMAIN,
        )
        .kind(users::export::KIND, users::export::UsersExport)
        .kind(approvals::export::KIND, approvals::export::ApprovalsExport);
        let records = tokio::spawn(self.export_records.run(shutdown.clone()));
        let charging_states = tokio::spawn(self.charging_states.run(shutdown.clone()));
        let notice_requests = tokio::spawn(self.notice_requests.run(shutdown.clone()));
        let approval_requests = tokio::spawn(self.approval_requests.run(shutdown.clone()));
        let served = self
            .runtime
            .run_with_exports(services, worker, shutdown)
            .await;
        records.await.ok();
        charging_states.await.ok();
        notice_requests.await.ok();
        approval_requests.await.ok();
        served
    }
}
