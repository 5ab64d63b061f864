//! Where SMS messages go: an HTTP provider in production, a table in
//! development. The rest of the service sees only [`SmsSender`].

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use fleetdesk_kit::config::Environment;
use secrecy::{ExposeSecret as _, SecretString};
use sqlx_postgres::PgPool;
use uuid::Uuid;

use crate::config::SmsConfig;

/// Delivers one text message to one phone.
#[tonic::async_trait]
pub trait SmsSender: Send + Sync + std::fmt::Debug {
    async fn send(&self, phone: &str, text: &str) -> anyhow::Result<()>;

    /// True for the development sender, whose messages may be read back.
    fn records_messages(&self) -> bool {
        false
    }
}

/// The sender the settings ask for; production refuses the development one.
pub fn from_config(
    config: &SmsConfig,
    environment: Environment,
    pool: &PgPool,
) -> anyhow::Result<Arc<dyn SmsSender>> {
    // An empty variable (e.g. a blank chart value) means unset.
    let provider_url = config
        .provider_url
        .as_deref()
        .filter(|u| !u.trim().is_empty());
    match (provider_url, environment) {
        (Some(url), _) => {
            let key = config.provider_key.clone().context(
                "FLEETDESK_SMS_PROVIDER_KEY is required with FLEETDESK_SMS_PROVIDER_URL",
            )?;
            Ok(Arc::new(HttpSmsSender::new(url, key)?))
        }
        (None, Environment::Production) => anyhow::bail!(
            "FLEETDESK_SMS_PROVIDER_URL is required in production (the development SMS sender only records messages)"
        ),
        (None, Environment::Development) => {
            tracing::warn!("No SMS provider set; codes are recorded in dev_sms_message, not sent.");
            Ok(Arc::new(DevSmsSender { pool: pool.clone() }))
        }
    }
}

/// A provider reached over HTTP: `POST url` with JSON `{phone, text}` and
/// `Authorization: Bearer <key>`; any 2xx answer is a delivery.
#[derive(Debug)]
pub struct HttpSmsSender {
    http: reqwest::Client,
    url: String,
    key: SecretString,
}

impl HttpSmsSender {
    pub fn new(url: &str, key: SecretString) -> anyhow::Result<HttpSmsSender> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .context("SMS HTTP client")?;
        Ok(HttpSmsSender {
            http,
            url: url.to_owned(),
            key,
        })
    }
}

#[tonic::async_trait]
impl SmsSender for HttpSmsSender {
    async fn send(&self, phone: &str, text: &str) -> anyhow::Result<()> {
        let answer = self
            .http
            .post(&self.url)
            .bearer_auth(self.key.expose_secret())
            .json(&serde_json::json!({ "phone": phone, "text": text }))
            .send()
            .await
            // The message text holds the code: keep the request out of the error.
            .map_err(|e| anyhow::anyhow!("SMS provider unreachable: {}", e.without_url()))?;
        let status = answer.status();
        anyhow::ensure!(status.is_success(), "SMS provider answered {status}");
        Ok(())
    }
}

/// Development only: writes each message to `dev_sms_message` so the
/// developer and the tests can read the code back.
#[derive(Debug)]
pub struct DevSmsSender {
    pool: PgPool,
}

#[tonic::async_trait]
impl SmsSender for DevSmsSender {
    async fn send(&self, phone: &str, text: &str) -> anyhow::Result<()> {
        sqlx::query("insert into dev_sms_message (id, phone, text) values ($1, $2, $3)")
            .bind(Uuid::new_v4())
            .bind(phone)
            .bind(text)
            .execute(&self.pool)
            .await
            .context("record development SMS")?;
        Ok(())
    }

    fn records_messages(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex;

    use axum::extract::State;
    use axum::http::HeaderMap;

    type Seen = Arc<Mutex<Vec<(String, serde_json::Value)>>>;

    async fn provider(status: u16) -> (String, Seen) {
        let seen: Seen = Arc::default();
        let app = axum::Router::new()
            .route(
                "/sms",
                axum::routing::post(
                    move |State(seen): State<Seen>,
                          headers: HeaderMap,
                          axum::Json(body): axum::Json<serde_json::Value>| async move {
                        let auth = headers
                            .get("authorization")
                            .and_then(|v| v.to_str().ok())
                            .unwrap_or("")
                            .to_owned();
                        seen.lock().unwrap().push((auth, body));
                        axum::http::StatusCode::from_u16(status).unwrap()
                    },
                ),
            )
            .with_state(seen.clone());
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/sms", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        (url, seen)
    }

    #[tokio::test]
    async fn the_http_sender_posts_phone_and_text_with_the_key() {
        let (url, seen) = provider(200).await;
        let sender = HttpSmsSender::new(&url, "k-123".into()).unwrap();
        sender.send("13800000001", "验证码 123456").await.unwrap();
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].0, "Bearer k-123");
        assert_eq!(
            seen[0].1,
            serde_json::json!({ "phone": "13800000001", "text": "验证码 123456" })
        );
    }

    #[tokio::test]
    async fn a_provider_refusal_is_an_error_that_does_not_repeat_the_text() {
        let (url, _) = provider(500).await;
        let sender = HttpSmsSender::new(&url, "k".into()).unwrap();
        let err = sender
            .send("13800000001", "验证码 654321")
            .await
            .unwrap_err();
        assert!(!format!("{err:#}").contains("654321"));
    }

    #[tokio::test]
    async fn production_refuses_the_development_sender() {
        let pool = sqlx_postgres::PgPool::connect_lazy("postgres://localhost/none").unwrap();
        let err = from_config(&SmsConfig::default(), Environment::Production, &pool).unwrap_err();
        assert!(err.to_string().contains("FLEETDESK_SMS_PROVIDER_URL"));
        let with_provider = SmsConfig {
            provider_url: Some("https://sms.example/send".into()),
            provider_key: Some("k".into()),
            ..SmsConfig::default()
        };
        assert!(from_config(&with_provider, Environment::Production, &pool).is_ok());
    }
}
