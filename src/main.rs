//! `fleetdesk`: one binary, many targets.

use clap::{Parser, Subcommand};
use fleetdesk_kit::config::{CommonConfig, DomainServiceConfig};
use fleetdesk_kit::{Shutdown, telemetry};

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[derive(Debug, Parser)]
#[command(
    name = "fleetdesk",
    version,
    about = "Fleetdesk: every service, the gateway, migrations and demo data."
)]
struct Cli {
    #[command(subcommand)]
    target: Target,
}

#[derive(Debug, Subcommand)]
enum Target {
    /// Every service and the gateway in one process (gRPC over loopback).
    All {
        #[command(flatten)]
        common: CommonConfig,
        /// Address the gateway listens on.
        #[arg(long, env = "FLEETDESK_HTTP_ADDR", default_value = "127.0.0.1:8080")]
        http_addr: String,
        /// Directory of the built console.
        #[arg(long, env = "FLEETDESK_CONSOLE_DIR")]
        console_dir: Option<std::path::PathBuf>,
        /// Directory of the object store (uploads, exports, statements).
        #[arg(
            long,
            env = "FLEETDESK_OBJECT_STORE_DIR",
            default_value = ".data/objects"
        )]
        object_store_dir: std::path::PathBuf,
        /// Apply migrations and load demo data before starting.
        #[arg(long, env = "FLEETDESK_DEMO", default_value_t = false)]
        demo: bool,
        #[command(flatten)]
        sign_in: fleetdesk::SignInConfig,
        #[command(flatten)]
        edge: fleetdesk_gateway::EdgeSettings,
        /// Address the JT/T 808 device edge listens on (terminals, the simulator).
        #[arg(long, env = "FLEETDESK_JT808_ADDR", default_value = "127.0.0.1:8808")]
        jt808_addr: String,
        #[command(flatten)]
        charging: fleetdesk::ChargingConfig,
    },
    /// The edge HTTP gateway.
    Gateway(fleetdesk_gateway::Config),
    /// The auth service.
    Auth(fleetdesk_auth::Config),
    /// The org service.
    Org(fleetdesk_org::Config),
    /// The vehicle service.
    Vehicle(DomainServiceConfig),
    /// The energy service.
    Energy(fleetdesk_energy::TargetConfig),
    /// The finance service.
    Finance(DomainServiceConfig),
    /// The JT/T 808 device edge (terminals over TCP → the telemetry stream).
    Telematics(fleetdesk_telematics::Config),
    /// Simulated vehicle terminals speaking JT/T 808 to the edge, for the
    /// vehicles with a bound terminal in the database.
    Simulate(fleetdesk_simulator::Config),
    /// Create the database if needed and apply every service's migrations.
    Migrate {
        #[command(flatten)]
        common: CommonConfig,
    },
    /// Load the demo enterprises and sign-ins (idempotent).
    Seed {
        #[command(flatten)]
        common: CommonConfig,
        /// Also generate this many vehicles (at most 1,000,000) over 200
        /// enterprises, the demo enterprise the largest with a tenth (COPY;
        /// idempotent per enterprise).
        #[arg(long)]
        vehicles: Option<usize>,
    },
    /// Print the edge API's OpenAPI document.
    Openapi,
    /// Telemetry messages ingest could not store (the dead-letter table).
    DeadLetters {
        #[command(flatten)]
        common: CommonConfig,
        #[command(subcommand)]
        action: DeadLetterAction,
    },
    /// A local stand-in for the charging platform: a CPO speaking OCPI to
    /// energy, with stations in several cities, sessions by card or plate
    /// and CDRs (development; `all` starts its own). It registers with
    /// energy through the credentials handshake, given energy's versions URL
    /// and the bootstrap token energy was given (FLEETDESK_OCPI_TOKEN_A).
    ChargingStandin {
        /// Address to listen on.
        #[arg(
            long,
            env = "FLEETDESK_CHARGING_STANDIN_ADDR",
            default_value = "127.0.0.1:8092"
        )]
        addr: String,
        /// URL energy reaches the stand-in at; default `http://<addr>` (loopback
        /// for an unspecified address).
        #[arg(long, env = "FLEETDESK_CHARGING_STANDIN_PUBLIC_URL")]
        public_url: Option<String>,
        /// Energy's OCPI versions endpoint.
        #[arg(
            long,
            env = "FLEETDESK_EMSP_VERSIONS_URL",
            default_value = "http://127.0.0.1:8091/ocpi/versions"
        )]
        emsp_versions_url: String,
        /// Energy's bootstrap token (OCPI's token A), for the registration.
        #[arg(long, env = "FLEETDESK_OCPI_TOKEN_A", hide_env_values = true)]
        token_a: String,
        /// Sessions a minute started for the cards and plates energy lists; 0 = none.
        #[arg(
            long,
            env = "FLEETDESK_CHARGING_SESSIONS_PER_MINUTE",
            default_value_t = 0.0
        )]
        sessions_per_minute: f64,
    },
    /// A local stand-in for the traffic authority's violation query: signed
    /// HTTP requests, paging, a rate limit (development; `all` starts its
    /// own). Give the vehicle target its URL, app key and secret
    /// (FLEETDESK_TRAFFIC_AUTHORITY_URL, _KEY, _SECRET).
    TrafficStandin {
        /// Address to listen on.
        #[arg(
            long,
            env = "FLEETDESK_TRAFFIC_STANDIN_ADDR",
            default_value = "127.0.0.1:8093"
        )]
        addr: String,
        /// The app key the authority knows.
        #[arg(
            long,
            env = "FLEETDESK_TRAFFIC_AUTHORITY_KEY",
            default_value = "fleetdesk-vehicle"
        )]
        app_key: String,
        /// The app's secret.
        #[arg(
            long,
            env = "FLEETDESK_TRAFFIC_AUTHORITY_SECRET",
            hide_env_values = true
        )]
        secret: String,
    },
    /// A local stand-in for the bank's merchant gateway: signed payment
    /// orders and refunds, signed callbacks retried until answered, a
    /// cashier page, settlements and faults on demand (development; state in
    /// memory; `all` starts its own). Give finance its URL, merchant id and
    /// secret (FLEETDESK_BANK_URL, _MERCHANT_ID, _SECRET).
    BankStandin {
        /// Address to listen on.
        #[arg(
            long,
            env = "FLEETDESK_BANK_STANDIN_ADDR",
            default_value = "127.0.0.1:8095"
        )]
        addr: String,
        /// URL payers reach the cashier page at; default `http://<addr>`
        /// (loopback for an unspecified address).
        #[arg(long, env = "FLEETDESK_BANK_STANDIN_PUBLIC_URL")]
        public_url: Option<String>,
        /// The merchant id the bank knows.
        #[arg(
            long,
            env = "FLEETDESK_BANK_MERCHANT_ID",
            default_value = fleetdesk::BANK_MERCHANT_ID
        )]
        merchant_id: String,
        /// The merchant's secret.
        #[arg(long, env = "FLEETDESK_BANK_SECRET", hide_env_values = true)]
        secret: String,
        /// Milliseconds after which an order nobody paid settles successfully
        /// by itself; 0: only the cashier page and the admin API settle.
        #[arg(long, env = "FLEETDESK_BANK_AUTO_SETTLE_MS", default_value_t = 3000)]
        auto_settle_ms: u64,
        /// Serve the unsigned `/admin` API (settlements, faults, replayed and
        /// forged callbacks, for tests).
        #[arg(
            long,
            env = "FLEETDESK_BANK_STANDIN_ADMIN",
            default_value_t = true,
            action = clap::ArgAction::Set
        )]
        admin: bool,
    },
    /// A local stand-in for the invoicing platform (fully digital VAT
    /// invoices): signed HTTP calls to issue, reverse and query invoices,
    /// PDF downloads (development; state in memory). Give finance its URL,
    /// app id and secret (FLEETDESK_INVOICING_URL, _APP_ID, _SECRET).
    InvoiceStandin {
        /// Address to listen on.
        #[arg(
            long,
            env = "FLEETDESK_INVOICE_STANDIN_ADDR",
            default_value = "127.0.0.1:8094"
        )]
        addr: String,
        /// URL clients reach the stand-in at (download links start with
        /// it); default `http://<addr>` (loopback for an unspecified address).
        #[arg(long, env = "FLEETDESK_INVOICE_STANDIN_PUBLIC_URL")]
        public_url: Option<String>,
        /// The app id the platform knows.
        #[arg(
            long,
            env = "FLEETDESK_INVOICING_APP_ID",
            default_value = "fleetdesk-finance"
        )]
        app_id: String,
        /// The app's secret.
        #[arg(long, env = "FLEETDESK_INVOICING_SECRET", hide_env_values = true)]
        secret: String,
        /// Serve `POST /admin/faults` (failures and delays on demand, for tests).
        #[arg(long, env = "FLEETDESK_INVOICE_STANDIN_ADMIN", default_value_t = false)]
        admin: bool,
    },
    /// A local stand-in for WeCom's QR page and API with the demo corps and
    /// users (development; `all` starts its own).
    WecomStandin {
        /// Address to listen on.
        #[arg(
            long,
            env = "FLEETDESK_WECOM_STANDIN_ADDR",
            default_value = "127.0.0.1:8090"
        )]
        addr: String,
        /// Secret the demo corps accept at gettoken; give auth the same one.
        #[arg(
            long = "wecom-secret",
            env = "FLEETDESK_WECOM_SECRET",
            hide_env_values = true
        )]
        secret: String,
    },
}

