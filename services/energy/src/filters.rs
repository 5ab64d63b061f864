//! Parsing of list filters every subject shares: ids, stored codes,
//! organisation subtrees and the required time range of the session and
//! plate-scan lists.

use chrono::Duration;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_proto::common::v1 as common;
use uuid::Uuid;

/// Ids of a list filter, each a uuid (else 4000 naming `field`).
pub fn ids(field: &str, values: &[String], message: &str) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid(field, message))
}

/// An optional id of a filter ('' = none).
pub fn optional_id(value: &str) -> Result<Option<Uuid>, ServiceError> {
    match value.trim() {
        "" => Ok(None),
        id => fleetdesk_kit::convert::id(id).map(Some),
    }
}

/// Stored codes of a repeated proto-enum filter.
pub fn codes<T: Copy + Into<i16>>(
    field: &str,
    values: &[i32],
    from_pb: impl Fn(i32) -> Option<T>,
) -> Result<Vec<i16>, ServiceError> {
    values
        .iter()
        .map(|v| {
            from_pb(*v)
                .map(Into::into)
                .ok_or_else(|| ServiceError::invalid(field, "筛选条件的取值无效"))
        })
        .collect()
}

/// An organisation filter as lists apply it: each chosen organisation and
/// every one below it (through the org_unit replica). Chosen units the
/// replica does not know match nothing (never "no filter").
pub async fn org_subtrees(
    conn: &mut sqlx_postgres::PgConnection,
    org_ids: Vec<Uuid>,
) -> Result<Vec<Uuid>, ServiceError> {
    if org_ids.is_empty() {
        return Ok(org_ids);
    }
    let mut expanded = fleetdesk_kit::reach::subtrees(conn, &org_ids).await?;
    if expanded.is_empty() {
        expanded.push(Uuid::nil());
    }
    Ok(expanded)
}

/// Longest time range a session or plate-scan list takes.
pub const MAX_RANGE_DAYS: i64 = 92;

/// A list's required time range: both ends, at most [`MAX_RANGE_DAYS`].
pub fn required_range(
    field: &str,
    range: Option<&common::TimeRange>,
) -> Result<TimeRange, ServiceError> {
    let range = TimeRange::parse(field, range)?;
    match (range.start, range.end) {
        (Some(start), Some(end)) if end - start <= Duration::days(MAX_RANGE_DAYS) => Ok(range),
        (Some(_), Some(_)) => Err(ServiceError::invalid(
            field,
            format!("时间范围不能超过{MAX_RANGE_DAYS}天"),
        )),
        _ => Err(ServiceError::invalid(field, "请选择时间范围")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn range(days: i64) -> common::TimeRange {
        common::TimeRange {
            start: Some(prost_types::Timestamp {
                seconds: 0,
                nanos: 0,
            }),
            end: Some(prost_types::Timestamp {
                seconds: days * 86_400,
                nanos: 0,
            }),
        }
    }

    #[test]
    fn the_time_range_is_required_and_at_most_92_days() {
        assert!(required_range("startTime", Some(&range(92))).is_ok());
        let err = required_range("startTime", Some(&range(93))).unwrap_err();
        assert_eq!(err.fields[0].message, "时间范围不能超过92天");
        let err = required_range("startTime", None).unwrap_err();
        assert_eq!(err.fields[0].field, "startTime");
    }
}
