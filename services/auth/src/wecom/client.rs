//! The app's side of WeCom's server API: the cached access token and the
//! exchange of a sign-in code for a member's user id.

use std::time::{Duration, Instant};

use anyhow::Context as _;
use secrecy::{ExposeSecret as _, SecretString};
use serde::Deserialize;
use tokio::sync::Mutex;

use crate::config::WeComConfig;

/// Why a code gave no member.
#[derive(Debug, thiserror::Error)]
pub enum ExchangeError {
    /// Unknown, used or expired code (errcode 40029).
    #[error("invalid code")]
    InvalidCode,
    /// The code belongs to someone outside the app's corp.
    #[error("not a member of the corp")]
    NotMember,
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// The app's side of WeCom's server API.
#[derive(Debug)]
pub struct WeComClient {
    http: reqwest::Client,
    pub corp_id: String,
    secret: SecretString,
    pub agent_id: String,
    pub redirect_uri: String,
    pub qr_connect_url: String,
    api_base: String,
    token: Mutex<Option<(String, Instant)>>,
}

#[derive(Debug, Deserialize)]
struct TokenAnswer {
    #[serde(default)]
    errcode: i64,
    #[serde(default)]
    errmsg: String,
    #[serde(default)]
    access_token: String,
    #[serde(default)]
    expires_in: u64,
}

#[derive(Debug, Deserialize)]
struct UserAnswer {
    #[serde(default)]
    errcode: i64,
    #[serde(default)]
    errmsg: String,
    #[serde(default)]
    userid: String,
}

/// Access tokens that WeCom says are invalid or expired.
const STALE_TOKEN: [i64; 3] = [40014, 42001, 41001];

impl WeComClient {
    /// The client the settings describe, or `None` when WeCom sign-in is off.
    pub fn from_config(config: &WeComConfig) -> anyhow::Result<Option<WeComClient>> {
        let Some(corp_id) = config.corp_id.clone().filter(|c| !c.is_empty()) else {
            return Ok(None);
        };
        let secret = config
            .secret
            .clone()
            .context("FLEETDESK_WECOM_SECRET is required with FLEETDESK_WECOM_CORP_ID")?;
        let redirect_uri = config
            .redirect_uri
            .clone()
            .context("FLEETDESK_WECOM_REDIRECT_URI is required with FLEETDESK_WECOM_CORP_ID")?;
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(10))
            .build()
            .context("WeCom HTTP client")?;
        Ok(Some(WeComClient {
            http,
            corp_id,
            secret,
            agent_id: config.agent_id.clone(),
            redirect_uri,
            qr_connect_url: config.qr_connect_url.clone(),
            api_base: config.api_base.trim_end_matches('/').to_owned(),
            token: Mutex::new(None),
        }))
    }

    /// GETs a WeCom API path. Errors never carry the URL: it holds the
    /// secret, the access token or the code.
    async fn get<T: for<'de> Deserialize<'de>>(
        &self,
        path: &str,
        query: &[(&str, &str)],
    ) -> anyhow::Result<T> {
        let answer = self
            .http
            .get(format!("{}{path}", self.api_base))
            .query(query)
            .send()
            .await
            .map_err(|e| anyhow::anyhow!("WeCom {path}: {}", e.without_url()))?;
        let status = answer.status();
        anyhow::ensure!(status.is_success(), "WeCom {path} answered {status}");
        answer
            .json()
            .await
            .map_err(|e| anyhow::anyhow!("WeCom {path}: {}", e.without_url()))
    }

