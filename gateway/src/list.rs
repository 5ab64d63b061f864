//! The list extractor (ARCHITECTURE §3): query parameters as a multimap, so
//! multi-value filters arrive as repeated keys (`plate=A&plate=B`). Values
//! are trimmed and empty ones dropped; nothing is split here. A batch key
//! takes at most 250 values (else 4000 with the spec's text); `page` and
//! `size` get their defaults and checks. Each list documents its keys with a
//! `#[derive(IntoParams)]` struct and reads them through the getters below.

use std::collections::BTreeMap;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use chrono::{DateTime, FixedOffset, NaiveDate, NaiveDateTime, TimeZone, Utc};
use fleetdesk_kit::list::{BATCH_LIMIT, batch_limit_message};
use fleetdesk_proto::common::v1::{PageRequest, TimeRange};
use serde::de::DeserializeOwned;

use crate::envelope::ApiError;
use crate::routes::paging;

/// Query parameters of a list request, by key.
#[derive(Debug, Default, Clone)]
pub struct ListQuery {
    values: BTreeMap<String, Vec<String>>,
    /// Keys given only empty: absent for text, malformed for typed values.
    empty: Vec<String>,
}

impl<S: Send + Sync> FromRequestParts<S> for ListQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        ListQuery::parse(parts.uri.query().unwrap_or(""))
    }
}

/// The query of a `POST .../export`: the list's own parameters (its filters
/// are the export's), with paging checked as the list checks it — the
/// contract documents the list's keys — and then ignored: an export writes
/// every matching row.
#[derive(Debug, Clone)]
pub struct ExportQuery(pub ListQuery);

impl<S: Send + Sync> FromRequestParts<S> for ExportQuery {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, state: &S) -> Result<Self, Self::Rejection> {
        let query = ListQuery::from_request_parts(parts, state).await?;
        query.paging()?;
        Ok(ExportQuery(query))
    }
}

/// Dates are entered in China: a bare date or date-time is Asia/Shanghai.
fn shanghai() -> FixedOffset {
    FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset")
}

impl ListQuery {
    pub fn parse(raw: &str) -> Result<ListQuery, ApiError> {
        let pairs: Vec<(String, String)> = serde_urlencoded::from_str(raw)
            .map_err(|_| ApiError::invalid("query", "查询参数格式有误"))?;
        let mut values: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut empty = Vec::new();
        for (key, value) in pairs {
            let value = value.trim();
            if value.is_empty() {
                empty.push(key);
            } else {
                values.entry(key).or_default().push(value.to_owned());
            }
        }
        Ok(ListQuery { values, empty })
    }

    /// Refuses a typed key (number, flag, enum) given empty: `active=` is
    /// not a yes or no, so it must not read as "no filter".
    fn typed(&self, key: &str) -> Result<(), ApiError> {
        if self.empty.iter().any(|k| k == key) {
            return Err(ApiError::invalid(key, "筛选条件的取值无效"));
        }
        Ok(())
    }

    /// `page` (from 1, default 1) and `size` (5/10/20/50/100, default 20).
    pub fn paging(&self) -> Result<PageRequest, ApiError> {
        let number = |key: &str| -> Result<Option<i32>, ApiError> {
            self.typed(key)?;
            self.one(key)
                .map(|v| v.parse().map_err(|_| ApiError::invalid(key, "请输入整数")))
                .transpose()
        };
        paging(number("page")?, number("size")?)
    }

    /// The last value of `key`, if any.
    pub fn one(&self, key: &str) -> Option<&str> {
        self.values
            .get(key)
            .and_then(|v| v.last())
            .map(String::as_str)
    }

    /// The last value of `key`, or empty.
    pub fn text(&self, key: &str) -> String {
        self.one(key).unwrap_or_default().to_owned()
    }

    /// Every value of a batch key (plates, VINs), at most 250.
    pub fn batch(&self, key: &str) -> Result<Vec<String>, ApiError> {
        let values = self.all(key);
        if values.len() > BATCH_LIMIT {
            return Err(ApiError::invalid(key, batch_limit_message()));
        }
        Ok(values)
    }

    /// Every value of `key`.
    pub fn all(&self, key: &str) -> Vec<String> {
        self.values.get(key).cloned().unwrap_or_default()
    }

    /// Every value of `key` read as `T` (an edge enum: its JSON name).
    pub fn parsed<T: DeserializeOwned>(&self, key: &str) -> Result<Vec<T>, ApiError> {
        self.typed(key)?;
        self.all(key)
            .into_iter()
            .map(|v| {
                serde_json::from_value(serde_json::Value::String(v))
                    .map_err(|_| ApiError::invalid(key, "筛选条件的取值无效"))
            })
            .collect()
    }

