//! Changing and resetting a password ends the account's other sessions on
//! every gateway within a second.

use std::time::Duration;

use serde_json::json;

use crate::helpers::{PASSWORD, eventually, get_at, spawn_app, spawn_second_stack};

const DEMO_PHONE: &str = "13800000001";
const NEW_PASSWORD: &str = "Fresh@2026";

#[tokio::test]
async fn after_a_password_change_every_old_token_gets_1001_within_a_second() {
    let app = spawn_app().await;
    let (second, stop_second) = spawn_second_stack(&app).await;
    let current = app.token("demo").await;
    let old = [app.token("demo").await, app.token("demo").await];
    // Both gateways hold every session in their caches.
    for token in old.iter().chain([&current]) {
        for base in [&app.base, &second] {
            assert_eq!(
                get_at(&app.http, base, "/api/v1/me", Some(token)).await.0,
                200
            );
        }
    }

    let (status, body) = app
        .post(
            "/api/v1/auth/password",
            Some(&current),
            json!({ "oldPassword": PASSWORD, "newPassword": NEW_PASSWORD, "confirmNewPaw": NEW_PASSWORD }),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (200, Some("修改密码成功")),
        "{body}"
    );

    let ended = eventually(Duration::from_secs(1), async || {
        let mut all = true;
        for token in &old {
            for base in [&app.base, &second] {
                all &= get_at(&app.http, base, "/api/v1/me", Some(token)).await.1["code"] == 1001;
            }
        }
        all
    })
    .await;
    assert!(
        ended,
        "every old token ended on both gateways within a second"
    );
    for base in [&app.base, &second] {
        assert_eq!(
            get_at(&app.http, base, "/api/v1/me", Some(&current))
                .await
                .0,
            200
        );
    }
    stop_second.trigger();

    assert_eq!(app.login("demo", PASSWORD).await.0, 400);
    assert_eq!(app.login("demo", NEW_PASSWORD).await.0, 200);
}

#[tokio::test]
async fn the_change_form_speaks_the_specs_messages() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let cases = [
        (
            json!({ "newPassword": NEW_PASSWORD, "confirmNewPaw": NEW_PASSWORD }),
            "oldPassword",
            "请输入旧密码",
        ),
        (
            json!({ "oldPassword": PASSWORD, "newPassword": "short", "confirmNewPaw": "short" }),
            "newPassword",
            "长度在 8 到 20 个字符",
        ),
        (
            json!({ "oldPassword": PASSWORD, "newPassword": NEW_PASSWORD }),
            "confirmNewPaw",
            "请再次输入新密码",
        ),
        (
            json!({ "oldPassword": PASSWORD, "newPassword": NEW_PASSWORD, "confirmNewPaw": "Other@2026" }),
            "confirmNewPaw",
            "两次输入密码不一致!",
        ),
        (
            json!({ "oldPassword": "Wrong@12345", "newPassword": NEW_PASSWORD, "confirmNewPaw": NEW_PASSWORD }),
            "oldPassword",
            "旧密码错误",
        ),
    ];
    for (body, field, message) in cases {
        let (status, answer) = app.post("/api/v1/auth/password", Some(&token), body).await;
        assert_eq!(status, 400, "{answer}");
        assert_eq!(answer["data"]["fields"][0]["field"], field);
        assert_eq!(answer["data"]["fields"][0]["message"], message);
    }
    assert_eq!(app.login("demo", PASSWORD).await.0, 200, "nothing changed");
}

#[tokio::test]
async fn a_reset_by_phone_ends_every_session_and_the_new_password_works() {
    let app = spawn_app().await;
    let before = app.token("demo").await;
    assert_eq!(app.get("/api/v1/me", Some(&before)).await.0, 200);

    let code = app.fresh_code(DEMO_PHONE, "reset-password").await;
    let (status, body) = app
        .post(
            "/api/v1/auth/password/reset-by-phone",
            None,
            json!({ "phone": DEMO_PHONE, "verifyCode": code, "newPassword": NEW_PASSWORD }),
        )
        .await;
    assert_eq!(status, 200, "{body}");

    let ended = eventually(Duration::from_secs(1), async || {
        app.get("/api/v1/me", Some(&before)).await.1["code"] == 1001
    })
    .await;
    assert!(ended);
    assert_eq!(app.login("demo", NEW_PASSWORD).await.0, 200);
}

#[tokio::test]
async fn a_login_code_cannot_reset_a_password() {
    let app = spawn_app().await;
    let code = app.fresh_code(DEMO_PHONE, "login").await;
    let (status, body) = app
        .post(
            "/api/v1/auth/password/reset-by-phone",
            None,
            json!({ "phone": DEMO_PHONE, "verifyCode": code, "newPassword": NEW_PASSWORD }),
        )
        .await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("验证码错误或已失效"))
    );
    assert_eq!(app.login("demo", PASSWORD).await.0, 200);
}
