//! Wiring of the `fleetdesk` binary's targets, shared with the stack tests.

use std::net::SocketAddr;

use anyhow::Context as _;
use fleetdesk_charging_standin::{Generation, PARTY_ID as STANDIN_PARTY_ID};
use fleetdesk_kit::config::{CommonConfig, Environment, ServiceConfig};
use fleetdesk_kit::internal_token::TokenSigner;
use fleetdesk_kit::{Shutdown, db};
use fleetdesk_seed::org::{DEMO_CORP_A, DEMO_CORP_B, DEMO_WECOM_USERS};
use fleetdesk_wecom_standin::StandIn;
use tokio::net::TcpListener;
use tokio::task::JoinSet;

/// Every service schema, in migration order.
pub const SCHEMAS: [fleetdesk_kit::service::Schema; 5] = [
    fleetdesk_auth::SCHEMA,
    fleetdesk_org::SCHEMA,
    fleetdesk_vehicle::SCHEMA,
    fleetdesk_energy::SCHEMA,
    fleetdesk_finance::SCHEMA,
];

/// Creates the database if needed and applies every service's migrations.
pub async fn migrate(common: &CommonConfig) -> anyhow::Result<()> {
    db::ensure_database(&common.database_url).await?;
    for schema in SCHEMAS {
        let pool = db::connect_owner(&common.database_url, schema.name, 2).await?;
        schema
            .migrate(&pool)
            .await
            .with_context(|| format!("migrate {}", schema.name))?;
        pool.close().await;
        tracing::info!(schema = schema.name, "Migrations applied.");
    }
    Ok(())
}

/// Sign-in settings `fleetdesk all` hands to auth. In development, WeCom
/// without a corp id is played by the local stand-in, and SMS without a
/// provider goes to the development sender.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct SignInConfig {
    #[command(flatten)]
    pub sms: fleetdesk_auth::SmsConfig,
    #[command(flatten)]
    pub wecom: fleetdesk_auth::WeComConfig,
}

/// Agent id the demo WeCom app has in the stand-in.
pub const DEMO_WECOM_AGENT_ID: &str = "1000002";

/// A WeCom stand-in knowing the demo corps (both accepting `secret`) and the
/// demo members' WeCom identities, plus one corp-A user without an account.
pub fn demo_wecom_standin(secret: &str) -> StandIn {
    let standin = StandIn::new();
    for corp in [DEMO_CORP_A, DEMO_CORP_B] {
        standin.add_corp(corp, secret);
    }
    for (corp, wecom_user_id, _, name) in DEMO_WECOM_USERS {
        standin.add_user(corp, wecom_user_id, name);
    }
    standin.add_user(DEMO_CORP_A, "sunqi", "孙七（未开通账号）");
    standin
}

/// The running WeCom stand-in of a development stack.
#[derive(Debug, Clone)]
pub struct WeComStandIn {
    pub standin: StandIn,
    pub base_url: String,
}

/// The running charging-platform stand-in of a development stack.
#[derive(Debug, Clone)]
pub struct ChargingStandIn {
    pub standin: fleetdesk_charging_standin::StandIn,
    pub base_url: String,
}

/// The running traffic-authority stand-in of a development stack.
#[derive(Debug, Clone)]
pub struct TrafficStandIn {
    pub standin: fleetdesk_traffic_standin::StandIn,
    pub base_url: String,
}

/// The app key the vehicle target signs with at the traffic-authority stand-in.
pub const TRAFFIC_APP_KEY: &str = "fleetdesk-vehicle";

/// The running invoicing-platform stand-in of a development stack, with
/// the app credentials finance signs with there (its admin API is on).
#[derive(Debug, Clone)]
pub struct InvoiceStandIn {
    pub standin: fleetdesk_invoice_standin::StandIn,
    pub base_url: String,
    pub app_id: String,
    pub secret: String,
}

/// The app id finance signs with at the invoicing-platform stand-in.
pub const INVOICING_APP_ID: &str = "fleetdesk-finance";

/// The running bank stand-in of a development stack, with the merchant
/// credentials finance signs with there.
#[derive(Debug, Clone)]
pub struct BankStandIn {
    pub standin: fleetdesk_bank_standin::StandIn,
    pub base_url: String,
    pub merchant_id: String,
    pub secret: String,
}

