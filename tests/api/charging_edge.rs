//! The charging edge over the whole stack: opening from the energy popup
//! (the spec's text, 申请中, a second application refused, opened only by the
//! operator) and money moves that need an `Idempotency-Key` and move once
//! when replayed. The ledger's rules themselves are energy's tests.

use serde_json::{Value, json};

use crate::helpers::{TestApp, envelope, spawn_app};

/// What the console shows after a successful application (console spec §8).
const APPLIED: &str = "您的开通申请已经提交成功，工作人员将在3个工作日内与您联系，请保持电话畅通";

/// POSTs with an optional `Idempotency-Key`.
async fn post_keyed(
    app: &TestApp,
    path: &str,
    token: &str,
    key: Option<&str>,
    body: Value,
) -> (u16, Value) {
    let mut req = app
        .http
        .post(format!("{}{path}", app.base))
        .header("token", token)
        .json(&body);
    if let Some(key) = key {
        req = req.header("Idempotency-Key", key);
    }
    envelope(req.send().await.expect("request")).await
}

/// The main account and one active direct child, as the tree lists them.
async fn main_and_child(app: &TestApp, token: &str) -> (Value, Value) {
    let (status, accounts) = app.get("/api/v1/charging/accounts", Some(token)).await;
    assert_eq!(status, 200, "{accounts}");
    let accounts = accounts["data"].as_array().unwrap().clone();
    let main = accounts
        .iter()
        .find(|a| a["kind"] == "MAIN")
        .expect("main account")
        .clone();
    let child = accounts
        .iter()
        .find(|a| a["parentAccountId"] == main["id"] && a["status"] == "ACTIVE")
        .expect("a child account")
        .clone();
    (main, child)
}

async fn available(app: &TestApp, token: &str, id: &Value) -> i64 {
    let (status, body) = app
        .get(
            &format!("/api/v1/charging/accounts/{}", id.as_str().unwrap()),
            Some(token),
        )
        .await;
    assert_eq!(status, 200, "{body}");
    body["data"]["availableFen"].as_i64().unwrap()
}

#[tokio::test]
async fn an_allocation_needs_an_idempotency_key_and_its_replay_moves_the_money_once() {
    let app = spawn_app().await;
    // The demo enterprise's charging: opened, money down its tree (no cards without a fleet).
    fleetdesk_seed::energy(&app.common)
        .await
        .expect("seed energy");
    let token = app.token("demo").await;
    let (main, child) = main_and_child(&app, &token).await;
    let path = format!(
        "/api/v1/charging/accounts/{}/allocate",
        main["id"].as_str().unwrap()
    );
    let body = json!({ "targets": [{ "toAccountId": child["id"], "amountFen": 10_000 }], "remark": "边缘测试" });
    let before = (
        available(&app, &token, &main["id"]).await,
        available(&app, &token, &child["id"]).await,
    );

    let (status, refused) = post_keyed(&app, &path, &token, None, body.clone()).await;
    assert_eq!((status, refused["code"].as_u64()), (400, Some(4000)));
    assert_eq!(refused["data"]["fields"][0]["field"], "Idempotency-Key");

    let (status, first) = post_keyed(&app, &path, &token, Some("alloc-edge-1"), body.clone()).await;
    assert_eq!(status, 200, "{first}");
    assert_eq!(first["msg"], "分配成功");
    let (status, replay) = post_keyed(&app, &path, &token, Some("alloc-edge-1"), body).await;
    assert_eq!(status, 200, "{replay}");
    assert_eq!(
        replay["data"]["allocations"][0]["id"],
        first["data"]["allocations"][0]["id"]
    );
    assert_eq!(
        (
            available(&app, &token, &main["id"]).await,
            available(&app, &token, &child["id"]).await
        ),
        (before.0 - 10_000, before.1 + 10_000),
        "moved once"
    );

    let other =
        json!({ "targets": [{ "toAccountId": child["id"], "amountFen": 20_000 }], "remark": "" });
    let (status, conflict) = post_keyed(&app, &path, &token, Some("alloc-edge-1"), other).await;
    assert_eq!((status, conflict["code"].as_u64()), (409, Some(4009)));

    // A reclaim is a money move too.
    let reclaim = format!(
        "/api/v1/charging/accounts/{}/reclaim",
        child["id"].as_str().unwrap()
    );
    let (status, refused) = post_keyed(
        &app,
        &reclaim,
        &token,
        None,
        json!({ "amountFen": 100, "remark": "" }),
    )
    .await;
    assert_eq!((status, refused["code"].as_u64()), (400, Some(4000)));
}

#[tokio::test]
async fn an_enterprise_applies_once_and_is_opened_only_by_the_operator() {
    let app = spawn_app().await;
    let token = app.token("demo2").await;
    let (_, status) = app.get("/api/v1/charging/open-status", Some(&token)).await;
    assert_eq!(status["data"]["state"], "NOT_OPENED", "{status}");
    let (code, accounts) = app.get("/api/v1/charging/accounts", Some(&token)).await;
    assert_eq!(
        (code, accounts["code"].as_u64()),
        (409, Some(4009)),
        "{accounts}"
    );

    let (code, applied) = app
        .post(
            "/api/v1/charging/open-applications",
            Some(&token),
            json!({ "remark": "" }),
        )
        .await;
    assert_eq!(code, 200, "{applied}");
    assert_eq!(applied["msg"], APPLIED);
    let (code, again) = app
        .post(
            "/api/v1/charging/open-applications",
            Some(&token),
            json!({ "remark": "" }),
        )
        .await;
    assert_eq!((code, again["code"].as_u64()), (409, Some(4009)), "{again}");
    let (_, status) = app.get("/api/v1/charging/open-status", Some(&token)).await;
    assert_eq!(status["data"]["state"], "APPLYING");

    // The operator's decision (the development stand-in of its tools).
    let id = applied["data"]["id"].as_str().unwrap();
    let (code, approved) = app
        .post(
            &format!("/api/v1/dev/charging-open-applications/{id}/approve"),
            None,
            json!({ "creditLimitFen": 0 }),
        )
        .await;
    assert_eq!(code, 200, "{approved}");
    assert_eq!(approved["data"]["status"], "APPROVED");
    let (_, status) = app.get("/api/v1/charging/open-status", Some(&token)).await;
    assert_eq!(status["data"]["state"], "OPENED");
    let (code, accounts) = app.get("/api/v1/charging/accounts", Some(&token)).await;
    assert_eq!(code, 200, "{accounts}");
    assert!(
        accounts["data"]
            .as_array()
            .unwrap()
            .iter()
            .any(|a| a["kind"] == "MAIN"),
        "{accounts}"
    );
}
