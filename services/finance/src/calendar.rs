//! The operator's calendar (Asia/Shanghai, UTC+8 all year) as bills count
//! it: the month a bill belongs to (its period) and calendar days for
//! overdue days.

use chrono::{DateTime, Datelike, FixedOffset, NaiveDate, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::common::v1 as common;

/// Asia/Shanghai (no daylight saving).
pub fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// The calendar day of `at`.
pub fn day_of(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&shanghai()).date_naive()
}

/// A bill month, stored as yyyymm.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Month {
    year: i32,
    month: i32,
}

impl Month {
    /// Years 2000–2999, months 1–12.
    pub fn new(year: i32, month: i32) -> Option<Month> {
        ((1..=12).contains(&month) && (2000..3000).contains(&year)).then_some(Month { year, month })
    }

    /// The month of the wire, required and checked, naming `field`.
    pub fn parse(field: &str, value: Option<&common::YearMonth>) -> Result<Month, ServiceError> {
        let value = value.ok_or_else(|| ServiceError::invalid(field, "请选择月份"))?;
        Month::new(value.year, value.month).ok_or_else(|| ServiceError::invalid(field, "月份无效"))
    }

    /// An optional bound of a month range (unset or all zero = none).
    pub fn optional(
        field: &str,
        value: Option<&common::YearMonth>,
    ) -> Result<Option<Month>, ServiceError> {
        match value {
            None | Some(common::YearMonth { year: 0, month: 0 }) => Ok(None),
            Some(m) => Month::parse(field, Some(m)).map(Some),
        }
    }

    /// The month `at` falls in.
    pub fn of(at: DateTime<Utc>) -> Month {
        let local = at.with_timezone(&shanghai());
        Month {
            year: local.year(),
            month: local.month() as i32,
        }
    }

    /// From the stored yyyymm.
    pub fn from_code(code: i32) -> Option<Month> {
        Month::new(code / 100, code % 100)
    }

    /// As stored: yyyymm.
    pub fn code(self) -> i32 {
        self.year * 100 + self.month
    }

    pub fn year(self) -> i32 {
        self.year
    }

    pub fn to_pb(self) -> common::YearMonth {
        common::YearMonth {
            year: self.year,
            month: self.month,
        }
    }

    /// `n` months later (earlier when negative).
    pub fn plus(self, n: i32) -> Month {
        let index = self.year * 12 + (self.month - 1) + n;
        Month {
            year: index.div_euclid(12),
            month: index.rem_euclid(12) + 1,
        }
    }

    /// 00:00 Asia/Shanghai of the month's first day.
    pub fn start(self) -> DateTime<Utc> {
        NaiveDate::from_ymd_opt(self.year, self.month as u32, 1)
            .and_then(|d| d.and_hms_opt(0, 0, 0))
            .and_then(|t| t.and_local_timezone(shanghai()).single())
            .map(|t| t.with_timezone(&Utc))
            .expect("a checked month has a first day")
    }

    /// e.g. 2026-11.
    pub fn label(self) -> String {
        format!("{:04}-{:02}", self.year, self.month)
    }
}

/// An inclusive month range of a filter: `start` not after `end`.
pub fn month_range(
    start: Option<&common::YearMonth>,
    end: Option<&common::YearMonth>,
) -> Result<(Option<Month>, Option<Month>), ServiceError> {
    let start = Month::optional("startMonth", start)?;
    let end = Month::optional("endMonth", end)?;
    if let (Some(s), Some(e)) = (start, end)
        && s > e
    {
        return Err(ServiceError::invalid(
            "startMonth",
            "开始时间不允许大于结束时间",
        ));
    }
    Ok((start, end))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn months_step_across_years_and_round_trip_their_code() {
        let m = Month::new(2026, 11).unwrap();
        assert_eq!(m.plus(2).code(), 202_701);
        assert_eq!(m.plus(-11).code(), 202_512);
        assert_eq!(Month::from_code(m.code()), Some(m));
        assert_eq!(Month::new(2026, 13), None);
        assert_eq!(m.start().to_rfc3339(), "2026-10-31T16:00:00+00:00");
    }

    #[test]
    fn a_range_refuses_its_start_after_its_end() {
        let m = |month| Some(common::YearMonth { year: 2026, month });
        assert!(month_range(m(3).as_ref(), m(2).as_ref()).is_err());
        assert_eq!(
            month_range(None, m(2).as_ref()).unwrap(),
            (None, Month::new(2026, 2))
        );
    }
}
