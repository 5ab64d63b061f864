//! The login log: every attempt of an enterprise's members, filterable,
//! paged, for holders of as:sys:loginfo only, never another tenant's.

use crate::helpers::{PASSWORD, spawn_app};

#[tokio::test]
async fn the_login_log_lists_the_enterprises_attempts_filtered_and_paged() {
    let app = spawn_app().await;
    app.login("demo", "Wrong@12345").await;
    app.login("demo", "Wrong@12345").await;
    app.login("demo2", PASSWORD).await;
    app.login("nobody", "Wrong@12345").await;
    let code = app.fresh_code("13800000002", "login").await;
    assert_eq!(app.login_sms("13800000002", &code).await.0, 200);
    let admin = app.token("demo").await;

    let (status, page) = app.get("/api/v1/auth/login-logs", Some(&admin)).await;
    assert_eq!(status, 200, "{page}");
    let list = page["data"]["list"].as_array().unwrap();
    assert_eq!(page["data"]["total"], 4, "{page}");
    let principals: Vec<&str> = list
        .iter()
        .map(|e| e["principal"].as_str().unwrap())
        .collect();
    assert_eq!(
        principals,
        ["demo", "138****0002", "demo", "demo"],
        "newest first"
    );
    assert_eq!(list[0]["succeeded"], true);
    assert_eq!(list[0]["loginType"], 1);
    assert_eq!(list[1]["loginType"], 2);
    assert_eq!(list[3]["message"], "密码错误");
    assert!(!list[0]["ip"].as_str().unwrap().is_empty());

    let total = |query: &'static str| {
        let admin = admin.clone();
        let app = &app;
        async move {
            let (status, page) = app
                .get(&format!("/api/v1/auth/login-logs?{query}"), Some(&admin))
                .await;
            assert_eq!(status, 200, "{query}: {page}");
            page["data"]["total"].as_i64().unwrap()
        }
    };
    assert_eq!(total("succeeded=false").await, 2);
    assert_eq!(total("loginType=2").await, 1);
    assert_eq!(total("principal=%200002").await, 1);
    assert_eq!(total("startTime=2999-01-01%2000:00:00").await, 0);
    assert_eq!(total("endTime=2000-01-01T00:00:00Z").await, 0);
    let (_, page) = app
        .get("/api/v1/auth/login-logs?page=2&size=5", Some(&admin))
        .await;
    assert_eq!(page["data"]["list"].as_array().unwrap().len(), 0);
    assert_eq!(page["data"]["total"], 4);
    let (status, _) = app
        .get("/api/v1/auth/login-logs?loginType=9", Some(&admin))
        .await;
    assert_eq!(status, 400);

    // Enterprise B sees its own member's attempt only.
    let admin_b = app.token("demo2").await;
    let (_, page_b) = app.get("/api/v1/auth/login-logs", Some(&admin_b)).await;
    let principals_b: Vec<&str> = page_b["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["principal"].as_str().unwrap())
        .collect();
    assert_eq!(principals_b, ["demo2", "demo2"]);
    assert_eq!(page_b["data"]["total"], 2);
}

#[tokio::test]
async fn a_person_in_two_enterprises_appears_in_both_logs() {
    let app = spawn_app().await;
    app.login("demo_multi", PASSWORD).await;
    for admin in ["demo", "demo2"] {
        let token = app.token(admin).await;
        let (_, page) = app
            .get("/api/v1/auth/login-logs?principal=demo_multi", Some(&token))
            .await;
        assert_eq!(page["data"]["total"], 1, "{admin}");
    }
}

#[tokio::test]
async fn the_login_log_needs_its_permission() {
    let app = spawn_app().await;
    let ops = app.token("demo_ops").await;
    let (status, body) = app.get("/api/v1/auth/login-logs", Some(&ops)).await;
    assert_eq!((status, body["code"].as_u64()), (403, Some(9999)));
}
