//! Active-safety alarms (苏标 items 0x64-0x67 of 0x0200, telematics
//! `Fix.safety_alarms`) as risk alarms, in ingest's batch transaction.
//!
//! They are always on: no rule raises them (`rule_id` is
//! [`NO_RULE`](super::domain::NO_RULE), condition
//! [`safety_condition`](super::domain::safety_condition)), and each is an
//! instant event keyed by the terminal's alarm identifier: one row per
//! (vehicle, `alarm_key`) however often the report is re-sent, backfilled
//! or reordered. Items of one key span from the earliest to the latest
//! scene time seen (a flag-2 end item ends what the flag-1 item started, in
//! whichever order they arrive); the level is the highest seen. Items that
//! are events rather than alarms (snapshots, road-sign recognition, a
//! tyre's timed report) are dropped (`domain::safety_kind`).
//!
//! Their evidence arrives apart, as media with the same `alarm_key`
//! (`media`, read back by `evidence`).

use std::collections::BTreeMap;

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::datetime;
use fleetdesk_proto::telematics::v1 as tpb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::domain::{NO_RULE, safety_condition, safety_kind, safety_level};
use super::notify::{self, NOTIFY_LEVEL, Opened};
use crate::ingest::domain::FixRow;

/// A scene time further than this from its fix is a broken field: the
/// fix's time is used instead.
const SCENE_SLACK: Duration = Duration::hours(1);

/// One active-safety item of a position report, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct SafetyItem {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    pub alarm_key: String,
    /// telematics SafetySource: 1 ADAS, 2 DMS, 3 tyres, 4 blind spot.
    pub source: u8,
    pub event: u32,
    pub level: u32,
    /// 0 neither, 1 start, 2 end.
    pub flag: u32,
    pub time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub speed_dkmh: i32,
}

impl SafetyItem {
    /// The item of `fix`'s report, or none without a key or a known source;
    /// the scene's place and time default to the fix's.
    pub fn parse(item: tpb::SafetyAlarm, fix: &FixRow, now: DateTime<Utc>) -> Option<SafetyItem> {
        let tpb::SafetyAlarm {
            alarm_key,
            source,
            event,
            level,
            flag,
            attachment_count: _,
            time,
            latitude,
            longitude,
            speed_kmh,
        } = item;
        let alarm_key = alarm_key.trim();
        let source = match tpb::SafetySource::try_from(source) {
            Ok(tpb::SafetySource::Adas) => 1,
            Ok(tpb::SafetySource::Dms) => 2,
            Ok(tpb::SafetySource::Tyres) => 3,
            Ok(tpb::SafetySource::BlindSpot) => 4,
            Ok(tpb::SafetySource::Unspecified) | Err(_) => return None,
        };
        if alarm_key.is_empty() || alarm_key.len() > 100 {
            return None;
        }
        let time = time
            .as_ref()
            .and_then(datetime)
            .filter(|t| (*t - fix.fix_time).abs() <= SCENE_SLACK && *t <= now + SCENE_SLACK)
            .unwrap_or(fix.fix_time);
        let placed = latitude.is_finite()
            && longitude.is_finite()
            && (-90.0..=90.0).contains(&latitude)
            && (-180.0..=180.0).contains(&longitude)
            && (latitude, longitude) != (0.0, 0.0);
        let (lat, lng) = if placed {
            (latitude, longitude)
        } else {
            (fix.lat, fix.lng)
        };
        Some(SafetyItem {
            enterprise_id: fix.enterprise_id,
            vehicle_id: fix.vehicle_id,
            alarm_key: alarm_key.to_owned(),
            source,
            event,
            level,
            flag,
            time,
            lat,
            lng,
            speed_dkmh: speed_kmh.clamp(0, 1_000) * 10,
        })
    }
}

