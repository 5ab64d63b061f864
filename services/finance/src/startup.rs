//! Start-up: the kit runtime (pool, NATS, listener, outbox relay) serving
//! FinanceService with the export worker (every subject's export kind) and
//! the export jobs API; the consumers that raise bills from other domains'
//! events (made and ensured at build, so no event published after it is
//! missed) and the hourly tick raising rent instalments; when told where
//! org is, the org_unit replica that data
//! scope (kit::reach), organisation filters and names read; when told of a
//! bank ([`Application::use_bank`]), the endpoint its callbacks arrive at;
//! when told of an invoicing platform
//! ([`Application::issue_invoices_through`]), the worker issuing invoices;
//! and the daily proof of the ledger's invariants
//! (`fleetdesk_ledger::run_daily`).

use fleetdesk_kit::export::ExportWorker;
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::internal_token::{TokenSigner, TokenVerifier};
use fleetdesk_kit::org_replica::OrgReplica;
use fleetdesk_kit::service::{Runtime, Schema};
use fleetdesk_kit::{Shutdown, events, grpc as kit_grpc};
use fleetdesk_proto::org::v1::org_service_client::OrgServiceClient;
use sqlx::migrate::Migrator;
use sqlx_postgres::PgPool;
use tokio::net::TcpListener;

use crate::bank::{Bank, BankConfig};
use crate::bills::raised::{self, ConfirmedStatements, IssuedRepairBills};
use crate::bills::rent::{self, ChangedRecords};
use crate::context::Context;
use crate::invoices::issuing::IssuingWorker;
use crate::invoicing::client::{Invoicing, InvoicingConfig};
use crate::notify;
use crate::{bills, coupons, exports, grpc, invoices, monthly, orders, payments, refunds};

pub use fleetdesk_kit::config::ServiceConfig as Config;

pub static MIGRATOR: Migrator = sqlx::migrate!("./migrations");
pub const SCHEMA: Schema = Schema {
    name: "finance",
    migrator: &MIGRATOR,
    replicates_org: true,
};

/// A built service: listening, connected, ready to run.
#[derive(Debug)]
pub struct Application {
    runtime: Runtime,
    /// Org's address and this service's signer, for the org_unit replica.
    org: Option<(OrgServiceClient<tonic::transport::Channel>, TokenSigner)>,
    /// The bank's gateway and the listener its callbacks arrive at.
    bank: Option<(Bank, TcpListener, String)>,
    /// The invoicing platform invoices are issued through.
    invoicing: Option<Invoicing>,
    statements: events::Consumer<ConfirmedStatements>,
    repairs: events::Consumer<IssuedRepairBills>,
    usage_records: events::Consumer<ChangedRecords>,
}

impl Application {
    pub async fn build(config: Config, verifier: TokenVerifier) -> anyhow::Result<Application> {
        let runtime = Runtime::build(&config, SCHEMA, verifier).await?;
        let statements = raised::statements(runtime.pool.clone(), runtime.nats.clone()).await?;
        let repairs = raised::repairs(runtime.pool.clone(), runtime.nats.clone()).await?;
        let usage_records = rent::consumer(runtime.pool.clone(), runtime.nats.clone()).await?;
        for (name, ready) in [
            (raised::STATEMENTS, statements.ensure().await.map(drop)),
            (raised::REPAIRS, repairs.ensure().await.map(drop)),
            (rent::CONSUMER, usage_records.ensure().await.map(drop)),
        ] {
            if let Err(err) = ready {
                tracing::warn!(consumer = name, error = %format!("{err:#}"), "Consumer not ready yet.");
            }
        }
        Ok(Application {
            runtime,
            org: None,
            bank: None,
            invoicing: None,
            statements,
            repairs,
            usage_records,
        })
    }

    /// Keeps the org_unit replica (data scope, organisation names) from org at `org_url`.
    pub fn follow_org(&mut self, org_url: &str, signer: TokenSigner) -> anyhow::Result<()> {
        let client = OrgServiceClient::new(kit_grpc::lazy_channel(org_url)?);
        self.org = Some((client, signer));
        Ok(())
    }

    /// Pays and refunds through the bank of `config`; its callbacks arrive
    /// on `notify` at the path of `config.notify_url`.
    pub fn use_bank(&mut self, config: BankConfig, notify: TcpListener) -> anyhow::Result<()> {
        let path = reqwest::Url::parse(&config.notify_url)
            .map(|u| u.path().to_owned())
            .map_err(|e| anyhow::anyhow!("bank notify URL {:?}: {e}", config.notify_url))?;
        self.bank = Some((Bank::new(config)?, notify, path));
        Ok(())
    }

    /// Issues invoices (and reverses them) through the platform of `config`.
    pub fn issue_invoices_through(&mut self, config: InvoicingConfig) -> anyhow::Result<()> {
        self.invoicing = Some(Invoicing::new(config)?);
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
        let consumers = [
            tokio::spawn(self.statements.run(shutdown.clone())),
            tokio::spawn(self.repairs.run(shutdown.clone())),
            tokio::spawn(self.usage_records.run(shutdown.clone())),
            tokio::spawn(rent::run(self.runtime.pool.clone(), shutdown.clone())),
        ];
        let context = Context {
            pool: self.runtime.pool.clone(),
            bank: self.bank.as_ref().map(|(bank, _, _)| bank.clone()),
            invoicing: self.invoicing.clone(),
        };
        let issuing = self.invoicing.map(|invoicing| {
            tokio::spawn(
                IssuingWorker {
                    pool: self.runtime.pool.clone(),
                    files: self.runtime.files.clone(),
                    invoicing,
                }
                .run(shutdown.clone()),
            )
        });
        let notify = self.bank.map(|(bank, listener, path)| {
            tokio::spawn(notify::serve(
                listener,
                self.runtime.pool.clone(),
                bank,
                path,
                shutdown.clone(),
            ))
        });
        let ledger_check = tokio::spawn(fleetdesk_ledger::run_daily(
            self.runtime.pool.clone(),
            SCHEMA.name,
            shutdown.clone(),
        ));
        let services = grpc::services(context, self.runtime.verifier.clone());
        let worker = export_worker(self.runtime.pool.clone(), self.runtime.files.clone());
        let served = self
            .runtime
            .run_with_exports(services, worker, shutdown)
            .await;
        ledger_check.await.ok();
        if let Some(issuing) = issuing {
            issuing.await.ok();
        }
        if let Some(notify) = notify {
            notify.await.ok();
        }
        for consumer in consumers {
            consumer.await.ok();
        }
        if let Some(replica) = replica {
            replica.await.ok();
        }
        served
    }
}

/// The worker that runs every export kind of this service.
fn export_worker(pool: PgPool, files: FileStore) -> ExportWorker {
    ExportWorker::new(pool, files, exports::DOMAIN)
        .kind(bills::export::KIND, bills::export::BillsExport)
        .kind(orders::export::KIND, orders::export::OrdersExport)
        .kind(payments::export::KIND, payments::export::PaymentsExport)
        .kind(monthly::export::KIND, monthly::export::MonthlyExport)
        .kind(invoices::export::KIND, invoices::export::ApplicationsExport)
        .kind(refunds::export::KIND, refunds::export::RefundsExport)
        .kind(coupons::export::KIND, coupons::export::CouponsExport)
}
