//! Limits on guessing: counted before the hash check, locks per account and
//! per (address, account) that every way of signing in honours and that say
//! when to try again (the same for any name), and an address that is slowed
//! down rather than locked out.

use std::time::{Duration, Instant};

use futures::future::join_all;

use serde_json::json;

use crate::helpers::{PASSWORD, TestApp, envelope, spawn_app};

const DEMO_PHONE: &str = "13800000001";

/// The answer to a locked account: 4029, when to try again, Retry-After.
async fn assert_locked(app: &TestApp, username: &str, password: &str) {
    let response = app
        .http
        .post(format!("{}/api/v1/auth/login", app.base))
        .json(&json!({ "loginType": 1, "username": username, "password": password }))
        .send()
        .await
        .expect("login");
    let retry_after: u64 = response
        .headers()
        .get("retry-after")
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .expect("Retry-After");
    let (status, body) = envelope(response).await;
    assert_eq!((status, body["code"].as_u64()), (429, Some(4029)), "{body}");
    assert_eq!(
        body["msg"], "登录失败次数过多，账号已锁定，请 15 分钟后再试",
        "{body}"
    );
    assert!((840..=900).contains(&retry_after), "{retry_after}");
}

#[tokio::test]
async fn two_hundred_parallel_wrong_passwords_from_one_address_get_five_hash_checks_then_a_lock() {
    let app = spawn_app().await;

    let answers = join_all((0..200).map(|_| app.login("demo", "Wrong@12345"))).await;

    let checked = app
        .count("select count(*) from auth.login_log where principal = 'demo' and failure_reason = '密码错误'")
        .await;
    let locked = app
        .count("select count(*) from auth.login_log where principal = 'demo' and failure_reason = '尝试次数过多，已锁定'")
        .await;
    assert_eq!(
        (checked, locked),
        (5, 195),
        "exactly five reached the hash check"
    );
    let wrong = answers.iter().filter(|(status, _)| *status == 400).count();
    assert_eq!(wrong, 5, "the checked ones were told 账号或密码错误");

    // The right password is refused alike while locked, and told so.
    assert_locked(&app, "demo", PASSWORD).await;
    // An unknown name that hits the same counters is answered the same way.
    for _ in 0..5 {
        app.login("nobody-at-all", "Wrong@12345").await;
    }
    assert_locked(&app, "nobody-at-all", "Wrong@12345").await;
    assert_eq!(app.count("select count(*) from auth.session").await, 0);

    // Fifteen minutes later the lock is over.
    app.sql("update auth.sign_in_guard set locked_until = now() - interval '1 second'")
        .await;
    assert_eq!(app.login("demo", PASSWORD).await.0, 200);
}

#[tokio::test]
async fn ten_failures_from_anywhere_lock_the_account_everywhere() {
    let app = spawn_app().await;
    // Five failures from another address already (as from a second office).
    let demo = app
        .sql_text("select id::text from auth.account where username = 'demo'")
        .await;
    app.sql(&format!(
        "insert into auth.sign_in_guard (key, attempts, window_started_at) values ('account:{demo}', 5, now())"
    ))
    .await;
    for _ in 0..5 {
        assert_eq!(app.login("demo", "Wrong@12345").await.0, 400);
    }
    assert_locked(&app, "demo", PASSWORD).await;
}

#[tokio::test]
async fn a_success_clears_the_account_count() {
    let app = spawn_app().await;
    for _ in 0..4 {
        app.login("demo", "Wrong@12345").await;
    }
    assert_eq!(app.login("demo", PASSWORD).await.0, 200);
    for _ in 0..4 {
        app.login("demo", "Wrong@12345").await;
    }
    assert_eq!(
        app.login("demo", PASSWORD).await.0,
        200,
        "four failures after a success do not lock"
    );
}

#[tokio::test]
async fn fifty_wrong_passwords_for_one_account_do_not_stop_another_account_on_the_address() {
    let app = &spawn_app().await;
    // In parallel: the address slows down with every failure past its free ones.
    join_all((0..50).map(|_| app.login("demo", "Wrong@12345"))).await;

    let (status, body) = app.login("demo_ops", PASSWORD).await;
    assert_eq!(
        status, 200,
        "another account on the same address signs in: {body}"
    );
    assert_locked(app, "demo", PASSWORD).await;
}

#[tokio::test]
async fn an_address_guessing_many_names_is_slowed_down_not_locked_out() {
    let app = &spawn_app().await;
    join_all((0..30).map(|i| {
        let name = format!("ghost{i}");
        async move { app.login(&name, "Wrong@12345").await }
    }))
    .await;

    let started = Instant::now();
    let (status, body) = app.login("demo", PASSWORD).await;
    let waited = started.elapsed();
    assert_eq!(status, 200, "{body}");
    assert!(
        waited >= Duration::from_millis(1900),
        "31 attempts from one address wait the full delay, waited {waited:?}"
    );
}

#[tokio::test]
async fn sms_and_wecom_sign_in_honour_an_account_lock() {
    let app = spawn_app().await;
    for _ in 0..5 {
        app.login("demo", "Wrong@12345").await;
    }

    let code = app.fresh_code(DEMO_PHONE, "login").await;
    let (status, body) = app.login_sms(DEMO_PHONE, &code).await;
    assert_eq!(
        (status, body["msg"].as_str()),
        (429, Some("登录失败次数过多，账号已锁定，请 15 分钟后再试"))
    );

    let (info, cookie) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "zhangsan").await;
    let (status, body) = app.login_wecom(&callback, Some(&cookie)).await;
    assert_eq!((status, body["code"].as_u64()), (429, Some(4029)), "{body}");
    assert_eq!(
        body["msg"],
        "登录失败次数过多，账号已锁定，请 15 分钟后再试"
    );

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
