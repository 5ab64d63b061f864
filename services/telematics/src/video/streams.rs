//! The streams the edge asked terminals for. A live camera has one upstream
//! however many watch it: the first viewer opens it (0x9101 through the
//! NATS command, whichever replica holds the terminal) and waits for its
//! first segment; later viewers join the hub channel. A task per open
//! upstream waits until nobody watches, then the grace time, and closes it
//! (0x9102) unless a viewer came back. Opening and closing one camera are
//! serialised, so a close never overtakes the next open. When the process
//! stops, every viewer's stream ends and what this replica opened is
//! closed (the terminal may be held by another replica that goes on).

use std::collections::{HashMap, HashSet};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use fleetdesk_kit::{Shutdown, subjects};
use fleetdesk_media::{Hub, Segment, StreamKey, Viewer, terminal_id};
use fleetdesk_proto::telematics::v1 as pb;
use futures::Stream;
use prost::Message as _;

/// Why a video request failed, in words a user may read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum VideoError {
    /// No edge holds the terminal's connection.
    #[error("终端不在线")]
    Offline,
    /// The command was not written, or the terminal never answered.
    #[error("{0}")]
    Unanswered(String),
    /// The terminal answered with a failure (0x0001 result 1-3).
    #[error("{0}")]
    Refused(String),
    /// The terminal agreed but its stream did not reach the media port.
    #[error("终端视频流未到达")]
    NoStream,
    /// The terminal stopped sending while viewers watched.
    #[error("视频流已中断")]
    Interrupted,
    /// This camera is already being played back.
    #[error("该通道正在回放")]
    Busy,
    #[error("视频服务异常")]
    Internal,
}

/// What a watch yields: fragmented MP4 segments until the stream ends.
pub type Segments = Pin<Box<dyn Stream<Item = Result<Segment, VideoError>> + Send>>;

/// Where terminals are told to stream.
#[derive(Debug, Clone)]
pub struct Servers {
    pub live: pb::MediaServer,
    pub playback: pb::MediaServer,
}

/// Every stream of this replica; share it behind an `Arc`.
#[derive(Debug)]
pub struct Streams {
    live: Hub,
    playback: Hub,
    nats: async_nats::Client,
    servers: Servers,
    grace: Duration,
    timeout: Duration,
    upstreams: Mutex<HashMap<StreamKey, Arc<Upstream>>>,
    playbacks: Mutex<HashSet<StreamKey>>,
    /// Ends every viewer's stream, so the gRPC server can stop.
    stopping: Shutdown,
}

/// One live camera's upstream: whether the terminal was told to stream.
/// The async lock serialises its open and close.
#[derive(Debug, Default)]
struct Upstream {
    open: tokio::sync::Mutex<bool>,
}

