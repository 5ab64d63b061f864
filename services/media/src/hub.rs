//! Fan-out: a terminal sends each camera once, however many people watch
//! it. One channel per (terminal, camera) keeps the init segment and the
//! fragments since the latest keyframe, so a new viewer starts playing at
//! once. Every viewer has a bounded queue filled with `try_send`: a viewer
//! that cannot keep up loses fragments up to the next keyframe, and never
//! slows the terminal's connection or the other viewers.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::Bytes;
use tokio::sync::{mpsc, watch};

/// One camera of one terminal: the terminal as the JT/T 808 registration
/// names it (see [`crate::terminal_id`]) and the logical channel.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct StreamKey {
    pub terminal: String,
    pub channel: u8,
}

/// Segments a viewer may have queued by default (a few seconds at 15 fps).
pub const DEFAULT_QUEUE: usize = 64;
/// Fragments kept for the newest GOP; past it new viewers wait for the next
/// keyframe instead.
const MAX_GOP_FRAGMENTS: usize = 300;
const MAX_GOP_BYTES: usize = 8 * 1024 * 1024;

/// What a viewer receives, in order: an init segment, then fragments
/// starting at a keyframe; a new init segment when the terminal's stream
/// restarts or changes resolution. Decode times count from the start of
/// the terminal's connection, so a late viewer's first fragment is not at
/// 0 and a new init segment starts again from 0: a player seeks to the
/// buffered start and begins a new source buffer on each init segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Segment {
    /// `codec` is the MSE codec string, e.g. `avc1.42C01E`.
    Init {
        data: Bytes,
        codec: String,
    },
    Fragment {
        data: Bytes,
        keyframe: bool,
    },
}

impl Segment {
    pub fn data(&self) -> &Bytes {
        match self {
            Segment::Init { data, .. } | Segment::Fragment { data, .. } => data,
        }
    }
}

/// What the media edge has counted since it started (also exported as
/// `media_*` metrics).
#[derive(Debug, Default)]
pub struct Counters {
    frames: AtomicU64,
    malformed_frames: AtomicU64,
    dropped_access_units: AtomicU64,
    dropped_fragments: AtomicU64,
    dropped_connections: AtomicU64,
}

/// A reading of [`Counters`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub frames: u64,
    pub malformed_frames: u64,
    /// Access units dropped incomplete or unplayable (sequence gaps,
    /// unsupported codecs).
    pub dropped_access_units: u64,
    /// Fragments a lagging viewer did not get.
    pub dropped_fragments: u64,
    /// Connections closed for sending garbage.
    pub dropped_connections: u64,
}

impl Counters {
    pub(crate) fn frames(&self, n: u64) {
        self.frames.fetch_add(n, Ordering::Relaxed);
        metrics::counter!("media_frames_total").increment(n);
    }

    pub(crate) fn malformed_frames(&self, n: u64) {
        self.malformed_frames.fetch_add(n, Ordering::Relaxed);
        metrics::counter!("media_malformed_frames_total").increment(n);
    }

    pub(crate) fn dropped_access_units(&self, n: u64) {
        self.dropped_access_units.fetch_add(n, Ordering::Relaxed);
        metrics::counter!("media_access_units_dropped_total").increment(n);
    }

    fn dropped_fragment(&self) {
        self.dropped_fragments.fetch_add(1, Ordering::Relaxed);
        metrics::counter!("media_fragments_dropped_total").increment(1);
    }

    pub(crate) fn dropped_connection(&self) {
        self.dropped_connections.fetch_add(1, Ordering::Relaxed);
    }

    fn read(&self) -> Counts {
        Counts {
            frames: self.frames.load(Ordering::Relaxed),
            malformed_frames: self.malformed_frames.load(Ordering::Relaxed),
            dropped_access_units: self.dropped_access_units.load(Ordering::Relaxed),
            dropped_fragments: self.dropped_fragments.load(Ordering::Relaxed),
            dropped_connections: self.dropped_connections.load(Ordering::Relaxed),
        }
    }
}

/// Every live channel; cheap to clone and share.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    channels: Mutex<HashMap<StreamKey, Arc<Channel>>>,
    counters: Counters,
    queue: usize,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

