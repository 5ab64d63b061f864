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
}
