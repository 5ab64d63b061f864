//! The rules of serve organisations: which units a lookup shows, and the
//! cities of several units, each once. Pure.

use std::collections::{BTreeMap, HashMap, HashSet};

use uuid::Uuid;

/// A city an organisation serves, named after GB/T 2260.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct City {
    pub province_code: String,
    pub province_name: String,
    pub code: String,
    pub name: String,
}

impl City {
    /// A stored city code with its names; `None` for a code GB/T 2260 does
    /// not know or that is not a province-level or prefecture-level code.
    /// A municipality (北京市) serves under its own province-level code.
    pub fn of_code(code: &str) -> Option<City> {
        if code.len() != 6 || !code.bytes().all(|b| b.is_ascii_digit()) || !code.ends_with("00") {
            return None;
        }
        let city = gb2260::Division::get(code)?;
        let province = gb2260::Division::get(&format!("{}0000", &code[..2]))?;
        Some(City {
            province_code: province.code.to_owned(),
            province_name: province.name.to_owned(),
            code: city.code.to_owned(),
            name: city.name.to_owned(),
        })
    }
}

/// At most this many cities per organisation: every prefecture of China fits.
pub const MAX_SERVE_CITIES: usize = 400;

/// The cities an administrator sets, checked: each a city GB/T 2260 knows,
/// a repeated code counted once, the order kept. The error names the first
/// code refused.
pub fn serve_cities(codes: &[String]) -> Result<Vec<City>, String> {
    let mut seen = HashSet::new();
    let mut cities = Vec::new();
    for code in codes.iter().map(|c| c.trim()).filter(|c| seen.insert(*c)) {
        cities.push(City::of_code(code).ok_or_else(|| code.to_owned())?);
    }
    Ok(cities)
}

/// The units a tree shows: every serving unit and, so the tree stays whole,
/// each of its ancestors among `units` ((id, parent) pairs, all reached).
pub fn with_ancestors(units: &[(Uuid, Option<Uuid>)], serving: &HashSet<Uuid>) -> HashSet<Uuid> {
    let parent: HashMap<Uuid, Option<Uuid>> = units.iter().copied().collect();
    let mut keep = HashSet::new();
    for (id, _) in units.iter().filter(|(id, _)| serving.contains(id)) {
        let mut at = Some(*id);
        while let Some(unit) = at.filter(|u| parent.contains_key(u)) {
            if !keep.insert(unit) {
                break;
            }
            at = parent[&unit];
        }
    }
    keep
}

/// The cities of several units, each once, by province code then city code.
pub fn distinct<'a>(cities: impl IntoIterator<Item = &'a City>) -> Vec<City> {
    let unique: BTreeMap<(&str, &str), &City> = cities
        .into_iter()
        .map(|c| ((c.province_code.as_str(), c.code.as_str()), c))
        .collect();
    unique.into_values().cloned().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(n: u128) -> Uuid {
        Uuid::from_u128(n)
    }

    #[test]
    fn a_city_code_names_its_province_and_a_municipality_serves_under_its_own_code() {
        let shenzhen = City::of_code("440300").unwrap();
        assert_eq!(
            (shenzhen.province_name.as_str(), shenzhen.name.as_str()),
            ("广东省", "深圳市")
        );
        let beijing = City::of_code("110000").unwrap();
        assert_eq!(
            (beijing.province_code.as_str(), beijing.name.as_str()),
            ("110000", "北京市")
        );
        assert!(
            City::of_code("440305").is_none(),
            "a district is not a city"
        );
        assert!(City::of_code("990000").is_none());
        assert!(City::of_code("4403").is_none());
    }

    #[test]
    fn set_cities_are_known_cities_each_once_in_the_order_given() {
        let codes = ["440300", "110000", " 440300 "].map(String::from);
        let names: Vec<String> = serve_cities(&codes)
            .unwrap()
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["深圳市", "北京市"]);
        let refused = ["440100", "440305"].map(String::from);
        assert_eq!(serve_cities(&refused), Err("440305".to_owned()));
        assert_eq!(serve_cities(&[]), Ok(Vec::new()));
    }

    #[test]
    fn a_tree_keeps_the_ancestors_of_serving_units_and_drops_the_rest() {
        // 1 ─┬─ 2 ── 4 (serves)
        //    └─ 3
        let units = [
            (u(1), None),
            (u(2), Some(u(1))),
            (u(3), Some(u(1))),
            (u(4), Some(u(2))),
        ];
        let keep = with_ancestors(&units, &HashSet::from([u(4)]));
        assert_eq!(keep, HashSet::from([u(1), u(2), u(4)]));
        // An ancestor outside the reach is not in `units`: the path stops there.
        let keep = with_ancestors(&units[1..], &HashSet::from([u(4)]));
        assert_eq!(keep, HashSet::from([u(2), u(4)]));
    }

    #[test]
    fn cities_of_several_units_come_once_in_code_order() {
        let gz = City::of_code("440100").unwrap();
        let sz = City::of_code("440300").unwrap();
        let bj = City::of_code("110000").unwrap();
        let names: Vec<String> = distinct([&sz, &gz, &bj, &sz])
            .into_iter()
            .map(|c| c.name)
            .collect();
        assert_eq!(names, ["北京市", "广州市", "深圳市"]);
    }
}
