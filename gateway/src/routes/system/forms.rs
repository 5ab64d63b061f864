//! Request pieces more than one system route reads: a status and a data
//! scope, as users and roles write them.

use fleetdesk_proto::org::v1 as pb;
use serde::Deserialize;
use utoipa::ToSchema;

use crate::envelope::ApiError;

/// A status field of a request body: 1 enabled, 2 disabled.
pub fn status_field(status: Option<i32>) -> Result<i32, ApiError> {
    match status {
        Some(1) => Result::Ok(pb::EnabledStatus::Enabled as i32),
        Some(2) => Result::Ok(pb::EnabledStatus::Disabled as i32),
        None => Err(ApiError::invalid("status", "请选择状态")),
        Some(_) => Err(ApiError::invalid(
            "status",
            "状态只能是 1（启用）或 2（停用）",
        )),
    }
}

/// A data scope from a body's `dataScope` kind (1..5) and org ids; `None` when absent.
pub fn data_scope_field(
    kind: Option<i32>,
    org_ids: Vec<String>,
) -> Result<Option<pb::DataScope>, ApiError> {
    match kind {
        None | Some(0) => Result::Ok(None),
        Some(k @ 1..=5) => Result::Ok(Some(pb::DataScope { kind: k, org_ids })),
        Some(_) => Err(ApiError::invalid("dataScope", "数据权限只能是 1 到 5")),
    }
}

/// A new status.
#[derive(Debug, Default, Deserialize, ToSchema)]
#[serde(rename_all = "camelCase", default)]
pub struct StatusForm {
    /// 1 enabled, 2 disabled.
    pub status: Option<i32>,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statuses_and_scopes_are_checked() {
        assert!(status_field(None).is_err());
        assert!(status_field(Some(3)).is_err());
        assert_eq!(
            status_field(Some(2)).unwrap(),
            pb::EnabledStatus::Disabled as i32
        );
        assert!(data_scope_field(Some(6), vec![]).is_err());
        assert!(data_scope_field(None, vec![]).unwrap().is_none());
        assert_eq!(
            data_scope_field(Some(4), vec!["x".into()])
                .unwrap()
                .unwrap()
                .kind,
            4
        );
    }
}
