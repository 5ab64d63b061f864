//! Video from vehicle cameras (JT/T 1078) on the device edge: the media
//! ports, the streams the edge asked terminals for, and what `MediaService`
//! answers.
//!
//! - [`convert`]: the video commands of `VehicleCommand` ↔ the 808 messages
//!   (used by the connection that holds the terminal);
//! - [`streams`]: one upstream per camera, opened for the first viewer and
//!   closed after the last; playbacks; the answers of queries;
//! - [`handlers`]: `MediaService`'s requests, validated, into [`streams`].
//!
//! Live, one camera:
//!
//! ```text
//! viewer 1 ─WatchLive─▶ streams: hub.subscribe(terminal, channel)
//!                       first viewer: NATS telematics.command.<phone> (LiveOpen, this replica's media port)
//!                         ─▶ the replica holding the terminal ─0x9101─▶ terminal ─0x0001─▶ NATS reply
//!                       terminal ─TCP, JT/T 1078─▶ media port ─▶ hub ─▶ init segment, fragments ─▶ viewer 1
//! viewer 2 ─WatchLive─▶ hub.subscribe: the same channel, no new 0x9101 (init + the GOP at once)
//! last viewer gone ─▶ grace (no new viewer) ─▶ LiveControl close ─0x9102─▶ terminal
//! ```
//!
//! Playback streams to its own media port with its own hub. The standard
//! gives playback no channel numbers of its own: a terminal plays a
//! recording back in frames carrying the camera's logical channel, the same
//! as that camera's live stream, and 0x9201 names the server to send them
//! to. So the playback port tells the two apart by connection, and a live
//! viewer never gets a recording. One playback per camera at a time (a
//! terminal plays one recording per channel); a second is refused while the
//! first runs. The caller going away stops it (0x9202 stop).
//!
//! The media address told to terminals is this replica's, whichever replica
//! holds the terminal's 808 link.

pub mod convert;
pub mod handlers;
pub mod streams;

use std::net::{IpAddr, Ipv4Addr, SocketAddr, UdpSocket};
use std::time::Duration;

/// Settings of the video side of the edge.
#[derive(Debug, Clone, clap::Args)]
pub struct VideoConfig {
    /// Address of the gRPC server (MediaService, health, reflection).
    #[arg(long, env = "FLEETDESK_GRPC_ADDR", default_value = "0.0.0.0:50051")]
    pub grpc_addr: String,

    /// Address of the JT/T 1078 media port where terminals stream live video.
    #[arg(long, env = "FLEETDESK_MEDIA_ADDR", default_value = "0.0.0.0:1078")]
    pub media_addr: String,

    /// Address of the media port where terminals stream recordings played back.
    #[arg(
        long,
        env = "FLEETDESK_MEDIA_PLAYBACK_ADDR",
        default_value = "0.0.0.0:1079"
    )]
    pub media_playback_addr: String,

    /// Host (IP address) terminals are told to stream to (0x9101, 0x9201);
    /// default: the media address's IP, or this host's outbound IP when it
    /// listens on every interface.
    #[arg(long, env = "FLEETDESK_MEDIA_PUBLIC_HOST")]
    pub media_public_host: Option<String>,

    /// TCP port terminals are told for live video; default: the media port's.
    #[arg(long, env = "FLEETDESK_MEDIA_PUBLIC_PORT")]
    pub media_public_port: Option<u16>,

    /// TCP port terminals are told for playback; default: the playback port's.
    #[arg(long, env = "FLEETDESK_MEDIA_PLAYBACK_PUBLIC_PORT")]
    pub media_playback_public_port: Option<u16>,

    /// Seconds a live stream nobody watches stays open before the terminal
    /// is told to close it (a viewer coming back meanwhile finds it open).
    #[arg(long, env = "FLEETDESK_MEDIA_GRACE_SECS", default_value_t = 20)]
    pub media_grace_secs: u64,

    /// Seconds to wait for a terminal's answer, and for its stream to reach
    /// the media port, before a viewer is told it is unavailable.
    #[arg(long, env = "FLEETDESK_MEDIA_OPEN_TIMEOUT_SECS", default_value_t = 10)]
    pub media_open_timeout_secs: u64,

    /// The attachment server (active-safety evidence); its host is the
    /// media public host.
    #[command(flatten)]
    pub attachments: crate::attachments::AttachmentConfig,
}

impl VideoConfig {
    /// Everything on loopback and free ports: a stack started in-process
    /// (and tests), where the terminals run on the same host.
    pub fn local() -> VideoConfig {
        VideoConfig {
            grpc_addr: "127.0.0.1:0".into(),
            media_addr: "127.0.0.1:0".into(),
            media_playback_addr: "127.0.0.1:0".into(),
            media_public_host: None,
            media_public_port: None,
            media_playback_public_port: None,
            media_grace_secs: 20,
            media_open_timeout_secs: 10,
            attachments: crate::attachments::AttachmentConfig::local(),
        }
    }

    pub fn grace(&self) -> Duration {
        Duration::from_secs(self.media_grace_secs)
    }

    pub fn open_timeout(&self) -> Duration {
        Duration::from_secs(self.media_open_timeout_secs.max(1))
    }

    /// The host terminals are told, given where the media port listens.
    pub fn public_host(&self, bound: SocketAddr) -> String {
        if let Some(host) = self.media_public_host.as_deref().filter(|h| !h.is_empty()) {
            return host.to_owned();
        }
        if !bound.ip().is_unspecified() {
            return bound.ip().to_string();
        }
        outbound_ip()
            .unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST))
            .to_string()
    }
}

/// The address this host sends from towards the outside: a UDP socket
/// "connected" to a public address picks the route without sending anything.
fn outbound_ip() -> Option<IpAddr> {
    let socket = UdpSocket::bind(("0.0.0.0", 0)).ok()?;
    socket.connect(("192.0.2.1", 9)).ok()?;
    socket
        .local_addr()
        .ok()
        .map(|a| a.ip())
        .filter(|ip| !ip.is_unspecified())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_public_host_defaults_to_the_listen_address() {
        let mut config = VideoConfig::local();
        let bound: SocketAddr = "10.1.2.3:1078".parse().unwrap();
        assert_eq!(config.public_host(bound), "10.1.2.3");
        config.media_public_host = Some("media.example.com".into());
        assert_eq!(config.public_host(bound), "media.example.com");
    }
}
