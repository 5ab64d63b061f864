//! Rules of monitoring: a vehicle's status from its latest fix, the range a
//! track may cover, and what a track's fixes say (stops, speeding,
//! distance). Pure.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;

use crate::codes::stored_code;

stored_code!(
    /// What the map colours a vehicle by.
    PositionStatus => pb::PositionStatus {
        Driving = 1, Parked = 2, Charging = 3, Offline = 4, Alarm = 5,
    }
);

/// A fix older than this makes the vehicle offline.
pub const OFFLINE_AFTER: Duration = Duration::minutes(10);
/// Faster than this (tenths of km/h) is driving.
pub const DRIVING_DKMH: i32 = 10;
/// The longest track (and track export).
pub const MAX_TRACK: Duration = Duration::days(7);
/// A stop is standing still for at least this long.
pub const MIN_STOP: Duration = Duration::minutes(3);
/// Speeding without a fence limit: over 100 km/h.
pub const SPEED_LIMIT_KMH: f64 = 100.0;
/// The longest range of a distance query (a quarter, like energy's analysis).
pub const MAX_DISTANCE_RANGE: Duration = Duration::days(92);
/// The most vehicles the whole map answers.
pub const MAP_LIMIT: i64 = 20_000;

/// The status of a latest fix at `now`; the first rule that holds wins.
pub fn status(
    now: DateTime<Utc>,
    fix_time: DateTime<Utc>,
    alarm_bits: i64,
    charging: bool,
    speed_dkmh: i32,
) -> PositionStatus {
    if fix_time < now - OFFLINE_AFTER {
        PositionStatus::Offline
    } else if alarm_bits != 0 {
        PositionStatus::Alarm
    } else if charging {
        PositionStatus::Charging
    } else if speed_dkmh > DRIVING_DKMH {
        PositionStatus::Driving
    } else {
        PositionStatus::Parked
    }
}

/// [`status`] as SQL over `latest_position l` (filters and counts).
pub const STATUS_SQL: &str = "(case when l.fix_time < now() - interval '10 minutes' then 4 \
     when l.alarm_bits <> 0 then 5 when l.charging then 3 when l.speed_dkmh > 10 then 1 \
     else 2 end)::int2";

/// A checked track range `[start, end)`: both sides, at most 7 days.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TrackRange {
    pub start: DateTime<Utc>,
    pub end: DateTime<Utc>,
}

impl TrackRange {
    pub fn parse(
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
    ) -> Result<TrackRange, ServiceError> {
        Self::parse_within(start, end, MAX_TRACK, "查询时间范围不能超过7天")
    }

    /// Both sides, start before end, at most `max` apart (else `too_long`).
    pub fn parse_within(
        start: Option<DateTime<Utc>>,
        end: Option<DateTime<Utc>>,
        max: Duration,
        too_long: &str,
    ) -> Result<TrackRange, ServiceError> {
        let (Some(start), Some(end)) = (start, end) else {
            return Err(ServiceError::invalid("from", "请选择查询的开始和结束时间"));
        };
        if start >= end {
            return Err(ServiceError::invalid("from", "开始时间须早于结束时间"));
        }
        if end - start > max {
            return Err(ServiceError::invalid("to", too_long));
        }
        Ok(TrackRange { start, end })
    }
}

