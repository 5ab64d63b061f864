//! What telemetry says of a vehicle's odometer, read through SQL in the
//! vehicle schema (telemetry owns these tables; nothing here writes them):
//! the odometer of the newest fix (`latest_position.mileage_m`), the daily
//! mileage of the operation log (`operation_day`, one row per vehicle and
//! Beijing day with the day's mileage and odometer extremes), and the
//! readings around a day, against which an odometer typed by a user is
//! checked.
//!
//! The daily average is the mileage of the last [`AVERAGE_DAYS`] whole days
//! over the days since the first of them the vehicle has a row for (a
//! vehicle that stood still on a day counts that day: the forecast is in
//! calendar days). Today is left out, being partial.

use std::collections::HashMap;

use chrono::{DateTime, Days, FixedOffset, NaiveDate, NaiveTime, TimeZone, Utc};
use fleetdesk_kit::ServiceError;
use sqlx::FromRow;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

/// How many whole days the daily average looks back.
pub const AVERAGE_DAYS: u64 = 30;
/// The most a vehicle is taken to drive in a day, metres: past the last
/// reading telemetry has, an odometer may have grown by at most this a day.
pub const MAX_DAILY_M: i64 = 1_500_000;

/// Beijing time: days, due dates and the operation log's rows are Beijing days.
pub fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

/// The Beijing day of `at`.
pub fn beijing_day(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&beijing()).date_naive()
}

/// The start (00:00 Beijing) of `day`.
pub fn day_start(day: NaiveDate) -> DateTime<Utc> {
    beijing()
        .from_local_datetime(&day.and_time(NaiveTime::MIN))
        .single()
        .map_or_else(|| day.and_time(NaiveTime::MIN).and_utc(), |t| t.to_utc())
}

/// The first Beijing day starting at or after `at`: a day `d` starts
/// within `[start, end)` exactly when `first_day_from(start) <= d <
/// first_day_from(end)`.
pub fn first_day_from(at: DateTime<Utc>) -> NaiveDate {
    let day = beijing_day(at);
    if day_start(day) >= at {
        day
    } else {
        day.succ_opt().unwrap_or(day)
    }
}

/// What telemetry says of a vehicle now.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Meter {
    /// The odometer of its newest fix, metres.
    pub odometer_m: Option<i64>,
    /// Its average daily mileage, metres (`None` without operation rows).
    pub daily_m: Option<i64>,
}

impl Meter {
    /// From what [`METER_COLUMNS`] read on `today`.
    pub fn from_totals(
        odometer_m: Option<i64>,
        total_m: Option<i64>,
        first_day: Option<NaiveDate>,
        today: NaiveDate,
    ) -> Meter {
        Meter {
            odometer_m,
            daily_m: total_m
                .zip(first_day)
                .and_then(|(total, first)| daily_average(total, first, today)),
        }
    }
}

/// The columns [`meter_joins`] reads (`odometer_m`, `total_m`, `first_day`),
/// for [`Meter::from_totals`].
pub const METER_COLUMNS: &str = "lp.mileage_m as odometer_m, d.total_m, d.first_day";

/// The joins reading a vehicle's meters in one statement, set-based: the
/// newest fix (`lp`) and the operation log's whole days of the average
/// (`d`), for the vehicle and enterprise columns or placeholders given and
/// the placeholders of the average's first day and of today.
pub fn meter_joins(vehicle: &str, enterprise: &str, from: &str, today: &str) -> String {
    format!(
        "left join latest_position lp on lp.vehicle_id = {vehicle} \
           and lp.enterprise_id = {enterprise} \
         left join lateral ( \
           select sum(o.mileage_m)::bigint as total_m, min(o.day) as first_day \
           from operation_day o \
           where o.vehicle_id = {vehicle} and o.enterprise_id = {enterprise} \
             and o.day >= {from} and o.day < {today} \
         ) d on true"
    )
}

/// The first day of the average on `today`.
pub fn average_from(today: NaiveDate) -> NaiveDate {
    today
        .checked_sub_days(Days::new(AVERAGE_DAYS))
        .unwrap_or(today)
}

/// The daily average of `total_m` driven from `first_day` until yesterday.
pub fn daily_average(total_m: i64, first_day: NaiveDate, today: NaiveDate) -> Option<i64> {
    let days = (today - first_day).num_days();
    (days > 0).then(|| total_m / days)
}

#[derive(Debug, FromRow)]
struct MeterRow {
    vehicle_id: Uuid,
    odometer_m: Option<i64>,
    total_m: Option<i64>,
    first_day: Option<NaiveDate>,
}

/// The meters of `vehicles` on `today` (vehicles telemetry knows nothing
/// of are absent).
pub async fn meters(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicles: &[Uuid],
    today: NaiveDate,
) -> Result<HashMap<Uuid, Meter>, ServiceError> {
    if vehicles.is_empty() {
        return Ok(HashMap::new());
    }
    let from = average_from(today);
    let rows: Vec<MeterRow> = sqlx::query_as(&format!(
        "select v.id as vehicle_id, {METER_COLUMNS} from unnest($2::uuid[]) as v (id) {}",
        meter_joins("v.id", "$1", "$3", "$4")
    ))
    .bind(enterprise)
    .bind(vehicles)
    .bind(from)
    .bind(today)
    .fetch_all(conn)
    .await?;
    Ok(rows
        .into_iter()
        .map(|r| {
            (
                r.vehicle_id,
                Meter::from_totals(r.odometer_m, r.total_m, r.first_day, today),
            )
        })
        .collect())
}

