//! Proto ↔ domain for users: a row onto the wire with its phone masked, and
//! the list's optional id filters off it.

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ServiceError, mask};
use fleetdesk_proto::org::v1 as pb;
use uuid::Uuid;

use super::store::UserRow;
use crate::codes::status_pb;
use crate::scope::convert::data_scope_pb;
use crate::scope::domain::DataScope;

pub fn user(row: &UserRow) -> pb::User {
    let UserRow {
        id,
        enterprise_id,
        account_id,
        name,
        user_name,
        phone,
        org_id,
        org_name,
        data_scope_kind,
        data_scope_org_ids,
        status,
        avatar_url,
        created_at,
        role_ids,
        role_names,
    } = row;
    pb::User {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        account_id: account_id.to_string(),
        name: name.clone(),
        user_name: user_name.clone(),
        phone_masked: mask::centre(phone),
        org_id: org_id.map(|o| o.to_string()).unwrap_or_default(),
        org_name: org_name.clone(),
        role_ids: role_ids.iter().map(Uuid::to_string).collect(),
        role_names: role_names.clone(),
        data_scope: data_scope_kind
            .and_then(|kind| DataScope::stored(kind, data_scope_org_ids.clone()))
            .map(|s| data_scope_pb(&s)),
        status: status_pb(*status),
        avatar_url: avatar_url.clone(),
        create_time: Some(timestamp(*created_at)),
    }
}

/// An optional id filter: empty means none; anything else must be an id.
pub fn optional_id(field: &str, value: &str, message: &str) -> Result<Option<Uuid>, ServiceError> {
    match value.trim() {
        "" => Ok(None),
        v => Uuid::parse_str(v)
            .map(Some)
            .map_err(|_| ServiceError::invalid(field, message)),
    }
}
