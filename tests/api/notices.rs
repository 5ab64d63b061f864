//! Notices: unread badge, list, detail and read marks.

use serde_json::json;

use crate::helpers::spawn_app;

#[tokio::test]
async fn reading_notices_lowers_the_unread_count() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (status, count) = app.get("/api/v1/notices/unread-count", Some(&token)).await;
    assert_eq!(status, 200, "{count}");
    // Three enterprise-wide notices; the fourth is addressed to demo_ops.
    assert_eq!(count["data"], 3);

    let (_, list) = app.get("/api/v1/notices?size=10", Some(&token)).await;
    assert_eq!(list["data"]["total"], 3);
    let first = list["data"]["list"][0].clone();
    assert_eq!(first["title"], "导出完成", "newest first: {list}");
    assert_eq!(first["read"], false);
    let id = first["id"].as_str().unwrap();

    let (status, detail) = app
        .get(&format!("/api/v1/notices/{id}"), Some(&token))
        .await;
    assert_eq!(status, 200);
    assert!(
        detail["data"]["content"]
            .as_str()
            .unwrap()
            .contains("导出记录")
    );

    let (status, marked) = app
        .post("/api/v1/notices/read", Some(&token), json!({ "ids": [id] }))
        .await;
    assert_eq!(status, 200, "{marked}");
    assert_eq!(marked["data"]["updated"], 1);
    let (_, count) = app.get("/api/v1/notices/unread-count", Some(&token)).await;
    assert_eq!(count["data"], 2);
    let (_, unread) = app.get("/api/v1/notices?read=false", Some(&token)).await;
    assert_eq!(unread["data"]["total"], 2);
    let (_, detail) = app
        .get(&format!("/api/v1/notices/{id}"), Some(&token))
        .await;
    assert_eq!(detail["data"]["read"], true);
    assert!(!detail["data"]["readTime"].as_str().unwrap().is_empty());

    let (_, all) = app
        .post("/api/v1/notices/read", Some(&token), json!({ "all": true }))
        .await;
    assert_eq!(all["data"]["updated"], 2);
    let (_, count) = app.get("/api/v1/notices/unread-count", Some(&token)).await;
    assert_eq!(count["data"], 0);
    // Reading is per person: demo_ops still has all four.
    let ops = app.token("demo_ops").await;
    let (_, count) = app.get("/api/v1/notices/unread-count", Some(&ops)).await;
    assert_eq!(count["data"], 4);
}

#[tokio::test]
async fn marking_nothing_is_a_validation_error() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (status, body) = app
        .post("/api/v1/notices/read", Some(&token), json!({}))
        .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)), "{body}");
}