/// A poisoned lock only means another task panicked mid-update of plain data.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Streams {
    pub fn new(
        live: Hub,
        playback: Hub,
        nats: async_nats::Client,
        servers: Servers,
        grace: Duration,
        timeout: Duration,
    ) -> Streams {
        Streams {
            live,
            playback,
            nats,
            servers,
            grace,
            timeout,
            upstreams: Mutex::default(),
            playbacks: Mutex::default(),
            stopping: Shutdown::new(),
        }
    }

    /// Ends every viewer's stream (the process is stopping).
    pub fn stop(&self) {
        self.stopping.trigger();
    }

    /// Sends a command to the terminal through NATS and waits for its answer.
    async fn command(
        &self,
        terminal: &str,
        action: pb::vehicle_command::Action,
    ) -> Result<pb::CommandDelivery, VideoError> {
        let command = pb::VehicleCommand {
            command_id: uuid::Uuid::new_v4().to_string(),
            phone: terminal.to_owned(),
            action: Some(action),
        };
        let request = async_nats::Request::new()
            .payload(command.encode_to_vec().into())
            .timeout(Some(self.timeout));
        let answer = self
            .nats
            .send_request(subjects::telematics_command(terminal), request)
            .await
            .map_err(|err| match err.kind() {
                async_nats::RequestErrorKind::NoResponders => VideoError::Offline,
                async_nats::RequestErrorKind::TimedOut => {
                    VideoError::Unanswered("终端未应答".to_owned())
                }
                async_nats::RequestErrorKind::InvalidSubject
                | async_nats::RequestErrorKind::MaxPayloadExceeded
                | async_nats::RequestErrorKind::Other => {
                    tracing::warn!(error = %err, %terminal, "Video command not sent.");
                    VideoError::Internal
                }
            })?;
        let delivery = pb::CommandDelivery::decode(answer.payload).map_err(|err| {
            tracing::warn!(error = %err, %terminal, "Undecodable command delivery.");
            VideoError::Internal
        })?;
        match (delivery.sent, delivery.answered, delivery.result) {
            (false, _, _) | (true, false, _) => Err(VideoError::Unanswered(delivery.detail)),
            (true, true, 0) => Ok(delivery),
            (true, true, _) => Err(VideoError::Refused(delivery.detail)),
        }
    }

    /// Live video of `channel`: opens the upstream for the first viewer.
    pub async fn watch_live(
        self: &Arc<Self>,
        phone: &str,
        channel: u8,
        stream_type: pb::StreamType,
    ) -> Result<Segments, VideoError> {
        let key = StreamKey {
            terminal: terminal_id(phone),
            channel,
        };
        // Watching first: the closing task sees this viewer from now on.
        let mut viewer = self.live.subscribe(key.clone());
        let upstream = lock(&self.upstreams)
            .entry(key.clone())
            .or_default()
            .clone();
        {
            let mut open = upstream.open.lock().await;
            if !*open {
                let action = pb::vehicle_command::Action::OpenLive(pb::LiveOpen {
                    channel: u32::from(channel),
                    stream_type: stream_type as i32,
                    server: Some(self.servers.live.clone()),
                });
                let opened = self.command(&key.terminal, action).await;
                let result = if opened.is_ok() { "ok" } else { "failed" };
                metrics::counter!("telematics_video_opens_total", "result" => result).increment(1);
                opened?;
                *open = true;
                tracing::info!(terminal = %key.terminal, channel, "Live video opened.");
                tokio::spawn(
                    self.clone()
                        .close_when_unwatched(key.clone(), upstream.clone()),
                );
            }
        }
        let first = self.first_segment(&mut viewer).await?;
        Ok(segments(
            first,
            viewer,
            self.live.clone(),
            self.timeout,
            None,
            self.stopping.clone(),
        ))
    }

    async fn first_segment(&self, viewer: &mut Viewer) -> Result<Segment, VideoError> {
        match tokio::time::timeout(self.timeout, viewer.next()).await {
            Ok(Some(segment)) => Ok(segment),
            Ok(None) | Err(_) => Err(VideoError::NoStream),
        }
    }

    /// Waits until nobody watches for the grace time, then closes the upstream.
    async fn close_when_unwatched(self: Arc<Self>, key: StreamKey, upstream: Arc<Upstream>) {
        loop {
            if let Some(mut viewers) = self.live.viewer_count(&key) {
                // A closed channel (nobody watches, nothing sent) counts as none.
                let _ = viewers.wait_for(|n| *n == 0).await;
            }
            tokio::time::sleep(self.grace).await;
            let mut open = upstream.open.lock().await;
            let watched = self
                .live
                .viewer_count(&key)
                .is_some_and(|viewers| *viewers.borrow() > 0);
            if watched {
                continue;
            }
            let action = pb::vehicle_command::Action::ControlLive(pb::LiveControl {
                channel: u32::from(key.channel),
                action: pb::LiveAction::Close as i32,
                switch_to: pb::StreamType::Unspecified as i32,
            });
            match self.command(&key.terminal, action).await {
                Ok(_) => {
                    tracing::info!(terminal = %key.terminal, channel = key.channel, "Live video closed.");
                }
                // Offline or not answering: its stream ended with its link,
                // or it stops sending when the media port closes it (idle).
                Err(err) => {
                    tracing::info!(terminal = %key.terminal, channel = key.channel, error = %err, "Live video close not confirmed.");
                }
            }
            *open = false;
            drop(open);
            // Forgotten unless a viewer already holds it to open again.
            let mut upstreams = lock(&self.upstreams);
            if Arc::strong_count(&upstream) == 2
                && upstreams
                    .get(&key)
                    .is_some_and(|u| Arc::ptr_eq(u, &upstream))
            {
                upstreams.remove(&key);
            }
            return;
        }
    }

    /// Tells terminals to close every live stream this replica opened (at
    /// shutdown: they would otherwise go on sending to a port that is gone),
    /// waiting at most `within`.
    pub async fn close_all(&self, within: Duration) {
        let upstreams: Vec<(StreamKey, Arc<Upstream>)> = lock(&self.upstreams)
            .iter()
            .map(|(key, upstream)| (key.clone(), upstream.clone()))
            .collect();
        let closes = upstreams.into_iter().map(|(key, upstream)| async move {
            let mut open = upstream.open.lock().await;
            if *open {
                let action = pb::vehicle_command::Action::ControlLive(pb::LiveControl {
                    channel: u32::from(key.channel),
                    action: pb::LiveAction::Close as i32,
                    switch_to: pb::StreamType::Unspecified as i32,
                });
                let _ = self.command(&key.terminal, action).await;
                *open = false;
            }
        });
        let _ = tokio::time::timeout(within, futures::future::join_all(closes)).await;
    }

    /// What the terminal can stream.
    pub async fn av_attributes(&self, phone: &str) -> Result<pb::AvAttributes, VideoError> {
        let action = pb::vehicle_command::Action::QueryAvAttributes(pb::AvAttributesQuery {});
        self.command(&terminal_id(phone), action)
            .await?
            .av_attributes
            .ok_or(VideoError::Internal)
    }

    /// The recordings the terminal holds.
    pub async fn resources(
        &self,
        phone: &str,
        query: pb::ResourceQuery,
    ) -> Result<Vec<pb::Resource>, VideoError> {
        let action = pb::vehicle_command::Action::QueryResources(query);
        Ok(self.command(&terminal_id(phone), action).await?.resources)
    }

    /// A recording played back to the playback port, stopped when the
    /// returned stream is dropped.
    pub async fn watch_playback(
        self: &Arc<Self>,
        phone: &str,
        mut open: pb::PlaybackOpen,
    ) -> Result<Segments, VideoError> {
        let key = StreamKey {
            terminal: terminal_id(phone),
            channel: u8::try_from(open.channel).map_err(|_| VideoError::Internal)?,
        };
        if !lock(&self.playbacks).insert(key.clone()) {
            return Err(VideoError::Busy);
        }
        let mut playing = Playing {
            streams: self.clone(),
            key: key.clone(),
            started: false,
        };
        let mut viewer = self.playback.subscribe(key.clone());
        open.server = Some(self.servers.playback.clone());
        let action = pb::vehicle_command::Action::OpenPlayback(open);
        self.command(&key.terminal, action).await?;
        playing.started = true;
        tracing::info!(terminal = %key.terminal, channel = key.channel, "Playback started.");
        let first = self.first_segment(&mut viewer).await?;
        Ok(segments(
            first,
            viewer,
            self.playback.clone(),
            self.timeout,
            Some(playing),
            self.stopping.clone(),
        ))
    }

    /// Pause, resume, seek, speed or stop a playback.
    pub async fn control_playback(
        &self,
        phone: &str,
        control: pb::PlaybackControl,
    ) -> Result<(), VideoError> {
        let action = pb::vehicle_command::Action::ControlPlayback(control);
        self.command(&terminal_id(phone), action).await.map(|_| ())
    }
}