/// The operation log's readings around a day: the day's own extremes, the
/// last reading of the nearest day before it and the first of the nearest
/// day after it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Around {
    pub day: NaiveDate,
    /// (lowest, highest) of the day itself.
    pub same_day: Option<(i64, i64)>,
    /// (day, highest) of the nearest earlier day with readings.
    pub before: Option<(NaiveDate, i64)>,
    /// (day, lowest) of the nearest later day with readings.
    pub after: Option<(NaiveDate, i64)>,
}

impl Around {
    /// What the odometer could have read that day by telemetry: at least
    /// the day's lowest (or the last reading before it), at most the day's
    /// highest (or the first reading after it, or the last one before it
    /// plus [`MAX_DAILY_M`] a day since). `None` on a side telemetry says
    /// nothing of.
    pub fn bounds(&self) -> (Option<i64>, Option<i64>) {
        let low = self.same_day.map(|(lo, _)| lo).or(self.before.map(|b| b.1));
        let high = self
            .same_day
            .map(|(_, hi)| hi)
            .or(self.after.map(|a| a.1))
            .or(self
                .before
                .map(|(d, hi)| hi + (self.day - d).num_days().max(1) * MAX_DAILY_M));
        (low, high)
    }
}

/// The readings of `vehicle` around the Beijing `day`.
pub async fn around(
    conn: &mut PgConnection,
    enterprise: Uuid,
    vehicle: Uuid,
    day: NaiveDate,
) -> Result<Around, ServiceError> {
    let same_day: Option<(Option<i64>, Option<i64>)> = sqlx::query_as(
        "select min_odometer_m, max_odometer_m from operation_day \
         where vehicle_id = $1 and enterprise_id = $2 and day = $3",
    )
    .bind(vehicle)
    .bind(enterprise)
    .bind(day)
    .fetch_optional(&mut *conn)
    .await?;
    let before: Option<(NaiveDate, i64)> = sqlx::query_as(
        "select day, max_odometer_m from operation_day \
         where vehicle_id = $1 and enterprise_id = $2 and day < $3 and max_odometer_m is not null \
         order by day desc limit 1",
    )
    .bind(vehicle)
    .bind(enterprise)
    .bind(day)
    .fetch_optional(&mut *conn)
    .await?;
    let after: Option<(NaiveDate, i64)> = sqlx::query_as(
        "select day, min_odometer_m from operation_day \
         where vehicle_id = $1 and enterprise_id = $2 and day > $3 and min_odometer_m is not null \
         order by day limit 1",
    )
    .bind(vehicle)
    .bind(enterprise)
    .bind(day)
    .fetch_optional(conn)
    .await?;
    Ok(Around {
        day,
        same_day: same_day.and_then(|(lo, hi)| lo.zip(hi)),
        before,
        after,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn day(d: u32) -> NaiveDate {
        NaiveDate::from_ymd_opt(2026, 11, d).unwrap()
    }

    #[test]
    fn the_daily_average_counts_calendar_days_and_needs_one_whole_day() {
        assert_eq!(daily_average(3_000_000, day(1), day(11)), Some(300_000));
        assert_eq!(daily_average(3_000_000, day(11), day(11)), None);
    }

    #[test]
    fn a_day_without_rows_is_bounded_by_its_neighbours() {
        let a = Around {
            day: day(10),
            same_day: None,
            before: Some((day(8), 50_000_000)),
            after: Some((day(12), 51_000_000)),
        };
        assert_eq!(a.bounds(), (Some(50_000_000), Some(51_000_000)));
    }

    #[test]
    fn past_the_last_reading_the_odometer_grows_at_most_a_plausible_day_a_day() {
        let a = Around {
            day: day(10),
            same_day: None,
            before: Some((day(8), 50_000_000)),
            after: None,
        };
        assert_eq!(
            a.bounds(),
            (Some(50_000_000), Some(50_000_000 + 2 * MAX_DAILY_M))
        );
        assert_eq!(
            Around {
                day: day(10),
                ..Around::default()
            }
            .bounds(),
            (None, None)
        );
    }

    #[test]
    fn a_range_of_instants_is_the_days_starting_within_it() {
        let start = day_start(day(10));
        assert_eq!(first_day_from(start), day(10));
        assert_eq!(
            first_day_from(start + chrono::Duration::seconds(1)),
            day(11)
        );
        assert_eq!(
            first_day_from(start - chrono::Duration::seconds(1)),
            day(10)
        );
    }

    #[test]
    fn beijing_days_start_at_16_utc_the_day_before() {
        let start = day_start(day(10));
        assert_eq!(start.to_rfc3339(), "2026-11-09T16:00:00+00:00");
        assert_eq!(beijing_day(start), day(10));
    }
}
