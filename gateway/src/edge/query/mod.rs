//! The list extractor (docs/ARCHITECTURE.md §3): query parameters as a
//! multimap, so multi-value filters arrive as repeated keys
//! (`plate=A&plate=B`). Values are trimmed and a key given empty is a key
//! left out, whatever its type: a cleared filter is no filter (a key given
//! spaces only is refused unless it is text)
//! ([`crate::extract::query_pairs`], shared with every other query). Nothing
//! is split here. Each list describes its keys once, in a struct that derives
//! both `Deserialize` and `IntoParams`, read by [`EdgeQuery`] (or
//! [`ExportQuery`]) through [`deserializer`]; the field readers
//! below (`deserialize_with`) add what a plain type does not say: a batch
//! key takes at most 250 values (else 4000 with the spec's text), times are
//! Shanghai dates, a single enum may be repeated.

mod deserializer;
mod multimap;

use axum::extract::FromRequestParts;
use axum::http::request::Parts;
use fleetdesk_kit::list::{BATCH_LIMIT, batch_limit_message};
use fleetdesk_proto::common::v1::TimeRange;
use serde::de::{self, DeserializeOwned};
use serde::{Deserialize, Deserializer};

pub use crate::edge::query::deserializer::from_query;
pub use crate::edge::query::multimap::ListQuery;
use crate::edge::time::{BAD_TIME, instant};
use crate::envelope::ApiError;

/// The query of a `POST .../export`: the list's own parameters (its filters
/// are the export's), with paging checked as the list checks it — the
/// contract documents the list's keys — and then ignored: an export writes
/// every matching row.
#[derive(Debug, Clone)]
pub struct ExportQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for ExportQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = ListQuery::parse(parts.uri.query().unwrap_or(""))?;
        query.paging()?;
        from_query(&query).map(ExportQuery)
    }
}

/// A list's query read into `T`, the struct that also documents its keys
/// (`#[derive(Deserialize, IntoParams)]`); see [`deserializer`].
#[derive(Debug, Clone)]
pub struct EdgeQuery<T>(pub T);

impl<S: Send + Sync, T: DeserializeOwned> FromRequestParts<S> for EdgeQuery<T> {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        let query = ListQuery::parse(parts.uri.query().unwrap_or(""))?;
        from_query(&query).map(EdgeQuery)
    }
}

/// A batch key's values (plates, VINs): at most 250, else the spec's text.
pub fn batch<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    let values = Vec::<String>::deserialize(d)?;
    if values.len() > BATCH_LIMIT {
        return Err(de::Error::custom(batch_limit_message()));
    }
    Ok(values)
}

/// The last of a key's values, each of which must read as `T`.
pub fn last<'de, D: Deserializer<'de>, T: Deserialize<'de>>(d: D) -> Result<Option<T>, D::Error> {
    Ok(Vec::<T>::deserialize(d)?.pop())
}

/// A range's start: an edge time ([`instant`]).
pub fn start_time<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<prost_types::Timestamp>, D::Error> {
    edge_time(d, false, BAD_TIME)
}

/// A range's end: an edge time, a bare date including its whole day.
pub fn end_time<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<prost_types::Timestamp>, D::Error> {
    edge_time(d, true, BAD_TIME)
}

/// An edge time ([`instant`]), refused with `refusal`.
pub fn edge_time<'de, D: Deserializer<'de>>(
    d: D,
    end_of_day: bool,
    refusal: &'static str,
) -> Result<Option<prost_types::Timestamp>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Ok(None),
        Some(text) => instant(text, end_of_day)
            .map(|t| Some(fleetdesk_kit::convert::timestamp(t)))
            .ok_or_else(|| de::Error::custom(refusal)),
    }
}

/// A number (`请输入数字` when it is none).
pub fn number<'de, D: Deserializer<'de>, T: std::str::FromStr>(
    d: D,
) -> Result<Option<T>, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Ok(None),
        Some(text) => text
            .parse()
            .map(Some)
            .map_err(|_| de::Error::custom("请输入数字")),
    }
}

/// A whole number refused with `refusal`; 0 when absent.
pub fn whole_number<'de, D: Deserializer<'de>>(
    d: D,
    refusal: &'static str,
) -> Result<i32, D::Error> {
    match Option::<String>::deserialize(d)?.as_deref() {
        None => Ok(0),
        Some(text) => text.parse().map_err(|_| de::Error::custom(refusal)),
    }
}

/// A time range from its two ends; none when neither is given.
pub fn time_range(
    start: Option<prost_types::Timestamp>,
    end: Option<prost_types::Timestamp>,
) -> Option<TimeRange> {
    (start.is_some() || end.is_some()).then_some(TimeRange { start, end })
}

#[cfg(test)]
mod tests {
    use super::*;
    pub use crate::edge::query::deserializer::from_query;
    pub use crate::edge::query::multimap::ListQuery;
    use fleetdesk_proto::common::v1::PageRequest;