/// A playback this replica runs; dropping it stops the terminal's playback
/// (if it started) and frees the camera.
#[derive(Debug)]
struct Playing {
    streams: Arc<Streams>,
    key: StreamKey,
    started: bool,
}

impl Drop for Playing {
    fn drop(&mut self) {
        lock(&self.streams.playbacks).remove(&self.key);
        if !self.started {
            return;
        }
        let streams = self.streams.clone();
        let key = self.key.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let action = pb::vehicle_command::Action::ControlPlayback(pb::PlaybackControl {
                    channel: u32::from(key.channel),
                    action: pb::PlaybackAction::Stop as i32,
                    speed: 0,
                    seek_time: None,
                });
                if let Err(err) = streams.command(&key.terminal, action).await {
                    tracing::info!(terminal = %key.terminal, channel = key.channel, error = %err, "Playback stop not confirmed.");
                }
            });
        }
    }
}

/// A viewer's segments. Silence longer than `tick` ends the stream when the
/// terminal stopped sending (its media connection is gone): an error for
/// live video, the end for a playback; a paused stream whose connection
/// stays goes on waiting. Every stream ends when the process stops.
fn segments(
    first: Segment,
    viewer: Viewer,
    hub: Hub,
    tick: Duration,
    playing: Option<Playing>,
    stopping: Shutdown,
) -> Segments {
    struct State {
        first: Option<Segment>,
        viewer: Viewer,
        hub: Hub,
        tick: Duration,
        playing: Option<Playing>,
        stopping: Shutdown,
    }
    let state = State {
        first: Some(first),
        viewer,
        hub,
        tick,
        playing,
        stopping,
    };
    Box::pin(futures::stream::unfold(Some(state), |state| async move {
        let mut state = state?;
        if let Some(first) = state.first.take() {
            return Some((Ok(first), Some(state)));
        }
        loop {
            let next = tokio::select! {
                next = tokio::time::timeout(state.tick, state.viewer.next()) => next,
                () = state.stopping.wait() => return None,
            };
            match next {
                Ok(Some(segment)) => return Some((Ok(segment), Some(state))),
                Ok(None) => return None,
                Err(_) => {
                    let key = state.viewer.key().clone();
                    if state.hub.live().contains(&key) {
                        continue;
                    }
                    return match state.playing {
                        Some(_) => None,
                        None => Some((Err(VideoError::Interrupted), None)),
                    };
                }
            }
        }
    }))
}
