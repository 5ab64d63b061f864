//! The safety report's pure rules: the day range, per-100-km figures, the
//! score and the default weights.

use chrono::{Datelike, Duration, NaiveDate};
use fleetdesk_kit::ServiceError;

use crate::alarms::domain::AlarmKind;

/// A report covers at most this many Beijing days.
pub const MAX_DAYS: i64 = 366;

/// Below this mileage (metres) over the range a row has no score.
pub const MIN_MILEAGE_M: i64 = 10_000;

/// The highest weight an enterprise may set.
pub const MAX_WEIGHT: f64 = 100.0;

/// What one alarm per 100 km of `kind` takes off a score when the
/// enterprise has not set it: driving behaviour weighs most, terminal and
/// device conditions little or nothing.
pub fn default_weight(kind: AlarmKind) -> f64 {
    match kind {
        AlarmKind::Collision | AlarmKind::Rollover => 5.0,
        AlarmKind::FatigueDriving
        | AlarmKind::ForwardCollision
        | AlarmKind::PedestrianCollision => 3.0,
        AlarmKind::Overspeed
        | AlarmKind::HeadwayTooShort
        | AlarmKind::DriverAbsent
        | AlarmKind::PhoneUse
        | AlarmKind::Distraction
        | AlarmKind::Emergency
        | AlarmKind::DangerWarning => 2.0,
        AlarmKind::Smoking
        | AlarmKind::LaneDeparture
        | AlarmKind::HarshBraking
        | AlarmKind::HarshAcceleration
        | AlarmKind::NightDriving
        | AlarmKind::FrequentLaneChange
        | AlarmKind::RoadSignOverLimit
        | AlarmKind::Obstacle
        | AlarmKind::BlindSpot
        | AlarmKind::IllegalDoorOpening => 1.0,
        AlarmKind::Geofence
        | AlarmKind::CameraBlocked
        | AlarmKind::PowerCut
        | AlarmKind::TerminalOther
        | AlarmKind::ActiveSafetyOther => 0.5,
        AlarmKind::LowBattery
        | AlarmKind::BatteryFault
        | AlarmKind::Temperature
        | AlarmKind::TerminalFault
        | AlarmKind::Theft
        | AlarmKind::TyrePressure
        | AlarmKind::Offline => 0.0,
    }
}

/// A weight an operator sends: finite, 0 to [`MAX_WEIGHT`].
pub fn check_weight(weight: f64) -> Result<f64, ServiceError> {
    if weight.is_finite() && (0.0..=MAX_WEIGHT).contains(&weight) {
        Ok((weight * 100.0).round() / 100.0)
    } else {
        Err(ServiceError::invalid(
            "weights",
            format!("权重应在 0 到 {MAX_WEIGHT} 之间"),
        ))
    }
}

/// `count` per 100 km of `mileage_m`, two decimals; 0 without mileage.
pub fn per_100km(count: i64, mileage_m: i64) -> f64 {
    if mileage_m <= 0 {
        return 0.0;
    }
    (count as f64 * 100_000.0 / mileage_m as f64 * 100.0).round() / 100.0
}

/// The score of a row that drove `mileage_m` with `penalty` = Σ weight ×
/// alarms: 100 minus the weighted alarms per 100 km, at least 0, one
/// decimal; none under [`MIN_MILEAGE_M`]. (`store::SCORE` orders by the
/// same expression.)
pub fn score(mileage_m: i64, penalty: f64) -> Option<f64> {
    if mileage_m < MIN_MILEAGE_M {
        return None;
    }
    let raw = 100.0 - penalty * 100_000.0 / mileage_m as f64;
    Some((raw.max(0.0) * 10.0).round() / 10.0)
}

/// Whole Beijing days, `from` to `to` inclusive.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DayRange {
    pub from: NaiveDate,
    pub to: NaiveDate,
}

impl DayRange {
    /// A range of at most [`MAX_DAYS`] days, the last not before the first.
    pub fn new(from: NaiveDate, to: NaiveDate) -> Result<DayRange, ServiceError> {
        if to < from {
            return Err(ServiceError::invalid(
                "reportDate",
                "结束日期不能早于开始日期",
            ));
        }
        if (to - from).num_days() >= MAX_DAYS {
            return Err(ServiceError::invalid(
                "reportDate",
                format!("时间范围最长 {MAX_DAYS} 天"),
            ));
        }
        Ok(DayRange { from, to })
    }

    /// The Mondays of the ISO weeks the range touches, oldest first.
    pub fn weeks(&self) -> Vec<NaiveDate> {
        let mut monday = week_of(self.from);
        let mut out = Vec::new();
        while monday <= self.to {
            out.push(monday);
            monday += Duration::days(7);
        }
        out
    }
}

/// The Monday of `day`'s ISO week.
pub fn week_of(day: NaiveDate) -> NaiveDate {
    day - Duration::days(i64::from(day.weekday().num_days_from_monday()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(text: &str) -> NaiveDate {
        NaiveDate::parse_from_str(text, "%Y-%m-%d").unwrap()
    }

    #[test]
    fn a_score_takes_weighted_alarms_per_100_km_off_100() {
        // 200 km, 3 overspeeds (weight 2) and 1 collision (weight 5):
        // (6 + 5) / 2 = 5.5 per 100 km.
        assert_eq!(score(200_000, 3.0 * 2.0 + 5.0), Some(94.5));
        assert_eq!(score(10_000, 0.0), Some(100.0));
        // Never below 0.
        assert_eq!(score(10_000, 50.0), Some(0.0));
        // Too little mileage: no score.
        assert_eq!(score(9_999, 0.0), None);
    }

    #[test]
    fn per_100_km_has_two_decimals_and_is_0_without_mileage() {
        assert_eq!(per_100km(1, 300_000), 0.33);
        assert_eq!(per_100km(5, 0), 0.0);
    }

    #[test]
    fn a_range_is_at_most_366_days() {
        assert!(DayRange::new(day("2026-01-01"), day("2027-01-01")).is_ok());
        assert!(DayRange::new(day("2026-01-01"), day("2027-01-02")).is_err());
        assert!(DayRange::new(day("2026-01-02"), day("2026-01-01")).is_err());
    }

    #[test]
    fn weeks_start_on_monday_and_cover_the_range() {
        // 2026-11-01 is a Sunday; 2026-11-10 a Tuesday.
        let range = DayRange::new(day("2026-11-01"), day("2026-11-10")).unwrap();
        assert_eq!(
            range.weeks(),
            [day("2026-10-26"), day("2026-11-02"), day("2026-11-09")]
        );
    }

    #[test]
    fn weights_are_checked_and_every_kind_has_a_default() {
        assert!(check_weight(-1.0).is_err());
        assert!(check_weight(f64::NAN).is_err());
        assert_eq!(check_weight(2.345).unwrap(), 2.35);
        for kind in AlarmKind::ALL {
            assert!((0.0..=MAX_WEIGHT).contains(&default_weight(*kind)));
        }
    }
}
