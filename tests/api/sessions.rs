use std::time::Duration;

use crate::helpers::{eventually, get_at, spawn_app, spawn_second_stack};

#[tokio::test]
async fn no_token_or_an_unknown_token_gives_1001() {
    let app = spawn_app().await;
    for token in [None, Some("not-a-real-token")] {
        let (status, body) = app.get("/api/v1/me", token).await;
        assert_eq!(
            (status, body["code"].as_u64()),
            (401, Some(1001)),
            "{token:?}"
        );
    }
}

#[tokio::test]
async fn an_expired_token_gives_1001() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    app.sql("update auth.session set expires_at = now() - interval '1 second'")
        .await;
    let (status, body) = app.get("/api/v1/me", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (401, Some(1001)));
}

#[tokio::test]
async fn sessions_last_thirty_days() {
    let app = spawn_app().await;
    let (_, body) = app.login("demo", crate::helpers::PASSWORD).await;
    let expires = chrono_like_days(body["data"]["expireTime"].as_str().unwrap());
    assert!((29.9..=30.1).contains(&expires), "{expires} days");
}

/// Days from now until an RFC 3339 UTC time.
fn chrono_like_days(rfc3339: &str) -> f64 {
    let parsed = sqlx::types::chrono::DateTime::parse_from_rfc3339(rfc3339).unwrap();
    (parsed.timestamp() - sqlx::types::chrono::Utc::now().timestamp()) as f64 / 86_400.0
}

#[tokio::test]
async fn a_logged_out_token_gives_1001_and_other_sessions_live_on() {
    let app = spawn_app().await;
    let token = app.token("demo").await;
    let other = app.token("demo").await;
    assert_eq!(app.get("/api/v1/me", Some(&token)).await.0, 200);

    let (status, _) = app
        .post("/api/v1/auth/logout", Some(&token), serde_json::json!({}))
        .await;
    assert_eq!(status, 200);
    let (status, body) = app.get("/api/v1/me", Some(&token)).await;
    assert_eq!((status, body["code"].as_u64()), (401, Some(1001)));
    assert_eq!(app.get("/api/v1/me", Some(&other)).await.0, 200);
    let (status, _) = app
        .post("/api/v1/auth/logout", Some(&token), serde_json::json!({}))
        .await;
    assert_eq!(status, 401, "a second logout has nothing to end");
}

#[tokio::test]
async fn logout_through_one_gateway_ends_the_session_cached_by_another_within_a_second() {
    let app = spawn_app().await;
    let (second, stop_second) = spawn_second_stack(&app).await;
    let token = app.token("demo").await;
    // The second gateway resolves and caches the session.
    assert_eq!(
        get_at(&app.http, &second, "/api/v1/me", Some(&token))
            .await
            .0,
        200
    );

    app.post("/api/v1/auth/logout", Some(&token), serde_json::json!({}))
        .await;
    let ended = eventually(Duration::from_secs(1), async || {
        get_at(&app.http, &second, "/api/v1/me", Some(&token))
            .await
            .1["code"]
            == 1001
    })
    .await;
    stop_second.trigger();
    assert!(
        ended,
        "the other gateway dropped its cached session through NATS"
    );
}
