//! Proto ↔ domain for the catalogue: a permission row onto the wire.

use fleetdesk_proto::org::v1 as pb;

use super::domain::PermissionEntry;
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

/// A top-level group of the catalogue as a portal app, opening its first path.
pub fn portal_app(entry: &PermissionEntry) -> pb::PortalApp {
    let PermissionEntry {
        value,
        zh,
        en,
        ja,
        parent: _,
        routes,
        operations: _,
    } = entry;
    pb::PortalApp {
        value: value.clone(),
        label_zh: zh.clone(),
        label_en: en.clone(),
        label_ja: ja.clone(),
        path: routes.first().cloned().unwrap_or_default(),
    }
}
