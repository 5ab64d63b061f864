//! Proto ↔ domain for areas: a division or an operating area as a node.

use fleetdesk_proto::org::v1 as pb;
use gb2260::Division;

use super::store::OperatingAreaRow;

pub fn node(division: &Division, parent_code: &str, level: i32) -> pb::AreaNode {
    pb::AreaNode {
        code: division.code.to_owned(),
        parent_code: parent_code.to_owned(),
        name: division.name.to_owned(),
        level,
        children: Vec::new(),
    }
}

pub fn operating_area(row: OperatingAreaRow, level: i32) -> pb::AreaNode {
    let OperatingAreaRow {
        code,
        parent_code,
        name,
    } = row;
    pb::AreaNode {
        code,
        parent_code,
        name,
        level,
        children: Vec::new(),
    }
}
