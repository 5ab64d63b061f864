//! Proto ↔ domain for amount changes.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::{self, TimeRange};
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::domain::ChangeKind;
use super::store::{ChangeQuery, ChangeRow};
use crate::codes::optional;
use crate::filters;

pub fn change(row: ChangeRow, enterprise_id: Uuid) -> pb::CardAmountChange {
    let ChangeRow {
        id,
        card_id,
        card_no,
        org_name,
        plate_number,
        driver_name,
        kind,
        amount_fen,
        balance_before_fen,
        balance_after_fen,
        session_id,
        operator_name,
        created_at,
        remark,
    } = row;
    pb::CardAmountChange {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        card_id: card_id.to_string(),
        card_no,
        org_name,
        plate_number,
        driver_name,
        kind: optional::<ChangeKind>(Some(kind)).map_or(0, ChangeKind::pb),
        amount_fen,
        balance_before_fen,
        balance_after_fen,
        session_id: session_id.map(|s| s.to_string()).unwrap_or_default(),
        operator_name,
        change_time: Some(timestamp(created_at)),
        remark,
    }
}

/// The list request's filter, organisations not yet expanded.
pub fn query(request: &pb::ListCardAmountChangesRequest) -> Result<ChangeQuery, ServiceError> {
    let pb::ListCardAmountChangesRequest {
        page: _,
        card_id,
        card_nos,
        plate_numbers,
        org_ids,
        kinds,
        change_time,
    } = request;
    Ok(ChangeQuery {
        card_id: filters::optional_id(card_id)?,
        card_nos: list::batch("cardNos", card_nos)?
            .into_iter()
            .map(|c| c.to_ascii_uppercase())
            .collect(),
        plates: list::batch("plateNumbers", plate_numbers)?,
        org_ids: filters::ids("orgIds", org_ids, "所选组织不存在")?,
        kinds: filters::codes("kinds", kinds, ChangeKind::from_pb)?,
        change_time: TimeRange::parse("changeTime", change_time.as_ref())?,
    })
}
