//! The rules of a role's form: a name, a short description and at least one
//! function permission, each value once.

use fleetdesk_kit::ServiceError;

use crate::codes::Status;
use crate::scope::domain::DataScope;
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