impl Target {
    /// The database settings of a serving target, how many pools it opens
    /// (`all`: the six services and the gateway), and the connections it
    /// opens beside them (energy's capture group).
    fn pools(&mut self) -> Option<(&mut CommonConfig, u32, u32)> {
        let captures = fleetdesk_energy::ledger::CAPTURE_POOL;
        match self {
            Target::All { common, .. } => Some((common, 7, captures)),
            Target::Gateway(config) => Some((&mut config.common, 1, 0)),
            Target::Telematics(config) => Some((&mut config.common, 1, 0)),
            Target::Auth(config) => Some((&mut config.service.common, 1, 0)),
            Target::Org(config) => Some((&mut config.service.common, 1, 0)),
            Target::Vehicle(config) => Some((&mut config.service.common, 1, 0)),
            Target::Finance(config) => Some((&mut config.service.common, 1, 0)),
            Target::Energy(config) => Some((&mut config.domain.service.common, 1, captures)),
            _ => None,
        }
    }

    fn name(&self) -> &'static str {
        match self {
            Target::All { .. } => "fleetdesk",
            Target::Gateway(_) => "fleetdesk-gateway",
            Target::Auth(_) => "fleetdesk-auth",
            Target::Org(_) => "fleetdesk-org",
            Target::Vehicle(_) => "fleetdesk-vehicle",
            Target::Energy(_) => "fleetdesk-energy",
            Target::Finance(_) => "fleetdesk-finance",
            Target::Telematics(_) => "fleetdesk-telematics",
            Target::Simulate(_) => "fleetdesk-simulate",
            Target::Migrate { .. } => "fleetdesk-migrate",
            Target::Seed { .. } => "fleetdesk-seed",
            Target::Openapi => "fleetdesk-openapi",
            Target::DeadLetters { .. } => "fleetdesk-dead-letters",
            Target::ChargingStandin { .. } => "fleetdesk-charging-standin",
            Target::WecomStandin { .. } => "fleetdesk-wecom-standin",
            Target::TrafficStandin { .. } => "fleetdesk-traffic-standin",
            Target::BankStandin { .. } => "fleetdesk-bank-standin",
            Target::InvoiceStandin { .. } => "fleetdesk-invoice-standin",
        }
    }
}

