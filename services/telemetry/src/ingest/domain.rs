//! A fix as ingest stores it, the order a batch is written in, and what
//! each enterprise's evaluation gets of it. Pure.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use chrono::{DateTime, Duration, DurationRound as _, NaiveDate, Utc};
use fleetdesk_kit::convert::datetime;
use fleetdesk_proto::telematics::v1 as pb;
use uuid::Uuid;

use crate::alarms::active_safety::SafetyItem;
use crate::alarms::engine::Sample;
use crate::geofences::engine::Fix;
use crate::geofences::evaluate::VehicleFixes;
use crate::temperature::evaluate::ReadingIn;

/// Days of history kept; older partitions are dropped and older fixes are
/// not stored.
pub const RETENTION_DAYS: i64 = 180;
/// A fix further ahead of the receiving clock is a broken terminal clock; it
/// would stay the "latest" position for good.
const FUTURE_SLACK: Duration = Duration::minutes(10);

/// One checked fix.
#[derive(Debug, Clone, PartialEq)]
pub struct FixRow {
    pub enterprise_id: Uuid,
    pub vehicle_id: Uuid,
    pub fix_time: DateTime<Utc>,
    pub receive_time: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub altitude_m: i32,
    pub speed_dkmh: i32,
    pub heading: i16,
    pub alarm_bits: i64,
    pub status_bits: i64,
    pub mileage_m: Option<i64>,
    pub soc: Option<i16>,
    /// (probe, tenths of a degree Celsius).
    pub temperatures: Vec<(i16, i32)>,
    pub backfill: bool,
    /// The terminal's own time when it cannot be right (older than
    /// retention, or ahead of the receiving clock): `fix_time` is then the
    /// receive time, so the position is kept and never taken for old history.
    pub device_time: Option<DateTime<Utc>>,
}

/// Why a message was not stored (counted and dropped, never retried).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum Rejected {
    #[error("not a Fix message")]
    Unreadable,
    #[error("enterprise or vehicle id is not a uuid")]
    BadId,
    #[error("no fix time")]
    NoTime,
    #[error("coordinates out of range")]
    BadPosition,
}

impl Rejected {
    /// The reason as a metrics label.
    pub fn label(self) -> &'static str {
        match self {
            Rejected::Unreadable => "unreadable",
            Rejected::BadId => "bad_id",
            Rejected::NoTime => "no_time",
            Rejected::BadPosition => "bad_position",
        }
    }
}

/// Why a fix time cannot be right at `now`: `future` or `old`.
pub fn time_suspect(fix_time: DateTime<Utc>, now: DateTime<Utc>) -> Option<&'static str> {
    if fix_time > now + FUTURE_SLACK {
        Some("future")
    } else if fix_time < now - Duration::days(RETENTION_DAYS) {
        Some("old")
    } else {
        None
    }
}

impl FixRow {
    /// Checks a decoded Fix against the receiving clock `now`.
    pub fn parse(fix: pb::Fix, now: DateTime<Utc>) -> Result<FixRow, Rejected> {
        FixRow::parse_report(fix, now).map(|(row, _)| row)
    }

