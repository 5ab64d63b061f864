//! A media announcement as stored, checked. Pure.

use chrono::{DateTime, Utc};
use fleetdesk_kit::convert::datetime;
use fleetdesk_kit::files::owned_by;
use fleetdesk_proto::telematics::v1 as tpb;
use uuid::Uuid;

/// One stored file of a vehicle.
#[derive(Debug, Clone, PartialEq)]
pub struct MediaRow {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    /// 0 image, 1 audio, 2 video.
    pub media_type: i16,
    pub event_code: i16,
    pub channel: i16,
    pub object_key: String,
    pub content_type: String,
    pub size_bytes: i64,
    pub alarm_key: Option<String>,
    pub file_name: String,
    pub taken_at: DateTime<Utc>,
}

/// Why an announcement was dropped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    #[error("not a MediaStored message")]
    Unreadable,
    #[error("enterprise or vehicle id is not a uuid")]
    BadId,
    #[error("the object is not the enterprise's")]
    ForeignObject,
    #[error("a code out of range")]
    BadCode,
}

impl MediaRow {
    /// Checks an announcement received at `now`.
    pub fn parse(m: tpb::MediaStored, now: DateTime<Utc>) -> Result<MediaRow, Rejected> {
        let tpb::MediaStored {
            enterprise_id,
            vehicle_id,
            media_id: _,
            media_type,
            event_code,
            channel,
            object_key,
            content_type,
            size_bytes,
            position,
            alarm_key,
            file_name,
        } = m;
        let enterprise_id = Uuid::parse_str(&enterprise_id).map_err(|_| Rejected::BadId)?;
        let vehicle_id = Uuid::parse_str(&vehicle_id).map_err(|_| Rejected::BadId)?;
        // A key outside the enterprise's prefix must never be linked to it.
        if object_key.is_empty() || !owned_by(&object_key, enterprise_id) {
            return Err(Rejected::ForeignObject);
        }
        let code = |v: i32| i16::try_from(v).map_err(|_| Rejected::BadCode);
        let taken_at = position
            .as_ref()
            .and_then(|p| {
                p.fix_time
                    .as_ref()
                    .or(p.receive_time.as_ref())
                    .and_then(datetime)
            })
            .unwrap_or(now);
        let alarm_key = Some(alarm_key.trim().to_owned()).filter(|k| !k.is_empty());
        Ok(MediaRow {
            enterprise_id,
            vehicle_id,
            media_type: code(media_type)?,
            event_code: code(event_code)?,
            channel: code(channel)?,
            object_key,
            content_type,
            size_bytes: size_bytes.max(0),
            alarm_key,
            file_name: file_name.trim().to_owned(),
            taken_at,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stored(enterprise: Uuid) -> tpb::MediaStored {
        tpb::MediaStored {
            enterprise_id: enterprise.to_string(),
            vehicle_id: Uuid::from_u128(2).to_string(),
            media_type: 2,
            event_code: 0,
            channel: 1,
            object_key: format!("{enterprise}/media/x/1.mp4"),
            content_type: "video/mp4".into(),
            size_bytes: 10,
            alarm_key: " T1-261129080000-1 ".into(),
            file_name: "02_65_6502_0_1.mp4".into(),
            position: Some(tpb::Fix {
                fix_time: Some(fleetdesk_kit::convert::timestamp(
                    DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
                )),
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn a_file_is_taken_at_its_fix_and_keeps_its_alarm_key() {
        let e = Uuid::from_u128(1);
        let row = MediaRow::parse(stored(e), Utc::now()).unwrap();
        assert_eq!(row.taken_at.timestamp(), 1_800_000_000);
        assert_eq!(row.alarm_key.as_deref(), Some("T1-261129080000-1"));
        let mut photo = stored(e);
        photo.alarm_key = String::new();
        photo.position = None;
        let now = Utc::now();
        let row = MediaRow::parse(photo, now).unwrap();
        assert_eq!((row.alarm_key, row.taken_at), (None, now));
    }

    #[test]
    fn another_tenants_object_is_never_taken() {
        let mut m = stored(Uuid::from_u128(1));
        m.object_key = format!("{}/media/x/1.mp4", Uuid::from_u128(9));
        assert_eq!(MediaRow::parse(m, Utc::now()), Err(Rejected::ForeignObject));
    }
}