/// A poisoned lock only means another thread panicked mid-update of plain
/// data; the fan-out goes on with what is there.
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Hub {
    pub fn new() -> Hub {
        Hub::with_queue(DEFAULT_QUEUE)
    }

    /// A hub whose viewers each queue at most `queue` segments (at least 2).
    pub fn with_queue(queue: usize) -> Hub {
        Hub {
            inner: Arc::new(Inner {
                channels: Mutex::new(HashMap::new()),
                counters: Counters::default(),
                queue: queue.max(2),
            }),
        }
    }

    pub fn counts(&self) -> Counts {
        self.inner.counters.read()
    }

    pub(crate) fn counters(&self) -> &Counters {
        &self.inner.counters
    }

    /// Streams a terminal is sending now.
    pub fn live(&self) -> Vec<StreamKey> {
        lock(&self.inner.channels)
            .values()
            .filter(|c| lock(&c.state).publisher.is_some())
            .map(|c| c.key.clone())
            .collect()
    }

    /// How many watch `key`, as it changes; `None` when nobody watches and
    /// no terminal sends it.
    pub fn viewer_count(&self, key: &StreamKey) -> Option<watch::Receiver<usize>> {
        lock(&self.inner.channels)
            .get(key)
            .map(|c| c.viewers.subscribe())
    }

    /// Starts watching `key`, whether or not its terminal is sending yet.
    pub fn subscribe(&self, key: StreamKey) -> Viewer {
        let (tx, rx) = mpsc::channel(self.inner.queue);
        let queue = self.inner.queue;
        let (channel, id) = self.join(key, |id, state| {
            let mut slot = Slot {
                id,
                tx,
                waiting: true,
                needs_init: true,
                lagging: false,
            };
            if let Some(init) = state.init.clone() {
                let _ = slot.tx.try_send(init);
                slot.needs_init = false;
                if state.gop_complete && !state.gop.is_empty() && state.gop.len() < queue {
                    for fragment in &state.gop {
                        let _ = slot.tx.try_send(fragment.clone());
                    }
                    slot.waiting = false;
                }
            }
            state.viewers.push(slot);
        });
        Viewer {
            rx,
            id,
            channel,
            hub: self.inner.clone(),
        }
    }

    /// Becomes the source of `key`. A second publisher of the same key (the
    /// terminal reconnected) takes over; the first one's segments are
    /// ignored from then on.
    pub fn publish(&self, key: StreamKey) -> Publisher {
        let (channel, id) = self.join(key, |id, state| {
            state.publisher = Some(id);
            // The previous stream's parameters may not fit the new one.
            state.init = None;
            state.gop.clear();
            state.gop_bytes = 0;
            state.gop_complete = false;
        });
        Publisher {
            id,
            channel,
            hub: self.inner.clone(),
        }
    }

    /// Joins the channel of `key` (made if new) under the hub's lock, so a
    /// channel being released cannot take the newcomer with it.
    fn join(&self, key: StreamKey, enter: impl FnOnce(u64, &mut State)) -> (Arc<Channel>, u64) {
        let mut channels = lock(&self.inner.channels);
        let channel = channels
            .entry(key.clone())
            .or_insert_with(|| Arc::new(Channel::new(key)))
            .clone();
        let mut state = lock(&channel.state);
        state.next_id += 1;
        let id = state.next_id;
        enter(id, &mut state);
        let viewers = state.viewers.len();
        channel.viewers.send_if_modified(|count| {
            let changed = *count != viewers;
            *count = viewers;
            changed
        });
        drop(state);
        drop(channels);
        (channel, id)
    }
}

/// One (terminal, camera).
#[derive(Debug)]
struct Channel {
    key: StreamKey,
    state: Mutex<State>,
    viewers: watch::Sender<usize>,
}

#[derive(Debug, Default)]
struct State {
    next_id: u64,
    publisher: Option<u64>,
    init: Option<Segment>,
    /// Fragments since the latest keyframe.
    gop: Vec<Segment>,
    gop_bytes: usize,
    /// Whether `gop` holds every fragment since that keyframe.
    gop_complete: bool,
    viewers: Vec<Slot>,
}

#[derive(Debug)]
struct Slot {
    id: u64,
    tx: mpsc::Sender<Segment>,
    /// Takes nothing until a keyframe.
    waiting: bool,
    /// The init segment is still to be sent, before the next keyframe.
    needs_init: bool,
    /// Waiting because its queue was full: what it misses is counted.
    lagging: bool,
}

impl Channel {
    fn new(key: StreamKey) -> Channel {
        Channel {
            key,
            state: Mutex::new(State::default()),
            viewers: watch::channel(0).0,
        }
    }

    /// Removes the channel from the hub once nobody uses it.
    fn release(self: &Arc<Channel>, hub: &Inner) {
        let mut channels = lock(&hub.channels);
        let state = lock(&self.state);
        let unused = state.viewers.is_empty() && state.publisher.is_none();
        drop(state);
        if unused
            && channels
                .get(&self.key)
                .is_some_and(|c| Arc::ptr_eq(c, self))
        {
            channels.remove(&self.key);
        }
    }
}

/// The terminal's side of a channel.
#[derive(Debug)]
pub struct Publisher {
    id: u64,
    channel: Arc<Channel>,
    hub: Arc<Inner>,
}

