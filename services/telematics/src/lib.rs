//! The device edge of Fleetdesk (`fleetdesk telematics`). Vehicle terminals
//! speak JT/T 808 over TCP; the edge authenticates them against the terminal
//! directory and publishes their fixes to the telemetry stream, answering a
//! report only once JetStream holds it. It keeps nothing itself.
//!
//! - [`jt808`]: the protocol (framing, headers, bodies, reassembly);
//! - [`directory`]: which terminals may report, and for which vehicle;
//! - [`publish`]: the telemetry stream;
//! - `connection`: one terminal's session with its limits, the platform's
//!   commands to it and its photos;
//! - [`attachments`]: the attachment server, where terminals upload the
//!   evidence of their active-safety alarms after 0x9208.
//!
//! # Terminal profile
//!
//! Besides the standard's additional items of a location report (0x01
//! mileage, 0x30 signal, 0x31 satellites), Fleetdesk terminals send two
//! vendor items (ids from the standard's custom range 0xE1-0xFF):
//!
//! | id | length | value |
//! |---|---|---|
//! | `0xE1` | 1 | battery state of charge, percent (0-100) |
//! | `0xE2` | 1 + 3n | refrigerated-box temperatures: count BYTE, then per probe: probe number BYTE, temperature WORD as a signed tenth of a degree Celsius (`0xFF4A` = -18.2 °C) |
//!
//! Other makers use the same ids for their own items (a GPS51 terminal's
//! 0xE2 is a firmware string), so vendor items are read by the maker a
//! terminal registered with (0x0100): ours (`FLEETSIM`, the simulator's, and
//! `FLEET`) when their length fits the layout above; another maker's are
//! skipped and counted (`telematics_vendor_items_ignored_total`), never
//! refusing the fix. The terminal directory keeps the maker with the
//! registration and answers it on authentication, so it holds whichever
//! connection, replica or restart of the edge the terminal comes back on.
//! Where it is not known (registered before makers were kept, or with a
//! blank maker id, and not on this connection), a vendor item is read as
//! ours only when its length fits.
//!
//! A fix whose time cannot be right (more than 180 days old or 10 minutes
//! ahead) is answered, counted and published as sent; telemetry ingest
//! stores it at its receive time with the device time kept.
//!
//! Door locking uses 0x8500 (2019: control item 0x0001, 0 lock / 1 unlock;
//! 2013: control flag bit 0) and the door-locked status bit 13 of the
//! report; the edge subscribes to `telematics.command.<phone>` for each
//! authenticated terminal. Photos (0x0800/0x0801) are stored under
//! `<enterprise>/media/…` in the object store.
//!
//! # Video
//!
//! The target also hosts the cameras' video ([`video`]): two JT/T 1078 media
//! ports (live, playback) served by `fleetdesk_media`, and `MediaService`
//! over gRPC ([`grpc`]) for the gateway. The flow of one camera:
//!
//! ```text
//! first viewer ─WatchLive─▶ NATS telematics.command.<phone> (LiveOpen: channel, stream, this replica's media port)
//!   ─▶ the connection holding the terminal ─0x9101─▶ terminal ─0x0001 (0 = ok)─▶ NATS reply
//!   terminal ─TCP, JT/T 1078─▶ media port ─▶ hub (terminal, channel) ─▶ fMP4 segments ─▶ every viewer
//! later viewers ─WatchLive─▶ the same hub channel (no new 0x9101)
//! last viewer gone ─▶ grace (FLEETDESK_MEDIA_GRACE_SECS) ─▶ LiveControl close ─0x9102─▶ terminal
//! ```
//!
//! Queries go the same way: 0x9003 → 0x1003 (`GetAvAttributes`), 0x9205 →
//! 0x1205 (`ListResources`); playback is 0x9201 to the playback port and
//! 0x9202 (`ControlPlayback`, and stop when its watcher goes).
//!
//! Every terminal is also asked 0x9003 once when it authenticates; its
//! 0x1003 (whenever it comes) is reported to the directory, so video is
//! offered only for vehicles with cameras. A terminal that never answers
//! is not asked again on that connection.
//!
//! # Active safety
//!
//! A report's active-safety alarms (苏标 items 0x64-0x67) are published in
//! `Fix.safety_alarms`; for one with attachments the connection sends
//! 0x9208 once, and the terminal uploads the files to the attachment
//! server ([`attachments`]), which stores them and publishes `MediaStored`
//! with the alarm's key.

