//! The rules of a role's form: a name, a short description and at least one
//! function permission, each value once. The enterprise's built-in
//! administrator role keeps every permission it has, the whole enterprise
//! and its status; a role members hold is not deleted.

use fleetdesk_kit::{ErrorCode, ServiceError};

use crate::codes::Status;
use crate::scope::domain::{DataScope, ScopeKind};
use crate::validate::at_most;

/// A role as it is written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoleForm {
    pub name: String,
    pub description: String,
    pub permission_values: Vec<String>,
    pub data_scope: DataScope,
}

/// The name and description, trimmed and checked.
pub fn check_text(name: &str, description: &str) -> Result<(String, String), ServiceError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入角色名称"));
    }
    at_most("name", name, 30, "角色名称")?;
    let description = description.trim();
    at_most("description", description, 200, "角色描述")?;
    Ok((name.to_owned(), description.to_owned()))
}

/// The permission values, trimmed, sorted and each once; at least one, as a
/// role without any function permission would give its members nothing.
pub fn permission_values(values: &[String]) -> Result<Vec<String>, ServiceError> {
    let mut values: Vec<String> = values
        .iter()
        .map(|v| v.trim().to_owned())
        .filter(|v| !v.is_empty())
        .collect();
    values.sort_unstable();
    values.dedup();
    if values.is_empty() {
        return Err(ServiceError::invalid(
            "permissionValues",
            "请至少选择一项功能权限",
        ));
    }
    Ok(values)
}

/// The stored status a role keeps when an edit names none.
pub fn kept_status(requested: Option<Status>, current: i16) -> i16 {
    requested.map_or(current, i16::from)
}

/// An edit of the built-in administrator role: it may be renamed and gain
/// permissions, nothing that would lock the enterprise out.
pub fn check_builtin_edit(
    current_values: &[String],
    form: &RoleForm,
    status: i16,
) -> Result<(), ServiceError> {
    if status != i16::from(Status::Enabled) {
        return Err(refused("系统内置的管理员角色不能停用"));
    }
    if current_values
        .iter()
        .any(|v| !form.permission_values.contains(v))
    {
        return Err(refused("系统内置的管理员角色不能减少功能权限"));
    }
    if form.data_scope.kind != ScopeKind::Enterprise {
        return Err(refused("系统内置的管理员角色的数据权限须为全部数据"));
    }
    Ok(())
}

/// Whether a role may be deleted: not the built-in one, nor one members hold.
pub fn check_delete(builtin: bool, members: usize) -> Result<(), ServiceError> {
    if builtin {
        return Err(refused("系统内置的管理员角色不能删除"));
    }
    if members > 0 {
        return Err(refused(format!(
            "该角色已分配给{members}名用户，请先为他们更换角色再删除"
        )));
    }
    Ok(())
}

/// A refusal of the role's state, not of a field's value.
fn refused(message: impl Into<String>) -> ServiceError {
    ServiceError::new(ErrorCode::Conflict, message)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(values: &[&str], kind: ScopeKind) -> RoleForm {
        RoleForm {
            name: "超级管理员".into(),
            description: String::new(),
            permission_values: values.iter().map(|v| (*v).to_owned()).collect(),
            data_scope: DataScope {
                kind,
                org_ids: Vec::new(),
            },
        }
    }

    #[test]
    fn the_builtin_role_may_grow_but_never_shrink_or_stop() {
        let current = vec!["a".to_owned(), "b".to_owned()];
        let enabled = i16::from(Status::Enabled);
        assert!(
            check_builtin_edit(
                &current,
                &form(&["a", "b", "c"], ScopeKind::Enterprise),
                enabled
            )
            .is_ok()
        );
        for (f, status) in [
            (form(&["a"], ScopeKind::Enterprise), enabled),
            (form(&["a", "b"], ScopeKind::Self_), enabled),
            (
                form(&["a", "b"], ScopeKind::Enterprise),
                i16::from(Status::Disabled),
            ),
        ] {
            let err = check_builtin_edit(&current, &f, status).unwrap_err();
            assert_eq!(err.code, ErrorCode::Conflict, "{}", err.message);
        }
    }

    #[test]
    fn only_an_unused_ordinary_role_is_deleted() {
        assert!(check_delete(false, 0).is_ok());
        assert_eq!(check_delete(true, 0).unwrap_err().code, ErrorCode::Conflict);
        assert!(
            check_delete(false, 2)
                .unwrap_err()
                .message
                .contains("2名用户")
        );
    }
}
