//! The media port end to end: real H.264 from ffmpeg through a TCP socket
//! to viewers, fan-out through the server, hostile input.

mod end_to_end;
mod fuzz;
mod limits;

use std::net::SocketAddr;
use std::time::Duration;

use fleetdesk_media::fmp4::Codec;
use fleetdesk_media::hub::Segment;
use fleetdesk_media::jt1078::{DataType, Encoder, PT_H264, PT_H265, SimLayout, VideoIntervals};
use fleetdesk_media::{Hub, Limits, Viewer, h264, h265};
use tokio::net::TcpListener;
use tokio::sync::oneshot;

/// A media port on a free local port, stopped when the guard drops.
struct Server {
    addr: SocketAddr,
    _stop: oneshot::Sender<()>,
}

async fn start_server(hub: &Hub, limits: Limits) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("local address");
    let (stop, stopped) = oneshot::channel::<()>();
    tokio::spawn(fleetdesk_media::serve_with(
        listener,
        hub.clone(),
        limits,
        async move {
            let _ = stopped.await;
        },
    ));
    Server { addr, _stop: stop }
}

/// Packs an Annex B stream into JT/T 1078 frames as a terminal at 15 fps
/// would: one access unit per frame time, I or P by its NAL units.
fn pack(annex_b: &[u8], codec: Codec, sim: &str, channel: u8, layout: SimLayout) -> Vec<u8> {
    let (payload_type, units) = match codec {
        Codec::H264 => (PT_H264, h264::access_units(annex_b)),
        Codec::H265 => (PT_H265, h265::access_units(annex_b)),
    };
    let mut encoder = Encoder::new(sim, channel, layout, payload_type).expect("SIM fits");
    let mut out = Vec::new();
    let mut last_i_ms = 0;
    for (i, unit) in units.into_iter().enumerate() {
        let timestamp_ms = 1_000 + i as u64 * 1000 / 15;
        let nals = h264::nal_units(unit);
        let keyframe = match codec {
            Codec::H264 => h264::is_keyframe(&nals),
            Codec::H265 => h265::is_keyframe(&nals),
        };
        if keyframe {
            last_i_ms = timestamp_ms;
        }
        let intervals = VideoIntervals {
            since_last_i_frame: (timestamp_ms - last_i_ms) as u16,
            since_last_frame: if i == 0 { 0 } else { 67 },
        };
        let data_type = if keyframe {
            DataType::IFrame
        } else {
            DataType::PFrame
        };
        encoder.encode(data_type, timestamp_ms, intervals, unit, &mut out);
    }
    out
}

/// Reads segments until `fragments` media fragments arrived (or panics
/// after a few seconds).
async fn collect(viewer: &mut Viewer, fragments: usize) -> Vec<Segment> {
    let mut got = Vec::new();
    let mut seen = 0;
    while seen < fragments {
        let segment = tokio::time::timeout(Duration::from_secs(10), viewer.next())
            .await
            .unwrap_or_else(|_| panic!("only {seen} of {fragments} fragments arrived within 10 s"))
            .expect("the channel stays open");
        seen += usize::from(matches!(segment, Segment::Fragment { .. }));
        got.push(segment);
    }
    got
}
