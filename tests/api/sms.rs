//! Phone + SMS code: sending limits, single use, expiry, wrong entries.

use futures::future::join_all;
use serde_json::json;

use crate::helpers::spawn_app;

const DEMO_PHONE: &str = "13800000001";

#[tokio::test]
async fn a_phone_signs_in_with_the_code_from_the_development_sender() {
    let app = spawn_app().await;
    let (status, body, _) = app.send_code(DEMO_PHONE, "login").await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["resendAfterSeconds"], 60);
    let code = app.sms_outbox(DEMO_PHONE).await.remove(0);

    let (status, body) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(body["data"]["sessionKind"], "enterprise");
    let token = body["data"]["token"].as_str().unwrap();
    let (_, me) = app.get("/api/v1/me", Some(token)).await;
    assert_eq!(me["data"]["userName"], "demo");

    let (status, _) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(status, 400, "a code works once");
    assert_eq!(
        app.count("select count(*) from auth.sms_code where length(code_hmac) = 32")
            .await,
        1,
        "only a 32-byte HMAC of the code is stored"
    );
}

#[tokio::test]
async fn ten_parallel_submissions_of_the_right_code_open_exactly_one_session() {
    let app = spawn_app().await;
    let code = app.fresh_code(DEMO_PHONE, "login").await;

    let answers = join_all((0..10).map(|_| app.login_sms(DEMO_PHONE, &code))).await;

    let accepted = answers.iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(accepted, 1, "{answers:?}");
    assert_eq!(app.count("select count(*) from auth.session").await, 1);
}

#[tokio::test]
async fn a_code_is_refused_after_five_minutes() {
    let app = spawn_app().await;
    let code = app.fresh_code(DEMO_PHONE, "login").await;
    app.sql(
        "update auth.sms_code set created_at = created_at - interval '301 seconds', \
         expires_at = expires_at - interval '301 seconds'",
    )
    .await;
    let (status, body) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("验证码错误或已失效"))
    );

    // Just inside the five minutes it still works.
    app.sql("delete from auth.sms_send").await;
    let code = app.fresh_code(DEMO_PHONE, "login").await;
    app.sql(
        "update auth.sms_code set created_at = created_at - interval '299 seconds', \
         expires_at = expires_at - interval '299 seconds' where spent_at is null",
    )
    .await;
    assert_eq!(app.login_sms(DEMO_PHONE, &code).await.0, 200);
    assert_eq!(app.count("select count(*) from auth.session").await, 1);
}

#[tokio::test]
async fn the_sixth_try_after_five_wrong_ones_is_refused_even_with_the_right_code() {
    let app = spawn_app().await;
    let code = app.fresh_code(DEMO_PHONE, "login").await;
    let wrong = if code == "000000" { "111111" } else { "000000" };
    for _ in 0..5 {
        assert_eq!(app.login_sms(DEMO_PHONE, wrong).await.0, 400);
    }
    // Five failures from one address lock the account for it...
    let (status, body) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (429, Some("登录失败次数过多，账号已锁定，请 15 分钟后再试"))
    );
    // ...and, lock or not, the code itself is spent.
    app.sql("delete from auth.sign_in_guard").await;
    let (status, body) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("验证码错误或已失效"))
    );
    assert_eq!(app.count("select count(*) from auth.session").await, 0);
}

#[tokio::test]
async fn a_second_code_within_sixty_seconds_gets_4029_with_the_wait() {
    let app = spawn_app().await;
    assert_eq!(app.send_code(DEMO_PHONE, "login").await.0, 200);
    let (status, body, retry_after) = app.send_code(DEMO_PHONE, "login").await;
    assert_eq!((status, body["code"].as_u64()), (429, Some(4029)), "{body}");
    let wait = retry_after.expect("Retry-After");
    assert!((1..=60).contains(&wait), "{wait}");
    assert_eq!(app.sms_outbox(DEMO_PHONE).await.len(), 1);
}

#[tokio::test]
async fn a_sixth_code_in_an_hour_gets_4029() {
    let app = spawn_app().await;
    for _ in 0..5 {
        assert_eq!(app.send_code(DEMO_PHONE, "login").await.0, 200);
        app.sql("update auth.sms_send set sent_at = sent_at - interval '61 seconds'")
            .await;
    }
    let (status, _, retry_after) = app.send_code(DEMO_PHONE, "login").await;
    assert_eq!(status, 429);
    assert!(retry_after.unwrap() > 60);
}

#[tokio::test]
async fn the_eleventh_code_in_a_day_gets_4029_and_no_sms_is_sent() {
    let app = spawn_app().await;
    for _ in 0..10 {
        let (status, body, _) = app.send_code(DEMO_PHONE, "login").await;
        assert_eq!(status, 200, "{body}");
        // Each send an hour and a minute earlier: no resend or hourly limit applies.
        app.sql("update auth.sms_send set sent_at = sent_at - interval '61 minutes'")
            .await;
    }
    let (status, body, retry_after) = app.send_code(DEMO_PHONE, "login").await;
    assert_eq!((status, body["code"].as_u64()), (429, Some(4029)), "{body}");
    assert!(retry_after.unwrap() > 3600, "{retry_after:?}");
    assert_eq!(
        app.sms_outbox(DEMO_PHONE).await.len(),
        10,
        "no eleventh SMS"
    );
}

#[tokio::test]
async fn one_address_gets_twenty_codes_an_hour() {
    let app = spawn_app().await;
    for i in 0..20 {
        let phone = format!("139000000{i:02}");
        assert_eq!(app.send_code(&phone, "login").await.0, 200, "{phone}");
    }
    let (status, _, retry_after) = app.send_code("13900000099", "login").await;
    assert_eq!(status, 429);
    assert!(retry_after.is_some());
}

#[tokio::test]
async fn an_unknown_phone_gets_the_same_answer_and_no_sms() {
    let app = spawn_app().await;
    let (status, body, _) = app.send_code("13999999999", "login").await;
    assert_eq!(status, 200);
    assert_eq!(body["data"]["resendAfterSeconds"], 60);
    assert!(app.sms_outbox("13999999999").await.is_empty());
    let unknown = app.login_sms("13999999999", "123456").await;
    let wrong_known = app.login_sms(DEMO_PHONE, "123456").await;
    assert_eq!(unknown, wrong_known);
}

#[tokio::test]
async fn a_code_is_bound_to_its_purpose() {
    let app = spawn_app().await;
    let code = app.fresh_code(DEMO_PHONE, "reset-password").await;
    assert_eq!(app.login_sms(DEMO_PHONE, &code).await.0, 400);
}

#[tokio::test]
async fn phone_purpose_and_code_are_validated() {
    let app = spawn_app().await;
    let (status, body, _) = app.send_code("2380000000", "login").await;
    assert_eq!(status, 400);
    assert_eq!(body["data"]["fields"][0]["field"], "phone");
    assert_eq!(body["data"]["fields"][0]["message"], "请输入正确的手机号");
    let (_, body, _) = app.send_code(" ", "login").await;
    assert_eq!(body["data"]["fields"][0]["message"], "请输入手机号");
    let (_, body, _) = app.send_code(DEMO_PHONE, "other").await;
    assert_eq!(body["data"]["fields"][0]["field"], "purpose");
    let (_, body) = app
        .post(
            "/api/v1/auth/login",
            None,
            json!({ "loginType": 2, "phone": DEMO_PHONE, "verifyCode": " " }),
        )
        .await;
    assert_eq!(body["data"]["fields"][0]["message"], "请输入验证码");
}
