//! Each vehicle's rule [`Track`] kept in the ingest process between
//! batches, so an in-order batch neither reads nor rewrites `alarm_track`.
//!
//! A cached track is trusted only when its newest fix is the vehicle's
//! newest stored fix before the batch (ingest reads that under the latest
//! position's row lock): then no other worker or process has run a fix of
//! the vehicle since. Otherwise the stored track is read, and when it is
//! older than that fix (its process kept it in memory and had not written
//! it yet) the machine catches up from it over the history in between.
//!
//! A track is written back when [`PERSIST_EVERY`] of fix time has passed
//! since its stored copy, and after a replay or a catch-up, so a restart
//! or a vehicle moving to another process costs a catch-up over at most
//! that much history, never a wrong alarm. The cache is filled only after
//! the batch's transaction commits.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::{DateTime, Duration, Utc};
use uuid::Uuid;

use super::engine::Track;

/// How much fix time a track may run ahead of its stored copy.
pub const PERSIST_EVERY: Duration = Duration::minutes(5);
/// Most tracks one process keeps; past it the cache starts again (each
/// vehicle then catches up once from its stored track).
pub const CAPACITY: usize = 1_000_000;

/// A track and the newest fix of its stored copy.
#[derive(Debug, Clone, PartialEq)]
pub struct Cached {
    pub track: Track,
    /// `last` of the row in `alarm_track` (`None`: not stored).
    pub stored: Option<DateTime<Utc>>,
}

impl Cached {
    /// Whether the track has run far enough past its stored copy to be
    /// written back.
    pub fn due(&self) -> bool {
        match (self.track.last, self.stored) {
            (Some(last), Some(stored)) => last - stored >= PERSIST_EVERY,
            (Some(_), None) => true,
            (None, _) => false,
        }
    }
}

/// The process's tracks, shared by its ingest workers.
#[derive(Debug, Clone, Default)]
pub struct TrackCache(Arc<Mutex<HashMap<Uuid, Cached>>>);

impl TrackCache {
    fn lock(&self) -> MutexGuard<'_, HashMap<Uuid, Cached>> {
        // A worker that panicked mid-update left whole entries: keep them.
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The cached tracks of `vehicles` that are current: their newest fix
    /// is the vehicle's newest stored fix before the batch (`latest_before`).
    pub fn current(
        &self,
        vehicles: &[Uuid],
        latest_before: impl Fn(Uuid) -> Option<DateTime<Utc>>,
    ) -> HashMap<Uuid, Cached> {
        let cache = self.lock();
        vehicles
            .iter()
            .filter_map(|v| {
                let cached = cache.get(v)?;
                let before = latest_before(*v)?;
                (cached.track.last == Some(before)).then(|| (*v, cached.clone()))
            })
            .collect()
    }

    /// Keeps the tracks a committed batch left.
    pub fn keep(&self, tracks: Vec<(Uuid, Cached)>) {
        if tracks.is_empty() {
            return;
        }
        let mut cache = self.lock();
        if cache.len() + tracks.len() > CAPACITY {
            cache.clear();
        }
        cache.extend(tracks);
    }

    pub fn len(&self) -> usize {
        self.lock().len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(minute: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + minute * 60, 0).unwrap()
    }

    fn cached(last: Option<i64>, stored: Option<i64>) -> Cached {
        let mut track = Track::default();
        track.last = last.map(at);
        Cached {
            track,
            stored: stored.map(at),
        }
    }

    #[test]
    fn a_track_is_written_back_every_five_minutes_of_fix_time() {
        assert!(!cached(Some(4), Some(0)).due());
        assert!(cached(Some(5), Some(0)).due());
        assert!(cached(Some(1), None).due(), "never stored");
        assert!(!cached(None, None).due(), "nothing run");
    }

    #[test]
    fn only_a_track_at_the_vehicles_latest_fix_is_current() {
        let cache = TrackCache::default();
        let (a, b, c) = (Uuid::from_u128(1), Uuid::from_u128(2), Uuid::from_u128(3));
        cache.keep(vec![
            (a, cached(Some(10), Some(10))),
            (b, cached(Some(10), Some(10))),
        ]);
        let latest = |v: Uuid| match v.as_u128() {
            1 => Some(at(10)),
            // Another process ran a newer fix of b.
            2 => Some(at(11)),
            _ => Some(at(10)),
        };
        let current = cache.current(&[a, b, c], latest);
        assert_eq!(current.keys().copied().collect::<Vec<_>>(), vec![a]);
        // A new vehicle (no stored latest position) is never current.
        assert!(cache.current(&[a], |_| None).is_empty());
    }
}
