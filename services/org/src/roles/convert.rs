//! Proto ↔ domain for roles: a row onto the wire.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_proto::org::v1 as pb;

use super::store::RoleRow;
use crate::codes::status_pb;
use crate::scope::convert::data_scope_pb;
use crate::scope::domain::DataScope;

pub fn role(row: &RoleRow) -> pb::Role {
    let RoleRow {
        id,
        enterprise_id,
        name,
        description,
        data_scope_kind,
        data_scope_org_ids,
        status,
        created_at,
        permission_values,
        user_count,
        // Not on the wire: the refusals say it.
        builtin: _,
    } = row;
    pb::Role {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        name: name.clone(),
        description: description.clone(),
        permission_values: permission_values.clone(),
        data_scope: DataScope::stored(*data_scope_kind, data_scope_org_ids.clone())
            .map(|s| data_scope_pb(&s)),
        status: status_pb(*status),
        user_count: i32::try_from(*user_count).unwrap_or(i32::MAX),
        create_time: Some(timestamp(*created_at)),
    }
}
