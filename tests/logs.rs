//! No token, code or password appears in any log line: every sign-in path,
//! SMS codes, the WeCom exchange, enterprise choice and both password paths
//! run with every component's logs captured at debug level, and the capture
//! is searched for each secret they handled.

use std::io::Write;
use std::sync::{Arc, Mutex};

use serde_json::{Value, json};

#[allow(dead_code)]
#[path = "api/helpers.rs"]
mod helpers;

use helpers::{PASSWORD, spawn_app};

/// Log output, shared by every writer.
#[derive(Clone, Default)]
struct Capture(Arc<Mutex<Vec<u8>>>);

impl Write for Capture {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(buf);
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn token_of(body: &Value) -> String {
    body["data"]["token"].as_str().expect("token").to_owned()
}

#[tokio::test]
async fn no_token_code_or_password_appears_in_any_log_line() {
    let capture = Capture::default();
    let writer = capture.clone();
    // The production layout (JSON with span fields), at debug for everything.
    tracing_subscriber::fmt()
        .json()
        .flatten_event(true)
        .with_current_span(true)
        .with_span_list(true)
        .with_env_filter("debug")
        .with_writer(move || writer.clone())
        .init();

    let app = spawn_app().await;
    let mut secrets: Vec<String> = vec![PASSWORD.to_owned(), "Wrong@54321".to_owned()];

    // Passwords, right and wrong.
    app.login("demo", "Wrong@54321").await;
    let (_, body) = app.login("demo", PASSWORD).await;
    secrets.push(token_of(&body));

    // SMS: a wrong code, then the right one.
    let code = app.fresh_code("13800000002", "login").await;
    let wrong = if code == "999999" { "888888" } else { "999999" };
    app.login_sms("13800000002", wrong).await;
    let (_, body) = app.login_sms("13800000002", &code).await;
    secrets.extend([code, wrong.to_owned(), token_of(&body)]);

    // WeCom QR through the stand-in.
    let (info, cookie) = app.wecom_app_info(None).await;
    let callback = app.wecom_scan(&info, "zhaoliu").await;
    let (_, body) = app.login_wecom(&callback, Some(&cookie)).await;
    let personal = token_of(&body);
    let cookie_value = cookie.split_once('=').unwrap().1.to_owned();
    secrets.extend([
        callback.code.clone(),
        callback.state.clone(),
        cookie_value,
        personal.clone(),
    ]);

    // Choosing an enterprise.
    let (_, list) = app.get("/api/v1/auth/enterprises", Some(&personal)).await;
    let enterprise_id = list["data"][0]["enterpriseId"].as_str().unwrap().to_owned();
    let (_, body) = app
        .post(
            "/api/v1/auth/select-enterprise",
            Some(&personal),
            json!({ "enterpriseId": enterprise_id }),
        )
        .await;
    secrets.push(token_of(&body));

    // Changing and resetting a password, then signing out.
    let changed = "Changed@2026";
    let current = app.token("demo").await;
    let (status, _) = app
        .post(
            "/api/v1/auth/password",
            Some(&current),
            json!({ "oldPassword": PASSWORD, "newPassword": changed, "confirmNewPaw": changed }),
        )
        .await;
    assert_eq!(status, 200);
    let reset_code = app.fresh_code("13800000001", "reset-password").await;
    let reset = "ResetBy@Phone1";
    let (status, _) = app
        .post(
            "/api/v1/auth/password/reset-by-phone",
            None,
            json!({ "phone": "13800000001", "verifyCode": reset_code, "newPassword": reset }),
        )
        .await;
    assert_eq!(status, 200);
    let (_, body) = app.login("demo", reset).await;
    let last = token_of(&body);
    app.post("/api/v1/auth/logout", Some(&last), json!({}))
        .await;
    secrets.extend([
        current,
        changed.to_owned(),
        reset_code,
        reset.to_owned(),
        last,
    ]);
    tokio::time::sleep(std::time::Duration::from_millis(300)).await;

    let logs = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
    assert!(
        logs.contains("Sign-in accepted.") && logs.contains("SMS code sent."),
        "the capture holds the services' logs"
    );
    for line in logs.lines() {
        for secret in &secrets {
            let found = if secret.len() == 6 && secret.bytes().all(|b| b.is_ascii_digit()) {
                // A code counts only as a value on its own: not inside a longer
                // number or word, nor the fraction of a time or duration
                // ("12.345678Z", "1.234567ms"), where random digits turn up.
                line.match_indices(secret.as_str()).any(|(at, _)| {
                    let before = line[..at].chars().next_back();
                    let after = line[at + 6..].chars().next();
                    !before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '.')
                        && !after.is_some_and(|c| c.is_ascii_alphanumeric())
                })
            } else {
                line.contains(secret.as_str())
            };
            assert!(!found, "a secret leaked into the log: {line}");
        }
    }
}