impl Publisher {
    pub fn key(&self) -> &StreamKey {
        &self.channel.key
    }

    /// How many watch, as it changes.
    pub fn viewers(&self) -> watch::Receiver<usize> {
        self.channel.viewers.subscribe()
    }

    /// Resolves while nobody watches (at once if nobody does now): the
    /// caller may then close the terminal's stream after a grace period.
    pub async fn idle(&self) {
        let mut viewers = self.viewers();
        let _ = viewers.wait_for(|n| *n == 0).await;
    }

    /// A new init segment: every viewer gets it before its next keyframe.
    pub fn init(&self, data: Bytes, codec: String) {
        let mut state = lock(&self.channel.state);
        if state.publisher != Some(self.id) {
            return;
        }
        state.init = Some(Segment::Init { data, codec });
        state.gop.clear();
        state.gop_bytes = 0;
        state.gop_complete = false;
        for slot in &mut state.viewers {
            slot.needs_init = true;
            slot.waiting = true;
        }
    }

    /// A media fragment; viewers that are waiting start at a keyframe.
    pub fn fragment(&self, data: Bytes, keyframe: bool) {
        let mut guard = lock(&self.channel.state);
        let state = &mut *guard;
        if state.publisher != Some(self.id) || state.init.is_none() {
            return;
        }
        let len = data.len();
        let segment = Segment::Fragment { data, keyframe };
        if keyframe {
            state.gop.clear();
            state.gop_bytes = 0;
            state.gop_complete = true;
        }
        if state.gop_complete {
            if state.gop.len() < MAX_GOP_FRAGMENTS && state.gop_bytes + len <= MAX_GOP_BYTES {
                state.gop_bytes += len;
                state.gop.push(segment.clone());
            } else {
                state.gop_complete = false;
            }
        }
        let init = state.init.clone();
        let counters = &self.hub.counters;
        let before = state.viewers.len();
        state.viewers.retain_mut(|slot| {
            if slot.tx.is_closed() {
                return false;
            }
            if slot.waiting {
                let needed = 1 + usize::from(slot.needs_init);
                if !keyframe || slot.tx.capacity() < needed {
                    if slot.lagging {
                        counters.dropped_fragment();
                    }
                    return true;
                }
                if slot.needs_init
                    && let Some(init) = &init
                {
                    let _ = slot.tx.try_send(init.clone());
                    slot.needs_init = false;
                }
                slot.waiting = false;
                slot.lagging = false;
            }
            match slot.tx.try_send(segment.clone()) {
                Ok(()) => true,
                Err(mpsc::error::TrySendError::Full(_)) => {
                    slot.waiting = true;
                    slot.lagging = true;
                    counters.dropped_fragment();
                    true
                }
                Err(mpsc::error::TrySendError::Closed(_)) => false,
            }
        });
        if state.viewers.len() != before {
            self.channel.viewers.send_replace(state.viewers.len());
        }
    }
}

impl Drop for Publisher {
    fn drop(&mut self) {
        {
            let mut state = lock(&self.channel.state);
            if state.publisher == Some(self.id) {
                state.publisher = None;
            }
        }
        self.channel.release(&self.hub);
    }
}

/// A viewer's side of a channel; dropping it leaves the channel.
#[derive(Debug)]
pub struct Viewer {
    rx: mpsc::Receiver<Segment>,
    id: u64,
    channel: Arc<Channel>,
    hub: Arc<Inner>,
}

impl Viewer {
    pub fn key(&self) -> &StreamKey {
        &self.channel.key
    }

    /// The next segment, waiting for it.
    pub async fn next(&mut self) -> Option<Segment> {
        self.rx.recv().await
    }

    /// The next segment if one is queued.
    pub fn try_next(&mut self) -> Option<Segment> {
        self.rx.try_recv().ok()
    }
}

