//! Proto ↔ domain for sessions, and the required time range that the
//! session and plate-scan lists share.

use chrono::Duration;
use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;

use super::domain::{SessionStatus, StartMethod};
use super::store::{SessionQuery, SessionRow, Totals};
use crate::codes::optional;
use crate::filters;
use crate::stations::domain::ConnectorKind;

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

/// yyyymm of a month filter; None when unset.
fn month(value: Option<&common::YearMonth>) -> Result<Option<i32>, ServiceError> {
    match value {
        None => Ok(None),
        Some(m) if (2000..=2100).contains(&m.year) && (1..=12).contains(&m.month) => {
            Ok(Some(m.year * 100 + m.month))
        }
        Some(_) => Err(ServiceError::invalid("statementMonth", "月份无效")),
    }
}

/// The checked filter of a list (or export) request; organisations not yet expanded.
pub fn query(req: &pb::ListChargingSessionsRequest) -> Result<SessionQuery, ServiceError> {
    let pb::ListChargingSessionsRequest {
        page: _,
        plate_numbers,
        card_nos,
        org_ids,
        driver_id,
        station_id,
        session_no,
        statuses,
        start_methods,
        start_time,
        statement_month,
    } = req;
    let session_no = session_no.trim();
    Ok(SessionQuery {
        plates: list::batch("plateNumbers", plate_numbers)?,
        card_nos: list::batch("cardNos", card_nos)?
            .into_iter()
            .map(|c| c.to_ascii_uppercase())
            .collect(),
        org_ids: filters::ids("orgIds", org_ids, "所选组织不存在")?,
        driver_id: filters::optional_id(driver_id)?,
        station_id: filters::optional_id(station_id)?,
        session_no: (!session_no.is_empty()).then(|| session_no.to_owned()),
        statuses: filters::codes("statuses", statuses, SessionStatus::from_pb)?,
        start_methods: filters::codes("startMethods", start_methods, StartMethod::from_pb)?,
        start_time: required_range("startTime", start_time.as_ref())?,
        statement_month: month(statement_month.as_ref())?,
    })
}

fn id_text(id: Option<uuid::Uuid>) -> String {
    id.map(|i| i.to_string()).unwrap_or_default()
}

pub fn session(row: SessionRow, enterprise_id: uuid::Uuid) -> pb::ChargingSession {
    let duration_seconds = row
        .end_time
        .map_or(0, |end| (end - row.start_time).num_seconds().max(0));
    pb::ChargingSession {
        id: row.id.to_string(),
        session_no: row.session_no,
        enterprise_id: enterprise_id.to_string(),
        org_id: row.org_id.to_string(),
        org_name: row.org_name,
        account_id: row.account_id.to_string(),
        card_id: row.card_id.to_string(),
        card_no: row.card_no,
        vehicle_id: id_text(row.vehicle_id),
        plate_number: row.plate_number,
        driver_id: id_text(row.driver_id),
        driver_name: row.driver_name,
        station_id: id_text(row.station_id),
        station_name: row.station_name,
        city_name: row.city_name,
        pile_no: row.pile_no,
        connector_no: row.connector_no,
        connector_type: optional::<ConnectorKind>(row.connector_type).map_or(0, ConnectorKind::pb),
        start_method: optional::<StartMethod>(Some(row.start_method)).map_or(0, StartMethod::pb),
        start_time: Some(timestamp(row.start_time)),
        end_time: row.end_time.map(timestamp),
        duration_seconds,
        energy_wh: row.energy_wh,
        electricity_fen: row.electricity_fen,
        service_fee_fen: row.service_fee_fen,
        parking_fee_fen: row.parking_fee_fen,
        discount_fen: row.discount_fen,
        total_fen: row.total_fen,
        refunded_fen: row.refunded_fen,
        start_soc_percent: row.start_soc.map(i32::from),
        end_soc_percent: row.end_soc.map(i32::from),
        status: optional::<SessionStatus>(Some(row.status)).map_or(0, SessionStatus::pb),
        stop_reason: row.stop_reason,
        settle_time: row.settle_time.map(timestamp),
        statement_month: row.statement_month.map(|m| common::YearMonth {
            year: m / 100,
            month: m % 100,
        }),
        uncollected_fen: row.uncollected_fen,
        held_fen: row.held_fen,
    }
}

pub fn totals(t: Totals) -> pb::ChargingSessionTotals {
    pb::ChargingSessionTotals {
        session_count: t.session_count,
        energy_wh: t.energy_wh,
        electricity_fen: t.electricity_fen,
        service_fee_fen: t.service_fee_fen,
        parking_fee_fen: t.parking_fee_fen,
        discount_fen: t.discount_fen,
        total_fen: t.total_fen,
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

    #[test]
    fn filters_are_checked_and_card_numbers_read_in_capitals() {
        let req = pb::ListChargingSessionsRequest {
            card_nos: vec![" ab12345678 ".into()],
            statuses: vec![pb::ChargingSessionStatus::Settled as i32],
            start_time: Some(range(7)),
            statement_month: Some(common::YearMonth {
                year: 2026,
                month: 11,
            }),
            ..Default::default()
        };
        let q = query(&req).unwrap();
        assert_eq!(q.card_nos, ["AB12345678"]);
        assert_eq!(q.statuses, [2]);
        assert_eq!(q.statement_month, Some(202_611));
        let bad = pb::ListChargingSessionsRequest {
            statuses: vec![0],
            ..req
        };
        assert!(query(&bad).is_err());
    }
}
