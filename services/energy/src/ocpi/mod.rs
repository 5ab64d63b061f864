//! Energy as the eMSP of the charging platform, over OCPI 2.2.1
//! (`fleetdesk-ocpi` has the modules, objects and vendor extensions): the
//! OCPI layer, above the subjects as the gRPC layer is:
//!
//! - `credentials`: how the platform registers — energy's versions,
//!   version details and credentials module, behind the bootstrap token A
//!   (FLEETDESK_OCPI_TOKEN_A) until the platform has registered and then
//!   its token C; the registration gives energy the platform's party, its
//!   endpoints and the token B to present.
//! - `receiver`: the HTTP endpoints the platform calls, on their own
//!   address (FLEETDESK_OCPI_ADDR) behind the registered platform's token C
//!   — the token list, real-time authorisation, session PUT/PATCH, CDRs,
//!   locations (EVSE status above all) and tariffs pushed and read back,
//!   plate recognitions and command results. Each is a thin call into its
//!   subject (`sessions::charging`, `plate_scans::recognition`,
//!   `stations::push`, `cards::tokens`).
//!
//! Energy's calls to the platform (`platform::client`) and the registered
//! platform's link the subjects take (`platform::Platform`) are in
//! [`crate::platform`], so that subjects never import this layer.
//!
//! While a platform is registered, the station sync and the sweeper
//! (expired authorisations, stale recognitions, stops to send again) run
//! for it; a new registration restarts them for the new one.

mod credentials;
mod receiver;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use fleetdesk_kit::{Shutdown, db};
use secrecy::SecretString;
use sqlx_postgres::PgPool;
use tokio::net::TcpListener;

use self::credentials::{Link, Registry, same_link};
use crate::ledger::{self, CaptureGroup};
use crate::platform::Platform;

/// How the charging platform meets energy. Without a bootstrap token the
/// OCPI side stays off.
#[derive(Debug, Clone, clap::Args)]
pub struct OcpiConfig {
    /// Address energy's OCPI receiver listens on.
    #[arg(long, env = "FLEETDESK_OCPI_ADDR", default_value = "127.0.0.1:8091")]
    pub ocpi_addr: String,

    /// URL the platform reaches the receiver at (versions, module URLs,
    /// command results); default `http://<ocpi-addr>`.
    #[arg(long, env = "FLEETDESK_OCPI_PUBLIC_URL")]
    pub ocpi_public_url: Option<String>,

    /// Bootstrap token (OCPI's token A) handed to the platform with energy's
    /// versions URL, `<public-url>/ocpi/versions`: good for versions, details
    /// and one registration through the credentials module, nothing else.
    #[arg(long, env = "FLEETDESK_OCPI_TOKEN_A", hide_env_values = true)]
    pub ocpi_token_a: Option<SecretString>,

    /// Seconds between two full syncs of the platform's stations and tariffs.
    #[arg(long, env = "FLEETDESK_STATION_SYNC_SECS", default_value_t = 600)]
    pub station_sync_secs: u64,
}

impl Default for OcpiConfig {
    /// No platform, and a free loopback port for the receiver once one is
    /// given (stacks that run beside others, such as tests).
    fn default() -> Self {
        OcpiConfig {
            ocpi_addr: "127.0.0.1:0".to_owned(),
            ocpi_public_url: None,
            ocpi_token_a: None,
            station_sync_secs: 600,
        }
    }
}

/// Energy's versions URL, to hand a platform with token A: under the public
/// URL when configured, else on loopback at the receiver's `port`.
pub fn versions_url(config: &OcpiConfig, port: u16) -> String {
    let base = config
        .ocpi_public_url
        .clone()
        .unwrap_or_else(|| format!("http://127.0.0.1:{port}"));
    format!(
        "{}{}",
        base.trim_end_matches('/'),
        fleetdesk_ocpi::credentials::VERSIONS_PATH
    )
}

