//! The operator's calendar (Asia/Shanghai, UTC+8 all year): calendar days
//! and statement months as the reports count them, and their bounds as UTC
//! instants for queries.

use chrono::{DateTime, Datelike, Duration, FixedOffset, NaiveDate, TimeZone, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;

/// Asia/Shanghai (no daylight saving).
pub fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// 00:00 Asia/Shanghai of `day`.
pub fn midnight(day: NaiveDate) -> DateTime<Utc> {
    shanghai()
        .from_local_datetime(&day.and_hms_opt(0, 0, 0).expect("midnight"))
        .single()
        .expect("a fixed offset has one local time")
        .with_timezone(&Utc)
}

/// The calendar day of `at`.
pub fn day_of(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&shanghai()).date_naive()
}

/// A statement month.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    year: i32,
    month: u32,
}

impl Month {
    /// The month of the wire, checked (years 2000–2999).
    pub fn parse(field: &str, value: Option<&common::YearMonth>) -> Result<Month, ServiceError> {
        let value = value.ok_or_else(|| ServiceError::invalid(field, "请选择月份"))?;
        Month::new(value.year, value.month).ok_or_else(|| ServiceError::invalid(field, "月份无效"))
    }

    pub fn new(year: i32, month: i32) -> Option<Month> {
        let month = u32::try_from(month).ok().filter(|m| (1..=12).contains(m))?;
        (2000..3000)
            .contains(&year)
            .then_some(Month { year, month })
    }

    /// The month `at` falls in.
    pub fn of(at: DateTime<Utc>) -> Month {
        let local = at.with_timezone(&shanghai());
        Month {
            year: local.year(),
            month: local.month(),
        }
    }

    /// From the stored yyyymm.
    pub fn from_code(code: i32) -> Option<Month> {
        Month::new(code / 100, code % 100)
    }

    /// As stored: yyyymm.
    pub fn code(self) -> i32 {
        self.year * 100 + self.month as i32
    }

    pub fn to_pb(self) -> common::YearMonth {
        common::YearMonth {
            year: self.year,
            month: self.month as i32,
        }
    }

    /// e.g. 2026-11.
    pub fn label(self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }

    pub fn first_day(self) -> NaiveDate {
        NaiveDate::from_ymd_opt(self.year, self.month, 1).expect("a valid month")
    }

    pub fn next(self) -> Month {
        if self.month == 12 {
            Month {
                year: self.year + 1,
                month: 1,
            }
        } else {
            Month {
                year: self.year,
                month: self.month + 1,
            }
        }
    }

    pub fn previous(self) -> Month {
        if self.month == 1 {
            Month {
                year: self.year - 1,
                month: 12,
            }
        } else {
            Month {
                year: self.year,
                month: self.month - 1,
            }
        }
    }

    /// The month's first instant.
    pub fn start(self) -> DateTime<Utc> {
        midnight(self.first_day())
    }

    /// The next month's first instant (the range is `[start, end)`).
    pub fn end(self) -> DateTime<Utc> {
        self.next().start()
    }
}

/// The days of `[start, end)`, each as its 00:00 Asia/Shanghai.
pub fn days(start: DateTime<Utc>, end: DateTime<Utc>) -> Vec<NaiveDate> {
    let mut out = Vec::new();
    let mut day = day_of(start);
    while midnight(day) < end {
        out.push(day);
        day += Duration::days(1);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(s: &str) -> DateTime<Utc> {
        DateTime::parse_from_rfc3339(s).unwrap().with_timezone(&Utc)
    }

    #[test]
    fn months_follow_shanghai_time_and_wrap_years() {
        // 16:30 UTC on 30 Nov is already December in Shanghai.
        let m = Month::of(utc("2026-11-30T16:30:00Z"));
        assert_eq!(m.code(), 202_612);
        assert_eq!(m.start(), utc("2026-11-30T16:00:00Z"));
        assert_eq!(m.end(), utc("2026-12-31T16:00:00Z"));
        assert_eq!(m.next().code(), 202_701);
        assert_eq!(m.next().previous(), m);
        assert_eq!(Month::new(2027, 1).unwrap().previous().code(), 202_612);
        assert_eq!(Month::from_code(202_611).unwrap().label(), "2026-11");
        assert!(Month::new(2026, 13).is_none() && Month::new(2026, 0).is_none());
        assert!(Month::parse("month", None).is_err());
    }

    #[test]
    fn days_of_a_range_are_shanghai_days() {
        let days = days(utc("2026-11-01T16:00:00Z"), utc("2026-11-04T15:00:00Z"));
        let labels: Vec<String> = days.iter().map(|d| d.to_string()).collect();
        assert_eq!(labels, ["2026-11-02", "2026-11-03", "2026-11-04"]);
        assert_eq!(midnight(days[0]), utc("2026-11-01T16:00:00Z"));
    }
}
