//! Times at the edge: what a request may write (a Shanghai date, date-time
//! or RFC 3339) and how an answer writes a timestamp (RFC 3339, UTC).

use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};

use crate::envelope::ApiError;

/// Dates are entered in China: a bare date or date-time is Asia/Shanghai.
fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// What a value that is no edge time is refused with.
pub const BAD_TIME: &str = "时间格式应为 yyyy-MM-dd 或 yyyy-MM-dd HH:mm:ss";

/// The refusal of a value that is no edge time.
pub fn bad_time(key: &str) -> ApiError {
    ApiError::invalid(key, BAD_TIME)
}

/// Reads an edge time. `end_of_day` makes a bare date exclusive at the next
/// midnight, so `…End=2026-11-23` includes the 23rd.
pub fn instant(value: &str, end_of_day: bool) -> Option<DateTime<Utc>> {
    if let Ok(t) = DateTime::parse_from_rfc3339(value) {
        return Some(t.with_timezone(&Utc));
    }
    let local = |naive: NaiveDateTime| {
        shanghai()
            .from_local_datetime(&naive)
            .single()
            .map(|t| t.with_timezone(&Utc))
    };
    if let Ok(naive) = NaiveDateTime::parse_from_str(value, "%Y-%m-%d %H:%M:%S") {
        return local(naive);
    }
    let date = NaiveDate::parse_from_str(value, "%Y-%m-%d").ok()?;
    let date = if end_of_day { date.succ_opt()? } else { date };
    local(date.and_hms_opt(0, 0, 0)?)
}

/// An edge time (yyyy-MM-dd, yyyy-MM-dd HH:mm:ss or RFC 3339; Asia/Shanghai).
pub fn time_field(field: &str, value: &str) -> Result<Option<prost_types::Timestamp>, ApiError> {
    if value.is_empty() {
        return Result::Ok(None);
    }
    instant(value, false)
        .map(|t| Some(fleetdesk_kit::convert::timestamp(t)))
        .ok_or_else(|| bad_time(field))
}

/// A protobuf timestamp as RFC 3339 (UTC, whole seconds); empty when absent.
pub fn rfc3339(ts: Option<&prost_types::Timestamp>) -> String {
    ts.and_then(fleetdesk_kit::convert::datetime)
        .map(utc_seconds)
        .unwrap_or_default()
}

/// `yyyy-MM-ddTHH:mm:ssZ`, written digit by digit: a list page carries
/// many timestamps, and chrono's general formatter took 8 % of the
/// gateway's instructions on a page of 20 vehicles. Years outside 0..=9999
/// go to chrono (they need a sign or a fifth digit).
fn utc_seconds(t: chrono::DateTime<chrono::Utc>) -> String {
    use chrono::{Datelike as _, Timelike as _};
    let year = match u32::try_from(t.year()) {
        Ok(year) if year <= 9999 => year,
        _ => return t.to_rfc3339_opts(chrono::SecondsFormat::Secs, true),
    };
    let digit = |n: u32| char::from(b'0' + (n % 10) as u8);
    let mut out = String::with_capacity(20);
    for place in [1000, 100, 10, 1] {
        out.push(digit(year / place));
    }
    for (separator, value) in [
        ('-', t.month()),
        ('-', t.day()),
        ('T', t.hour()),
        (':', t.minute()),
        (':', t.second()),
    ] {
        out.push(separator);
        out.push(digit(value / 10));
        out.push(digit(value));
    }
    out.push('Z');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_read_as_chrono_writes_them() {
        for seconds in [
            0,
            1,
            -1,
            951_782_400, // 2000-02-29
            1_764_288_000,
            4_102_444_799,   // 2099-12-31T23:59:59
            -62_135_596_800, // 0001-01-01
            253_402_300_799, // 9999-12-31T23:59:59
            253_402_300_800, // 10000-01-01: chrono's own
        ] {
            for nanos in [0, 999_999_999] {
                let ts = prost_types::Timestamp { seconds, nanos };
                let expected = fleetdesk_kit::convert::datetime(&ts)
                    .unwrap()
                    .to_rfc3339_opts(chrono::SecondsFormat::Secs, true);
                assert_eq!(rfc3339(Some(&ts)), expected, "{seconds}");
            }
        }
        assert_eq!(rfc3339(None), "");
    }
}