/// The merchant id finance signs with at the bank stand-in.
pub const BANK_MERCHANT_ID: &str = "fleetdesk-finance";

/// How energy meets the charging platform. In development without a
/// bootstrap token (FLEETDESK_OCPI_TOKEN_A) for a real platform, the stack
/// plays the platform itself (the stand-in), which registers with energy.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct ChargingConfig {
    #[command(flatten)]
    pub ocpi: fleetdesk_energy::ocpi::OcpiConfig,

    /// Sessions a minute the stand-in starts for the fleet energy answers
    /// for (development without a platform); 0 = none.
    #[arg(
        long,
        env = "FLEETDESK_CHARGING_SESSIONS_PER_MINUTE",
        default_value_t = 0.0
    )]
    pub charging_sessions_per_minute: f64,

    /// Where the stand-in's OCPI and admin API listen (development without
    /// a platform); a free loopback port when unset. Browser tests drive
    /// sessions through its `/admin/sessions`.
    #[arg(long, env = "FLEETDESK_CHARGING_STANDIN_ADDR")]
    pub charging_standin_addr: Option<String>,
}

/// What a stack is started with besides the common settings.
#[derive(Debug, Clone, Default)]
pub struct StackParts {
    pub sign_in: SignInConfig,
    /// Directory of the built console.
    pub console_dir: Option<std::path::PathBuf>,
    /// Directory of the gateway's object store.
    pub object_store_dir: std::path::PathBuf,
    /// The gateway's browser policy.
    pub edge: fleetdesk_gateway::EdgeSettings,
    /// Where the JT/T 808 edge listens; a free loopback port when `None`.
    pub jt808_addr: Option<String>,
    /// The charging platform energy meets.
    pub charging: ChargingConfig,
}

/// A running all-in-one stack: every service on a loopback port, the gateway in front.
#[derive(Debug)]
pub struct Stack {
    pub http_addr: SocketAddr,
    pub grpc_ports: Vec<(&'static str, u16)>,
    /// Set when the stack plays WeCom itself (development without a corp id).
    pub wecom: Option<WeComStandIn>,
    /// The port terminals connect to (JT/T 808).
    pub jt808_port: u16,
    /// Set when the stack plays the charging platform itself (development
    /// without a bootstrap token for a real one).
    pub charging: Option<ChargingStandIn>,
    /// Set when the stack plays the traffic authority itself (development
    /// without FLEETDESK_TRAFFIC_AUTHORITY_URL).
    pub traffic: Option<TrafficStandIn>,
    /// Set when the stack plays the invoicing platform itself (development).
    pub invoicing: Option<InvoiceStandIn>,
    /// Set when the stack plays the bank itself (development): orders
    /// settle by themselves after a few seconds, its admin API is on.
    pub bank: Option<BankStandIn>,
    tasks: JoinSet<anyhow::Result<()>>,
}

impl Stack {
    /// Starts every service (gRPC on 127.0.0.1, random ports) and the gateway
    /// on `http_addr` (files in `object_store_dir`), all sharing one signing key; in development also the
    /// WeCom stand-in unless a real corp is configured.
    pub async fn start(
        common: CommonConfig,
        sign_in: SignInConfig,
        http_addr: &str,
        console_dir: Option<std::path::PathBuf>,
        object_store_dir: std::path::PathBuf,
        shutdown: Shutdown,
    ) -> anyhow::Result<Stack> {
        let parts = StackParts {
            sign_in,
            console_dir,
            object_store_dir,
            edge: fleetdesk_gateway::EdgeSettings::default(),
            jt808_addr: None,
            charging: ChargingConfig::default(),
        };
        Stack::start_with(common, parts, http_addr, shutdown).await
    }

