//! Sensitive data: reveal with its own permission, one audit row per reveal
//! in the same transaction, and no value without the audit row.

use serde_json::{Value, json};

use crate::helpers::{TestApp, spawn_app};
use crate::org_fixtures::{ids_of_a, member_a};

async fn reveal(app: &TestApp, token: &str, body: Value) -> (u16, Value) {
    app.post("/api/v1/sensitive/reveal", Some(token), body)
        .await
}

const LOGS: &str = "select count(*) from org.sensitive_view_log";

#[tokio::test]
async fn every_reveal_writes_one_audit_row() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let me = member_a(&app, "demo").await;
    const N: i64 = 3;
    for _ in 0..N {
        let (status, body) = reveal(
            &app,
            &token,
            json!({ "sensitiveType": 1, "subjectId": me, "pageUrl": "/systemSetting/userManagement", "sourceModule": "用户管理" }),
        )
        .await;
        assert_eq!(status, 200, "{body}");
        assert_eq!(body["data"]["value"], "13800000001");
        assert_eq!(body["data"]["needsConfirmation"], false);
    }
    assert_eq!(app.count(LOGS).await, N);

    let (status, logs) = app.get("/api/v1/sensitive/view-logs", Some(&token)).await;
    assert_eq!(status, 200, "{logs}");
    assert_eq!(logs["data"]["total"], N);
    let log = &logs["data"]["list"][0];
    assert_eq!(log["sensitiveType"], 1);
    assert_eq!(log["logContent"], "查看手机号：138****0001");
    assert_eq!(log["pageUrl"], "/systemSetting/userManagement");
    assert_eq!(log["sourceModule"], "用户管理");
    assert_eq!(log["viewerName"], "演示管理员");
    assert_eq!(log["subjectId"], me);
    assert!(!log["ip"].as_str().unwrap().is_empty());
    assert!(!log["viewTime"].as_str().unwrap().is_empty());
    assert!(
        !logs.to_string().contains("13800000001"),
        "the audit keeps no value"
    );
}

#[tokio::test]
async fn id_and_licence_images_are_flagged_for_confirmation() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let me = member_a(&app, "demo").await;
    let mut flagged = Vec::new();
    for t in 1..=10 {
        let (status, body) = reveal(
            &app,
            &token,
            json!({ "sensitiveType": t, "subjectKind": 1, "subjectId": me }),
        )
        .await;
        assert_eq!(status, 200, "type {t}: {body}");
        assert!(!body["data"]["value"].as_str().unwrap().is_empty());
        if body["data"]["needsConfirmation"] == true {
            flagged.push(t);
        }
        if t == 2 {
            assert_eq!(body["data"]["value"], "110101199001011234");
        }
        if t == 8 {
            assert_eq!(body["data"]["value"], "上海市浦东新区世纪大道100号");
        }
    }
    assert_eq!(flagged, [4, 5, 6, 7, 9, 10]);
    assert_eq!(app.count(LOGS).await, 10);
    let (status, body) = reveal(
        &app,
        &token,
        json!({ "sensitiveType": 11, "subjectId": me }),
    )
    .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)));
}

#[tokio::test]
async fn without_an_audit_row_no_value_is_returned() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let me = member_a(&app, "demo").await;
    app.sql("revoke insert on org.sensitive_view_log from fleetdesk_app")
        .await;
    let (status, body) = reveal(&app, &token, json!({ "sensitiveType": 1, "subjectId": me })).await;
    assert_eq!((status, body["code"].as_u64()), (500, Some(5000)), "{body}");
    assert!(body["data"].is_null(), "{body}");
    assert!(!body.to_string().contains("13800000001"));
    assert_eq!(app.count(LOGS).await, 0);

    // The same call succeeds once the audit can be written again.
    app.sql("grant insert on org.sensitive_view_log to fleetdesk_app")
        .await;
    let (status, body) = reveal(&app, &token, json!({ "sensitiveType": 1, "subjectId": me })).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(app.count(LOGS).await, 1);
}

#[tokio::test]
async fn revealing_needs_its_own_permission() {
    let app = spawn_app().await;
    let ops = app.token("demo_ops").await;
    let me = member_a(&app, "demo_ops").await;
    let (status, body) = reveal(&app, &ops, json!({ "sensitiveType": 1, "subjectId": me })).await;
    assert_eq!((status, body["code"].as_u64()), (403, Some(9999)));
    let (status, _) = app.get("/api/v1/sensitive/view-logs", Some(&ops)).await;
    assert_eq!(status, 403);
    assert_eq!(app.count(LOGS).await, 0);
}

#[tokio::test]
async fn approval_applicants_and_feedback_contacts_reveal_too() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let (_, list) = app.get("/api/v1/approvals?kind=3", Some(&token)).await;
    let approval = list["data"]["list"][0]["id"].as_str().unwrap().to_owned();
    let (status, body) = reveal(
        &app,
        &token,
        json!({ "sensitiveType": 2, "subjectKind": 2, "subjectId": approval }),
    )
    .await;
    assert_eq!(
        (status, body["code"].as_u64()),
        (400, Some(4000)),
        "an approval keeps a phone only"
    );
    let (status, body) = reveal(
        &app,
        &token,
        json!({ "sensitiveType": 1, "subjectKind": 2, "subjectId": approval }),
    )
    .await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["value"], "13800000004");

    let (_, sent) = app
        .post(
            "/api/v1/help/feedback",
            Some(&token),
            json!({ "content": "好用", "contact": "13700001111" }),
        )
        .await;
    let feedback = sent["data"]["id"].as_str().unwrap();
    let (_, body) = reveal(
        &app,
        &token,
        json!({ "sensitiveType": 1, "subjectKind": 3, "subjectId": feedback }),
    )
    .await;
    assert_eq!(body["data"]["value"], "13700001111");
    assert_eq!(app.count(LOGS).await, 2);
    assert_eq!(ids_of_a(&app, "sensitive_view_log").await.len(), 2);
}