pub mod attachments;
mod connection;
pub mod directory;
pub mod grpc;
pub mod jt808;
pub mod publish;
pub mod video;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use fleetdesk_kit::config::CommonConfig;
use fleetdesk_kit::files::FileStore;
use fleetdesk_kit::internal_token::TokenVerifier;
use fleetdesk_kit::{Shutdown, events};
use fleetdesk_media::Hub;
use fleetdesk_proto::telematics::v1 as pb;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

use crate::attachments::{AttachmentServer, Registry};
use crate::connection::Edge;
use crate::directory::Directory;
use crate::jt808::message::MediaServer;
use crate::publish::Publisher;
use crate::video::VideoConfig;
use crate::video::streams::{Servers, Streams};

/// Settings of the device edge.
#[derive(Debug, Clone, clap::Args)]
pub struct Config {
    /// NATS, the signing key of the edge's calls to vehicle, the environment.
    #[command(flatten)]
    pub common: CommonConfig,

    /// gRPC URL of the vehicle service (the terminal directory).
    #[arg(
        long,
        env = "FLEETDESK_VEHICLE_URL",
        default_value = "http://127.0.0.1:50053"
    )]
    pub vehicle_url: String,

    /// Directory of the object store (terminals' photos), shared with the gateway.
    #[arg(
        long,
        env = "FLEETDESK_OBJECT_STORE_DIR",
        default_value = ".data/objects"
    )]
    pub object_store_dir: std::path::PathBuf,

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

    /// The media ports and MediaService.
    #[command(flatten)]
    pub video: VideoConfig,
}

impl Config {
    /// The edge with the default limits (those of `--help`), for a stack
    /// that starts it in-process.
    pub fn with_defaults(
        common: CommonConfig,
        vehicle_url: String,
        object_store_dir: std::path::PathBuf,
        addr: String,
    ) -> Config {
        Config {
            common,
            vehicle_url,
            object_store_dir,
            addr,
            max_connections: 50_000,
            idle_secs: 180,
            max_messages_per_sec: 20,
            telemetry_max_age_hours: 72,
            video: VideoConfig::local(),
        }
    }
}

/// A built edge: listening, connected to NATS.
#[derive(Debug)]
pub struct Application<D> {
    listener: TcpListener,
    edge: Arc<Edge<D>>,
    max_connections: usize,
    video: VideoParts,
    attachments: AttachmentServer,
}

/// The video side: the media ports, their hubs and the gRPC server.
#[derive(Debug)]
struct VideoParts {
    grpc: TcpListener,
    live: (TcpListener, Hub),
    playback: (TcpListener, Hub),
    streams: Arc<Streams>,
    verifier: TokenVerifier,
}

impl VideoParts {
    async fn build(
        config: &VideoConfig,
        nats: async_nats::Client,
        verifier: TokenVerifier,
    ) -> anyhow::Result<VideoParts> {
        let bind = |addr: String| async move {
            TcpListener::bind(&addr)
                .await
                .with_context(|| format!("bind {addr}"))
        };
        let grpc = bind(config.grpc_addr.clone()).await?;
        let live = bind(config.media_addr.clone()).await?;
        let playback = bind(config.media_playback_addr.clone()).await?;
        let (live_addr, playback_addr) = (live.local_addr()?, playback.local_addr()?);
        let servers = Servers {
            live: pb::MediaServer {
                host: config.public_host(live_addr),
                tcp_port: u32::from(config.media_public_port.unwrap_or(live_addr.port())),
            },
            playback: pb::MediaServer {
                host: config.public_host(playback_addr),
                tcp_port: u32::from(
                    config
                        .media_playback_public_port
                        .unwrap_or(playback_addr.port()),
                ),
            },
        };
        tracing::info!(live = ?servers.live, playback = ?servers.playback, "Terminals stream video to these.");
        let (live_hub, playback_hub) = (Hub::new(), Hub::new());
        let streams = Arc::new(Streams::new(
            live_hub.clone(),
            playback_hub.clone(),
            nats,
            servers,
            config.grace(),
            config.open_timeout(),
        ));
        Ok(VideoParts {
            grpc,
            live: (live, live_hub),
            playback: (playback, playback_hub),
            streams,
            verifier,
        })
    }
}