    fn read<T: DeserializeOwned>(raw: &str) -> Result<T, ApiError> {
        from_query(&ListQuery::parse(raw).unwrap())
    }

    fn refusal(err: &ApiError) -> (String, String) {
        let field = &err.0.fields[0];
        (field.field.clone(), field.message.clone())
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Plates {
        #[serde(default, deserialize_with = "batch")]
        plate: Vec<String>,
        #[serde(default)]
        vin: String,
        #[serde(default)]
        missing: String,
    }

    #[test]
    fn repeated_keys_are_kept_in_order_trimmed_and_empty_ones_dropped() {
        let q: Plates = read("plate=%E7%B2%A4B1&plate=+B2+&plate=&vin=V1").unwrap();
        assert_eq!(q.plate, vec!["粤B1", "B2"]);
        assert_eq!(q.vin, "V1");
        assert_eq!(q.missing, "");
        let q: Plates = read("plate=&vin=").unwrap();
        assert!(q.plate.is_empty());
        assert_eq!(q.vin, "");
    }

    #[derive(Debug, Deserialize, PartialEq)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Kind {
        Overspeed,
    }

    #[derive(Debug, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Filters {
        #[serde(default)]
        kinds: Vec<Kind>,
        #[serde(default, deserialize_with = "last")]
        probe_no: Option<i32>,
        #[serde(default)]
        vin: String,
    }

    #[test]
    fn spaces_only_are_refused_where_the_key_is_not_text_and_no_filter_where_it_is() {
        for (raw, key) in [("kinds=+", "kinds"), ("probeNo=%20%20", "probeNo")] {
            let err = read::<Filters>(raw).unwrap_err();
            assert_eq!(refusal(&err).0, key, "{raw}");
        }
        let q: Filters = read("vin=+&kinds=OVERSPEED&probeNo=").unwrap();
        assert_eq!(
            (q.vin.as_str(), q.kinds, q.probe_no),
            ("", vec![Kind::Overspeed], None)
        );
        let q: Plates = read("plate=+&plate=B1").unwrap();
        assert_eq!(q.plate, vec!["B1"], "a blank among a batch is no value");
        assert!(ListQuery::parse("page=+").unwrap().paging().is_err());
        assert!(ListQuery::parse("size=%20").unwrap().paging().is_err());
    }

    #[test]
    fn a_batch_key_takes_at_most_250_values_with_the_spec_text() {
        let raw: Vec<String> = (0..251).map(|i| format!("plate=P{i}")).collect();
        let err = read::<Plates>(&raw.join("&")).unwrap_err();
        assert_eq!(
            refusal(&err),
            (
                "plate".to_owned(),
                "每次批量查询，最大不超过250台".to_owned()
            )
        );
        let q: Plates = read(&raw[..250].join("&")).unwrap();
        assert_eq!(q.plate.len(), 250);
    }

    #[test]
    fn paging_has_defaults_and_refuses_other_sizes() {
        let q = ListQuery::parse("").unwrap();
        assert_eq!(q.paging().unwrap(), PageRequest { page: 1, size: 20 });
        assert!(ListQuery::parse("size=7").unwrap().paging().is_err());
        assert!(ListQuery::parse("page=x").unwrap().paging().is_err());
    }

    #[derive(Debug, Default, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Ranges {
        #[serde(default, deserialize_with = "start_time")]
        register_time_start: Option<prost_types::Timestamp>,
        #[serde(default, deserialize_with = "end_time")]
        register_time_end: Option<prost_types::Timestamp>,
        #[serde(default, deserialize_with = "start_time")]
        create_time_start: Option<prost_types::Timestamp>,
        #[serde(default, deserialize_with = "end_time")]
        create_time_end: Option<prost_types::Timestamp>,
    }

    #[test]
    fn dates_are_shanghai_days_and_a_bare_end_date_includes_its_day() {
        let q: Ranges = read("registerTimeStart=2026-11-01&registerTimeEnd=2026-11-01").unwrap();
        let range = time_range(q.register_time_start, q.register_time_end).unwrap();
        let start = fleetdesk_kit::convert::datetime(range.start.as_ref().unwrap()).unwrap();
        let end = fleetdesk_kit::convert::datetime(range.end.as_ref().unwrap()).unwrap();
        assert_eq!(start.to_rfc3339(), "2026-10-31T16:00:00+00:00");
        assert_eq!(end.to_rfc3339(), "2026-11-01T16:00:00+00:00");
        let q: Ranges = read("").unwrap();
        assert!(time_range(q.register_time_start, q.register_time_end).is_none());
        assert!(time_range(q.create_time_start, q.create_time_end).is_none());
        let err = read::<Ranges>("registerTimeEnd=soon").unwrap_err();
        assert_eq!(
            refusal(&err),
            ("registerTimeEnd".to_owned(), BAD_TIME.to_owned())
        );
    }

    #[test]
    fn a_range_starting_after_it_ends_is_refused() {
        let err = read::<Ranges>("createTimeStart=2026-11-02&createTimeEnd=2026-11-01%2000:00:00")
            .unwrap_err();
        assert_eq!(
            refusal(&err),
            (
                "createTimeStart".to_owned(),
                "开始时间不允许大于结束时间".to_owned()
            )
        );
    }

    #[derive(Debug, Deserialize, PartialEq, Clone, Copy)]
    #[serde(rename_all = "SCREAMING_SNAKE_CASE")]
    enum Colour {
        Green,
        Blue,
    }

    #[derive(Debug, Deserialize)]
    struct Typed {
        #[serde(default)]
        c: Vec<Colour>,
        #[serde(default, deserialize_with = "last")]
        one: Option<Colour>,
        f: Option<bool>,
        #[serde(default)]
        g: bool,
        n: Option<i32>,
    }

    #[test]
    fn enum_values_are_read_by_their_json_names_and_bad_values_refused() {
        let q: Typed = read("c=GREEN&c=BLUE&one=GREEN&one=BLUE&f=1&g=true&n=7").unwrap();
        assert_eq!(q.c, vec![Colour::Green, Colour::Blue]);
        assert_eq!(q.one, Some(Colour::Blue));
        assert_eq!((q.f, q.g, q.n), (Some(true), true, Some(7)));
        let cases = [
            ("c=maybe", "c", "筛选条件的取值无效"),
            ("one=maybe&one=GREEN", "one", "筛选条件的取值无效"),
            ("f=maybe", "f", "请输入 true 或 false"),
            ("n=x", "n", "请输入整数"),
            ("n=x&n=", "n", "请输入整数"),
        ];
        for (raw, field, message) in cases {
            let err = read::<Typed>(raw).unwrap_err();
            assert_eq!(
                refusal(&err),
                (field.to_owned(), message.to_owned()),
                "{raw}"
            );
        }
    }

    #[derive(Debug, Default, Deserialize, PartialEq)]
    #[serde(rename_all = "camelCase")]
    struct EveryKind {
        #[serde(default)]
        colours: Vec<Colour>,
        #[serde(default, deserialize_with = "last")]
        colour: Option<Colour>,
        active: Option<bool>,
        #[serde(default)]
        open_only: bool,
        count: Option<i32>,
        #[serde(default, deserialize_with = "number")]
        kwh: Option<f64>,
        #[serde(default, deserialize_with = "probe")]
        probe_no: i32,
        #[serde(default, deserialize_with = "start_time")]
        from: Option<prost_types::Timestamp>,
        #[serde(default, deserialize_with = "end_time")]
        to: Option<prost_types::Timestamp>,
        #[serde(default)]
        name: String,
        #[serde(default, deserialize_with = "batch")]
        plates: Vec<String>,
    }

    fn probe<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
        whole_number(d, "探头编号应为数字")
    }

    /// Every key of [`EveryKind`] given empty, each way a console sends it.
    const EVERY_KEY_EMPTY: &str = "colours=&colour=&active=&openOnly=&count=&kwh=&probeNo=&from=&to=\
        &name=&plates=&name=+";

    #[test]
    fn a_key_given_empty_is_the_key_left_out_whatever_its_type() {
        let absent: EveryKind = read("").unwrap();
        assert_eq!(absent, EveryKind::default());
        assert_eq!(read::<EveryKind>(EVERY_KEY_EMPTY).unwrap(), absent);
        // A value beside an empty one of the same key is kept.
        let q: EveryKind =
            read("colours=GREEN&colours=&probeNo=2&probeNo=&from=2026-11-01").unwrap();
        assert_eq!((q.colours, q.probe_no), (vec![Colour::Green], 2));
        assert!(q.from.is_some());
        // Paging given empty is its default.
        let paging = ListQuery::parse("page=&size=").unwrap().paging().unwrap();
        assert_eq!(paging, PageRequest { page: 1, size: 20 });
    }

    #[test]
    fn a_value_that_is_there_must_read_as_its_type() {
        let cases = [
            ("probeNo=abc", "probeNo", "探头编号应为数字"),
            ("count=abc", "count", "请输入整数"),
            ("kwh=abc", "kwh", "请输入数字"),
            ("colour=PURPLE", "colour", "筛选条件的取值无效"),
            ("active=maybe", "active", "请输入 true 或 false"),
            ("from=yesterday", "from", BAD_TIME),
        ];
        for (raw, field, message) in cases {
            let err = read::<EveryKind>(raw).unwrap_err();
            assert_eq!(
                refusal(&err),
                (field.to_owned(), message.to_owned()),
                "{raw}"
            );
        }
    }
}
