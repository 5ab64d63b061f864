//! Areas: provinces, cities and districts of GB/T 2260 from the `gb2260`
//! data package, and the operator's regions and operating cities.

use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::org::v1 as pb;
use gb2260::Division;
use sqlx::{FromRow, PgPool};
use tonic::{Request, Response};

/// Parent code whose children are the provinces (spec §9).
pub const PROVINCE_ROOT: &str = "100000";
/// Operating regions (大区).
pub const REGIONAL_LIST: &str = "REGIONAL_LIST";
/// Operating cities, below a region.
pub const OPERATING_CITY: &str = "OPERATING_CITY";

fn node(division: &Division, parent_code: &str, level: i32) -> pb::AreaNode {
    pb::AreaNode {
        code: division.code.to_owned(),
        parent_code: parent_code.to_owned(),
        name: division.name.to_owned(),
        level,
        children: Vec::new(),
    }
}

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

#[derive(Debug, FromRow)]
struct OperatingAreaRow {
    code: String,
    parent_code: String,
    name: String,
}

/// Areas below `parent_code` (provinces for 100000 or empty), or, with
/// `type_code` REGIONAL_LIST / OPERATING_CITY, the operator's regions and
/// the operating cities of a region.
pub async fn list_areas(
    pool: &PgPool,
    request: Request<pb::ListAreasRequest>,
) -> Result<Response<pb::ListAreasResponse>, ServiceError> {
    grpc::caller(&request)?;
    let req = request.into_inner();
    let parent = req.parent_code.trim();
    let areas = match req.type_code.trim() {
        "" => gb2260_children(parent).ok_or_else(ServiceError::not_found)?,
        kind @ (REGIONAL_LIST | OPERATING_CITY) => {
            let level = if kind == REGIONAL_LIST { 1 } else { 2 };
            let rows: Vec<OperatingAreaRow> = sqlx::query_as(
                "select code, parent_code, name from operating_area \
                 where type_code = $1 and ($2 = '' or parent_code = $2) order by sort, code",
            )
            .bind(kind)
            .bind(parent)
            .fetch_all(pool)
            .await?;
            rows.into_iter()
                .map(|r| pb::AreaNode {
                    code: r.code,
                    parent_code: r.parent_code,
                    name: r.name,
                    level,
                    children: Vec::new(),
                })
                .collect()
        }
        _ => return Err(ServiceError::invalid("typeCode", "区域类型无效")),
    };
    Ok(Response::new(pb::ListAreasResponse { areas }))
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
