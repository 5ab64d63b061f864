//! Proto ↔ domain for the allocation record.

use fleetdesk_kit::ServiceError;
use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::list::TimeRange;
use fleetdesk_proto::energy::v1 as pb;
use uuid::Uuid;

use super::domain::Direction;
use super::store::{AllocationQuery, AllocationRow};
use crate::codes::optional;
use crate::filters;

pub fn allocation(row: AllocationRow, enterprise_id: Uuid) -> pb::BalanceAllocation {
    let AllocationRow {
        id,
        direction,
        from_account_id,
        from_org_name,
        to_account_id,
        to_org_name,
        amount_fen,
        from_balance_after_fen,
        to_balance_after_fen,
        operator_name,
        created_at,
        remark,
    } = row;
    pb::BalanceAllocation {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        direction: optional::<Direction>(Some(direction)).map_or(0, Direction::pb),
        from_account_id: from_account_id.to_string(),
        from_org_name,
        to_account_id: to_account_id.to_string(),
        to_org_name,
        amount_fen,
        from_balance_after_fen,
        to_balance_after_fen,
        operator_name,
        allocate_time: Some(timestamp(created_at)),
        remark,
    }
}

/// The list request's filter, organisations not yet expanded.
pub fn query(request: &pb::ListBalanceAllocationsRequest) -> Result<AllocationQuery, ServiceError> {
    let pb::ListBalanceAllocationsRequest {
        page: _,
        account_id,
        org_ids,
        direction,
        allocate_time,
    } = request;
    let direction = match direction {
        0 => None,
        d => Some(i16::from(Direction::from_pb(*d).ok_or_else(|| {
            ServiceError::invalid("direction", "筛选条件的取值无效")
        })?)),
    };
    Ok(AllocationQuery {
        account_id: filters::optional_id(account_id)?,
        org_ids: filters::ids("orgIds", org_ids, "所选组织不存在")?,
        direction,
        allocate_time: TimeRange::parse("allocateTime", allocate_time.as_ref())?,
    })
}
