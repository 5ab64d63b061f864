//! The shared lookups at the edge (console spec §7): any session may ask,
//! none may not; the answers' shape (camelCase, `childs` left out when
//! empty, the virtual-organisation map) over the demo data; and each
//! enterprise sees only its own. Data scope is tested at the services.

use serde_json::Value;

use crate::helpers::spawn_app;

const LOOKUPS: [&str; 8] = [
    "/api/v1/serve-orgs",
    "/api/v1/serve-orgs/tree",
    "/api/v1/serve-areas",
    "/api/v1/orgs/companies",
    "/api/v1/virtual-orgs",
    "/api/v1/virtual-orgs/org-map",
    "/api/v1/portal-apps",
    "/api/v1/vehicle-brands",
];

fn names(body: &Value, key: &str) -> Vec<String> {
    body["data"]
        .as_array()
        .unwrap_or_else(|| panic!("no list in {body}"))
        .iter()
        .map(|o| o[key].as_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn the_lookups_answer_any_session_and_refuse_none() {
    let app = spawn_app().await;
    let ops = app.token("demo_ops").await;
    for path in LOOKUPS {
        let (status, body) = app.get(path, Some(&ops)).await;
        assert_eq!(status, 200, "{path}: {body}");
        let (status, body) = app.get(path, None).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (401, Some(1001)),
            "{path}: {body}"
        );
    }
    let (status, body) = app.get("/api/v1/serve-orgs?level=x", Some(&ops)).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
}

#[tokio::test]
async fn serve_organisations_companies_and_groupings_of_the_demo_enterprise() {
    let app = spawn_app().await;
    let admin = app.token("demo").await;

    let (_, tree) = app.get("/api/v1/serve-orgs/tree", Some(&admin)).await;
    let root = &tree["data"][0];
    assert_eq!(root["orgCode"], "A00");
    assert_eq!(root["areas"].as_array().unwrap().len(), 0, "{root}");
    assert_eq!(
        names(&serde_json::json!({ "data": root["childs"] }), "orgCode"),
        ["A01", "A02"]
    );
    let shanghai = &root["childs"][0]["childs"][0];
    assert_eq!(shanghai["name"], "上海运营中心");
    assert!(
        shanghai.get("childs").is_none(),
        "empty childs are left out: {shanghai}"
    );
    assert_eq!(shanghai["areas"][0]["cityCode"], "310000");
    assert_eq!(shanghai["areas"][0]["provinceName"], "上海市");

    let (_, level3) = app.get("/api/v1/serve-orgs?level=3", Some(&admin)).await;
    assert_eq!(
        names(&level3, "orgCode"),
        ["A0101", "A0102", "A0201", "A0202"]
    );
    assert!(level3["data"][0].get("childs").is_none());

    let (_, areas) = app.get("/api/v1/serve-areas", Some(&admin)).await;
    assert_eq!(
        names(&areas, "cityName"),
        ["上海市", "苏州市", "杭州市", "广州市", "深圳市", "东莞市"]
    );

    let (_, companies) = app.get("/api/v1/orgs/companies", Some(&admin)).await;
    assert_eq!(names(&companies, "orgCode"), ["A00", "A0101", "A0202"]);

    let (_, groups) = app.get("/api/v1/virtual-orgs", Some(&admin)).await;
    assert_eq!(names(&groups, "name"), ["一线城市专组", "长三角客户经理"]);
    let yangtze = groups["data"][1]["id"].as_str().unwrap().to_owned();
    let (_, map) = app.get("/api/v1/virtual-orgs/org-map", Some(&admin)).await;
    let below: Vec<&str> = map["data"]["downOrgIds"][&yangtze]
        .as_array()
        .unwrap_or_else(|| panic!("{map}"))
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(
        below,
        [
            app.org_a("A01").await,
            app.org_a("A0101").await,
            app.org_a("A0102").await
        ]
    );

    let (_, apps) = app
        .get("/api/v1/portal-apps", Some(&app.token("demo_ops").await))
        .await;
    assert_eq!(names(&apps, "path"), ["/carManagement"]);
    assert_eq!(apps["data"][0]["labelZh"], "车辆管理");
}

#[tokio::test]
async fn another_enterprise_sees_only_its_own_lookups() {
    let app = spawn_app().await;
    let other = app.token("demo2").await;
    let (_, areas) = app.get("/api/v1/serve-areas", Some(&other)).await;
    assert_eq!(names(&areas, "cityName"), ["北京市", "天津市"]);
    let (_, orgs) = app.get("/api/v1/serve-orgs", Some(&other)).await;
    assert!(
        names(&orgs, "orgCode").iter().all(|c| c.starts_with('B')),
        "{orgs}"
    );
    let (_, companies) = app.get("/api/v1/orgs/companies", Some(&other)).await;
    assert_eq!(names(&companies, "orgCode"), ["B00"]);
    let (_, groups) = app.get("/api/v1/virtual-orgs", Some(&other)).await;
    assert_eq!(names(&groups, "name"), ["华北冷链专组"]);
}
