//! Proto ↔ domain for sessions.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list;
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::energy::v1 as pb;

use super::domain::{SessionStatus, StartMethod};
use super::store::{SessionQuery, SessionRow, Totals};
use crate::codes::optional;
use crate::filters;
use crate::stations::domain::ConnectorKind;

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
        start_time: filters::required_range("startTime", start_time.as_ref())?,
        statement_month: month(statement_month.as_ref())?,
    })
}

fn id_text(id: Option<uuid::Uuid>) -> String {
    id.map(|i| i.to_string()).unwrap_or_default()
}

pub fn session(row: SessionRow, enterprise_id: uuid::Uuid) -> pb::ChargingSession {
    let SessionRow {
        id,
        session_no,
        org_id,
        org_name,
        account_id,
        card_id,
        card_no,
        vehicle_id,
        plate_number,
        driver_id,
        driver_name,
        station_id,
        station_name,
        city_name,
        pile_no,
        connector_no,
        connector_type,
        start_method,
        start_time,
        end_time,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        cost_fen,
        cost_excl_vat_fen,
        total_fen,
        uncollected_fen,
        refunded_fen,
        held_fen,
        start_soc,
        end_soc,
        status,
        stop_reason,
        settle_time,
        statement_month,
    } = row;
    let duration_seconds = end_time.map_or(0, |end| (end - start_time).num_seconds().max(0));
    pb::ChargingSession {
        id: id.to_string(),
        session_no,
        enterprise_id: enterprise_id.to_string(),
        org_id: org_id.to_string(),
        org_name,
        account_id: account_id.to_string(),
        card_id: card_id.to_string(),
        card_no,
        vehicle_id: id_text(vehicle_id),
        plate_number,
        driver_id: id_text(driver_id),
        driver_name,
        station_id: id_text(station_id),
        station_name,
        city_name,
        pile_no,
        connector_no,
        connector_type: optional::<ConnectorKind>(connector_type).map_or(0, ConnectorKind::pb),
        start_method: optional::<StartMethod>(Some(start_method)).map_or(0, StartMethod::pb),
        start_time: Some(timestamp(start_time)),
        end_time: end_time.map(timestamp),
        duration_seconds,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        cost_fen,
        cost_excl_vat_fen,
        total_fen,
        refunded_fen,
        start_soc_percent: start_soc.map(i32::from),
        end_soc_percent: end_soc.map(i32::from),
        status: optional::<SessionStatus>(Some(status)).map_or(0, SessionStatus::pb),
        stop_reason,
        settle_time: settle_time.map(timestamp),
        statement_month: statement_month.map(|m| common::YearMonth {
            year: m / 100,
            month: m % 100,
        }),
        uncollected_fen,
        held_fen,
    }
}

pub fn totals(t: Totals) -> pb::ChargingSessionTotals {
    let Totals {
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        total_fen,
    } = t;
    pb::ChargingSessionTotals {
        session_count,
        energy_wh,
        electricity_fen,
        service_fee_fen,
        parking_fee_fen,
        time_fee_fen,
        fixed_fee_fen,
        reservation_fee_fen,
        discount_fen,
        total_fen,
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
