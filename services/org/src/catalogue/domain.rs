//! The catalogue as shipped, read from `src/permissions.json`.

#[derive(Debug, Clone, serde::Deserialize)]
pub struct PermissionEntry {
    pub value: String,
    pub zh: String,
    pub en: String,
    pub ja: String,
    /// The value this one is grouped under; none at the top of the tree.
    #[serde(default)]
    pub parent: Option<String>,
    /// Console route paths the value opens.
    #[serde(default)]
    pub routes: Vec<String>,
    /// Gateway operations (`METHOD /api/v1/path`) that require the value.
    #[serde(default)]
    pub operations: Vec<String>,
}

/// The catalogue as shipped.
pub fn entries() -> Vec<PermissionEntry> {
    serde_json::from_str(include_str!("../permissions.json")).expect("permissions.json is valid")
}

/// The apps of the portal: the top-level groups of the catalogue, in its
/// order — a value without a parent that opens a console path and under
/// which sit values opening pages of their own (the navbar's groups; a
/// single page such as the approvals list, whose children are only
/// buttons, is not an app).
pub fn portal_apps(entries: &[PermissionEntry]) -> impl Iterator<Item = &PermissionEntry> {
    entries.iter().filter(|e| {
        e.parent.is_none()
            && !e.routes.is_empty()
            && entries.iter().any(|child| {
                child.parent.as_deref() == Some(e.value.as_str()) && !child.routes.is_empty()
            })
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalogue_values_are_unique_and_labelled_in_three_languages() {
        let entries = entries();
        let mut values: Vec<&str> = entries.iter().map(|e| e.value.as_str()).collect();
        values.sort_unstable();
        values.dedup();
        assert_eq!(values.len(), entries.len(), "duplicate permission values");
        for e in &entries {
            assert!(
                !e.zh.is_empty() && !e.en.is_empty() && !e.ja.is_empty(),
                "{} lacks a label",
                e.value
            );
            assert_ne!(e.value, "*", "'*' is an access rule, not a permission");
        }
    }

    #[test]
    fn every_parent_is_a_catalogue_value_and_the_tree_has_no_cycle() {
        let entries = entries();
        let parent: std::collections::HashMap<&str, Option<&str>> = entries
            .iter()
            .map(|e| (e.value.as_str(), e.parent.as_deref()))
            .collect();
        for e in &entries {
            let mut at = e.parent.as_deref();
            let mut steps = 0;
            while let Some(p) = at {
                assert!(parent.contains_key(p), "{} has unknown parent {p}", e.value);
                at = parent[p];
                steps += 1;
                assert!(steps < entries.len(), "{} sits in a cycle", e.value);
            }
        }
    }

    #[test]
    fn operations_name_a_method_and_an_api_path() {
        for e in entries() {
            for op in &e.operations {
                let (method, path) = op.split_once(' ').expect("METHOD /path");
                assert!(
                    ["GET", "POST", "PUT", "DELETE", "PATCH"].contains(&method),
                    "{op}"
                );
                assert!(path.starts_with("/api/v1/"), "{op}");
            }
        }
    }

    #[test]
    fn the_portal_apps_are_the_navbar_groups() {
        let entries = entries();
        let apps: Vec<&str> = portal_apps(&entries).map(|e| e.value.as_str()).collect();
        assert_eq!(
            apps,
            [
                "oss:pc:vehicle:management",
                "oss:pc:finance:management",
                "oss:pc:energy:management",
                "oss:pc:system:settings"
            ]
        );
    }
}
