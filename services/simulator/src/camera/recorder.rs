//! What a simulated terminal's disk holds, for 0x9205 answers and for
//! refusing playbacks (0x9201) of times nobody recorded. Each camera
//! records its main stream in 10-minute files while the vehicle works: a
//! morning and an afternoon shift in Beijing time whose edges move by a
//! few files from day to day. The list is a pure function of the SIM, the
//! channels and the day, so a query asked twice gets the same answer, and
//! only files already closed (`now` past their end) are listed.

use chrono::{DateTime, Datelike as _, Duration, NaiveDate, NaiveDateTime, NaiveTime, Utc};
use fleetdesk_telematics::jt808::message::{
    Resource, ResourceKind, ResourceQuery, ResourceStream, Storage,
};

use super::{Profile, beijing, from_beijing};
use fleetdesk_telematics::jt808::message::Stream;

/// Length of one recording file.
pub const FILE_MINUTES: i64 = 10;
/// Days a query without a start looks back (a terminal's disk holds about a week).
const RETENTION_DAYS: i64 = 7;

/// A playback asked for a time this camera did not record.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum NotRecorded {
    #[error("channel {0} has no camera")]
    NoSuchChannel(u8),
    #[error("nothing was recorded at the requested start")]
    NoRecordingAtStart,
    #[error("the requested end is past the end of the recording")]
    EndPastRecording,
}

/// One vehicle's recordings.
#[derive(Debug, Clone)]
pub struct Recorder {
    seed: u64,
    channels: Vec<u8>,
}

impl Recorder {
    /// `sim`: the terminal's phone number, which seeds the working hours.
    pub fn new(sim: &str, channels: &[u8]) -> Recorder {
        let seed = sim.bytes().fold(0xCBF2_9CE4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x100_0000_01B3)
        });
        Recorder {
            seed,
            channels: channels.to_vec(),
        }
    }

    /// The shifts of a (Beijing) day: recording intervals in Beijing local time.
    fn shifts(&self, day: NaiveDate) -> [(NaiveDateTime, NaiveDateTime); 2] {
        let h = mix(self.seed ^ u64::from(day.num_days_from_ce().unsigned_abs()));
        let at = |hour: u32, files: u64| {
            day.and_time(NaiveTime::from_hms_opt(hour, 0, 0).unwrap_or_default())
                + Duration::minutes(FILE_MINUTES * files as i64)
        };
        [
            (at(7, h % 6), at(12, (h >> 8) % 3)),
            (at(13, (h >> 16) % 3), at(18, (h >> 24) % 12)),
        ]
    }

    /// Every file of `day` (a Beijing date), by start then channel.
    pub fn day(&self, day: NaiveDate) -> Vec<Resource> {
        let size_per_file =
            Profile::of(Stream::Main).bitrate_kbps * 1000 / 8 * 60 * FILE_MINUTES as u64;
        let mut files = Vec::new();
        for (from, to) in self.shifts(day) {
            let mut start = from;
            while start < to {
                let end = start + Duration::minutes(FILE_MINUTES);
                for &channel in &self.channels {
                    let jitter =
                        mix(self.seed ^ start.and_utc().timestamp() as u64 ^ u64::from(channel));
                    // ±15 %: a moving picture's bit rate varies with the scene.
                    let size = size_per_file * (85 + jitter % 31) / 100;
                    files.push(Resource {
                        channel,
                        start: from_beijing(start),
                        end: from_beijing(end),
                        alarms: 0,
                        kind: ResourceKind::Video,
                        stream: ResourceStream::Main,
                        storage: Storage::Main,
                        size: u32::try_from(size).unwrap_or(u32::MAX),
                    });
                }
                start = end;
            }
        }
        files
    }

    /// The closed files a 0x9205 query matches: channel (0 for all),
    /// overlapping its time bounds (at most a week back), video of the main
    /// stream on the main store; a query for alarms gets none, as no file
    /// holds one.
    pub fn find(&self, query: &ResourceQuery, now: DateTime<Utc>) -> Vec<Resource> {
        let end = query.end.map_or(now, |end| end.min(now));
        let start = query
            .start
            .unwrap_or(end - Duration::days(RETENTION_DAYS))
            .max(now - Duration::days(RETENTION_DAYS));
        let kind_matches = matches!(query.kind, ResourceKind::Video | ResourceKind::AudioOrVideo);
        let stream_matches = matches!(query.stream, ResourceStream::Any | ResourceStream::Main);
        let storage_matches = matches!(query.storage, Storage::Any | Storage::Main);
        if start >= end || query.alarms != 0 || !kind_matches || !stream_matches || !storage_matches
        {
            return Vec::new();
        }
        let mut day = beijing(start).date();
        let mut found = Vec::new();
        while day <= beijing(end).date() {
            found.extend(self.day(day).into_iter().filter(|r| {
                (query.channel == 0 || r.channel == query.channel)
                    && r.start < end
                    && r.end > start
                    && r.end <= now
            }));
            day = day.succ_opt().unwrap_or(day);
            if found.len() > 10_000 {
                break;
            }
        }
        found
    }

    /// Where a playback of `channel` from `start` ends: `end` when the
    /// recordings cover all of `[start, end]`, the end of the recording
    /// when `end` is `None`; the range must lie in closed files.
    pub fn playback(
        &self,
        channel: u8,
        start: DateTime<Utc>,
        end: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<DateTime<Utc>, NotRecorded> {
        if !self.channels.contains(&channel) {
            return Err(NotRecorded::NoSuchChannel(channel));
        }
        let local = beijing(start);
        let (_, shift_end) = self
            .shifts(local.date())
            .into_iter()
            .find(|&(from, to)| from <= local && local < to)
            .ok_or(NotRecorded::NoRecordingAtStart)?;
        // The file being written is not on the list yet.
        let closed_until = now - Duration::seconds(now.timestamp().rem_euclid(FILE_MINUTES * 60));
        let recorded_until = from_beijing(shift_end).min(closed_until);
        if start >= recorded_until {
            return Err(NotRecorded::NoRecordingAtStart);
        }
        match end {
            None => Ok(recorded_until),
            Some(end) if end > start && end <= recorded_until => Ok(end),
            Some(_) => Err(NotRecorded::EndPastRecording),
        }
    }
}

