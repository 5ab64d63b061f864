//! Rules of cameras and viewings: a camera's channels, the kinds of
//! viewing and how long one lasted. Pure.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What a viewing watched.
    ViewKind => pb::VideoViewKind {
        Live = 1, Playback = 2,
    }
);

/// The logical channels of a terminal reporting `video_channels` (JT/T 1078
/// numbers cameras from 1).
pub fn channels(video_channels: i16) -> Vec<u32> {
    (1..=u32::try_from(video_channels).unwrap_or(0)).collect()
}

/// A channel the vehicle has, else the field error users see.
pub fn channel(channel: u32, video_channels: i16) -> Result<i16, ServiceError> {
    i16::try_from(channel)
        .ok()
        .filter(|c| *c >= 1 && *c <= video_channels)
        .ok_or_else(|| ServiceError::invalid("channel", "通道号无效"))
}

/// Seconds a viewing lasted: to its end, or to `now` while it lasts.
pub fn duration_seconds(
    started_at: DateTime<Utc>,
    ended_at: Option<DateTime<Utc>>,
    now: DateTime<Utc>,
) -> i64 {
    (ended_at.unwrap_or(now) - started_at).num_seconds().max(0)
}

/// The answer for a vehicle whose terminal reports no camera.
pub fn no_camera() -> ServiceError {
    ServiceError::new(fleetdesk_kit::ErrorCode::Conflict, NO_CAMERA)
}

pub const NO_CAMERA: &str = "该车辆未配置摄像头";

#[cfg(test)]
mod tests {
    use chrono::Duration;

    use super::*;

    #[test]
    fn channels_count_from_one_and_none_without_video() {
        assert_eq!(channels(4), vec![1, 2, 3, 4]);
        assert!(channels(0).is_empty());
        assert!(channels(-1).is_empty());
    }

    #[test]
    fn a_channel_must_be_one_the_terminal_has() {
        assert_eq!(channel(2, 2).unwrap(), 2);
        for bad in [0, 3, 70_000] {
            let err = channel(bad, 2).unwrap_err();
            assert_eq!(err.fields[0].field, "channel", "{bad}");
        }
    }

    #[test]
    fn a_viewing_lasts_until_its_end_or_now() {
        let start = Utc::now() - Duration::seconds(90);
        let now = start + Duration::seconds(90);
        assert_eq!(
            duration_seconds(start, Some(start + Duration::seconds(30)), now),
            30
        );
        assert_eq!(duration_seconds(start, None, now), 90);
        assert_eq!(
            duration_seconds(start, Some(start - Duration::seconds(5)), now),
            0
        );
    }
}
