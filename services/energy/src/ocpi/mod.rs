//! Energy as the eMSP of the charging platform, over OCPI 2.2.1
//! (`fleetdesk-ocpi` has the modules, objects and vendor extensions):
//!
//! - `receiver`: the HTTP endpoints the platform calls, on their own
//!   address (FLEETDESK_OCPI_ADDR) behind the platform's token — the token
//!   list, real-time authorisation, session PUT/PATCH, CDRs, EVSE status,
//!   plate recognitions and command results. Each is a thin call into its
//!   subject (`sessions::charging`, `plate_scans::recognition`,
//!   `stations::sync`, `tokens`).
//! - [`client`]: energy's calls to the platform — its locations and tariffs
//!   (the station sync) and STOP_SESSION.
//!
//! Alongside the receiver run the station sync and the sweeper (expired
//! authorisations, stale recognitions, stops to send again).

pub mod client;
mod receiver;
mod tokens;

use std::time::Duration;

use anyhow::Context as _;
use fleetdesk_kit::Shutdown;
use fleetdesk_ocpi::EMSP_BASE;
use secrecy::{ExposeSecret as _, SecretString};
use sqlx::PgPool;
use tokio::net::TcpListener;
use uuid::Uuid;

use self::client::Cpo;

/// Energy's OCPI party id (country CN): the issuer of its tokens.
pub const EMSP_PARTY_ID: &str = "FDK";

/// How energy meets the charging platform. Without the platform's URL and
/// both tokens, the OCPI side stays off.
#[derive(Debug, Clone, clap::Args)]
pub struct OcpiConfig {
    /// Address energy's OCPI receiver listens on.
    #[arg(long, env = "FLEETDESK_OCPI_ADDR", default_value = "127.0.0.1:8091")]
    pub ocpi_addr: String,

    /// URL the platform reaches the receiver at (command results); default
    /// `http://<ocpi-addr>`.
    #[arg(long, env = "FLEETDESK_OCPI_PUBLIC_URL")]
    pub ocpi_public_url: Option<String>,

    /// Token the platform presents to energy (`Authorization: Token …`).
    #[arg(long, env = "FLEETDESK_OCPI_TOKEN", hide_env_values = true)]
    pub ocpi_token: Option<SecretString>,

    /// The platform's OCPI base: scheme, host and port.
    #[arg(long, env = "FLEETDESK_CPO_URL")]
    pub cpo_url: Option<String>,

    /// Token energy presents to the platform.
    #[arg(long, env = "FLEETDESK_CPO_TOKEN", hide_env_values = true)]
    pub cpo_token: Option<SecretString>,

    /// The platform's OCPI party id.
    #[arg(long, env = "FLEETDESK_CPO_PARTY_ID", default_value = "SDC")]
    pub cpo_party_id: String,

    /// Seconds between two full syncs of the platform's stations and tariffs.
    #[arg(long, env = "FLEETDESK_STATION_SYNC_SECS", default_value_t = 600)]
    pub station_sync_secs: u64,
}

/// What the receiver and the session flow share: the pool, the platform's
/// client and where the platform reaches the receiver.
#[derive(Debug, Clone)]
pub struct Platform {
    pub pool: PgPool,
    pub cpo: Cpo,
    public_url: String,
}

impl Platform {
    /// Where the platform posts the result of a STOP_SESSION for `session`.
    pub fn command_result_url(&self, session: Uuid) -> String {
        format!(
            "{}{EMSP_BASE}/commands/STOP_SESSION/{session}",
            self.public_url
        )
    }
}

/// The OCPI side, bound and ready to run.
pub struct Ocpi {
    listener: TcpListener,
    token: SecretString,
    cpo: Cpo,
    public_url: String,
    sync_every: Duration,
}

impl std::fmt::Debug for Ocpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ocpi")
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

impl Ocpi {
    /// Binds the receiver; None when the platform is not configured.
    pub async fn bind(config: &OcpiConfig) -> anyhow::Result<Option<Ocpi>> {
        let (Some(token), Some(cpo_url), Some(cpo_token)) =
            (&config.ocpi_token, &config.cpo_url, &config.cpo_token)
        else {
            tracing::info!("No charging platform configured; OCPI is off.");
            return Ok(None);
        };
        let listener = TcpListener::bind(&config.ocpi_addr)
            .await
            .with_context(|| format!("bind OCPI receiver on {}", config.ocpi_addr))?;
        let mut addr = listener.local_addr()?;
        if addr.ip().is_unspecified() {
            addr.set_ip([127, 0, 0, 1].into());
        }
        let public_url = config
            .ocpi_public_url
            .clone()
            .unwrap_or_else(|| format!("http://{addr}"))
            .trim_end_matches('/')
            .to_owned();
        Ok(Some(Ocpi {
            listener,
            token: token.clone(),
            cpo: Cpo::new(cpo_url, cpo_token.expose_secret(), &config.cpo_party_id)?,
            public_url,
            sync_every: Duration::from_secs(config.station_sync_secs.max(10)),
        }))
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Serves the receiver, syncs stations and sweeps until shutdown.
    pub async fn run(self, pool: PgPool, shutdown: Shutdown) -> anyhow::Result<()> {
        let platform = Platform {
            pool,
            cpo: self.cpo,
            public_url: self.public_url,
        };
        tracing::info!(addr = %self.listener.local_addr()?, "OCPI receiver listening.");
        let sync = tokio::spawn(crate::stations::sync::run(
            platform.pool.clone(),
            platform.cpo.clone(),
            self.sync_every,
            shutdown.clone(),
        ));
        let sweeper = tokio::spawn(sweep(platform.clone(), shutdown.clone()));
        let router = receiver::router(platform, self.token);
        let stopping = shutdown.clone();
        let served = axum::serve(self.listener, router)
            .with_graceful_shutdown(async move { stopping.wait().await })
            .await;
        sync.await.ok();
        sweeper.await.ok();
        served.context("OCPI receiver")
    }
}

/// Every 30 s: expired authorisations, stale recognitions, stops to resend.
async fn sweep(platform: Platform, shutdown: Shutdown) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(30)) => {}
            () = shutdown.wait() => return,
        }
        if let Err(err) = crate::sessions::charging::sweep(&platform).await {
            tracing::warn!(error = %err, "Charging sweep failed; retrying.");
        }
    }
}
