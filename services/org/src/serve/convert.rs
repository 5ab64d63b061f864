//! Domain → proto for serve organisations: a unit with its cities, flat or
//! nested into trees.

use std::collections::{HashMap, HashSet};

use fleetdesk_proto::org::v1 as pb;
use uuid::Uuid;

use super::domain::City;
use crate::orgs::store::OrgUnitRow;

pub fn area(city: &City) -> pb::ServeArea {
    let City {
        province_code,
        province_name,
        code,
        name,
    } = city;
    pb::ServeArea {
        province_code: province_code.clone(),
        province_name: province_name.clone(),
        city_code: code.clone(),
        city_name: name.clone(),
    }
}

pub fn unit(
    row: &OrgUnitRow,
    cities: &[City],
    children: Vec<pb::ServeOrgUnit>,
) -> pb::ServeOrgUnit {
    let OrgUnitRow {
        id,
        enterprise_id: _,
        parent_id,
        org_code,
        name,
        level,
        sort: _,
        status: _,
        created_at: _,
        is_company: _,
    } = row;
    pb::ServeOrgUnit {
        id: id.to_string(),
        parent_id: parent_id.map(|p| p.to_string()).unwrap_or_default(),
        org_code: org_code.clone(),
        name: name.clone(),
        level: *level,
        areas: cities.iter().map(area).collect(),
        children,
    }
}

/// Nests rows (parents first) into trees; a row whose parent is not among
/// them is a root.
pub fn tree(rows: &[OrgUnitRow], cities: &HashMap<Uuid, Vec<City>>) -> Vec<pb::ServeOrgUnit> {
    let ids: HashSet<Uuid> = rows.iter().map(|r| r.id).collect();
    let mut children: HashMap<Option<Uuid>, Vec<&OrgUnitRow>> = HashMap::new();
    for row in rows {
        children
            .entry(row.parent_id.filter(|p| ids.contains(p)))
            .or_default()
            .push(row);
    }
    fn build(
        parent: Option<Uuid>,
        children: &mut HashMap<Option<Uuid>, Vec<&OrgUnitRow>>,
        cities: &HashMap<Uuid, Vec<City>>,
    ) -> Vec<pb::ServeOrgUnit> {
        let rows = children.remove(&parent).unwrap_or_default();
        rows.into_iter()
            .map(|row| {
                let kids = build(Some(row.id), children, cities);
                unit(
                    row,
                    cities.get(&row.id).map(Vec::as_slice).unwrap_or_default(),
                    kids,
                )
            })
            .collect()
    }
    build(None, &mut children, cities)
}
