//! An alarm's evidence: the photos and clips of `vehicle_media` that
//! belong to it.
//!
//! - An active-safety alarm: the files uploaded with its `alarm_key`.
//! - A terminal alarm whose bit makes the terminal take photos
//!   (`domain::photo_event`: emergency → event 2, collision or rollover →
//!   3, illegal door opening → 4): the vehicle's 0x0800 photos of that
//!   event taken from [`BEFORE`] before the alarm's start to [`AFTER`]
//!   after it.
//!
//! Images are media type 0, clips type 2 (audio is not shown); at most
//! [`MAX_FILES`] of each per alarm, oldest first. The rows are read in the
//! caller's tenant transaction for alarms it may see, so the keys are its
//! enterprise's; the gateway signs their links.

use std::collections::HashMap;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::files::key_name;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::photo_event;
use super::store::AlarmRow;

/// A terminal alarm's photos start this long before it.
pub const BEFORE: Duration = Duration::minutes(1);
/// … and end this long after its start.
pub const AFTER: Duration = Duration::minutes(5);
/// Files of each kind shown per alarm.
pub const MAX_FILES: usize = 20;

/// An alarm's photos and clips.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Evidence {
    pub images: Vec<common::FileRef>,
    pub clips: Vec<pb::AlarmClip>,
}

impl Evidence {
    /// Puts it on the alarm as the proto carries it.
    pub fn attach(self, alarm: &mut pb::RiskAlarm) {
        let Evidence { images, clips } = self;
        alarm.images = images;
        alarm.clips = clips;
    }
}

#[derive(Debug, sqlx::FromRow)]
struct MediaRow {
    alarm_id: Uuid,
    media_type: i16,
    channel: i16,
    object_key: String,
    content_type: String,
    size_bytes: i64,
    file_name: String,
    taken_at: DateTime<Utc>,
}

/// The evidence of `alarms`, by alarm id (alarms without any are absent).
pub async fn of_alarms(
    conn: &mut PgConnection,
    alarms: &[AlarmRow],
) -> Result<HashMap<Uuid, Evidence>, ServiceError> {
    let keyed: Vec<&AlarmRow> = alarms.iter().filter(|a| a.alarm_key.is_some()).collect();
    let photographed: Vec<(&AlarmRow, i16)> = alarms
        .iter()
        .filter(|a| a.alarm_key.is_none())
        .filter_map(|a| Some((a, photo_event(a.condition)?)))
        .collect();
    if keyed.is_empty() && photographed.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<MediaRow> = sqlx::query_as(
        "select w.id as alarm_id, m.media_type, m.channel, m.object_key, m.content_type, \
           m.size_bytes, m.file_name, m.taken_at \
         from unnest($1::uuid[], $2::uuid[], $3::text[]) w(id, vehicle_id, alarm_key) \
         join vehicle_media m on m.vehicle_id = w.vehicle_id and m.alarm_key = w.alarm_key \
         union all \
         select w.id, m.media_type, m.channel, m.object_key, m.content_type, m.size_bytes, \
           m.file_name, m.taken_at \
         from unnest($4::uuid[], $5::uuid[], $6::int2[], $7::timestamptz[]) \
           w(id, vehicle_id, event_code, started_at) \
         join vehicle_media m on m.vehicle_id = w.vehicle_id and m.alarm_key is null \
           and m.event_code = w.event_code \
           and m.taken_at between w.started_at - $8::interval and w.started_at + $9::interval \
         order by 1, 8, 4",
    )
    .bind(keyed.iter().map(|a| a.id).collect::<Vec<_>>())
    .bind(keyed.iter().map(|a| a.vehicle_id).collect::<Vec<_>>())
    .bind(
        keyed
            .iter()
            .map(|a| a.alarm_key.clone().unwrap_or_default())
            .collect::<Vec<_>>(),
    )
    .bind(photographed.iter().map(|a| a.0.id).collect::<Vec<_>>())
    .bind(
        photographed
            .iter()
            .map(|a| a.0.vehicle_id)
            .collect::<Vec<_>>(),
    )
    .bind(photographed.iter().map(|a| a.1).collect::<Vec<_>>())
    .bind(
        photographed
            .iter()
            .map(|a| a.0.started_at)
            .collect::<Vec<_>>(),
    )
    .bind(BEFORE)
    .bind(AFTER)
    .fetch_all(conn)
    .await?;
    let mut out: HashMap<Uuid, Evidence> = HashMap::new();
    for r in rows {
        let evidence = out.entry(r.alarm_id).or_default();
        let file = common::FileRef {
            name: if r.file_name.is_empty() {
                key_name(&r.object_key).to_owned()
            } else {
                r.file_name
            },
            key: r.object_key,
            content_type: r.content_type,
            size_bytes: r.size_bytes,
        };
        match r.media_type {
            0 if evidence.images.len() < MAX_FILES => evidence.images.push(file),
            2 if evidence.clips.len() < MAX_FILES => evidence.clips.push(pb::AlarmClip {
                file: Some(file),
                channel: i32::from(r.channel),
                taken_at: Some(timestamp(r.taken_at)),
            }),
            _ => {}
        }
    }
    Ok(out)
}

/// `alarms` as the proto carries them, with their evidence.
pub async fn alarms_with_evidence(
    conn: &mut PgConnection,
    rows: Vec<AlarmRow>,
) -> Result<Vec<pb::RiskAlarm>, ServiceError> {
    let mut evidence = of_alarms(conn, &rows).await?;
    Ok(rows
        .into_iter()
        .map(|row| {
            let found = evidence.remove(&row.id);
            let mut alarm = super::convert::alarm(row);
            if let Some(found) = found {
                found.attach(&mut alarm);
            }
            alarm
        })
        .collect())
}
