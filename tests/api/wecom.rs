//! WeCom QR sign-in through the local stand-in, over the network: the state
//! is bound to the browser, lives 10 minutes and works once.

use base64::Engine as _;

use crate::helpers::{WeComCallback, spawn_app};

#[tokio::test]
async fn app_info_gives_a_fresh_128_bit_state_and_an_http_only_binding_cookie() {
    let app = spawn_app().await;
    let response = app
        .http
        .get(format!("{}/api/v1/auth/wecom/app-info", app.base))
        .send()
        .await
        .unwrap();
    let cookie = response.headers()["set-cookie"]
        .to_str()
        .unwrap()
        .to_owned();
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("Max-Age=600"),
        "{cookie}"
    );
    let (_, body) = crate::helpers::envelope(response).await;
    let info = &body["data"];
    assert_eq!(info["appid"], "wwdemo0000000001");
    assert_eq!(info["agentid"], "1000002");
    assert!(info["redirect_uri"].as_str().unwrap().ends_with("/login"));
    assert!(
        info["qrconnect_url"]
            .as_str()
            .unwrap()
            .starts_with(&app.wecom.base_url)
    );
    let state = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(info["state"].as_str().unwrap())
        .unwrap();
    assert_eq!(state.len(), 16);
    let (again, _) = app.wecom_app_info(None).await;
    assert_ne!(again["state"], info["state"]);
}

#[tokio::test]
async fn a_qr_scan_through_the_stand_in_signs_in_and_its_replay_is_refused() {
    let app = spawn_app().await;
    let (info, cookie) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "zhangsan").await;
    assert_eq!(callback.state, info["state"].as_str().unwrap());

    let (status, body) = app.login_wecom(&callback, Some(&cookie)).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["sessionKind"], "enterprise");
    let (_, me) = app.get("/api/v1/me", body["data"]["token"].as_str()).await;
    assert_eq!(me["data"]["userName"], "demo");

    let (status, body) = app.login_wecom(&callback, Some(&cookie)).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("二维码已失效，请刷新后重新扫码"))
    );
    assert_eq!(app.count("select count(*) from auth.session").await, 1);
}

#[tokio::test]
async fn a_state_from_another_browser_is_refused() {
    let app = spawn_app().await;
    let (info, _mine) = app.wecom_app_info(None).await;
    let (_, theirs) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "zhangsan").await;

    assert_eq!(app.login_wecom(&callback, Some(&theirs)).await.0, 400);
    assert_eq!(app.login_wecom(&callback, None).await.0, 400);
    assert_eq!(app.count("select count(*) from auth.session").await, 0);
}

#[tokio::test]
async fn an_expired_state_is_refused() {
    let app = spawn_app().await;
    let (info, cookie) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "zhangsan").await;
    app.sql("update auth.wecom_state set expires_at = now() - interval '1 second'")
        .await;

    assert_eq!(app.login_wecom(&callback, Some(&cookie)).await.0, 400);
    assert_eq!(app.count("select count(*) from auth.session").await, 0);
}

#[tokio::test]
async fn a_user_of_another_corp_is_refused() {
    let app = spawn_app().await;
    let (info, cookie) = app.wecom_app_info(None).await;
    // wangwu is enterprise B's member, in B's corp: not a member of the app's corp A.
    app.wecom
        .standin
        .register_code("code-from-corp-b", "wwdemo0000000002", "wangwu");
    let callback = WeComCallback {
        code: "code-from-corp-b".to_owned(),
        state: info["state"].as_str().unwrap().to_owned(),
    };

    let (status, body) = app.login_wecom(&callback, Some(&cookie)).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("该企业微信账号未开通本系统登录权限"))
    );
    assert_eq!(app.count("select count(*) from auth.session").await, 0);
}

#[tokio::test]
async fn a_wecom_user_without_an_account_is_refused() {
    let app = spawn_app().await;
    let (info, cookie) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "sunqi").await;
    assert_eq!(app.login_wecom(&callback, Some(&cookie)).await.0, 400);
    assert_eq!(app.count("select count(*) from auth.session").await, 0);
}

#[tokio::test]
async fn the_same_browser_may_hold_several_states() {
    let app = spawn_app().await;
    let (first, cookie) = app.wecom_app_info(None).await;
    let (second, same_cookie) = app.wecom_app_info(Some(&cookie)).await;
    assert_eq!(cookie, same_cookie, "the binding is kept");
    let callback = app.wecom_scan(&first, "lisi").await;
    assert_eq!(app.login_wecom(&callback, Some(&cookie)).await.0, 200);
    let callback = app.wecom_scan(&second, "zhaoliu").await;
    let (status, body) = app.login_wecom(&callback, Some(&cookie)).await;
    assert_eq!(status, 200);
    assert_eq!(
        body["data"]["sessionKind"], "personal",
        "zhaoliu is in two enterprises"
    );
}
