use serde_json::json;

use crate::helpers::{PASSWORD, spawn_app};

#[tokio::test]
async fn sign_in_returns_a_token_that_me_accepts() {
    let app = spawn_app().await;
    let (status, body) = app.login("demo", PASSWORD).await;
    assert_eq!(status, 200);
    assert_eq!(body["code"], 200);
    assert_eq!(body["data"]["sessionKind"], "enterprise");
    let token = body["data"]["token"].as_str().unwrap();
    assert!(token.len() >= 43, "256-bit token");

    let (status, me) = app.get("/api/v1/me", Some(token)).await;
    assert_eq!(status, 200, "{me}");
    let me = &me["data"];
    assert_eq!(me["userName"], "demo");
    assert_eq!(me["name"], "演示管理员");
    assert_eq!(me["enterpriseName"], "演示物流有限公司");
    assert!(!me["roles"].as_array().unwrap().is_empty());
    let permissions: Vec<&str> = me["permissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["permissionValue"].as_str().unwrap())
        .collect();
    assert!(permissions.contains(&"oss:pc:system:settings"));
    assert!(permissions.contains(&"as:sys:role:getList"));
}

#[tokio::test]
async fn the_bearer_header_works_like_the_token_header() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let response = app
        .http
        .get(format!("{}/api/v1/me", app.base))
        .bearer_auth(&token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
}

#[tokio::test]
async fn a_wrong_password_is_refused_with_a_plain_message() {
    let app = spawn_app().await;
    let (status, body) = app.login("demo", "Demo@54321").await;
    assert_eq!(status, 400);
    assert_eq!(body["code"], 4000);
    assert_eq!(body["msg"], "账号或密码错误");
}

#[tokio::test]
async fn an_unknown_account_answers_exactly_like_a_wrong_password() {
    let app = spawn_app().await;
    let wrong = app.login("demo", "Demo@54321").await;
    let unknown = app.login("nobody-here", "Demo@54321").await;
    assert_eq!(wrong, unknown);
}

#[tokio::test]
async fn sign_in_inputs_are_trimmed_and_required() {
    let app = spawn_app().await;
    let (status, _) = app.login("  demo  ", PASSWORD).await;
    assert_eq!(status, 200, "surrounding spaces are trimmed");

    let (status, body) = app
        .post(
            "/api/v1/auth/login",
            None,
            json!({ "loginType": 1, "username": "   ", "password": "x" }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)));
    assert_eq!(body["data"]["fields"][0]["field"], "username");
    assert_eq!(body["data"]["fields"][0]["message"], "请输入账号");

    let (_, body) = app
        .post(
            "/api/v1/auth/login",
            None,
            json!({ "loginType": 1, "username": "demo" }),
        )
        .await;
    assert_eq!(body["data"]["fields"][0]["message"], "请输入密码");
}

#[tokio::test]
async fn malformed_bodies_get_4000_and_unknown_api_paths_4004() {
    let app = spawn_app().await;
    let response = app
        .http
        .post(format!("{}/api/v1/auth/login", app.base))
        .header("content-type", "application/json")
        .body("{not json")
        .send()
        .await
        .unwrap();
    let (status, body) = crate::helpers::envelope(response).await;
    assert_eq!((status, body["code"].as_u64()), (400, Some(4000)));

    let big = "x".repeat(3 * 1024 * 1024);
    let response = app
        .http
        .post(format!("{}/api/v1/auth/login", app.base))
        .body(big)
        .send()
        .await
        .unwrap();
    let (status, body) = crate::helpers::envelope(response).await;
    assert_eq!(
        (status, body["code"].as_u64()),
        (400, Some(4000)),
        "over the body limit"
    );

    let (status, body) = app.get("/api/v1/no/such/thing", None).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));
}

#[tokio::test]
async fn the_openapi_document_declares_access_for_every_route() {
    let app = spawn_app().await;
    let doc: serde_json::Value = app
        .http
        .get(format!("{}/api/openapi.json", app.base))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(doc["openapi"].as_str().unwrap().starts_with("3.1"));
    let paths = doc["paths"].as_object().unwrap();
    assert!(paths.contains_key("/api/v1/auth/login") && paths.contains_key("/api/v1/me"));
    for (path, item) in paths {
        for (method, op) in item.as_object().unwrap() {
            assert!(
                op.get("security").is_some(),
                "{method} {path} has no access decision"
            );
        }
    }
    fleetdesk_gateway::access::AccessTable::from_openapi(&fleetdesk_gateway::api().1)
        .expect("every route declared");
}

#[tokio::test]
async fn health_readiness_and_metrics_answer() {
    let app = spawn_app().await;
    let get = |p: &str| app.http.get(format!("{}{p}", app.base)).send();
    assert_eq!(get("/healthz").await.unwrap().status(), 200);
    let ready = crate::helpers::eventually(std::time::Duration::from_secs(5), async || {
        get("/readyz").await.unwrap().status() == 200
    })
    .await;
    assert!(ready, "all upstreams serving");
    app.login("demo", PASSWORD).await;
    let metrics = get("/metrics").await.unwrap().text().await.unwrap();
    assert!(metrics.contains("http_requests_total"), "{metrics}");
    assert!(metrics.contains("route=\"/api/v1/auth/login\""));
}