    /// [`FixRow::parse`] with the report's active-safety alarms (kept apart:
    /// most fixes have none, and those pay nothing for them).
    pub fn parse_report(
        fix: pb::Fix,
        now: DateTime<Utc>,
    ) -> Result<(FixRow, Vec<SafetyItem>), Rejected> {
        let pb::Fix {
            terminal: _,
            enterprise_id,
            vehicle_id,
            fix_time,
            receive_time,
            latitude,
            longitude,
            altitude_m,
            speed_dkmh,
            heading,
            alarm_bits,
            status_bits,
            mileage_m,
            soc_percent,
            temperatures,
            backfill,
            safety_alarms,
        } = fix;
        let enterprise_id = Uuid::parse_str(&enterprise_id).map_err(|_| Rejected::BadId)?;
        let vehicle_id = Uuid::parse_str(&vehicle_id).map_err(|_| Rejected::BadId)?;
        let fix_time = fix_time
            .as_ref()
            .and_then(datetime)
            .ok_or(Rejected::NoTime)?;
        // Postgres keeps microseconds: a key must compare equal after a round trip.
        let fix_time = fix_time
            .duration_trunc(Duration::microseconds(1))
            .unwrap_or(fix_time);
        let receive_time = receive_time
            .as_ref()
            .and_then(datetime)
            .map(|t| t.duration_trunc(Duration::microseconds(1)).unwrap_or(t))
            .unwrap_or(now);
        let (fix_time, device_time) = match time_suspect(fix_time, now) {
            None => (fix_time, None),
            Some(_) => (receive_time.min(now), Some(fix_time)),
        };
        let valid = latitude.is_finite()
            && longitude.is_finite()
            && (-90.0..=90.0).contains(&latitude)
            && (-180.0..=180.0).contains(&longitude);
        if !valid {
            return Err(Rejected::BadPosition);
        }
        let row = FixRow {
            enterprise_id,
            vehicle_id,
            fix_time,
            receive_time,
            lat: latitude,
            lng: longitude,
            altitude_m,
            speed_dkmh: speed_dkmh.clamp(0, 10_000),
            heading: i16::try_from(heading.rem_euclid(360)).unwrap_or(0),
            alarm_bits: i64::from(alarm_bits),
            status_bits: i64::from(status_bits),
            mileage_m: mileage_m.filter(|m| *m >= 0),
            soc: soc_percent
                .filter(|s| (0..=100).contains(s))
                .and_then(|s| i16::try_from(s).ok()),
            temperatures: temperatures
                .into_iter()
                .filter_map(|t| Some((i16::try_from(t.probe).ok()?, t.deci_celsius)))
                .collect(),
            backfill,
            device_time,
        };
        let items = safety_alarms
            .into_iter()
            .filter_map(|a| SafetyItem::parse(a, &row, now))
            .collect();
        Ok((row, items))
    }
}

/// Puts a batch in the order it is applied — per vehicle, by fix time — and
/// drops repeats of the same (vehicle, fix time) within it (the first kept).
pub fn order(mut fixes: Vec<FixRow>) -> Vec<FixRow> {
    fixes.sort_by_key(|a| (a.vehicle_id, a.fix_time));
    fixes.dedup_by(|b, a| a.vehicle_id == b.vehicle_id && a.fix_time == b.fix_time);
    fixes
}

/// The newest fix of each vehicle of an ordered batch.
pub fn newest(ordered: &[FixRow]) -> Vec<&FixRow> {
    let mut out: Vec<&FixRow> = Vec::new();
    for fix in ordered {
        match out.last_mut() {
            Some(last) if last.vehicle_id == fix.vehicle_id => *last = fix,
            _ => out.push(fix),
        }
    }
    out
}

/// What one enterprise's evaluation gets of a batch: each vehicle's fixes
/// new to the history, after where it was before (fences), as the alarm
/// rules read them, and their probe readings.
#[derive(Debug, Default)]
pub struct ForEvaluation {
    pub vehicles: BTreeMap<Uuid, VehicleFixes>,
    pub samples: BTreeMap<Uuid, Vec<Sample>>,
    pub readings: Vec<ReadingIn>,
}

