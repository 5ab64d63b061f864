//! The device edge of Fleetdesk (`fleetdesk telematics`). Vehicle terminals
//! speak JT/T 808 over TCP; the edge authenticates them against the terminal
//! directory and publishes their fixes to the telemetry stream, answering a
//! report only once JetStream holds it. It keeps nothing itself.
//!
//! - [`jt808`]: the protocol (framing, headers, bodies, reassembly);
//! - [`directory`]: which terminals may report, and for which vehicle;
//! - [`publish`]: the telemetry stream;
//! - `connection`: one terminal's session with its limits.

mod connection;
pub mod directory;
pub mod jt808;
pub mod publish;

use std::sync::Arc;
use std::time::Duration;

use fleetdesk_kit::{Shutdown, events};
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::connection::Edge;
use crate::directory::Directory;
use crate::publish::Publisher;

/// Settings of the device edge.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// NATS server URL (JetStream enabled).
    #[arg(long, env = "NATS_URL", default_value = "nats://127.0.0.1:4222")]
    pub nats_url: String,

    /// Address terminals connect to (JT/T 808 over TCP).
    #[arg(long, env = "FLEETDESK_JT808_ADDR", default_value = "0.0.0.0:8808")]
    pub addr: String,

    /// Most terminal connections at once; more are closed on accept.
    #[arg(
        long,
        env = "FLEETDESK_JT808_MAX_CONNECTIONS",
        default_value_t = 50_000
    )]
    pub max_connections: usize,

    /// Seconds without a byte before a connection is closed (terminals send a
    /// heartbeat every 60 s by default).
    #[arg(long, env = "FLEETDESK_JT808_IDLE_SECS", default_value_t = 180)]
    pub idle_secs: u64,

    /// Messages a second one terminal may send, with bursts of twice that.
    #[arg(
        long,
        env = "FLEETDESK_JT808_MAX_MESSAGES_PER_SEC",
        default_value_t = 20
    )]
    pub max_messages_per_sec: u32,

    /// Hours the telemetry stream keeps fixes for consumers that fell behind.
    #[arg(long, env = "FLEETDESK_TELEMETRY_MAX_AGE_HOURS", default_value_t = 72)]
    pub telemetry_max_age_hours: u64,
}

/// A built edge: listening, connected to NATS.
#[derive(Debug)]
pub struct Application<D> {
    listener: TcpListener,
    edge: Arc<Edge<D>>,
    max_connections: usize,
}

impl<D: Directory> Application<D> {
    pub async fn build(config: &Config, directory: D) -> anyhow::Result<Application<D>> {
        let nats = events::connect_nats(&config.nats_url, "fleetdesk-telematics").await?;
        let js = events::jetstream(nats);
        publish::ensure_stream(
            &js,
            Duration::from_secs(config.telemetry_max_age_hours * 3600),
        )
        .await?;
        Ok(Application {
            listener: TcpListener::bind(&config.addr).await?,
            edge: Arc::new(Edge {
                directory,
                publisher: Publisher::new(js),
                idle: Duration::from_secs(config.idle_secs),
                max_messages_per_sec: config.max_messages_per_sec,
            }),
            max_connections: config.max_connections,
        })
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Accepts terminals until shutdown; open connections end with the process.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let slots = Arc::new(Semaphore::new(self.max_connections));
        tracing::info!(port = self.port(), "JT/T 808 edge listening.");
        loop {
            let (stream, _peer) = tokio::select! {
                accepted = self.listener.accept() => match accepted {
                    Ok(a) => a,
                    Err(err) => {
                        tracing::warn!(error = %err, "Accept failed.");
                        continue;
                    }
                },
                () = shutdown.wait() => return Ok(()),
            };
            let Ok(slot) = slots.clone().try_acquire_owned() else {
                metrics::counter!("telematics_connections_closed_total", "reason" => "full")
                    .increment(1);
                drop(stream);
                continue;
            };
            stream.set_nodelay(true).ok();
            let edge = self.edge.clone();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = connection::serve(stream, edge) => {}
                    () = stop.wait() => {}
                }
                drop(slot);
            });
        }
    }
}
