//! The GB/T 2260 tree: children of a code are the existing codes of its
//! next two digits.

use fleetdesk_proto::org::v1 as pb;
use gb2260::Division;

use super::convert::node;

/// Parent code whose children are the provinces (docs/console-spec.md §9).
pub const PROVINCE_ROOT: &str = "100000";
/// Operating regions (大区).
pub const REGIONAL_LIST: &str = "REGIONAL_LIST";
/// Operating cities, below a region.
pub const OPERATING_CITY: &str = "OPERATING_CITY";

/// The existing divisions `prefix` + 01..99 + `suffix`.
fn probe(prefix: &str, suffix: &str) -> Vec<Division> {
    (1..=99u32)
        .filter_map(|n| Division::get(&format!("{prefix}{n:02}{suffix}")))
        .collect()
}

/// Children of `parent`: GB/T 2260 codes are two digits each of province,
/// prefecture and county, so the children are the existing codes of the
/// next two digits. `None` when the parent is not a known code.
pub fn gb2260_children(parent: &str) -> Option<Vec<pb::AreaNode>> {
    if parent.is_empty() || parent == PROVINCE_ROOT {
        return Some(
            (10..=99)
                .filter_map(|n: u32| Division::get(&format!("{n:02}0000")))
                .map(|d| node(&d, PROVINCE_ROOT, 1))
                .collect(),
        );
    }
    if parent.len() != 6 || !parent.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Division::get(parent)?;
    let nodes = if parent.ends_with("0000") {
        probe(&parent[..2], "00")
            .iter()
            .map(|d| node(d, parent, 2))
            .collect()
    } else if parent.ends_with("00") {
        probe(&parent[..4], "")
            .iter()
            .map(|d| node(d, parent, 3))
            .collect()
    } else {
        // A county has no children in GB/T 2260.
        Vec::new()
    };
    Some(nodes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(nodes: &[pb::AreaNode]) -> Vec<&str> {
        nodes.iter().map(|n| n.name.as_str()).collect()
    }

    #[test]
    fn provinces_come_from_the_data_package() {
        let provinces = gb2260_children(PROVINCE_ROOT).unwrap();
        assert!(provinces.len() >= 31, "{}", provinces.len());
        assert_eq!(provinces[0].code, "110000");
        assert_eq!(provinces[0].name, "北京市");
        assert!(names(&provinces).contains(&"广东省"));
        assert!(provinces.iter().all(|p| p.level == 1));
    }

    #[test]
    fn cities_and_districts_nest_by_code() {
        let cities = gb2260_children("440000").unwrap();
        assert!(names(&cities).contains(&"广州市"));
        assert!(names(&cities).contains(&"深圳市"));
        let districts = gb2260_children("440300").unwrap();
        assert!(names(&districts).contains(&"南山区"));
        assert!(
            districts
                .iter()
                .all(|d| d.parent_code == "440300" && d.level == 3)
        );
        assert!(gb2260_children("440305").unwrap().is_empty());
    }

    #[test]
    fn unknown_or_malformed_codes_have_no_children() {
        assert!(gb2260_children("990000").is_none());
        assert!(gb2260_children("abc").is_none());
        assert!(gb2260_children("11000").is_none());
    }
}
