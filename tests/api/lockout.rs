//! Limits on guessing: counted before the hash check, locks that every way of
//! signing in honours, and the same answer whatever the reason.

use std::time::{Duration, Instant};

use futures::future::join_all;

use crate::helpers::{PASSWORD, spawn_app};

const DEMO_PHONE: &str = "13800000001";

#[tokio::test]
async fn two_hundred_parallel_wrong_passwords_get_exactly_ten_hash_checks_then_a_lock() {
    let app = spawn_app().await;

    let answers = join_all((0..200).map(|_| app.login("demo", "Wrong@12345"))).await;

    let wrong = app.login("nobody-at-all", "Wrong@12345").await;
    for answer in &answers {
        assert_eq!(answer, &wrong, "every refusal looks the same");
    }
    let checked = app
        .count("select count(*) from auth.login_log where principal = 'demo' and failure_reason = '密码错误'")
        .await;
    let locked = app
        .count("select count(*) from auth.login_log where principal = 'demo' and failure_reason = '尝试次数过多，已锁定'")
        .await;
    assert_eq!(
        (checked, locked),
        (10, 190),
        "exactly ten reached the hash check"
    );

    // Only the account's lock stands now; the right password is refused alike.
    app.sql("delete from auth.sign_in_guard where key like 'ip:%'")
        .await;
    let right_while_locked = app.login("demo", PASSWORD).await;
    assert_eq!(right_while_locked, wrong);
    assert_eq!(app.count("select count(*) from auth.session").await, 0);

    // Fifteen minutes later the lock is over.
    app.sql("update auth.sign_in_guard set locked_until = now() - interval '1 second'")
        .await;
    assert_eq!(app.login("demo", PASSWORD).await.0, 200);
}

#[tokio::test]
async fn a_success_clears_the_account_count() {
    let app = spawn_app().await;
    for _ in 0..9 {
        app.login("demo", "Wrong@12345").await;
    }
    assert_eq!(app.login("demo", PASSWORD).await.0, 200);
    for _ in 0..9 {
        app.login("demo", "Wrong@12345").await;
    }
    assert_eq!(
        app.login("demo", PASSWORD).await.0,
        200,
        "nine failures after a success do not lock"
    );
}

#[tokio::test]
async fn fifty_failures_from_one_address_lock_the_address() {
    let app = &spawn_app().await;
    join_all((0..50).map(|i| {
        let name = format!("ghost{i}");
        async move { app.login(&name, "Wrong@12345").await }
    }))
    .await;

    let (status, body) = app.login("demo", PASSWORD).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("账号或密码错误"))
    );

    app.sql("delete from auth.sign_in_guard where key like 'ip:%'")
        .await;
    assert_eq!(app.login("demo", PASSWORD).await.0, 200);
}

#[tokio::test]
async fn sms_and_wecom_sign_in_honour_an_account_lock() {
    let app = spawn_app().await;
    for _ in 0..10 {
        app.login("demo", "Wrong@12345").await;
    }

    let code = app.fresh_code(DEMO_PHONE, "login").await;
    let (status, body) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (400, Some("验证码错误或已失效"))
    );

    let (info, cookie) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "zhangsan").await;
    let (status, body) = app.login_wecom(&callback, Some(&cookie)).await;
    assert_eq!((status, body["code"].as_u64()), (429, Some(4029)), "{body}");

    assert_eq!(app.count("select count(*) from auth.session").await, 0);
}

#[tokio::test]
async fn a_login_storm_does_not_starve_other_routes() {
    let app = &spawn_app().await;
    let token = app.token("demo").await;
    assert_eq!(app.get("/api/v1/me", Some(&token)).await.0, 200);

    let storm = join_all((0..60).map(|i| {
        let name = format!("storm{i}");
        async move { app.login(&name, "Wrong@12345").await }
    }));
    let probe = async {
        let mut slowest = Duration::ZERO;
        for _ in 0..10 {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let started = Instant::now();
            assert_eq!(app.get("/api/v1/me", Some(&token)).await.0, 200);
            slowest = slowest.max(started.elapsed());
        }
        slowest
    };
    let (_, slowest) = tokio::join!(storm, probe);
    assert!(
        slowest < Duration::from_secs(1),
        "slowest /me took {slowest:?}"
    );
}