    /// Like [`Stack::start`], with the gateway's browser policy (CORS
    /// origins, map tile host) given too.
    pub async fn start_with(
        common: CommonConfig,
        parts: StackParts,
        http_addr: &str,
        shutdown: Shutdown,
    ) -> anyhow::Result<Stack> {
        let StackParts {
            sign_in,
            console_dir,
            object_store_dir,
            edge,
            jt808_addr,
            charging,
        } = parts;
        let signer: TokenSigner = common.signer()?;
        let mut tasks = JoinSet::new();
        // Bound first: WeCom's redirect URI names the gateway's address.
        let gateway_listener = TcpListener::bind(http_addr)
            .await
            .with_context(|| format!("bind {http_addr}"))?;
        let mut gateway_addr = gateway_listener.local_addr()?;
        if gateway_addr.ip().is_unspecified() {
            gateway_addr.set_ip([127, 0, 0, 1].into());
        }
        let SignInConfig { sms, mut wecom } = sign_in;
        let mut standin = None;
        if common.environment == Environment::Development && wecom.corp_id.is_none() {
            let secret = uuid::Uuid::new_v4().simple().to_string();
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let base_url = format!("http://{}", listener.local_addr()?);
            let demo = demo_wecom_standin(&secret);
            let stopping = shutdown.clone();
            let serving = demo.clone();
            tasks.spawn(async move {
                fleetdesk_wecom_standin::serve(listener, serving, async move {
                    stopping.wait().await;
                })
                .await
                .context("WeCom stand-in")
            });
            wecom.corp_id = Some(DEMO_CORP_A.to_owned());
            wecom.secret = Some(secret.into());
            wecom.agent_id = DEMO_WECOM_AGENT_ID.to_owned();
            wecom.api_base = base_url.clone();
            wecom.qr_connect_url = format!("{base_url}/wwopen/sso/qrConnect");
            standin = Some(WeComStandIn {
                standin: demo,
                base_url,
            });
        }
        // The platform's side of OCPI: in development without a bootstrap
        // token for a real one, the stand-in, bound first since energy calls
        // it back while it registers. It is handed only what a platform is
        // handed outside OCPI: energy's versions URL and token A.
        let ChargingConfig {
            mut ocpi,
            charging_sessions_per_minute,
            charging_standin_addr,
        } = charging;
        let mut platform = None;
        if common.environment == Environment::Development && ocpi.ocpi_token_a.is_none() {
            let addr = charging_standin_addr.as_deref().unwrap_or("127.0.0.1:0");
            let listener = TcpListener::bind(addr)
                .await
                .with_context(|| format!("bind {addr}"))?;
            let base_url = format!("http://{}", listener.local_addr()?);
            // Fresh each start: the stand-in forgets its registration when
            // it stops, and a token A registers once.
            let token_a = uuid::Uuid::new_v4().simple().to_string();
            ocpi.ocpi_token_a = Some(token_a.clone().into());
            platform = Some((listener, base_url, token_a));
        }
        wecom
            .redirect_uri
            .get_or_insert_with(|| format!("http://{gateway_addr}/login"));
        // The gateway's CSP lets the login page frame the QR page auth hands out.
        let wecom_qr_url = wecom.qr_connect_url.clone();
        let service_config = |common: &CommonConfig| ServiceConfig {
            common: common.clone(),
            grpc_addr: "127.0.0.1:0".to_owned(),
            migrate_on_start: false,
            object_store_dir: object_store_dir.clone(),
        };
        // Org and auth call each other: org learns auth's address once auth is up.
        let mut org = fleetdesk_org::Application::build(
            fleetdesk_org::Config {
                service: service_config(&common),
                auth_url: "http://127.0.0.1:1".to_owned(),
                customer_service: Default::default(),
            },
            signer.clone(),
        )
        .await?;
        let org_url = format!("http://127.0.0.1:{}", org.port());
        let auth = fleetdesk_auth::Application::build(
            fleetdesk_auth::Config {
                service: service_config(&common),
                org_url: org_url.clone(),
                session_days: 30,
                sms,
                wecom,
            },
            signer.clone(),
        )
        .await?;
        let mut vehicle =
            fleetdesk_vehicle::Application::build(service_config(&common), signer.verifier())
                .await?;
        vehicle.follow_org(&org_url, signer.clone())?;
        // The traffic authority the violation fetch job asks: the configured
        // one, else in development the stand-in on a free port, handed only
        // what a real one hands out: its URL, an app key and a secret.
        let mut traffic = None;
        match fleetdesk_vehicle::TrafficAuthorityConfig::from_env() {
            Some(config) => vehicle.use_traffic_authority(config)?,
            None if common.environment == Environment::Development => {
                let listener = TcpListener::bind("127.0.0.1:0").await?;
                let base_url = format!("http://{}", listener.local_addr()?);
                let secret = uuid::Uuid::new_v4().simple().to_string();
                let standin = fleetdesk_traffic_standin::StandIn::new(
                    fleetdesk_traffic_standin::Settings::single(TRAFFIC_APP_KEY, &secret),
                );
                let stopping = shutdown.clone();
                let serving = standin.clone();
                tasks.spawn(async move {
                    fleetdesk_traffic_standin::serve(listener, serving, async move {
                        stopping.wait().await;
                    })
                    .await
                    .context("traffic authority stand-in")
                });
                vehicle.use_traffic_authority(fleetdesk_vehicle::TrafficAuthorityConfig {
                    url: base_url.clone(),
                    app_key: TRAFFIC_APP_KEY.to_owned(),
                    secret,
                })?;
                traffic = Some(TrafficStandIn { standin, base_url });
            }
            None => {}
        }
        // The bank finance pays through: in development the stand-in on a
        // free port, handed out only as a real one is: URL, merchant id, secret.
        let mut bank = None;
        if common.environment == Environment::Development {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let base_url = format!("http://{}", listener.local_addr()?);
            let secret = uuid::Uuid::new_v4().simple().to_string();
            let standin = fleetdesk_bank_standin::StandIn::new(
                fleetdesk_bank_standin::Settings::single(BANK_MERCHANT_ID, &secret, &base_url),
            );
            let stopping = shutdown.clone();
            let serving = standin.clone();
            tasks.spawn(async move {
                fleetdesk_bank_standin::serve(listener, serving, async move {
                    stopping.wait().await;
                })
                .await
                .context("bank stand-in")
            });
            bank = Some(BankStandIn {
                standin,
                base_url,
                merchant_id: BANK_MERCHANT_ID.to_owned(),
                secret,
            });
        }
        // The invoicing platform finance issues VAT invoices through: in
        // development the stand-in on a free port, handed out only as a real
        // one is: URL, app id, secret.
        let mut invoicing = None;
        if common.environment == Environment::Development {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let base_url = format!("http://{}", listener.local_addr()?);
            let secret = uuid::Uuid::new_v4().simple().to_string();
            let mut settings =
                fleetdesk_invoice_standin::Settings::single(INVOICING_APP_ID, &secret, &base_url);
            settings.admin = true;
            let standin = fleetdesk_invoice_standin::StandIn::new(settings);
            let stopping = shutdown.clone();
            let serving = standin.clone();
            tasks.spawn(async move {
                fleetdesk_invoice_standin::serve(listener, serving, async move {
                    stopping.wait().await;
                })
                .await
                .context("invoicing platform stand-in")
            });
            invoicing = Some(InvoiceStandIn {
                standin,
                base_url,
                app_id: INVOICING_APP_ID.to_owned(),
                secret,
            });
        }
        let mut energy =
            fleetdesk_energy::Application::build(service_config(&common), signer.verifier())
                .await?;
        energy.follow_org(&org_url, signer.clone())?;
        let mut finance =
            fleetdesk_finance::Application::build(service_config(&common), signer.verifier())
                .await?;
        finance.follow_org(&org_url, signer.clone())?;
        // Finance pays and refunds through the bank stand-in, whose signed
        // callbacks reach finance's notify endpoint on a free port.
        if let Some(bank) = &bank {
            let notify = TcpListener::bind("127.0.0.1:0").await?;
            let notify_url = format!("http://{}/finance/bank/notify", notify.local_addr()?);
            finance.use_bank(
                fleetdesk_finance::bank::BankConfig {
                    url: bank.base_url.clone(),
                    merchant_id: bank.merchant_id.clone(),
                    secret: bank.secret.clone(),
                    notify_url,
                },
                notify,
            )?;
        }
        if let Some(invoicing) = &invoicing {
            finance.issue_invoices_through(
                fleetdesk_finance::invoicing::client::InvoicingConfig {
                    url: invoicing.base_url.clone(),
                    app_id: invoicing.app_id.clone(),
                    secret: invoicing.secret.clone(),
                },
            )?;
        }
        let url = |port: u16| format!("http://127.0.0.1:{port}");
        org.use_auth(&url(auth.port()))?;
        energy.use_vehicles(&url(vehicle.port()), signer.clone())?;
        let ocpi_port = energy.serve_ocpi(&ocpi).await?;
        let mut charging = None;
        if let (Some((listener, base_url, token_a)), Some(port)) = (platform, ocpi_port) {
            let standin =
                fleetdesk_charging_standin::StandIn::new(fleetdesk_charging_standin::Settings {
                    party_id: STANDIN_PARTY_ID.to_owned(),
                    public_url: base_url.clone(),
                    emsp_versions_url: fleetdesk_energy::ocpi::versions_url(&ocpi, port),
                    token_a,
                });
            let generation = (charging_sessions_per_minute > 0.0)
                .then(|| Generation::new(charging_sessions_per_minute));
            let stopping = shutdown.clone();
            let serving = standin.clone();
            tasks.spawn(async move {
                fleetdesk_charging_standin::serve(listener, serving, generation, async move {
                    stopping.wait().await;
                })
                .await
                .context("charging platform stand-in")
            });
            charging = Some(ChargingStandIn { standin, base_url });
        }
        // The device edge asks vehicle's terminal directory, as in a deployment;
        // its MediaService verifies the tokens this stack signs.
        let telematics = fleetdesk_telematics::Application::build(
            &fleetdesk_telematics::Config::with_defaults(
                CommonConfig {
                    internal_signing_key: Some(signer.seed_base64()),
                    ..common.clone()
                },
                url(vehicle.port()),
                object_store_dir.clone(),
                jt808_addr.unwrap_or_else(|| "127.0.0.1:0".to_owned()),
            ),
            fleetdesk_telematics::directory::grpc::GrpcDirectory::new(
                &url(vehicle.port()),
                signer.clone(),
            )?,
        )
        .await?;
        let jt808_port = telematics.port();
        let grpc_ports = vec![
            ("auth", auth.port()),
            ("org", org.port()),
            ("vehicle", vehicle.port()),
            ("energy", energy.port()),
            ("finance", finance.port()),
            ("telematics", telematics.grpc_port()),
        ];
        let gateway = fleetdesk_gateway::Application::build_on(
            fleetdesk_gateway::Config {
                common: common.clone(),
                http_addr: http_addr.to_owned(),
                auth_url: url(auth.port()),
                org_url,
                vehicle_url: url(vehicle.port()),
                energy_url: url(energy.port()),
                finance_url: url(finance.port()),
                telematics_url: url(telematics.grpc_port()),
                console_dir,
                body_limit: 2 * 1024 * 1024,
                session_cache_secs: 10,
                trust_forwarded_for: false,
                object_store_dir,
                wecom_qr_url,
                edge,
            },
            signer,
            gateway_listener,
        )
        .await?;
        let http_addr = SocketAddr::from(([127, 0, 0, 1], gateway.port()));

        tasks.spawn(org.run_until_stopped(shutdown.clone()));
        tasks.spawn(auth.run_until_stopped(shutdown.clone()));
        tasks.spawn(vehicle.run_until_stopped(shutdown.clone()));
        tasks.spawn(energy.run_until_stopped(shutdown.clone()));
        tasks.spawn(finance.run_until_stopped(shutdown.clone()));
        tasks.spawn(telematics.run_until_stopped(shutdown.clone()));
        tasks.spawn(gateway.run_until_stopped(shutdown));
        Ok(Stack {
            http_addr,
            grpc_ports,
            wecom: standin,
            jt808_port,
            charging,
            traffic,
            invoicing,
            bank,
            tasks,
        })
    }

    /// Waits for every part to stop; the first failure stops the rest.
    pub async fn wait(mut self, shutdown: Shutdown) -> anyhow::Result<()> {
        let mut first_error = None;
        while let Some(joined) = self.tasks.join_next().await {
            let result = joined.map_err(anyhow::Error::from).and_then(|r| r);
            if let Err(err) = result {
                tracing::error!(error = %format!("{err:#}"), "A component failed; stopping.");
                shutdown.trigger();
                first_error.get_or_insert(err);
            }
        }
        first_error.map_or(Ok(()), Err)
    }
}