#[derive(Debug, Subcommand)]
enum DeadLetterAction {
    /// The newest parked messages, newest first.
    List {
        #[arg(long, default_value_t = 50)]
        limit: i64,
    },
    /// Run parked messages through ingest again (after a fix); those that
    /// store are removed.
    Replay {
        /// Only these ids (repeatable); every parked message when absent.
        #[arg(long = "id")]
        ids: Vec<i64>,
    },
}

async fn dead_letters(common: &CommonConfig, action: DeadLetterAction) -> anyhow::Result<()> {
    use fleetdesk_vehicle::ingest::dead_letter;
    let pool =
        fleetdesk_kit::db::connect(&common.database_url, fleetdesk_vehicle::SCHEMA.name, 2).await?;
    match action {
        DeadLetterAction::List { limit } => {
            let parked = dead_letter::list(&pool, limit).await?;
            println!(
                "当前暂存 {} 条（显示最新 {} 条）",
                dead_letter::report_parked(&pool).await?,
                parked.len()
            );
            for d in parked {
                println!(
                    "#{}\t{}\t失败 {} 次\t{}\tseq {}\t{}",
                    d.id, d.parked_at, d.attempts, d.subject, d.stream_sequence, d.error
                );
            }
        }
        DeadLetterAction::Replay { ids } => {
            let replayed = dead_letter::replay(&pool, &ids)
                .await
                .map_err(|e| anyhow::anyhow!("重放中断（稍后可再次重放）：{e}"))?;
            println!(
                "已入库 {} 条，已丢弃 {} 条，仍失败 {} 条；当前暂存 {} 条",
                replayed.stored, replayed.dropped, replayed.failing, replayed.remaining
            );
        }
    }
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let cli = Cli::parse();
    if let Target::Openapi = cli.target {
        println!("{}", fleetdesk_gateway::openapi_json());
        return Ok(());
    }
    let _telemetry = telemetry::init(cli.target.name())?;
    let mut target = cli.target;
    if let Some((common, pools, beside)) = target.pools() {
        common.db_max_connections = fleetdesk_kit::db::fit_pools(
            &common.database_url,
            pools,
            common.db_max_connections,
            beside,
        )
        .await?;
    }
    let shutdown = Shutdown::new();
    shutdown.trigger_on_signals();
    let result = run(target, shutdown).await;
    if let Err(err) = &result {
        tracing::error!(error = %format!("{err:#}"), "Stopped with an error.");
    }
    result
}