impl Drop for Viewer {
    fn drop(&mut self) {
        {
            let mut state = lock(&self.channel.state);
            state.viewers.retain(|slot| slot.id != self.id);
            self.channel.viewers.send_replace(state.viewers.len());
        }
        self.channel.release(&self.hub);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> StreamKey {
        StreamKey {
            terminal: "13800000001".into(),
            channel: 1,
        }
    }

    fn frag(n: u8, keyframe: bool) -> Bytes {
        Bytes::from(vec![n; 4 + usize::from(keyframe)])
    }

    fn drain(viewer: &mut Viewer) -> Vec<Segment> {
        std::iter::from_fn(|| viewer.try_next()).collect()
    }

    fn fragment_ids(segments: &[Segment]) -> Vec<u8> {
        segments
            .iter()
            .filter_map(|s| match s {
                Segment::Fragment { data, .. } => Some(data[0]),
                Segment::Init { .. } => None,
            })
            .collect()
    }

    #[test]
    fn two_viewers_see_the_same_fragments() {
        let hub = Hub::new();
        let mut a = hub.subscribe(key());
        let mut b = hub.subscribe(key());
        let publisher = hub.publish(key());
        publisher.init(Bytes::from_static(b"init"), "avc1.42C00D".into());
        publisher.fragment(frag(1, false), false);
        for n in 2..6 {
            publisher.fragment(frag(n, n == 2), n == 2);
        }
        let (a, b) = (drain(&mut a), drain(&mut b));
        assert_eq!(a, b);
        assert!(matches!(&a[0], Segment::Init { data, .. } if &data[..] == b"init"));
        assert_eq!(fragment_ids(&a), [2, 3, 4, 5], "starts at the keyframe");
    }

    #[test]
    fn a_late_viewer_starts_at_the_latest_keyframe() {
        let hub = Hub::new();
        let publisher = hub.publish(key());
        publisher.init(Bytes::from_static(b"init"), "avc1".into());
        for n in 1..8 {
            publisher.fragment(frag(n, n % 4 == 1), n % 4 == 1);
        }
        let mut late = hub.subscribe(key());
        let got = drain(&mut late);
        assert!(matches!(got[0], Segment::Init { .. }));
        assert_eq!(fragment_ids(&got), [5, 6, 7]);
    }

    #[test]
    fn a_slow_viewer_skips_to_the_next_keyframe_without_holding_others() {
        let hub = Hub::with_queue(4);
        let mut fast = hub.subscribe(key());
        let mut slow = hub.subscribe(key());
        let publisher = hub.publish(key());
        publisher.init(Bytes::from_static(b"init"), "avc1".into());
        let mut fast_got = Vec::new();
        for n in 1..=20 {
            publisher.fragment(frag(n, n % 10 == 1), n % 10 == 1);
            fast_got.extend(drain(&mut fast));
        }
        assert_eq!(fragment_ids(&fast_got), (1..=20).collect::<Vec<_>>());
        let slow_got = drain(&mut slow);
        assert_eq!(
            fragment_ids(&slow_got),
            [1, 2, 3],
            "init + 3 fill its queue"
        );
        assert!(hub.counts().dropped_fragments > 0);
        for n in 21..=32 {
            publisher.fragment(frag(n, n == 31), n == 31);
        }
        let resumed = drain(&mut slow);
        assert_eq!(fragment_ids(&resumed), [31, 32], "resumes at a keyframe");
    }

    #[tokio::test]
    async fn the_last_viewer_leaving_is_observable() {
        let hub = Hub::new();
        let publisher = hub.publish(key());
        let mut count = publisher.viewers();
        let a = hub.subscribe(key());
        let b = hub.subscribe(key());
        assert_eq!(*count.borrow_and_update(), 2);
        drop(a);
        assert_eq!(*count.borrow_and_update(), 1);
        let idle = tokio::spawn(async move { publisher.idle().await });
        tokio::task::yield_now().await;
        assert!(!idle.is_finished());
        drop(b);
        tokio::time::timeout(std::time::Duration::from_secs(1), idle)
            .await
            .expect("idle resolves")
            .unwrap();
    }

    #[test]
    fn a_channel_is_forgotten_once_unused() {
        let hub = Hub::new();
        let viewer = hub.subscribe(key());
        let publisher = hub.publish(key());
        assert_eq!(hub.live(), [key()]);
        drop(publisher);
        assert!(hub.live().is_empty());
        assert!(hub.viewer_count(&key()).is_some());
        drop(viewer);
        assert!(hub.viewer_count(&key()).is_none());
    }

    #[test]
    fn a_reconnected_terminal_takes_over_and_viewers_get_its_init() {
        let hub = Hub::new();
        let mut viewer = hub.subscribe(key());
        let old = hub.publish(key());
        old.init(Bytes::from_static(b"old"), "avc1".into());
        old.fragment(frag(1, true), true);
        let new = hub.publish(key());
        old.fragment(frag(2, false), false);
        new.init(Bytes::from_static(b"new"), "avc1".into());
        new.fragment(frag(3, false), false);
        new.fragment(frag(4, true), true);
        drop(old);
        assert_eq!(hub.live(), [key()]);
        let got = drain(&mut viewer);
        let inits: Vec<_> = got
            .iter()
            .filter_map(|s| match s {
                Segment::Init { data, .. } => Some(data.clone()),
                Segment::Fragment { .. } => None,
            })
            .collect();
        assert_eq!(
            inits,
            [Bytes::from_static(b"old"), Bytes::from_static(b"new")]
        );
        assert_eq!(fragment_ids(&got), [1, 4]);
    }
}