    async fn access_token(&self, fresh: bool) -> anyhow::Result<String> {
        let mut cached = self.token.lock().await;
        if !fresh
            && let Some((token, until)) = cached.as_ref()
            && *until > Instant::now()
        {
            return Ok(token.clone());
        }
        let answer: TokenAnswer = self
            .get(
                "/cgi-bin/gettoken",
                &[
                    ("corpid", self.corp_id.as_str()),
                    ("corpsecret", self.secret.expose_secret()),
                ],
            )
            .await?;
        anyhow::ensure!(
            answer.errcode == 0 && !answer.access_token.is_empty(),
            "WeCom gettoken: {} {}",
            answer.errcode,
            answer.errmsg
        );
        // Renew a little early so a token never dies in flight.
        let life = Duration::from_secs(answer.expires_in.saturating_sub(300).max(60));
        *cached = Some((answer.access_token.clone(), Instant::now() + life));
        Ok(answer.access_token)
    }

    /// The WeCom user id of the member who produced `code`.
    pub async fn user_id(&self, code: &str) -> Result<String, ExchangeError> {
        let mut fresh = false;
        loop {
            let token = self.access_token(fresh).await?;
            let answer: UserAnswer = self
                .get(
                    "/cgi-bin/auth/getuserinfo",
                    &[("access_token", token.as_str()), ("code", code)],
                )
                .await?;
            match answer.errcode {
                0 if !answer.userid.is_empty() => return Ok(answer.userid),
                0 => return Err(ExchangeError::NotMember),
                40029 => return Err(ExchangeError::InvalidCode),
                stale if STALE_TOKEN.contains(&stale) && !fresh => fresh = true,
                other => {
                    return Err(
                        anyhow::anyhow!("WeCom getuserinfo: {other} {}", answer.errmsg).into(),
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use fleetdesk_wecom_standin::StandIn;

    /// A client of corp wwA (with `secret`) talking to the stand-in over the network.
    async fn client_for(standin: &StandIn, secret: &str) -> WeComClient {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        tokio::spawn(fleetdesk_wecom_standin::serve(
            listener,
            standin.clone(),
            std::future::pending(),
        ));
        let config = WeComConfig {
            corp_id: Some("wwA".into()),
            secret: Some(secret.into()),
            redirect_uri: Some("http://console.test/login".into()),
            api_base: base,
            ..WeComConfig::default()
        };
        WeComClient::from_config(&config).unwrap().unwrap()
    }

    fn corp_a() -> StandIn {
        let standin = StandIn::new();
        standin.add_corp("wwA", "secret-a");
        standin.add_user("wwA", "zhangsan", "张三");
        standin
    }

    #[tokio::test]
    async fn a_members_code_gives_their_user_id_once() {
        let standin = corp_a();
        let client = client_for(&standin, "secret-a").await;
        let code = standin.issue_code("wwA", "zhangsan");
        assert_eq!(client.user_id(&code).await.unwrap(), "zhangsan");
        assert!(matches!(
            client.user_id(&code).await,
            Err(ExchangeError::InvalidCode)
        ));
    }

    #[tokio::test]
    async fn a_code_from_another_corp_is_not_a_member() {
        let standin = corp_a();
        let client = client_for(&standin, "secret-a").await;
        standin.register_code("b-code", "wwB", "wangwu");
        assert!(matches!(
            client.user_id("b-code").await,
            Err(ExchangeError::NotMember)
        ));
    }

    #[tokio::test]
    async fn a_wrong_secret_fails_without_repeating_it() {
        let standin = corp_a();
        let client = client_for(&standin, "not-the-secret").await;
        let code = standin.issue_code("wwA", "zhangsan");
        let err = client.user_id(&code).await.unwrap_err();
        let text = format!("{err:#}");
        assert!(text.contains("40001"), "{text}");
        assert!(
            !text.contains("not-the-secret") && !text.contains(&code),
            "{text}"
        );
    }

    #[test]
    fn wecom_is_off_without_a_corp_id_and_needs_secret_and_redirect_with_one() {
        assert!(
            WeComClient::from_config(&WeComConfig::default())
                .unwrap()
                .is_none()
        );
        let half = WeComConfig {
            corp_id: Some("wwA".into()),
            ..WeComConfig::default()
        };
        assert!(WeComClient::from_config(&half).is_err());
    }
}