/// One fix of a track, as the analysis reads it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TrackPoint {
    pub at: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
    pub speed_dkmh: i32,
    pub mileage_m: Option<i64>,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stop {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub lat: f64,
    pub lng: f64,
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Speeding {
    pub from: DateTime<Utc>,
    pub to: DateTime<Utc>,
    pub max_kmh: f64,
    pub limit_kmh: f64,
}

/// Stops of an oldest-first track: runs of speed 0 lasting at least
/// [`MIN_STOP`] (from the first standing fix to the first moving one, or
/// the last fix).
pub fn stops(points: &[TrackPoint]) -> Vec<Stop> {
    let mut out = Vec::new();
    let mut run: Option<TrackPoint> = None;
    for p in points {
        match (run, p.speed_dkmh == 0) {
            (None, true) => run = Some(*p),
            (Some(first), false) => {
                push_stop(&mut out, first, p.at);
                run = None;
            }
            (Some(_), true) | (None, false) => {}
        }
    }
    if let (Some(first), Some(last)) = (run, points.last()) {
        push_stop(&mut out, first, last.at);
    }
    out
}

fn push_stop(out: &mut Vec<Stop>, first: TrackPoint, to: DateTime<Utc>) {
    if to - first.at >= MIN_STOP {
        out.push(Stop {
            from: first.at,
            to,
            lat: first.lat,
            lng: first.lng,
        });
    }
}

/// Stretches over `limit_kmh`, each with its top speed.
pub fn speeding(points: &[TrackPoint], limit_kmh: f64) -> Vec<Speeding> {
    let mut out: Vec<Speeding> = Vec::new();
    let mut open = false;
    for p in points {
        let kmh = f64::from(p.speed_dkmh) / 10.0;
        if kmh > limit_kmh {
            match out.last_mut() {
                Some(s) if open => {
                    s.to = p.at;
                    s.max_kmh = s.max_kmh.max(kmh);
                }
                _ => out.push(Speeding {
                    from: p.at,
                    to: p.at,
                    max_kmh: kmh,
                    limit_kmh,
                }),
            }
            open = true;
        } else {
            open = false;
        }
    }
    out
}

/// Distance of a track in metres: by the odometer when the first and last
/// fixes carry one, else along the points.
pub fn distance_m(points: &[TrackPoint]) -> i64 {
    let first = points.iter().find_map(|p| p.mileage_m);
    let last = points.iter().rev().find_map(|p| p.mileage_m);
    if let (Some(a), Some(b)) = (first, last)
        && let Some(metres) = odometer_distance_m(a, b)
    {
        return metres;
    }
    let mut metres = 0.0;
    for pair in points.windows(2) {
        metres += haversine_m(pair[0].lat, pair[0].lng, pair[1].lat, pair[1].lng);
    }
    metres.round() as i64
}

fn haversine_m(lat1: f64, lng1: f64, lat2: f64, lng2: f64) -> f64 {
    const EARTH_M: f64 = 6_371_000.0;
    let (p1, p2) = (lat1.to_radians(), lat2.to_radians());
    let dp = p2 - p1;
    let dl = (lng2 - lng1).to_radians();
    let a = (dp / 2.0).sin().powi(2) + p1.cos() * p2.cos() * (dl / 2.0).sin().powi(2);
    2.0 * EARTH_M * a.sqrt().asin()
}

/// Distance between two odometer readings; `None` when the odometer went
/// back (a replaced terminal or a reset), which says nothing about the km.
pub fn odometer_distance_m(start_m: i64, end_m: i64) -> Option<i64> {
    (end_m >= start_m).then_some(end_m - start_m)
}

/// Indexes of the points a track thinned to `max` keeps (every k-th and
/// the last); all when `max` is 0 or not exceeded.
pub fn thin(len: usize, max: usize) -> Option<Vec<usize>> {
    if max == 0 || len <= max {
        return None;
    }
    let step = len.div_ceil(max.max(2) - 1);
    let mut keep: Vec<usize> = (0..len).step_by(step).collect();
    if keep.last() != Some(&(len - 1)) {
        keep.push(len - 1);
    }
    Some(keep)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(secs: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + secs, 0).unwrap()
    }

    fn point(secs: i64, kmh: i32) -> TrackPoint {
        TrackPoint {
            at: at(secs),
            lat: 22.5,
            lng: 114.0 + secs as f64 / 100_000.0,
            speed_dkmh: kmh * 10,
            mileage_m: None,
        }
    }

    #[test]
    fn status_rules_apply_in_order() {
        let now = at(3600);
        assert_eq!(status(now, at(0), 0, false, 500), PositionStatus::Offline);
        assert_eq!(status(now, at(3590), 1, true, 500), PositionStatus::Alarm);
        assert_eq!(status(now, at(3590), 0, true, 0), PositionStatus::Charging);
        assert_eq!(status(now, at(3590), 0, false, 11), PositionStatus::Driving);
        assert_eq!(status(now, at(3590), 0, false, 10), PositionStatus::Parked);
    }

    #[test]
    fn an_odometer_that_went_back_gives_no_distance() {
        assert_eq!(odometer_distance_m(1_000, 4_500), Some(3_500));
        assert_eq!(odometer_distance_m(1_000, 1_000), Some(0));
        assert_eq!(odometer_distance_m(4_500, 1_000), None);
    }

    #[test]
    fn a_track_range_needs_both_ends_and_at_most_seven_days() {
        assert!(TrackRange::parse(Some(at(0)), None).is_err());
        assert!(TrackRange::parse(Some(at(10)), Some(at(0))).is_err());
        assert!(TrackRange::parse(Some(at(0)), Some(at(7 * 86_400 + 1))).is_err());
        assert!(TrackRange::parse(Some(at(0)), Some(at(7 * 86_400))).is_ok());
    }

    #[test]
    fn stops_last_three_minutes_and_speeding_keeps_its_top_speed() {
        let track = [
            point(0, 30),
            point(60, 0),
            point(150, 0),
            point(200, 20),
            point(300, 0),
            point(600, 0),
            point(660, 110),
            point(720, 130),
            point(780, 90),
            point(840, 105),
        ];
        let stops = stops(&track);
        assert_eq!(stops.len(), 1, "{stops:?}");
        assert_eq!((stops[0].from, stops[0].to), (at(300), at(660)));
        let fast = speeding(&track, 100.0);
        assert_eq!(fast.len(), 2);
        assert_eq!(
            (fast[0].from, fast[0].to, fast[0].max_kmh),
            (at(660), at(720), 130.0)
        );
        assert_eq!(fast[1].max_kmh, 105.0);
    }

    #[test]
    fn distance_prefers_the_odometer() {
        let mut track = [point(0, 10), point(60, 10)];
        assert!(distance_m(&track) > 0);
        track[0].mileage_m = Some(1_000);
        track[1].mileage_m = Some(1_450);
        assert_eq!(distance_m(&track), 450);
    }

    #[test]
    fn thinning_keeps_the_ends() {
        assert_eq!(thin(10, 0), None);
        assert_eq!(thin(10, 10), None);
        let kept = thin(100, 10).unwrap();
        assert!(kept.len() <= 12);
        assert_eq!((kept[0], *kept.last().unwrap()), (0, 99));
    }
}
