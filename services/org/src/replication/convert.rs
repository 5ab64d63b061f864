//! Proto ↔ domain for replication: a unit's state as its event.

use fleetdesk_proto::org::v1 as pb;

use super::store::UnitState;
use crate::codes::Status;

pub fn changed(unit: &UnitState) -> pb::OrgUnitChanged {
    let UnitState {
        id,
        enterprise_id,
        parent_id,
        name,
        path,
        status,
        version,
        org_code,
    } = unit;
    pb::OrgUnitChanged {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        parent_id: parent_id.map(|p| p.to_string()).unwrap_or_default(),
        name: name.clone(),
        path: path.clone(),
        disabled: Status::of_column(*status) != Status::Enabled,
        version: *version,
        code: org_code.clone(),
    }
}