/// One alarm as the items of its key give it.
#[derive(Debug, Clone, PartialEq)]
struct Found {
    kind: i16,
    condition: i16,
    level: i16,
    start: DateTime<Utc>,
    end: DateTime<Utc>,
    lat: f64,
    lng: f64,
    speed_dkmh: i32,
}

/// The alarms of `items` by (vehicle, key): from the earliest item to the
/// latest, at the earliest's place, the highest level.
fn found(items: &[SafetyItem]) -> BTreeMap<(Uuid, &str), Found> {
    let mut out: BTreeMap<(Uuid, &str), Found> = BTreeMap::new();
    for item in items {
        let Some(kind) = safety_kind(item.source, item.event) else {
            continue;
        };
        let level = safety_level(item.level);
        let this = Found {
            kind: i16::from(kind),
            condition: safety_condition(item.source, u8::try_from(item.event).unwrap_or(u8::MAX)),
            level,
            start: item.time,
            end: item.time,
            lat: item.lat,
            lng: item.lng,
            speed_dkmh: item.speed_dkmh,
        };
        out.entry((item.vehicle_id, item.alarm_key.as_str()))
            .and_modify(|f| {
                if this.start < f.start {
                    let end = f.end;
                    *f = Found {
                        level: f.level.max(level),
                        end: end.max(this.end),
                        ..this.clone()
                    };
                } else {
                    f.end = f.end.max(this.end);
                    f.level = f.level.max(level);
                }
            })
            .or_insert(this);
    }
    out
}