/// Splits the fixes a batch stored (ordered, all new to the history) by
/// enterprise for evaluation; `previous` is each vehicle's latest position
/// before the batch.
pub fn for_evaluation(
    stored: &[FixRow],
    previous: &HashMap<Uuid, Fix>,
) -> BTreeMap<Uuid, ForEvaluation> {
    let mut out: BTreeMap<Uuid, ForEvaluation> = BTreeMap::new();
    for f in stored {
        let batch = out.entry(f.enterprise_id).or_default();
        batch
            .vehicles
            .entry(f.vehicle_id)
            .or_insert_with(|| VehicleFixes {
                previous: previous.get(&f.vehicle_id).copied(),
                fixes: Vec::new(),
            })
            .fixes
            .push(Fix {
                time: f.fix_time,
                lat: f.lat,
                lng: f.lng,
                speed_dkmh: f.speed_dkmh,
            });
        batch.samples.entry(f.vehicle_id).or_default().push(Sample {
            time: f.fix_time,
            lat: f.lat,
            lng: f.lng,
            speed_dkmh: f.speed_dkmh,
            alarm_bits: f.alarm_bits,
            soc: f.soc,
            fence_limit_dkmh: None,
        });
        batch
            .readings
            .extend(
                f.temperatures
                    .iter()
                    .filter(|(probe, _)| *probe > 0)
                    .map(|(probe, deci)| ReadingIn {
                        enterprise_id: f.enterprise_id,
                        vehicle_id: f.vehicle_id,
                        probe: *probe,
                        time: f.fix_time,
                        deci: *deci,
                    }),
            );
    }
    out
}