/// The OCPI side, bound and ready to run.
pub struct Ocpi {
    listener: TcpListener,
    token_a: SecretString,
    public_url: String,
    sync_every: Duration,
    /// The group the platform's sessions settle through.
    captures: CaptureGroup,
}

impl std::fmt::Debug for Ocpi {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ocpi")
            .field("public_url", &self.public_url)
            .finish_non_exhaustive()
    }
}

/// How often every process reads the registration again (one made or
/// changed through another energy process).
const REREAD_EVERY: Duration = Duration::from_secs(10);

impl Ocpi {
    /// Binds the receiver and opens the capture group's own pool on
    /// `database_url`; None without a bootstrap token.
    pub async fn bind(config: &OcpiConfig, database_url: &str) -> anyhow::Result<Option<Ocpi>> {
        let Some(token_a) = &config.ocpi_token_a else {
            tracing::info!("No OCPI bootstrap token configured; OCPI is off.");
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
        // Never the serving pool: a settlement waits for its capture while
        // holding one of that pool's connections.
        let group_pool =
            db::connect(database_url, crate::SCHEMA.name, ledger::CAPTURE_POOL).await?;
        Ok(Some(Ocpi {
            listener,
            token_a: token_a.clone(),
            public_url,
            sync_every: Duration::from_secs(config.station_sync_secs.max(10)),
            captures: CaptureGroup::new(group_pool, ledger::CAPTURE_GROUP_SIZE),
        }))
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Serves the receiver and, while a platform is registered, syncs its
    /// stations and sweeps, until shutdown.
    pub async fn run(self, pool: PgPool, shutdown: Shutdown) -> anyhow::Result<()> {
        let registry = Registry::open(pool, self.captures, &self.token_a, self.public_url)
            .await
            .context("read the OCPI registration")?;
        tracing::info!(addr = %self.listener.local_addr()?, "OCPI receiver listening.");
        let following = tokio::spawn(follow(registry.clone(), self.sync_every, shutdown.clone()));
        let rereading = tokio::spawn(reread(registry.clone(), shutdown.clone()));
        let router = receiver::router(registry);
        let stopping = shutdown.clone();
        let served = axum::serve(self.listener, router)
            .with_graceful_shutdown(async move { stopping.wait().await })
            .await;
        following.await.ok();
        rereading.await.ok();
        served.context("OCPI receiver")
    }
}

/// Runs the station sync and the sweeper for the registered platform: not
/// while none is, and afresh for each new registration (or update).
async fn follow(registry: Registry, sync_every: Duration, shutdown: Shutdown) {
    let mut snapshots = registry.subscribe();
    loop {
        let link: Option<Arc<Link>> = snapshots.borrow_and_update().link.clone();
        let generation = Shutdown::new();
        let running = link.as_ref().map(|l| {
            let platform = l.platform.clone();
            tracing::info!(party = %platform.cpo.party_id, "Following the registered charging platform.");
            (
                tokio::spawn(crate::stations::sync::run(
                    platform.pool.clone(),
                    platform.cpo.clone(),
                    sync_every,
                    generation.clone(),
                )),
                tokio::spawn(sweep(platform, generation.clone())),
            )
        });
        let changed = tokio::select! {
            changed = snapshots.wait_for(|s| !same_link(&s.link, &link)) => changed.is_ok(),
            () = shutdown.wait() => false,
        };
        generation.trigger();
        if let Some((sync, sweeper)) = running {
            sync.await.ok();
            sweeper.await.ok();
        }
        if !changed {
            return;
        }
    }
}

/// Reads the registration every [`REREAD_EVERY`] until shutdown.
async fn reread(registry: Registry, shutdown: Shutdown) {
    loop {
        tokio::select! {
            () = tokio::time::sleep(REREAD_EVERY) => {}
            () = shutdown.wait() => return,
        }
        if let Err(err) = registry.reload().await {
            tracing::warn!(error = %err, "OCPI registration not read; retrying.");
        }
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
