//! Temperature rules: bands, the excursion rule and input checks.

use chrono::{DateTime, Duration, Utc};
use fleetdesk_kit::ServiceError;

/// Probe numbers a terminal may report (0 stands for "every probe").
pub const MAX_PROBE: i32 = 255;
/// The readings chart covers at most this long.
pub const MAX_SERIES_DAYS: i64 = 7;
/// A share link lives at most this long.
pub const MAX_SHARE_DAYS: i64 = 30;

/// A band in tenths of a degree and the minimum excursion length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Band {
    pub min_deci: i32,
    pub max_deci: i32,
    pub min_duration_s: i32,
}

impl Band {
    pub fn contains(&self, deci: i32) -> bool {
        (self.min_deci..=self.max_deci).contains(&deci)
    }

    /// Checks a band as the settings dialog sends it.
    pub fn parse(
        probe: i32,
        min_celsius: f64,
        max_celsius: f64,
        min_duration_s: i32,
    ) -> Result<(i16, Band), ServiceError> {
        let probe = i16::try_from(probe)
            .ok()
            .filter(|p| (0..=MAX_PROBE).contains(&i32::from(*p)))
            .ok_or_else(|| ServiceError::invalid("probeNo", "探头编号应在 0 到 255 之间"))?;
        let deci = |field: &str, c: f64| {
            if c.is_finite() && (-100.0..=100.0).contains(&c) {
                // Within ±100 °C the rounded tenths fit an i32.
                Ok((c * 10.0).round() as i32)
            } else {
                Err(ServiceError::invalid(field, "温度应在 -100 到 100 ℃ 之间"))
            }
        };
        let min_deci = deci("minCelsius", min_celsius)?;
        let max_deci = deci("maxCelsius", max_celsius)?;
        if min_deci >= max_deci {
            return Err(ServiceError::invalid("maxCelsius", "温度上限应高于下限"));
        }
        if !(0..=86_400).contains(&min_duration_s) {
            return Err(ServiceError::invalid(
                "minDurationSeconds",
                "超限持续时间应在 0 到 86400 秒之间",
            ));
        }
        Ok((
            probe,
            Band {
                min_deci,
                max_deci,
                min_duration_s,
            },
        ))
    }
}

/// The band that applies to `probe`: its own, else the vehicle's (probe 0).
pub fn band_for(bands: &[(i16, Band)], probe: i16) -> Option<Band> {
    bands
        .iter()
        .find(|(p, _)| *p == probe)
        .or_else(|| bands.iter().find(|(p, _)| *p == 0))
        .map(|(_, b)| *b)
}

/// An excursion that lasted long enough to be an alarm.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Excursion {
    /// The first reading outside the band.
    pub started: DateTime<Utc>,
    /// The first reading back inside; `None` while it lasts.
    pub ended: Option<DateTime<Utc>>,
    pub min_seen: i32,
    pub max_seen: i32,
}

/// The alarms in `readings` (sorted by time, one per time). An excursion
/// counts once the probe was *seen* outside the band for the minimum
/// duration (first to last out-of-band reading), so a single stray reading
/// followed by a long gap never raises one.
pub fn excursions(readings: &[(DateTime<Utc>, i32)], band: Band) -> Vec<Excursion> {
    struct Open {
        started: DateTime<Utc>,
        last: DateTime<Utc>,
        min: i32,
        max: i32,
    }
    let long_enough =
        |o: &Open| o.last - o.started >= Duration::seconds(i64::from(band.min_duration_s));
    let mut found = Vec::new();
    let mut open: Option<Open> = None;
    for &(time, deci) in readings {
        if band.contains(deci) {
            if let Some(o) = open.take()
                && long_enough(&o)
            {
                found.push(Excursion {
                    started: o.started,
                    ended: Some(time),
                    min_seen: o.min,
                    max_seen: o.max,
                });
            }
        } else {
            let o = open.get_or_insert(Open {
                started: time,
                last: time,
                min: deci,
                max: deci,
            });
            o.last = time;
            o.min = o.min.min(deci);
            o.max = o.max.max(deci);
        }
    }
    if let Some(o) = open
        && long_enough(&o)
    {
        found.push(Excursion {
            started: o.started,
            ended: None,
            min_seen: o.min,
            max_seen: o.max,
        });
    }
    found
}