    /// `true`/`false` (or `1`/`0`), if given.
    pub fn flag(&self, key: &str) -> Result<Option<bool>, ApiError> {
        self.typed(key)?;
        self.one(key)
            .map(|v| match v {
                "true" | "1" => Ok(true),
                "false" | "0" => Ok(false),
                _ => Err(ApiError::invalid(key, "请输入 true 或 false")),
            })
            .transpose()
    }

    /// A time range from `{prefix}Start` and `{prefix}End`: RFC 3339,
    /// `yyyy-MM-dd HH:mm:ss` or `yyyy-MM-dd` (Asia/Shanghai). A bare end date
    /// includes its whole day. Start after end is refused with the spec's text.
    pub fn range(&self, prefix: &str) -> Result<Option<TimeRange>, ApiError> {
        let start_key = format!("{prefix}Start");
        let end_key = format!("{prefix}End");
        let start = self
            .one(&start_key)
            .map(|v| instant(v, false).ok_or_else(|| bad_time(&start_key)))
            .transpose()?;
        let end = self
            .one(&end_key)
            .map(|v| instant(v, true).ok_or_else(|| bad_time(&end_key)))
            .transpose()?;
        if let (Some(s), Some(e)) = (start, end)
            && s > e
        {
            return Err(ApiError::invalid(&start_key, "开始时间不允许大于结束时间"));
        }
        if start.is_none() && end.is_none() {
            return Ok(None);
        }
        Ok(Some(TimeRange {
            start: start.map(fleetdesk_kit::convert::timestamp),
            end: end.map(fleetdesk_kit::convert::timestamp),
        }))
    }
}

fn bad_time(key: &str) -> ApiError {
    ApiError::invalid(key, "时间格式应为 yyyy-MM-dd 或 yyyy-MM-dd HH:mm:ss")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn repeated_keys_are_kept_in_order_trimmed_and_empty_ones_dropped() {
        let q = ListQuery::parse("plate=%E7%B2%A4B1&plate=+B2+&plate=&vin=V1").unwrap();
        assert_eq!(q.all("plate"), vec!["粤B1", "B2"]);
        assert_eq!(q.text("vin"), "V1");
        assert_eq!(q.text("missing"), "");
    }

    #[test]
    fn a_batch_key_takes_at_most_250_values_with_the_spec_text() {
        let raw: Vec<String> = (0..251).map(|i| format!("plate=P{i}")).collect();
        let q = ListQuery::parse(&raw.join("&")).unwrap();
        let err = q.batch("plate").unwrap_err();
        assert_eq!(err.0.fields[0].field, "plate");
        assert_eq!(err.0.fields[0].message, "每次批量查询，最大不超过250台");
        let q = ListQuery::parse(&raw[..250].join("&")).unwrap();
        assert_eq!(q.batch("plate").unwrap().len(), 250);
    }

    #[test]
    fn paging_has_defaults_and_refuses_other_sizes() {
        let q = ListQuery::parse("").unwrap();
        assert_eq!(q.paging().unwrap(), PageRequest { page: 1, size: 20 });
        assert!(ListQuery::parse("size=7").unwrap().paging().is_err());
        assert!(ListQuery::parse("page=x").unwrap().paging().is_err());
    }

    #[test]
    fn dates_are_shanghai_days_and_a_bare_end_date_includes_its_day() {
        let q =
            ListQuery::parse("registerTimeStart=2026-11-01&registerTimeEnd=2026-11-01").unwrap();
        let range = q.range("registerTime").unwrap().unwrap();
        let start = fleetdesk_kit::convert::datetime(range.start.as_ref().unwrap()).unwrap();
        let end = fleetdesk_kit::convert::datetime(range.end.as_ref().unwrap()).unwrap();
        assert_eq!(start.to_rfc3339(), "2026-10-31T16:00:00+00:00");
        assert_eq!(end.to_rfc3339(), "2026-11-01T16:00:00+00:00");
        assert!(
            ListQuery::parse("")
                .unwrap()
                .range("registerTime")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn a_range_starting_after_it_ends_is_refused() {
        let q = ListQuery::parse("createTimeStart=2026-11-02&createTimeEnd=2026-11-01%2000:00:00")
            .unwrap();
        let err = q.range("createTime").unwrap_err();
        assert_eq!(err.0.fields[0].message, "开始时间不允许大于结束时间");
    }

    #[test]
    fn enum_values_are_read_by_their_json_names_and_bad_flags_refused() {
        #[derive(Debug, serde::Deserialize, PartialEq)]
        #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
        enum Colour {
            Green,
        }
        let q = ListQuery::parse("c=GREEN&f=maybe").unwrap();
        assert_eq!(q.parsed::<Colour>("c").unwrap(), vec![Colour::Green]);
        assert!(q.parsed::<Colour>("f").is_err());
        assert!(q.flag("f").is_err());
    }
}
