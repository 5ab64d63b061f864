//! Dictionaries, GB/T 2260 areas, regions and operating cities.

use crate::helpers::spawn_app;

#[tokio::test]
async fn a_dictionary_answers_its_entries_in_order() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, body) = app
        .get("/api/v1/dicts?type=%20APPROVAL_STATUS%20", Some(&token))
        .await;
    assert_eq!(status, 200, "{body}");
    let labels: Vec<&str> = body["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["label"].as_str().unwrap())
        .collect();
    assert_eq!(labels, ["待审批", "已通过", "已驳回", "已撤回"]);
    assert_eq!(body["data"][0]["value"], "1");
    assert_eq!(body["data"][0]["dictType"], "APPROVAL_STATUS");

    let (_, unknown) = app.get("/api/v1/dicts?type=NO_SUCH", Some(&token)).await;
    assert_eq!(unknown["data"].as_array().unwrap().len(), 0);
    let (status, body) = app.get("/api/v1/dicts?type=APPROVAL_STATUS", None).await;
    assert_eq!((status, body["code"].as_u64()), (401, Some(1001)));
}

#[tokio::test]
async fn areas_come_from_the_gb2260_data_package() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, provinces) = app.get("/api/v1/areas", Some(&token)).await;
    assert_eq!(status, 200, "{provinces}");
    let list = provinces["data"].as_array().unwrap();
    assert!(list.len() >= 31, "{}", list.len());
    assert_eq!(list[0]["code"], "110000");
    assert_eq!(list[0]["name"], "北京市");
    assert_eq!(list[0]["parentCode"], "100000");
    assert_eq!(list[0]["level"], 1);

    let (_, beijing) = app
        .get("/api/v1/areas?parentCode=110000", Some(&token))
        .await;
    let cities = beijing["data"].as_array().unwrap();
    assert!(cities.iter().any(|c| c["code"] == "110100"), "{beijing}");
    assert!(
        cities
            .iter()
            .all(|c| c["parentCode"] == "110000" && c["level"] == 2)
    );

    let (_, districts) = app
        .get("/api/v1/areas?parentCode=110100", Some(&token))
        .await;
    let names: Vec<&str> = districts["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["name"].as_str().unwrap())
        .collect();
    assert!(
        names.contains(&"东城区") && names.contains(&"海淀区"),
        "{names:?}"
    );

    let (_, guangdong) = app
        .get("/api/v1/areas?parentCode=440000", Some(&token))
        .await;
    assert!(guangdong.to_string().contains("深圳市"));

    let (status, body) = app
        .get("/api/v1/areas?parentCode=990000", Some(&token))
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));
}

#[tokio::test]
async fn regions_and_operating_cities_are_operator_data() {
    let app = spawn_app().await;
    let token = app.token("demo_ops").await;
    let (status, regions) = app.get("/api/v1/regions", Some(&token)).await;
    assert_eq!(status, 200, "{regions}");
    let names: Vec<&str> = regions["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["华东区域", "华南区域", "华北区域"]);
    assert_eq!(regions["data"][0]["id"], regions["data"][0]["code"]);

    let (_, cities) = app
        .get(
            "/api/v1/regions?typeCode=OPERATING_CITY&parentCode=R01",
            Some(&token),
        )
        .await;
    let names: Vec<&str> = cities["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["上海市", "杭州市", "苏州市"]);

    let (status, body) = app.get("/api/v1/regions?typeCode=NOPE", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)));
}
