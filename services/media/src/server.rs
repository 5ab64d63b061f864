//! The media port: terminals told to stream (JT/T 808 0x9101/0x9201) connect
//! here and send JT/T 1078 frames. Each connection decodes, reassembles and
//! remuxes its streams and publishes them into the [`Hub`]. Every limit is
//! per connection: read buffer, streams, idle time, and garbage: a
//! connection that sends too many bytes without a good frame is closed and
//! counted.

use std::collections::HashMap;
use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::AsyncReadExt as _;
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, watch};

use crate::fmp4::{Codec, Muxer, Output};
use crate::hub::{Hub, Publisher, StreamKey};
use crate::jt1078::{AccessUnit, Decoder, MAX_STREAMS, PT_H264, PT_H265, Reassembler};
use crate::terminal_id;

/// Limits of the media port.
#[derive(Debug, Clone)]
pub struct Limits {
    /// Connections at once; more are closed on accept.
    pub max_connections: usize,
    /// Time without a byte before a connection is closed (terminals send
    /// frames many times a second while streaming).
    pub idle: Duration,
    /// Bytes discarded since the last good frame before the connection is
    /// closed.
    pub max_garbage_bytes: usize,
    /// Bytes read from the socket at a time.
    pub read_buffer: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_connections: 2_000,
            idle: Duration::from_secs(30),
            max_garbage_bytes: 64 * 1024,
            read_buffer: 16 * 1024,
        }
    }
}

/// Accepts terminals' media connections with the default [`Limits`] until
/// `shutdown` resolves; open connections end with it. With the services'
/// `fleetdesk_kit::Shutdown`: `serve(listener, hub, async move {
/// shutdown.wait().await })`. (A future rather than that type keeps this
/// crate free of the services' plumbing.)
pub async fn serve(listener: TcpListener, hub: Hub, shutdown: impl Future<Output = ()>) {
    serve_with(listener, hub, Limits::default(), shutdown).await;
}

pub async fn serve_with(
    listener: TcpListener,
    hub: Hub,
    limits: Limits,
    shutdown: impl Future<Output = ()>,
) {
    let slots = Arc::new(Semaphore::new(limits.max_connections));
    let (stop, stopped) = watch::channel(false);
    let port = listener.local_addr().map(|a| a.port()).unwrap_or(0);
    tracing::info!(port, "JT/T 1078 media port listening.");
    tokio::pin!(shutdown);
    loop {
        let (stream, peer) = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok(a) => a,
                Err(err) => {
                    tracing::warn!(error = %err, "Accept failed.");
                    continue;
                }
            },
            () = &mut shutdown => {
                stop.send_replace(true);
                return;
            }
        };
        let Ok(slot) = slots.clone().try_acquire_owned() else {
            metrics::counter!("media_connections_closed_total", "reason" => "full").increment(1);
            drop(stream);
            continue;
        };
        stream.set_nodelay(true).ok();
        let (hub, limits, mut stopped) = (hub.clone(), limits.clone(), stopped.clone());
        tokio::spawn(async move {
            tokio::select! {
                reason = connection(stream, &hub, &limits) => {
                    tracing::debug!(%peer, reason, "Media connection closed.");
                    metrics::counter!("media_connections_closed_total", "reason" => reason)
                        .increment(1);
                }
                _ = stopped.wait_for(|stop| *stop) => {}
            }
            drop(slot);
        });
    }
}

/// One camera's remuxing on a connection.
struct Stream {
    publisher: Publisher,
    codec: Codec,
    muxer: Muxer,
}

impl Stream {
    fn publish(&self, outputs: &mut Vec<Output>) {
        for output in outputs.drain(..) {
            match output {
                Output::Init { segment, track } => self.publisher.init(segment, track.codec),
                Output::Fragment { data, keyframe } => self.publisher.fragment(data, keyframe),
            }
        }
    }
}

/// Serves one connection; returns why it ended.
async fn connection(mut socket: TcpStream, hub: &Hub, limits: &Limits) -> &'static str {
    let counters = hub.counters();
    let mut buf = vec![0; limits.read_buffer.max(1)];
    let mut decoder = Decoder::new();
    let mut reassembler = Reassembler::new();
    let mut streams: HashMap<StreamKey, Stream> = HashMap::new();
    let mut outputs = Vec::new();
    let (mut malformed, mut dropped) = (0, 0);
    let reason = loop {
        let n = match tokio::time::timeout(limits.idle, socket.read(&mut buf)).await {
            Err(_) => break "idle",
            Ok(Ok(0)) => break "closed",
            Ok(Ok(n)) => n,
            Ok(Err(_)) => break "error",
        };
        decoder.push(&buf[..n]);
        let mut frames = 0;
        while let Some(frame) = decoder.next_frame() {
            frames += 1;
            if let Some(unit) = reassembler.push(frame) {
                remux(&unit, hub, &mut streams, &mut outputs);
            }
        }
        counters.frames(frames);
        counters.malformed_frames(decoder.malformed() - malformed);
        malformed = decoder.malformed();
        counters.dropped_access_units(reassembler.dropped() - dropped);
        dropped = reassembler.dropped();
        if decoder.garbage_since_last_frame() > limits.max_garbage_bytes {
            counters.dropped_connection();
            break "garbage";
        }
    };
    for stream in streams.values_mut() {
        stream.muxer.flush(&mut outputs);
        stream.publish(&mut outputs);
    }
    reason
}

fn remux(
    unit: &AccessUnit,
    hub: &Hub,
    streams: &mut HashMap<StreamKey, Stream>,
    outputs: &mut Vec<Output>,
) {
    // Audio and transparent data are parsed but not served yet.
    if !unit.data_type.is_video() {
        return;
    }
    let codec = match unit.payload_type {
        PT_H264 => Codec::H264,
        PT_H265 => Codec::H265,
        _ => {
            hub.counters().dropped_access_units(1);
            return;
        }
    };
    let key = StreamKey {
        terminal: terminal_id(&unit.sim),
        channel: unit.channel,
    };
    if !streams.contains_key(&key) && streams.len() >= MAX_STREAMS {
        hub.counters().dropped_access_units(1);
        return;
    }
    let stream = streams.entry(key).or_insert_with_key(|key| Stream {
        publisher: hub.publish(key.clone()),
        codec,
        muxer: Muxer::new(codec),
    });
    if stream.codec != codec {
        stream.muxer.flush(outputs);
        stream.publish(outputs);
        stream.codec = codec;
        stream.muxer = Muxer::new(codec);
    }
    let interval = unit.intervals.map_or(0, |i| i.since_last_frame);
    stream
        .muxer
        .push(unit.timestamp_ms, interval, &unit.data, outputs);
    stream.publish(outputs);
}
