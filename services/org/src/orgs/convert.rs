//! Proto ↔ domain for the organisation tree: rows onto the wire, nested
//! into trees, and the optional parent field off it.

use std::collections::{HashMap, HashSet};

use fleetdesk_kit::convert::timestamp;
use fleetdesk_kit::{ServiceError, convert};
use fleetdesk_proto::org::v1 as pb;
use uuid::Uuid;

use super::domain;
use super::store::OrgUnitRow;
use crate::codes::status_pb;

pub fn node(row: &OrgUnitRow, children: Vec<pb::OrgUnit>) -> pb::OrgUnit {
    let OrgUnitRow {
        id,
        enterprise_id,
        parent_id,
        org_code,
        name,
        level,
        sort,
        status,
        created_at,
        is_company,
    } = row;
    pb::OrgUnit {
        id: id.to_string(),
        enterprise_id: enterprise_id.to_string(),
        parent_id: parent_id.map(|p| p.to_string()).unwrap_or_default(),
        org_code: org_code.clone(),
        name: name.clone(),
        level: *level,
        sort: *sort,
        status: status_pb(*status),
        children,
        create_time: Some(timestamp(*created_at)),
        is_company: domain::is_company(*is_company, *parent_id),
    }
}

/// A unit as pickers name it.
pub fn org_ref(row: &OrgUnitRow) -> pb::OrgRef {
    pb::OrgRef {
        id: row.id.to_string(),
        org_code: row.org_code.clone(),
        name: row.name.clone(),
    }
}

/// Nests flat rows (ordered parents first) into trees.
pub fn org_tree(rows: Vec<OrgUnitRow>) -> Vec<pb::OrgUnit> {
    let mut children: HashMap<Option<Uuid>, Vec<OrgUnitRow>> = HashMap::new();
    let ids: HashSet<Uuid> = rows.iter().map(|r| r.id).collect();
    for row in rows {
        // A node whose parent is filtered out (disabled, out of scope) becomes a root.
        let parent = row.parent_id.filter(|p| ids.contains(p));
        children.entry(parent).or_default().push(row);
    }
    fn build(
        parent: Option<Uuid>,
        children: &mut HashMap<Option<Uuid>, Vec<OrgUnitRow>>,
    ) -> Vec<pb::OrgUnit> {
        let rows = children.remove(&parent).unwrap_or_default();
        rows.into_iter()
            .map(|row| {
                let kids = build(Some(row.id), children);
                node(&row, kids)
            })
            .collect()
    }
    build(None, &mut children)
}

/// An optional parent id field: empty means the top of the tree.
pub fn parent_field(value: &str) -> Result<Option<Uuid>, ServiceError> {
    match value.trim() {
        "" => Ok(None),
        v => convert::id(v).map(Some),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::orgs::domain::keep_matches_with_ancestors;

    fn unit(id: u128, parent: Option<u128>, name: &str, level: i32) -> OrgUnitRow {
        OrgUnitRow {
            id: Uuid::from_u128(id),
            enterprise_id: Uuid::nil(),
            parent_id: parent.map(Uuid::from_u128),
            org_code: format!("C{id}"),
            name: name.into(),
            level,
            sort: 0,
            status: 1,
            created_at: chrono::Utc::now(),
            is_company: false,
        }
    }

    fn names(tree: &[pb::OrgUnit]) -> Vec<String> {
        tree.iter()
            .flat_map(|n| std::iter::once(n.name.clone()).chain(names(&n.children)))
            .collect()
    }

    #[test]
    fn flat_rows_nest_into_a_tree() {
        let tree = org_tree(vec![
            unit(1, None, "总部", 1),
            unit(2, Some(1), "华东", 2),
            unit(3, Some(2), "上海", 3),
        ]);
        assert_eq!(tree.len(), 1);
        assert_eq!(tree[0].children[0].children[0].name, "上海");
    }

    #[test]
    fn a_name_search_keeps_the_path_to_each_match() {
        let rows = vec![
            unit(1, None, "总部", 1),
            unit(2, Some(1), "华东", 2),
            unit(3, Some(2), "上海", 3),
            unit(4, Some(1), "华南", 2),
        ];
        let tree = org_tree(keep_matches_with_ancestors(rows, "上海"));
        assert_eq!(names(&tree), vec!["总部", "华东", "上海"]);
    }
}
