//! The authority's records: which violations a plate has, generated from
//! the plate and the day alone (SHA-256 of both), so the same query answers
//! the same records every time, and each new day may add one. A record
//! appears once [`REPORT_DELAY`] has passed since it happened, the way a
//! camera's capture reaches the public query after review.

use chrono::{DateTime, Days, Duration, FixedOffset, NaiveDate, TimeZone, Utc};
use serde::Serialize;
use sha2::{Digest, Sha256};

/// How long after the act a record can be queried.
pub const REPORT_DELAY: Duration = Duration::hours(2);

/// In how many of a hundred days a plate has a violation.
const DAILY_PERCENT: u64 = 1;

/// One act of the catalogue: code, text, fine in fen, points.
struct Act {
    code: &'static str,
    text: &'static str,
    fine_fen: i64,
    points: i32,
}

const ACTS: &[Act] = &[
    Act {
        code: "1039",
        text: "机动车违反规定停放、临时停车且驾驶人不在现场，妨碍其他车辆、行人通行的",
        fine_fen: 20_000,
        points: 0,
    },
    Act {
        code: "1352A",
        text: "机动车超过规定时速未达20%的",
        fine_fen: 20_000,
        points: 1,
    },
    Act {
        code: "1636",
        text: "机动车通过有灯控路口时，不按所需行进方向驶入导向车道的",
        fine_fen: 10_000,
        points: 2,
    },
    Act {
        code: "1625",
        text: "驾驶机动车违反道路交通信号灯通行的",
        fine_fen: 20_000,
        points: 6,
    },
    Act {
        code: "1345",
        text: "机动车违反禁令标志指示的",
        fine_fen: 10_000,
        points: 3,
    },
    Act {
        code: "1042",
        text: "驾驶机动车违反禁止标线指示的",
        fine_fen: 10_000,
        points: 1,
    },
    Act {
        code: "6046",
        text: "驾驶时拨打接听手持电话的",
        fine_fen: 5_000,
        points: 3,
    },
    Act {
        code: "1711",
        text: "货车在限行时段驶入限行区域的",
        fine_fen: 10_000,
        points: 0,
    },
];

/// Places by city (GB/T 2260 code, authority, addresses with a point).
struct City {
    code: &'static str,
    authority: &'static str,
    places: &'static [(&'static str, f64, f64)],
}

const CITIES: &[City] = &[
    City {
        code: "440300",
        authority: "深圳市公安局交通警察支队",
        places: &[
            ("深南大道与华强北路交叉口", 114.0869, 22.5431),
            ("滨河大道车公庙段", 114.0262, 22.5337),
            ("北环大道梅林立交", 114.0507, 22.5685),
            ("南海大道科技园段", 113.9428, 22.5402),
        ],
    },
    City {
        code: "440100",
        authority: "广州市公安局交通警察支队",
        places: &[
            ("天河路与体育东路交叉口", 113.3277, 23.1367),
            ("广州大道中华南快速段", 113.3249, 23.1108),
        ],
    },
    City {
        code: "310100",
        authority: "上海市公安局交通警察总队",
        places: &[
            ("延安高架路江苏路匝道", 121.4339, 31.2215),
            ("中山北路共和新路口", 121.4589, 31.2622),
        ],
    },
];

/// One violation as the authority answers it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Record {
    pub decision_no: String,
    pub plate: String,
    /// RFC 3339 with the +08:00 offset.
    pub time: String,
    pub address: String,
    pub lng: f64,
    pub lat: f64,
    pub city_code: String,
    pub act_code: String,
    pub act_text: String,
    pub fine_fen: i64,
    pub points: i32,
    pub authority: String,
}

fn beijing() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

fn digest(plate: &str, day: NaiveDate) -> [u8; 32] {
    let mut h = Sha256::new();
    h.update(plate.as_bytes());
    h.update(b"|");
    h.update(day.format("%Y-%m-%d").to_string().as_bytes());
    h.finalize().into()
}