/// SplitMix64's finaliser: a well-spread hash of a 64-bit value.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests {
    use chrono::Timelike as _;

    use super::*;

    fn at(text: &str) -> DateTime<Utc> {
        from_beijing(NaiveDateTime::parse_from_str(text, "%Y-%m-%d %H:%M:%S").unwrap())
    }

    fn query(channel: u8, start: &str, end: &str) -> ResourceQuery {
        ResourceQuery {
            channel,
            start: Some(at(start)),
            end: Some(at(end)),
            alarms: 0,
            kind: ResourceKind::AudioOrVideo,
            stream: ResourceStream::Any,
            storage: Storage::Any,
        }
    }

    #[test]
    fn a_days_recordings_are_the_same_every_time_and_cover_working_hours_in_10_minute_files() {
        let day = NaiveDate::from_ymd_opt(2026, 11, 20).unwrap();
        let recorder = Recorder::new("13800000001", &[1, 2]);
        let files = recorder.day(day);
        assert_eq!(files, Recorder::new("13800000001", &[1, 2]).day(day));
        assert!(files.len() > 2 * 50, "{} files", files.len());
        for file in &files {
            assert_eq!(file.end - file.start, Duration::minutes(FILE_MINUTES));
            let hour = beijing(file.start).time().hour();
            assert!((7..20).contains(&hour), "{file:?}");
            // 400 kbit/s for 10 minutes is 30 MB.
            assert!((25_000_000..35_000_000).contains(&file.size), "{file:?}");
        }
        assert_ne!(files, Recorder::new("13800000002", &[1, 2]).day(day));
    }

    #[test]
    fn a_query_lists_one_channels_closed_files_in_its_range() {
        let recorder = Recorder::new("13800000001", &[1, 2]);
        let now = at("2026-11-20 15:05:00");
        let found = recorder.find(&query(2, "2026-11-20 10:00:00", "2026-11-20 23:00:00"), now);
        assert!(!found.is_empty());
        assert!(found.iter().all(|r| r.channel == 2 && r.end <= now));
        assert_eq!(
            found.first().map(|r| r.start),
            Some(at("2026-11-20 10:00:00"))
        );
        assert_eq!(found.last().map(|r| r.end), Some(at("2026-11-20 15:00:00")));
        let all = recorder.find(&query(0, "2026-11-20 10:00:00", "2026-11-20 11:00:00"), now);
        assert_eq!(all.len(), 2 * 6);
    }

    #[test]
    fn a_playback_inside_a_shift_is_honoured_and_one_outside_refused() {
        let recorder = Recorder::new("13800000001", &[1, 2]);
        let now = at("2026-11-21 00:00:00");
        assert_eq!(
            recorder.playback(
                1,
                at("2026-11-20 10:03:00"),
                Some(at("2026-11-20 10:30:00")),
                now
            ),
            Ok(at("2026-11-20 10:30:00"))
        );
        assert_eq!(
            recorder.playback(1, at("2026-11-20 03:00:00"), None, now),
            Err(NotRecorded::NoRecordingAtStart)
        );
        assert_eq!(
            recorder.playback(
                1,
                at("2026-11-20 10:00:00"),
                Some(at("2026-11-20 23:00:00")),
                now
            ),
            Err(NotRecorded::EndPastRecording)
        );
        assert_eq!(
            recorder.playback(3, at("2026-11-20 10:00:00"), None, now),
            Err(NotRecorded::NoSuchChannel(3))
        );
        // Not recorded yet.
        assert_eq!(
            recorder.playback(
                1,
                at("2026-11-20 10:00:00"),
                None,
                at("2026-11-20 09:00:00")
            ),
            Err(NotRecorded::NoRecordingAtStart)
        );
    }
}