/// A checked share request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShareDraft {
    pub consignee_name: String,
    pub consignee_phone: String,
    pub expires_at: DateTime<Utc>,
}

impl ShareDraft {
    pub fn parse(
        name: &str,
        phone: &str,
        expires_at: Option<DateTime<Utc>>,
        now: DateTime<Utc>,
    ) -> Result<ShareDraft, ServiceError> {
        let name = name.trim();
        if name.is_empty() || name.chars().count() > 50 {
            return Err(ServiceError::invalid(
                "consigneeName",
                "请输入收货人姓名（不超过 50 个字）",
            ));
        }
        let phone = phone.trim();
        let digits = phone.chars().filter(char::is_ascii_digit).count();
        if !(5..=20).contains(&digits)
            || !phone
                .chars()
                .all(|c| c.is_ascii_digit() || matches!(c, '+' | '-' | ' '))
        {
            return Err(ServiceError::invalid(
                "consigneePhone",
                "请输入正确的收货人电话",
            ));
        }
        let expires_at =
            expires_at.ok_or_else(|| ServiceError::invalid("expiresAt", "请选择授权到期时间"))?;
        if expires_at <= now {
            return Err(ServiceError::invalid(
                "expiresAt",
                "授权到期时间应晚于当前时间",
            ));
        }
        if expires_at > now + Duration::days(MAX_SHARE_DAYS) {
            return Err(ServiceError::invalid("expiresAt", "授权有效期最长 30 天"));
        }
        Ok(ShareDraft {
            consignee_name: name.to_owned(),
            consignee_phone: phone.to_owned(),
            expires_at,
        })
    }
}

/// Tenths of a degree as degrees.
pub fn celsius(deci: i32) -> f64 {
    f64::from(deci) / 10.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(s: i64) -> DateTime<Utc> {
        DateTime::from_timestamp(1_800_000_000 + s, 0).unwrap_or_default()
    }

    const BAND: Band = Band {
        min_deci: -200,
        max_deci: -150,
        min_duration_s: 300,
    };

    #[test]
    fn short_excursion_raises_nothing() {
        let r = [
            (at(0), -180),
            (at(10), -100),
            (at(200), -90),
            (at(290), -170),
        ];
        assert!(excursions(&r, BAND).is_empty());
    }

    #[test]
    fn long_excursion_is_one_alarm_closed_when_back_in_band() {
        let r = [
            (at(0), -180),
            (at(10), -100),
            (at(200), -90),
            (at(320), -95),
            (at(330), -170),
            (at(340), -100),
        ];
        let found = excursions(&r, BAND);
        assert_eq!(
            found,
            vec![Excursion {
                started: at(10),
                ended: Some(at(330)),
                min_seen: -100,
                max_seen: -90,
            }]
        );
    }

    #[test]
    fn lasting_excursion_is_open() {
        let r = [(at(0), -250), (at(400), -260)];
        let found = excursions(&r, BAND);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].ended, None);
        assert_eq!((found[0].min_seen, found[0].max_seen), (-260, -250));
    }

    #[test]
    fn probe_band_wins_over_vehicle_band() {
        let other = Band {
            min_deci: 0,
            max_deci: 50,
            min_duration_s: 0,
        };
        let bands = [(0, BAND), (2, other)];
        assert_eq!(band_for(&bands, 2), Some(other));
        assert_eq!(band_for(&bands, 1), Some(BAND));
        assert_eq!(band_for(&[(2, other)], 1), None);
    }

    #[test]
    fn band_and_share_checks() {
        assert!(Band::parse(1, -20.0, -15.0, 300).is_ok());
        assert!(Band::parse(1, -15.0, -20.0, 300).is_err());
        assert!(Band::parse(300, -20.0, -15.0, 300).is_err());
        assert!(Band::parse(1, f64::NAN, -15.0, 300).is_err());
        let now = at(0);
        assert!(ShareDraft::parse("张三", "13800000000", Some(at(3600)), now).is_ok());
        assert!(ShareDraft::parse("", "13800000000", Some(at(3600)), now).is_err());
        assert!(ShareDraft::parse("张三", "abc", Some(at(3600)), now).is_err());
        assert!(ShareDraft::parse("张三", "13800000000", Some(at(-1)), now).is_err());
        assert!(ShareDraft::parse("张三", "13800000000", Some(at(31 * 86_400)), now).is_err());
    }
}