/// The UTC days a batch touches (their partitions must exist).
pub fn days(fixes: &[FixRow]) -> BTreeSet<NaiveDate> {
    fixes.iter().map(|f| f.fix_time.date_naive()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fix(vehicle: u128, secs: i64) -> FixRow {
        FixRow {
            enterprise_id: Uuid::from_u128(1),
            vehicle_id: Uuid::from_u128(vehicle),
            fix_time: DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap(),
            receive_time: DateTime::from_timestamp(1_800_000_000, 0).unwrap(),
            lat: 22.5,
            lng: 114.0,
            altitude_m: 0,
            speed_dkmh: 0,
            heading: 0,
            alarm_bits: 0,
            status_bits: 0,
            mileage_m: None,
            soc: None,
            temperatures: vec![],
            backfill: false,
            device_time: None,
        }
    }

    #[test]
    fn a_batch_is_applied_per_vehicle_in_fix_time_order_with_repeats_dropped() {
        let ordered = order(vec![
            fix(2, 30),
            fix(1, 20),
            fix(2, 10),
            fix(1, 20),
            fix(1, 5),
        ]);
        let keys: Vec<(u128, i64)> = ordered
            .iter()
            .map(|f| {
                (
                    f.vehicle_id.as_u128(),
                    f.fix_time.timestamp() - 1_800_000_000,
                )
            })
            .collect();
        assert_eq!(keys, vec![(1, 5), (1, 20), (2, 10), (2, 30)]);
        let newest: Vec<i64> = newest(&ordered)
            .iter()
            .map(|f| f.fix_time.timestamp() - 1_800_000_000)
            .collect();
        assert_eq!(newest, vec![20, 30]);
    }

    #[test]
    fn evaluation_gets_each_vehicles_stored_fixes_after_where_it_was() {
        let mut with_probes = fix(2, 40);
        with_probes.temperatures = vec![(1, -180), (0, 99)];
        let mut elsewhere = fix(3, 10);
        elsewhere.enterprise_id = Uuid::from_u128(9);
        let stored = order(vec![fix(1, 20), fix(2, 30), with_probes, elsewhere]);
        let t = |secs: i64| DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap();
        let before = Fix {
            time: t(15),
            lat: 22.0,
            lng: 114.0,
            speed_dkmh: 0,
        };
        let previous = HashMap::from([(Uuid::from_u128(1), before)]);
        let split = for_evaluation(&stored, &previous);
        assert_eq!(
            split.keys().copied().collect::<Vec<_>>(),
            vec![Uuid::from_u128(1), Uuid::from_u128(9)]
        );
        let batch = &split[&Uuid::from_u128(1)];
        let one = &batch.vehicles[&Uuid::from_u128(1)];
        assert_eq!(one.previous, Some(before));
        assert_eq!(
            one.fixes.iter().map(|f| f.time).collect::<Vec<_>>(),
            vec![t(20)]
        );
        let two = &batch.vehicles[&Uuid::from_u128(2)];
        assert_eq!((two.previous, two.fixes.len()), (None, 2));
        // Probe 0 is no probe.
        assert_eq!(batch.readings.len(), 1);
        assert_eq!((batch.readings[0].probe, batch.readings[0].deci), (1, -180));
    }

    #[test]
    fn fix_times_are_kept_to_the_microsecond() {
        let now = Utc::now();
        let at = DateTime::from_timestamp(now.timestamp(), 123_456_789).unwrap();
        let row = FixRow::parse(message(22.5, at), now).unwrap();
        assert_eq!(row.fix_time.timestamp_subsec_nanos(), 123_456_000);
    }

    fn message(lat: f64, at: DateTime<Utc>) -> pb::Fix {
        pb::Fix {
            enterprise_id: Uuid::from_u128(1).to_string(),
            vehicle_id: Uuid::from_u128(2).to_string(),
            fix_time: Some(fleetdesk_kit::convert::timestamp(at)),
            latitude: lat,
            longitude: 114.0,
            heading: 370,
            speed_dkmh: 123,
            soc_percent: Some(180),
            ..Default::default()
        }
    }

    #[test]
    fn a_reports_safety_alarms_come_apart_with_the_fixs_place_when_the_scene_has_none() {
        let now = Utc::now();
        let mut fix = message(22.5, now);
        fix.safety_alarms = vec![
            pb::SafetyAlarm {
                alarm_key: "T1-261129080000-1".into(),
                source: pb::SafetySource::Dms.into(),
                event: 2,
                level: 2,
                flag: 0,
                time: Some(fleetdesk_kit::convert::timestamp(
                    now - Duration::seconds(3),
                )),
                speed_kmh: 40,
                ..Default::default()
            },
            pb::SafetyAlarm {
                alarm_key: " ".into(),
                source: pb::SafetySource::Adas.into(),
                event: 1,
                ..Default::default()
            },
        ];
        let (row, items) = FixRow::parse_report(fix, now).unwrap();
        assert_eq!(items.len(), 1, "an item without a key is dropped");
        let item = &items[0];
        assert_eq!((item.source, item.event, item.level), (2, 2, 2));
        assert_eq!((item.lat, item.lng, item.speed_dkmh), (22.5, 114.0, 400));
        assert_eq!(item.vehicle_id, row.vehicle_id);
        assert_eq!(
            item.time.timestamp(),
            (now - Duration::seconds(3)).timestamp()
        );
    }

    #[test]
    fn fixes_out_of_range_are_rejected() {
        let now = Utc::now();
        let ok = FixRow::parse(message(22.5, now), now).unwrap();
        assert_eq!((ok.heading, ok.speed_dkmh, ok.soc), (10, 123, None));
        assert_eq!(
            FixRow::parse(message(95.0, now), now),
            Err(Rejected::BadPosition)
        );
        assert_eq!(
            FixRow::parse(message(f64::NAN, now), now),
            Err(Rejected::BadPosition)
        );
        let mut bad = message(22.5, now);
        bad.vehicle_id = "x".into();
        assert_eq!(FixRow::parse(bad, now), Err(Rejected::BadId));
    }

    #[test]
    fn a_fix_whose_time_cannot_be_right_is_kept_at_its_receive_time() {
        let now = Utc::now();
        let received = now - Duration::seconds(2);
        for device in [now + Duration::hours(1), now - Duration::days(400)] {
            let mut fix = message(22.5, device);
            fix.receive_time = Some(fleetdesk_kit::convert::timestamp(received));
            let row = FixRow::parse(fix, now).unwrap();
            assert_eq!(row.fix_time.timestamp_micros(), received.timestamp_micros());
            assert_eq!(
                row.device_time.map(|t| t.timestamp()),
                Some(device.timestamp())
            );
            assert_eq!(row.lat, 22.5);
        }
        let edge = FixRow::parse(message(22.5, now - Duration::days(179)), now).unwrap();
        assert_eq!(edge.device_time, None);
    }
}