fn number(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0u64, |acc, b| (acc << 8) | u64::from(*b))
}

/// The violation of `plate` on Beijing day `day`, if it has one (whether
/// or not it is reported yet).
pub fn on_day(plate: &str, day: NaiveDate) -> Option<(DateTime<Utc>, Record)> {
    let d = digest(plate, day);
    if number(&d[0..2]) % 100 >= DAILY_PERCENT {
        return None;
    }
    // Between 07:00 and 22:00, to the second.
    let second = 7 * 3600 + number(&d[2..5]) % (15 * 3600);
    let local = day.and_hms_opt(0, 0, 0)? + Duration::seconds(i64::try_from(second).ok()?);
    let at = beijing().from_local_datetime(&local).single()?;
    let act = &ACTS[usize::try_from(number(&d[5..6])).ok()? % ACTS.len()];
    let city = &CITIES[usize::try_from(number(&d[6..7])).ok()? % CITIES.len()];
    let (address, lng, lat) =
        city.places[usize::try_from(number(&d[7..8])).ok()? % city.places.len()];
    let serial = number(&d[8..16]) % 100_000_000;
    Some((
        at.with_timezone(&Utc),
        Record {
            decision_no: format!("{}{}{serial:08}", city.code, day.format("%Y%m%d")),
            plate: plate.to_owned(),
            time: at.to_rfc3339(),
            address: address.to_owned(),
            lng,
            lat,
            city_code: city.code.to_owned(),
            act_code: act.code.to_owned(),
            act_text: act.text.to_owned(),
            fine_fen: act.fine_fen,
            points: act.points,
            authority: city.authority.to_owned(),
        },
    ))
}

/// Every violation of `plate` on the Beijing days `from..=to` reported by
/// `now`, newest first.
pub fn between(plate: &str, from: NaiveDate, to: NaiveDate, now: DateTime<Utc>) -> Vec<Record> {
    let mut out = Vec::new();
    let mut day = to;
    while day >= from {
        if let Some((at, record)) = on_day(plate, day)
            && at + REPORT_DELAY <= now
        {
            out.push(record);
        }
        match day.checked_sub_days(Days::new(1)) {
            Some(d) => day = d,
            None => break,
        }
    }
    out
}

/// The Beijing day of `at`.
pub fn beijing_day(at: DateTime<Utc>) -> NaiveDate {
    at.with_timezone(&beijing()).date_naive()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_plate_has_the_same_records_every_time_and_a_few_a_year() {
        let now = Utc::now();
        let to = beijing_day(now);
        let from = to - Days::new(365);
        let year = |plate: &str| between(plate, from, to, now);
        // Over a hundred plates, about 3.65 a year each.
        let total: usize = (0..100).map(|n| year(&format!("粤B{n:05}")).len()).sum();
        assert!(
            (200..=600).contains(&total),
            "{total} records for 100 plates"
        );
        let plate = (0..100)
            .map(|n| format!("粤B{n:05}"))
            .find(|p| !year(p).is_empty())
            .unwrap();
        let first = year(&plate);
        assert_eq!(first, year(&plate));
        let mut numbers: Vec<_> = first.iter().map(|r| r.decision_no.clone()).collect();
        numbers.dedup();
        assert_eq!(numbers.len(), first.len());
    }

    #[test]
    fn a_record_is_reported_only_after_the_delay() {
        let plate = "粤B12345";
        let day = (0..5000)
            .map(|n| NaiveDate::from_ymd_opt(2020, 1, 1).unwrap() + Days::new(n))
            .find(|d| on_day(plate, *d).is_some())
            .unwrap();
        let (at, _) = on_day(plate, day).unwrap();
        assert!(between(plate, day, day, at + Duration::minutes(119)).is_empty());
        assert_eq!(between(plate, day, day, at + REPORT_DELAY).len(), 1);
    }
}
