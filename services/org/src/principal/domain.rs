//! The rules of a principal: who may use an enterprise, and the one data
//! scope a principal shows.

use crate::scope::domain::{DataScope, ScopeKind};

/// Why a member of a disabled organisation is refused (shown at sign-in and on
/// every call until they are moved or the organisation is enabled again).
pub const ORG_DISABLED: &str =
    "您所在的组织已停用，暂时无法使用该企业，请联系管理员启用组织或调整您的所属组织";

/// The broadest of a member's scopes; their own rows when they have none.
pub fn shown_scope(scopes: &[DataScope]) -> DataScope {
    scopes
        .iter()
        .max_by_key(|s| s.breadth())
        .cloned()
        .unwrap_or(DataScope {
            kind: ScopeKind::Self_,
            org_ids: Vec::new(),
        })
}