/// A stand-in's listener on `addr` and the URL clients reach it at:
/// `public_url` if given, else `http://<addr>` (loopback for an
/// unspecified address); without a trailing slash.
async fn listen_with_public_url(
    addr: &str,
    public_url: Option<String>,
) -> anyhow::Result<(tokio::net::TcpListener, String)> {
    let listener = tokio::net::TcpListener::bind(addr).await?;
    let mut local = listener.local_addr()?;
    if local.ip().is_unspecified() {
        local.set_ip([127, 0, 0, 1].into());
    }
    let public_url = public_url
        .unwrap_or_else(|| format!("http://{local}"))
        .trim_end_matches('/')
        .to_owned();
    Ok((listener, public_url))
}

async fn run(target: Target, shutdown: Shutdown) -> anyhow::Result<()> {
    match target {
        Target::All {
            common,
            http_addr,
            console_dir,
            object_store_dir,
            demo,
            sign_in,
            edge,
            jt808_addr,
            charging,
        } => {
            if demo {
                fleetdesk::migrate(&common).await?;
                fleetdesk_seed::demo(&common, Some(&object_store_dir)).await?;
            }
            let parts = fleetdesk::StackParts {
                sign_in,
                console_dir,
                object_store_dir,
                edge,
                jt808_addr: Some(jt808_addr),
                charging,
            };
            let stack =
                fleetdesk::Stack::start_with(common, parts, &http_addr, shutdown.clone()).await?;
            if let Some(wecom) = &stack.wecom {
                tracing::info!(url = %wecom.base_url, "WeCom stand-in is up.");
            }
            if let Some(charging) = &stack.charging {
                tracing::info!(url = %charging.base_url, "Charging platform stand-in is up.");
            }
            if let Some(traffic) = &stack.traffic {
                tracing::info!(url = %traffic.base_url, "Traffic authority stand-in is up.");
            }
            if let Some(invoicing) = &stack.invoicing {
                tracing::info!(url = %invoicing.base_url, "Invoicing platform stand-in is up.");
            }
            if let Some(bank) = &stack.bank {
                tracing::info!(url = %bank.base_url, "Bank stand-in is up.");
            }
            tracing::info!(url = %format!("http://{}", stack.http_addr), "Fleetdesk is up.");
            stack.wait(shutdown).await
        }
        Target::Gateway(config) => {
            let signer = config.common.signer()?;
            fleetdesk_gateway::Application::build(config, signer)
                .await?
                .run_until_stopped(shutdown)
                .await
        }
        Target::Auth(config) => {
            let signer = config.service.common.signer()?;
            fleetdesk_auth::Application::build(config, signer)
                .await?
                .run_until_stopped(shutdown)
                .await
        }
        Target::Org(config) => {
            let signer = config.service.common.signer()?;
            fleetdesk_org::Application::build(config, signer)
                .await?
                .run_until_stopped(shutdown)
                .await
        }
        Target::Vehicle(config) => {
            let signer = config.service.common.signer()?;
            let mut vehicle =
                fleetdesk_vehicle::Application::build(config.service, signer.verifier()).await?;
            vehicle.follow_org(&config.org_url, signer)?;
            if let Some(traffic) = fleetdesk_vehicle::TrafficAuthorityConfig::from_env() {
                vehicle.use_traffic_authority(traffic)?;
            }
            vehicle.run_until_stopped(shutdown).await
        }
        Target::Energy(config) => {
            let signer = config.domain.service.common.signer()?;
            let mut energy =
                fleetdesk_energy::Application::build(config.domain.service, signer.verifier())
                    .await?;
            energy.follow_org(&config.domain.org_url, signer.clone())?;
            energy.use_vehicles(&config.vehicle_url, signer)?;
            energy.serve_ocpi(&config.ocpi).await?;
            energy.run_until_stopped(shutdown).await
        }
        Target::Finance(config) => {
            let signer = config.service.common.signer()?;
            let mut finance =
                fleetdesk_finance::Application::build(config.service, signer.verifier()).await?;
            finance.follow_org(&config.org_url, signer)?;
            if let Some(invoicing) =
                fleetdesk_finance::invoicing::client::InvoicingConfig::from_env()
            {
                finance.issue_invoices_through(invoicing)?;
            }
            // The bank (FLEETDESK_BANK_URL, _MERCHANT_ID, _SECRET, _NOTIFY_URL);
            // its callbacks arrive on FLEETDESK_BANK_NOTIFY_ADDR.
            if let Some(bank) = fleetdesk_finance::bank::BankConfig::from_env() {
                let addr = std::env::var("FLEETDESK_BANK_NOTIFY_ADDR")
                    .unwrap_or_else(|_| "0.0.0.0:8091".to_owned());
                let notify = tokio::net::TcpListener::bind(&addr).await?;
                finance.use_bank(bank, notify)?;
            }
            finance.run_until_stopped(shutdown).await
        }
        Target::Telematics(config) => {
            let signer = config.common.signer()?;
            let directory = fleetdesk_telematics::directory::grpc::GrpcDirectory::new(
                &config.vehicle_url,
                signer,
            )?;
            fleetdesk_telematics::Application::build(&config, directory)
                .await?
                .run_until_stopped(shutdown)
                .await
        }
        Target::Simulate(config) => fleetdesk_simulator::run(config, shutdown).await,
        Target::Migrate { common } => fleetdesk::migrate(&common).await,
        Target::Seed { common, vehicles } => {
            fleetdesk_seed::demo(&common, None).await?;
            match vehicles {
                Some(n) => fleetdesk_seed::scale(&common, n).await,
                None => Ok(()),
            }
        }
        Target::Openapi => Ok(()),
        Target::DeadLetters { common, action } => dead_letters(&common, action).await,
        Target::ChargingStandin {
            addr,
            public_url,
            emsp_versions_url,
            token_a,
            sessions_per_minute,
        } => {
            let (listener, public_url) = listen_with_public_url(&addr, public_url).await?;
            let standin =
                fleetdesk_charging_standin::StandIn::new(fleetdesk_charging_standin::Settings {
                    party_id: fleetdesk_charging_standin::PARTY_ID.to_owned(),
                    public_url,
                    emsp_versions_url,
                    token_a,
                });
            let generation = (sessions_per_minute > 0.0)
                .then(|| fleetdesk_charging_standin::Generation::new(sessions_per_minute));
            fleetdesk_charging_standin::serve(listener, standin, generation, async move {
                shutdown.wait().await
            })
            .await?;
            Ok(())
        }
        Target::TrafficStandin {
            addr,
            app_key,
            secret,
        } => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            fleetdesk_traffic_standin::serve(
                listener,
                fleetdesk_traffic_standin::StandIn::new(
                    fleetdesk_traffic_standin::Settings::single(&app_key, &secret),
                ),
                async move { shutdown.wait().await },
            )
            .await?;
            Ok(())
        }
        Target::InvoiceStandin {
            addr,
            public_url,
            app_id,
            secret,
            admin,
        } => {
            let (listener, public_url) = listen_with_public_url(&addr, public_url).await?;
            let mut settings =
                fleetdesk_invoice_standin::Settings::single(&app_id, &secret, &public_url);
            settings.admin = admin;
            fleetdesk_invoice_standin::serve(
                listener,
                fleetdesk_invoice_standin::StandIn::new(settings),
                async move { shutdown.wait().await },
            )
            .await?;
            Ok(())
        }
        Target::BankStandin {
            addr,
            public_url,
            merchant_id,
            secret,
            auto_settle_ms,
            admin,
        } => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            let mut local = listener.local_addr()?;
            if local.ip().is_unspecified() {
                local.set_ip([127, 0, 0, 1].into());
            }
            let public_url = public_url.unwrap_or_else(|| format!("http://{local}"));
            let mut settings =
                fleetdesk_bank_standin::Settings::single(&merchant_id, &secret, &public_url);
            settings.auto_settle_after =
                (auto_settle_ms > 0).then(|| std::time::Duration::from_millis(auto_settle_ms));
            settings.admin = admin;
            fleetdesk_bank_standin::serve(
                listener,
                fleetdesk_bank_standin::StandIn::new(settings),
                async move { shutdown.wait().await },
            )
            .await?;
            Ok(())
        }
        Target::WecomStandin { addr, secret } => {
            let listener = tokio::net::TcpListener::bind(&addr).await?;
            fleetdesk_wecom_standin::serve(
                listener,
                fleetdesk::demo_wecom_standin(&secret),
                async move { shutdown.wait().await },
            )
            .await?;
            Ok(())
        }
    }
}