/// Writes one enterprise's active-safety items (in its tenant scope): new
/// keys become alarms, known ones widen; answers how many alarms are new.
pub async fn apply(
    conn: &mut PgConnection,
    enterprise: Uuid,
    items: &[SafetyItem],
) -> Result<usize, ServiceError> {
    let found = found(items);
    if found.is_empty() {
        return Ok(0);
    }
    let vehicles: Vec<Uuid> = found.keys().map(|k| k.0).collect();
    // Only the enterprise's own vehicles (a report under another tenant's
    // subject raises nothing), with their organisation (data scope).
    let orgs: BTreeMap<Uuid, Option<Uuid>> = sqlx::query_as::<_, (Uuid, Option<Uuid>)>(
        "select id, org_id from vehicle where enterprise_id = $1 and id = any($2)",
    )
    .bind(enterprise)
    .bind(&vehicles)
    .fetch_all(&mut *conn)
    .await?
    .into_iter()
    .collect();
    let rows: Vec<(&(Uuid, &str), &Found)> = found
        .iter()
        .filter(|(k, _)| orgs.contains_key(&k.0))
        .collect();
    if rows.is_empty() {
        return Ok(0);
    }
    let vehicle_ids: Vec<Uuid> = rows.iter().map(|r| r.0.0).collect();
    let keys: Vec<String> = rows.iter().map(|r| r.0.1.to_owned()).collect();
    let starts: Vec<DateTime<Utc>> = rows.iter().map(|r| r.1.start).collect();
    let ends: Vec<DateTime<Utc>> = rows.iter().map(|r| r.1.end).collect();
    let levels: Vec<i16> = rows.iter().map(|r| r.1.level).collect();
    // Any unique key stops a row: the alarm's own, or (rarely) another
    // alarm of the same kind starting the same instant.
    let inserted: Vec<Uuid> = sqlx::query_scalar(
        "insert into risk_alarm (enterprise_id, vehicle_id, org_id, rule_id, condition, kind, \
           level, started_at, ended_at, last_seen_at, lat, lng, peak_speed_dkmh, alarm_key) \
         select $1, t.vehicle_id, t.org_id, $2, t.condition, t.kind, t.level, t.started_at, \
           t.ended_at, t.ended_at, t.lat, t.lng, t.speed, t.alarm_key \
         from unnest($3::uuid[], $4::uuid[], $5::int2[], $6::int2[], $7::int2[], \
           $8::timestamptz[], $9::timestamptz[], $10::float8[], $11::float8[], $12::int4[], \
           $13::text[]) \
           t(vehicle_id, org_id, condition, kind, level, started_at, ended_at, lat, lng, speed, \
             alarm_key) \
         on conflict do nothing returning vehicle_id",
    )
    .bind(enterprise)
    .bind(NO_RULE)
    .bind(&vehicle_ids)
    .bind(rows.iter().map(|r| orgs[&r.0.0]).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.1.condition).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.1.kind).collect::<Vec<_>>())
    .bind(&levels)
    .bind(&starts)
    .bind(&ends)
    .bind(rows.iter().map(|r| r.1.lat).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.1.lng).collect::<Vec<_>>())
    .bind(rows.iter().map(|r| r.1.speed_dkmh).collect::<Vec<_>>())
    .bind(&keys)
    .fetch_all(&mut *conn)
    .await?;
    // Known keys widen to the items seen now (the start only where no other
    // alarm of its kind starts then).
    sqlx::query(
        "update risk_alarm a set \
           started_at = case when t.started_at < a.started_at and not exists ( \
               select 1 from risk_alarm b where b.vehicle_id = a.vehicle_id \
                 and b.rule_id = a.rule_id and b.condition = a.condition \
                 and b.started_at = t.started_at) \
             then t.started_at else a.started_at end, \
           ended_at = greatest(a.ended_at, t.ended_at), \
           last_seen_at = greatest(a.last_seen_at, t.ended_at), \
           level = greatest(a.level, t.level) \
         from unnest($1::uuid[], $2::text[], $3::timestamptz[], $4::timestamptz[], $5::int2[]) \
           t(vehicle_id, alarm_key, started_at, ended_at, level) \
         where a.vehicle_id = t.vehicle_id and a.alarm_key = t.alarm_key \
           and (t.started_at < a.started_at or t.ended_at > a.ended_at or t.level > a.level)",
    )
    .bind(&vehicle_ids)
    .bind(&keys)
    .bind(&starts)
    .bind(&ends)
    .bind(&levels)
    .execute(&mut *conn)
    .await?;
    let urgent: Vec<Opened> = rows
        .iter()
        .filter(|r| r.1.level == NOTIFY_LEVEL)
        .map(|r| Opened {
            vehicle_id: r.0.0,
            rule_id: NO_RULE,
            condition: r.1.condition,
            started_at: r.1.start,
        })
        .collect();
    notify::opened(conn, &urgent).await?;
    Ok(inserted.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(key: &str, event: u32, level: u32, flag: u32, secs: i64) -> SafetyItem {
        SafetyItem {
            enterprise_id: Uuid::from_u128(1),
            vehicle_id: Uuid::from_u128(2),
            alarm_key: key.to_owned(),
            source: 2,
            event,
            level,
            flag,
            time: DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap(),
            lat: 22.5 + secs as f64,
            lng: 114.0,
            speed_dkmh: 400,
        }
    }

    #[test]
    fn one_alarm_per_key_from_its_start_to_its_end_in_any_order() {
        let start = item("k1", 2, 1, 1, 0);
        let end = item("k1", 2, 2, 2, 30);
        let other = item("k2", 3, 1, 0, 10);
        let sent = [start.clone(), end.clone(), other.clone()];
        let again = [other, end, start.clone(), start];
        let (in_order, reversed) = (found(&sent), found(&again));
        assert_eq!(in_order, reversed);
        let one = &in_order[&(Uuid::from_u128(2), "k1")];
        assert_eq!((one.end - one.start).num_seconds(), 30);
        assert_eq!(
            (one.level, one.lat),
            (3, 22.5),
            "highest level, first place"
        );
        assert_eq!(in_order.len(), 2);
    }

    #[test]
    fn events_that_are_not_alarms_raise_nothing() {
        assert!(found(&[item("k", 0x10, 1, 0, 0)]).is_empty());
    }
}