impl<D: Directory> Application<D> {
    pub async fn build(config: &Config, directory: D) -> anyhow::Result<Application<D>> {
        let nats = events::connect_nats(&config.common.nats_url, "fleetdesk-telematics").await?;
        let js = events::jetstream(nats.clone());
        publish::ensure_stream(
            &js,
            Duration::from_secs(config.telemetry_max_age_hours * 3600),
        )
        .await?;
        let verifier = config.common.signer()?.verifier();
        let video = VideoParts::build(&config.video, nats.clone(), verifier).await?;
        let publisher = Publisher::new(js);
        let files = FileStore::local(&config.object_store_dir)?;
        let registry = Arc::new(Registry::default());
        let attachments = AttachmentServer::bind(
            &config.video.attachments,
            registry.clone(),
            files.clone(),
            publisher.clone(),
        )
        .await?;
        let bound = attachments.local_addr()?;
        let attachment_server = MediaServer {
            address: config.video.public_host(bound),
            tcp_port: config
                .video
                .attachments
                .attachment_public_port
                .unwrap_or(bound.port()),
            udp_port: 0,
        };
        tracing::info!(server = ?attachment_server, "Terminals upload alarm evidence to this.");
        Ok(Application {
            listener: TcpListener::bind(&config.addr).await?,
            edge: Arc::new(Edge {
                directory,
                publisher,
                nats,
                files,
                idle: Duration::from_secs(config.idle_secs),
                max_messages_per_sec: config.max_messages_per_sec,
                evidence: registry,
                attachment_server,
            }),
            max_connections: config.max_connections,
            video,
            attachments,
        })
    }

    pub fn port(&self) -> u16 {
        self.listener.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Port of the gRPC server (MediaService).
    pub fn grpc_port(&self) -> u16 {
        self.video.grpc.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Port of the live media port (JT/T 1078).
    pub fn media_port(&self) -> u16 {
        self.video
            .live
            .0
            .local_addr()
            .map(|a| a.port())
            .unwrap_or(0)
    }

    /// Port of the attachment server (alarm evidence).
    pub fn attachment_port(&self) -> u16 {
        self.attachments.local_addr().map(|a| a.port()).unwrap_or(0)
    }

    /// Port of the playback media port (JT/T 1078).
    pub fn playback_port(&self) -> u16 {
        self.video
            .playback
            .0
            .local_addr()
            .map(|a| a.port())
            .unwrap_or(0)
    }

    /// Accepts terminals, their media connections and MediaService calls
    /// until shutdown; open connections end with the process.
    pub async fn run_until_stopped(self, shutdown: Shutdown) -> anyhow::Result<()> {
        let Application {
            listener,
            edge,
            max_connections,
            video,
            attachments,
        } = self;
        tokio::spawn(attachments.run(shutdown.clone()));
        let VideoParts {
            grpc: grpc_listener,
            live,
            playback,
            streams,
            verifier,
        } = video;
        for (listener, hub) in [live, playback] {
            let stop = shutdown.clone();
            tokio::spawn(fleetdesk_media::serve(listener, hub, async move {
                stop.wait().await;
            }));
        }
        let served = tokio::spawn(fleetdesk_kit::grpc::serve_all(
            grpc_listener,
            grpc::services(streams.clone(), verifier),
            shutdown.clone(),
        ));
        let grpc = async move { served.await.context("gRPC server")? };
        // Watches never end by themselves: end them, or the gRPC server
        // waits for them forever.
        let stopping = streams.clone();
        let stop = shutdown.clone();
        tokio::spawn(async move {
            stop.wait().await;
            stopping.stop();
        });
        tokio::try_join!(accept(listener, edge, max_connections, shutdown), grpc)?;
        streams.close_all(Duration::from_secs(3)).await;
        Ok(())
    }
}

/// Accepts terminals until shutdown.
async fn accept<D: Directory>(
    listener: TcpListener,
    edge: Arc<Edge<D>>,
    max_connections: usize,
    shutdown: Shutdown,
) -> anyhow::Result<()> {
    let slots = Arc::new(Semaphore::new(max_connections));
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    tracing::info!(port, "JT/T 808 edge listening.");
    loop {
        let (stream, _peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
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
        let edge = edge.clone();
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
