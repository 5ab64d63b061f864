//! A production stack: SMS goes to the HTTP provider, development helpers
//! are closed, WeCom talks to the configured endpoints, and the development
//! SMS sender is refused.

use std::sync::{Arc, Mutex};

use base64::Engine as _;
use fleetdesk::{SignInConfig, Stack};
use fleetdesk_kit::Shutdown;
use fleetdesk_kit::config::{CommonConfig, Environment};
use fleetdesk_testkit::TestDb;
use serde_json::{Value, json};

use crate::helpers::{common_config, envelope, get_at};

type Outbox = Arc<Mutex<Vec<Value>>>;

/// A fake SMS provider on loopback that keeps what it is sent.
async fn sms_provider() -> (String, Outbox) {
    let outbox: Outbox = Arc::default();
    let keep = outbox.clone();
    let app = axum::Router::new().route(
        "/send",
        axum::routing::post(move |axum::Json(body): axum::Json<Value>| {
            let keep = keep.clone();
            async move {
                keep.lock().unwrap().push(body);
                "ok"
            }
        }),
    );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/send", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, outbox)
}

async fn production(db: &TestDb) -> CommonConfig {
    let mut common = common_config(db);
    fleetdesk::migrate(&common).await.expect("migrate");
    fleetdesk_seed::identity(&common).await.expect("seed");
    common.environment = Environment::Production;
    common.internal_signing_key = Some(base64::engine::general_purpose::STANDARD.encode([7u8; 32]));
    common
}

#[tokio::test]
async fn production_sends_sms_through_the_provider_and_closes_development_helpers() {
    fleetdesk_testkit::init_test_logs();
    let db = TestDb::migrated(&fleetdesk::SCHEMAS.each_ref()).await;
    let common = production(&db).await;
    let (provider_url, outbox) = sms_provider().await;
    // WeCom configured explicitly, here pointing at a stand-in the test runs.
    let standin_listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let standin_url = format!("http://{}", standin_listener.local_addr().unwrap());
    tokio::spawn(fleetdesk_wecom_standin::serve(
        standin_listener,
        fleetdesk::demo_wecom_standin("prod-secret"),
        std::future::pending(),
    ));
    let mut sign_in = SignInConfig::default();
    sign_in.sms.provider_url = Some(provider_url);
    sign_in.sms.provider_key = Some("provider-key".into());
    sign_in.sms.code_key = Some("a-production-code-key-of-32-chars!".into());
    sign_in.wecom.corp_id = Some("wwdemo0000000001".into());
    sign_in.wecom.secret = Some("prod-secret".into());
    sign_in.wecom.api_base = standin_url;
    sign_in.wecom.redirect_uri = Some("https://console.example/login".into());
    let shutdown = Shutdown::new();
    let stack = Stack::start(
        common,
        sign_in,
        "127.0.0.1:0",
        None,
        crate::helpers::object_dir(),
        shutdown.clone(),
    )
    .await
    .expect("production stack");
    assert!(
        stack.wecom.is_none(),
        "no stand-in of its own in production"
    );
    let base = format!("http://{}", stack.http_addr);
    tokio::spawn(stack.wait(shutdown.clone()));
    let http = reqwest::Client::new();

    let (status, body) = get_at(&http, &base, "/api/v1/dev/sms-outbox", None).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));
    // The operator's charging decisions are the operator's tools' alone.
    let approve = http
        .post(format!(
            "{base}/api/v1/dev/charging-open-applications/{}/approve",
            uuid::Uuid::new_v4()
        ))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    let (status, body) = envelope(approve).await;
    assert_eq!((status, body["code"].as_u64()), (404, Some(4004)));

    let sent = http
        .post(format!("{base}/api/v1/auth/sms-code"))
        .json(&json!({ "phone": "13800000001", "purpose": "login" }))
        .send()
        .await
        .unwrap();
    assert_eq!(envelope(sent).await.0, 200);
    let message = outbox
        .lock()
        .unwrap()
        .pop()
        .expect("the provider got the SMS");
    assert_eq!(message["phone"], "13800000001");
    let text = message["text"].as_str().unwrap();
    let code: String = text
        .split(|c: char| !c.is_ascii_digit())
        .find(|run| run.len() == 6)
        .unwrap()
        .to_owned();
    let login = http
        .post(format!("{base}/api/v1/auth/login"))
        .json(&json!({ "loginType": 2, "phone": "13800000001", "verifyCode": code }))
        .send()
        .await
        .unwrap();
    assert_eq!(envelope(login).await.0, 200);

    let info = http
        .get(format!("{base}/api/v1/auth/wecom/app-info"))
        .send()
        .await
        .unwrap();
    let cookie = info.headers()["set-cookie"].to_str().unwrap().to_owned();
    assert!(cookie.contains("; Secure"), "{cookie}");
    let (_, body) = envelope(info).await;
    assert_eq!(
        body["data"]["redirect_uri"],
        "https://console.example/login"
    );
    shutdown.trigger();
}

#[tokio::test]
async fn production_refuses_to_start_with_the_development_sms_sender() {
    let db = TestDb::migrated(&fleetdesk::SCHEMAS.each_ref()).await;
    let common = production(&db).await;
    let mut sign_in = SignInConfig::default();
    sign_in.sms.code_key = Some("a-production-code-key-of-32-chars!".into());
    let err = Stack::start(
        common.clone(),
        sign_in,
        "127.0.0.1:0",
        None,
        crate::helpers::object_dir(),
        Shutdown::new(),
    )
    .await
    .expect_err("no SMS provider");
    assert!(
        format!("{err:#}").contains("FLEETDESK_SMS_PROVIDER_URL"),
        "{err:#}"
    );

    let err = Stack::start(
        common,
        SignInConfig::default(),
        "127.0.0.1:0",
        None,
        crate::helpers::object_dir(),
        Shutdown::new(),
    )
    .await
    .expect_err("no SMS code key");
    assert!(
        format!("{err:#}").contains("FLEETDESK_SMS_CODE_KEY"),
        "{err:#}"
    );
}
