//! Personal and enterprise sessions: choosing an enterprise and switching.

use serde_json::json;

use crate::helpers::{PASSWORD, spawn_app};

#[tokio::test]
async fn a_person_in_two_enterprises_gets_a_personal_session_and_chooses() {
    let app = spawn_app().await;
    let (status, body) = app.login("demo_multi", PASSWORD).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["sessionKind"], "personal");
    let personal = body["data"]["token"].as_str().unwrap().to_owned();

    let (status, me) = app.get("/api/v1/me", Some(&personal)).await;
    assert_eq!((status, me["code"].as_u64()), (401, Some(1001)));
    assert_eq!(me["msg"], "请先选择企业");

    let (status, list) = app.get("/api/v1/auth/enterprises", Some(&personal)).await;
    assert_eq!(status, 200, "{list}");
    let names: Vec<&str> = list["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["enterpriseName"].as_str().unwrap())
        .collect();
    assert_eq!(names.len(), 2);
    assert!(names.contains(&"演示物流有限公司") && names.contains(&"示例冷链科技有限公司"));
    assert!(
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["current"] == false)
    );
    let id_of = |name: &str| {
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["enterpriseName"] == name)
            .unwrap()["enterpriseId"]
            .as_str()
            .unwrap()
            .to_owned()
    };

    let (status, chosen) = app
        .post(
            "/api/v1/auth/select-enterprise",
            Some(&personal),
            json!({ "enterpriseId": id_of("示例冷链科技有限公司") }),
        )
        .await;
    assert_eq!(status, 200, "{chosen}");
    assert_eq!(chosen["data"]["sessionKind"], "enterprise");
    let in_b = chosen["data"]["token"].as_str().unwrap().to_owned();
    let (_, me) = app.get("/api/v1/me", Some(&in_b)).await;
    assert_eq!(me["data"]["enterpriseName"], "示例冷链科技有限公司");
    assert_eq!(app.get("/api/v1/system/roles", Some(&in_b)).await.0, 200);

    // Switching from the user menu: the same call with the enterprise token.
    let (_, listed) = app.get("/api/v1/auth/enterprises", Some(&in_b)).await;
    let current: Vec<&str> = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["current"] == true)
        .map(|e| e["enterpriseName"].as_str().unwrap())
        .collect();
    assert_eq!(current, ["示例冷链科技有限公司"]);
    let (_, switched) = app
        .post(
            "/api/v1/auth/select-enterprise",
            Some(&in_b),
            json!({ "enterpriseId": id_of("演示物流有限公司") }),
        )
        .await;
    let in_a = switched["data"]["token"].as_str().unwrap();
    let (_, me) = app.get("/api/v1/me", Some(in_a)).await;
    assert_eq!(me["data"]["enterpriseName"], "演示物流有限公司");
    assert_eq!(
        app.get("/api/v1/system/roles", Some(in_a)).await.0,
        403,
        "operations role in A"
    );

    // The personal session stays usable for choosing again.
    assert_eq!(
        app.get("/api/v1/auth/enterprises", Some(&personal)).await.0,
        200
    );
}

#[tokio::test]
async fn one_enterprise_selects_itself() {
    let app = spawn_app().await;
    let (_, body) = app.login("demo", PASSWORD).await;
    assert_eq!(body["data"]["sessionKind"], "enterprise");
    let token = body["data"]["token"].as_str().unwrap();
    let (_, list) = app.get("/api/v1/auth/enterprises", Some(token)).await;
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["data"][0]["current"], true);
}

#[tokio::test]
async fn an_enterprise_one_does_not_belong_to_is_not_found() {
    let app = spawn_app().await;
    let (_, body) = app.login("demo_multi", PASSWORD).await;
    let personal = body["data"]["token"].as_str().unwrap();
    let token_b = app.token("demo2").await;
    let (_, me_b) = app.get("/api/v1/enterprise", Some(&token_b)).await;
    let a_token = app.token("demo").await;
    let (_, me_a) = app.get("/api/v1/enterprise", Some(&a_token)).await;
    let demo2_only = me_b["data"]["id"].as_str().unwrap();
    assert_ne!(demo2_only, me_a["data"]["id"].as_str().unwrap());

    // demo (A only) asks for B.
    let (status, body) = app
        .post(
            "/api/v1/auth/select-enterprise",
            Some(&a_token),
            json!({ "enterpriseId": demo2_only }),
        )
        .await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));
    for bad in ["", "not-a-uuid", "00000000-0000-0000-0000-000000000000"] {
        let (status, _) = app
            .post(
                "/api/v1/auth/select-enterprise",
                Some(personal),
                json!({ "enterpriseId": bad }),
            )
            .await;
        assert!(status == 400 || status == 404, "{bad}: {status}");
    }
}

#[tokio::test]
async fn a_personal_session_can_log_out_and_personal_routes_need_a_session() {
    let app = spawn_app().await;
    let (_, body) = app.login("demo_multi", PASSWORD).await;
    let personal = body["data"]["token"].as_str().unwrap();
    let (status, _) = app
        .post("/api/v1/auth/logout", Some(personal), json!({}))
        .await;
    assert_eq!(status, 200);
    let (status, body) = app.get("/api/v1/auth/enterprises", Some(personal)).await;
    assert_eq!((status, body["code"].as_u64()), (401, Some(1001)));
    let (status, _) = app.get("/api/v1/auth/enterprises", None).await;
    assert_eq!(status, 401);
}
