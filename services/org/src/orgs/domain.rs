//! The rules of the organisation tree: names and codes, and the search that
//! keeps each match's path to the root.

use std::collections::{HashMap, HashSet};

use fleetdesk_kit::ServiceError;
use uuid::Uuid;

use super::store::OrgUnitRow;
use crate::validate::at_most;

/// A name (at most 50 characters) and a code (1 to 32 letters, digits, - or _).
pub fn check_name_code(name: &str, code: &str) -> Result<(), ServiceError> {
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入组织名称"));
    }
    at_most("name", name, 50, "组织名称")?;
    if code.is_empty() {
        return Err(ServiceError::invalid("orgCode", "请输入组织编码"));
    }
    let valid = code.chars().count() <= 32
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !valid {
        return Err(ServiceError::invalid(
            "orgCode",
            "组织编码为 1 到 32 位字母、数字、- 或 _",
        ));
    }
    Ok(())
}

/// Whether a unit is a company: the root is the enterprise itself and
/// always one; any other unit when marked.
pub fn is_company(marked: bool, parent_id: Option<Uuid>) -> bool {
    marked || parent_id.is_none()
}

/// Nodes whose name contains `needle`, with their ancestors so the tree stays whole.
pub fn keep_matches_with_ancestors(rows: Vec<OrgUnitRow>, needle: &str) -> Vec<OrgUnitRow> {
    let parent: HashMap<Uuid, Option<Uuid>> = rows.iter().map(|r| (r.id, r.parent_id)).collect();
    let mut keep = HashSet::new();
    for row in rows.iter().filter(|r| r.name.contains(needle)) {
        let mut at = Some(row.id);
        while let Some(id) = at {
            if !keep.insert(id) {
                break;
            }
            at = parent.get(&id).copied().flatten();
        }
    }
    rows.into_iter().filter(|r| keep.contains(&r.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_codes_are_checked_with_field_names() {
        let field = |n: &str, c: &str| check_name_code(n, c).unwrap_err().fields[0].field.clone();
        assert_eq!(field("", "A1"), "name");
        assert_eq!(field("华东", ""), "orgCode");
        assert_eq!(field("华东", "A 1"), "orgCode");
        assert_eq!(field(&"长".repeat(51), "A1"), "name");
        assert!(check_name_code("华东", "A-01_x").is_ok());
    }

    #[test]
    fn the_root_is_a_company_whatever_is_stored() {
        assert!(is_company(false, None));
        assert!(!is_company(false, Some(Uuid::nil())));
        assert!(is_company(true, Some(Uuid::nil())));
    }
}
