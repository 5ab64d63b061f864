//! Proto ↔ domain for plate recognitions.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list;
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::domain::ScanResult;
use super::store::{ScanQuery, ScanRow};
use crate::codes::optional;
use crate::filters;

/// The checked filter of a list (or export) request; organisations not yet expanded.
pub fn query(req: &pb::ListPlateScanRecordsRequest) -> Result<ScanQuery, ServiceError> {
    let pb::ListPlateScanRecordsRequest {
        page: _,
        plate_numbers,
        org_ids,
        station_id,
        results,
        scan_time,
    } = req;
    Ok(ScanQuery {
        plates: list::batch("plateNumbers", plate_numbers)?,
        org_ids: filters::ids("orgIds", org_ids, "所选组织不存在")?,
        station_id: filters::optional_id(station_id)?,
        results: filters::codes("results", results, ScanResult::from_pb)?,
        scan_time: filters::required_range("scanTime", scan_time.as_ref())?,
    })
}

fn id_text(id: Option<Uuid>) -> String {
    id.map(|i| i.to_string()).unwrap_or_default()
}

pub fn record(row: ScanRow, enterprise_id: Uuid) -> pb::PlateScanRecord {
    pb::PlateScanRecord {
        id: row.id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        station_id: id_text(row.station_id),
        station_name: row.station_name,
        pile_no: row.pile_no,
        plate_number: row.plate_number,
        vehicle_id: id_text(row.vehicle_id),
        card_id: id_text(row.card_id),
        card_no: row.card_no,
        org_name: row.org_name,
        scan_time: Some(timestamp(row.scan_time)),
        result: optional::<ScanResult>(row.result).map_or(0, ScanResult::pb),
        session_id: id_text(row.session_id),
        image: None,
    }
}
