//! The attachment server: where terminals upload the evidence (photos,
//! clips) of their active-safety alarms (苏标 §4.5), on a TCP port of its
//! own. The 808 connection that received an alarm with attachments asks the
//! terminal for them with 0x9208, naming this replica's attachment port and
//! a fresh alarm number it keeps in the shared [`registry`]; the terminal
//! connects, and [`upload`] matches the connection to the vehicle by that
//! number and takes the files.
//!
//! ```text
//! terminal ─0x0200 (ADAS/DMS item, attachment count > 0)─▶ 808 connection ─▶ Fix.safety_alarms on the stream
//!   808 connection: registry.request(alarm) → alarm number ─0x9208 (this replica's host, attachment port)─▶ terminal
//! terminal ─TCP─▶ attachment port
//!   ─0x1210 (terminal id, alarm identifier, alarm number, files)─▶ registry.find: unknown → 0x8001 failed, closed
//!                                                                                 known → 0x8001 ok
//!   per file: ─0x1211 (name, type, size)─▶ 0x8001 ─▶ data packets "01cd" | name | offset | length | bytes
//!             ─0x1212─▶ missing pieces? ─0x9212 (the pieces)─▶ terminal sends them again ─0x1212─▶ …
//!                       complete ─▶ object store <enterprise>/media/<vehicle>-<alarm key>/<name>
//!                                ─▶ MediaStored (alarm key, file name) on telemetry.<enterprise>.<vehicle>.media
//!                                ─0x9212 (result 0)─▶ terminal
//! ```
//!
//! Limits: connections at once, idle time, the size of one file (which is
//! also what one connection may hold), names only from the alarm's file
//! list. Malformed frames and packets are counted and dropped; a connection
//! that keeps sending them is closed.

pub mod registry;
mod upload;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use fleetdesk_kit::Shutdown;
use fleetdesk_kit::files::FileStore;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

pub use registry::Registry;

use crate::publish::Publisher;
use upload::Uploads;

/// Settings of the attachment server.
#[derive(Debug, Clone, clap::Args)]
pub struct AttachmentConfig {
    /// Address of the attachment server, where terminals upload alarm evidence.
    #[arg(
        long,
        env = "FLEETDESK_ATTACHMENT_ADDR",
        default_value = "0.0.0.0:7611"
    )]
    pub attachment_addr: String,

    /// TCP port terminals are told in 0x9208; default: the server's port.
    /// (The host is the media public host.)
    #[arg(long, env = "FLEETDESK_ATTACHMENT_PUBLIC_PORT")]
    pub attachment_public_port: Option<u16>,

    /// Most attachment connections at once; more are closed on accept.
    #[arg(
        long,
        env = "FLEETDESK_ATTACHMENT_MAX_CONNECTIONS",
        default_value_t = 512
    )]
    pub attachment_max_connections: usize,

    /// Seconds without a byte before an attachment connection is closed.
    #[arg(long, env = "FLEETDESK_ATTACHMENT_IDLE_SECS", default_value_t = 60)]
    pub attachment_idle_secs: u64,

    /// Largest evidence file taken, MiB.
    #[arg(long, env = "FLEETDESK_ATTACHMENT_MAX_FILE_MIB", default_value_t = 64)]
    pub attachment_max_file_mib: u32,
}

impl AttachmentConfig {
    /// On loopback and a free port (a stack started in-process, tests).
    pub fn local() -> AttachmentConfig {
        AttachmentConfig {
            attachment_addr: "127.0.0.1:0".into(),
            attachment_public_port: None,
            attachment_max_connections: 512,
            attachment_idle_secs: 60,
            attachment_max_file_mib: 64,
        }
    }
}

/// The attachment server, bound but not yet accepting.
#[derive(Debug)]
pub(crate) struct AttachmentServer {
    listener: TcpListener,
    uploads: Arc<Uploads>,
    max_connections: usize,
}

impl AttachmentServer {
    pub(crate) async fn bind(
        config: &AttachmentConfig,
        registry: Arc<Registry>,
        files: FileStore,
        publisher: Publisher,
    ) -> anyhow::Result<AttachmentServer> {
        let listener = TcpListener::bind(&config.attachment_addr)
            .await
            .with_context(|| format!("bind {}", config.attachment_addr))?;
        Ok(AttachmentServer {
            listener,
            uploads: Arc::new(Uploads {
                registry,
                files,
                publisher,
                idle: Duration::from_secs(config.attachment_idle_secs.max(1)),
                max_file: config.attachment_max_file_mib.saturating_mul(1024 * 1024),
            }),
            max_connections: config.attachment_max_connections,
        })
    }

    pub(crate) fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// Accepts uploads until shutdown; open connections end with it.
    pub(crate) async fn run(self, shutdown: Shutdown) {
        let AttachmentServer {
            listener,
            uploads,
            max_connections,
        } = self;
        let slots = Arc::new(Semaphore::new(max_connections));
        let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
        tracing::info!(port, "Attachment server listening.");
        loop {
            let stream = tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, _)) => stream,
                    Err(err) => {
                        tracing::warn!(error = %err, "Attachment accept failed.");
                        continue;
                    }
                },
                () = shutdown.wait() => return,
            };
            let Ok(slot) = slots.clone().try_acquire_owned() else {
                metrics::counter!("telematics_attachment_connections_closed_total", "reason" => "full")
                    .increment(1);
                drop(stream);
                continue;
            };
            stream.set_nodelay(true).ok();
            let uploads = uploads.clone();
            let stop = shutdown.clone();
            tokio::spawn(async move {
                tokio::select! {
                    () = upload::serve(stream, uploads) => {}
                    () = stop.wait() => {}
                }
                drop(slot);
            });
        }
    }
}
