//! Proto ↔ domain for the catalogue: a permission row onto the wire.

use fleetdesk_proto::org::v1 as pb;

use super::store::PermissionRow;

pub fn permission(row: PermissionRow) -> pb::Permission {
    let PermissionRow {
        value,
        label_zh,
        label_en,
        label_ja,
        parent_value,
    } = row;
    pb::Permission {
        value,
        label_zh,
        label_en,
        label_ja,
        parent_value: parent_value.unwrap_or_default(),
    }
}
