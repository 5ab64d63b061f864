//! OCPI's DateTime (2.2.1 `types.asciidoc`): RFC 3339 in UTC, at most 25
//! characters. Read: `2015-06-29T20:39:09Z`, the same without the `Z` (no
//! designator means UTC), either with fractional seconds; an offset such as
//! `+00:00` is not OCPI and is refused. Written: whole seconds with `Z`,
//! `2015-06-29T20:39:09Z`, which every OCPI party reads.
//!
//! For a `DateTime<Utc>` field: `#[serde(with = "fleetdesk_ocpi::datetime")]`;
//! for an `Option<DateTime<Utc>>` one: `#[serde(default, skip_serializing_if
//! = "Option::is_none", with = "fleetdesk_ocpi::datetime::option")]`.

use chrono::{DateTime, NaiveDateTime, Utc};
use serde::{Deserialize, Deserializer, Serializer};

/// The longest DateTime OCPI allows (`string(25)`).
pub const MAX_LEN: usize = 25;

/// How a DateTime is written.
const WRITTEN: &str = "%Y-%m-%dT%H:%M:%SZ";
/// How one is read once a trailing `Z` is taken off (`%.f`: fractional
/// seconds when present).
const READ: &str = "%Y-%m-%dT%H:%M:%S%.f";

/// `at` as OCPI writes it: whole seconds, `Z`.
pub fn format(at: &DateTime<Utc>) -> String {
    at.format(WRITTEN).to_string()
}

/// An OCPI DateTime; why not when `text` is not one.
pub fn parse(text: &str) -> Result<DateTime<Utc>, String> {
    if text.len() > MAX_LEN {
        return Err(format!(
            "DateTime {text:?} is longer than {MAX_LEN} characters"
        ));
    }
    let local = text.strip_suffix('Z').unwrap_or(text);
    NaiveDateTime::parse_from_str(local, READ)
        .map(|at| at.and_utc())
        .map_err(|_| format!("{text:?} is not an OCPI DateTime (UTC, e.g. 2015-06-29T20:39:09Z)"))
}

pub fn serialize<S: Serializer>(at: &DateTime<Utc>, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_str(&at.format(WRITTEN))
}

pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<DateTime<Utc>, D::Error> {
    let text = String::deserialize(deserializer)?;
    parse(&text).map_err(serde::de::Error::custom)
}

/// The same for an optional DateTime (`null` reads as absent).
pub mod option {
    use chrono::{DateTime, Utc};
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(
        at: &Option<DateTime<Utc>>,
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        match at {
            Some(at) => super::serialize(at, serializer),
            None => serializer.serialize_none(),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Option<DateTime<Utc>>, D::Error> {
        Option::<String>::deserialize(deserializer)?
            .map(|text| super::parse(&text).map_err(serde::de::Error::custom))
            .transpose()
    }
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone as _, Timelike as _};
    use serde::{Deserialize, Serialize};

    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Stamped {
        #[serde(with = "super")]
        at: DateTime<Utc>,
        #[serde(default, skip_serializing_if = "Option::is_none", with = "option")]
        until: Option<DateTime<Utc>>,
    }

    fn at() -> DateTime<Utc> {
        Utc.with_ymd_and_hms(2015, 6, 29, 20, 39, 9).unwrap()
    }

    #[test]
    fn every_form_the_standard_lists_reads_as_utc() {
        for text in [
            "2015-06-29T20:39:09Z",
            "2015-06-29T20:39:09",
            "2015-06-29T20:39:09.2Z",
            "2015-06-29T20:39:09.2",
            "2015-06-29T20:39:09.123Z",
            "2015-06-29T20:39:09.123",
        ] {
            let read = parse(text).unwrap();
            assert_eq!(read.with_nanosecond(0).unwrap(), at(), "{text}");
        }
        assert_eq!(
            parse("2015-06-29T20:39:09.123Z").unwrap().nanosecond(),
            123_000_000
        );
    }

    #[test]
    fn offsets_other_shapes_and_overlong_text_are_refused() {
        for text in [
            "2015-06-29T20:39:09+00:00",
            "2015-06-29T22:39:09+02:00",
            "2015-06-29 20:39:09Z",
            "2015-06-29",
            "2015-06-29T20:39:09.123456789Z",
            "",
        ] {
            assert!(parse(text).is_err(), "{text}");
        }
    }

    #[test]
    fn written_as_whole_seconds_with_z_and_read_back() {
        let precise = at() + chrono::Duration::nanoseconds(987_654_321);
        let json = serde_json::to_string(&Stamped {
            at: precise,
            until: None,
        })
        .unwrap();
        assert_eq!(json, r#"{"at":"2015-06-29T20:39:09Z"}"#);
        assert_eq!(format(&precise), "2015-06-29T20:39:09Z");
        let back: Stamped = serde_json::from_str(&json).unwrap();
        assert_eq!(back.at, at());
        let both: Stamped =
            serde_json::from_str(r#"{"at":"2015-06-29T20:39:09","until":null}"#).unwrap();
        assert_eq!((both.at, both.until), (at(), None));
        let until: Stamped =
            serde_json::from_str(r#"{"at":"2015-06-29T20:39:09Z","until":"2015-06-29T20:39:09"}"#)
                .unwrap();
        assert_eq!(until.until, Some(at()));
        assert!(serde_json::from_str::<Stamped>(r#"{"at":"2015-06-29T20:39:09+01:00"}"#).is_err());
    }
}
