//! Energy's calls to the charging platform (the CPO): its locations and
//! tariffs (paged lists and one location), and the STOP_SESSION command.

use std::time::Duration;

use fleetdesk_ocpi::{
    CPO_BASE, CommandResponse, CommandResponseType, Empty, Location, PageQuery, StopSession,
    TOTAL_COUNT_HEADER, Tariff, authorization,
};
use serde::de::DeserializeOwned;

/// A client of one charging platform.
#[derive(Debug, Clone)]
pub struct Cpo {
    http: reqwest::Client,
    /// Scheme, host and port.
    base: String,
    /// The `Authorization` header value.
    auth: String,
    /// The platform's OCPI party id (its sessions and locations carry it).
    pub party_id: String,
}

impl Cpo {
    pub fn new(base: &str, token: &str, party_id: &str) -> anyhow::Result<Cpo> {
        Ok(Cpo {
            http: reqwest::Client::builder()
                .timeout(Duration::from_secs(10))
                .build()?,
            base: base.trim_end_matches('/').to_owned(),
            auth: authorization(token),
            party_id: party_id.to_owned(),
        })
    }

    fn url(&self, path: &str) -> String {
        format!("{}{CPO_BASE}/{path}", self.base)
    }

    /// Every object of a paged list.
    async fn all<T: DeserializeOwned>(&self, module: &str) -> anyhow::Result<Vec<T>> {
        let mut items = Vec::new();
        loop {
            let query = PageQuery {
                offset: items.len(),
                ..PageQuery::default()
            };
            let response = self
                .http
                .get(self.url(module))
                .header(reqwest::header::AUTHORIZATION, &self.auth)
                .query(&query)
                .send()
                .await?;
            let total = response
                .headers()
                .get(TOTAL_COUNT_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(|v| v.parse::<usize>().ok());
            let page: Vec<T> = data(response).await?;
            let empty = page.is_empty();
            items.extend(page);
            if empty || total.is_none_or(|t| items.len() >= t) {
                return Ok(items);
            }
        }
    }

    pub async fn locations(&self) -> anyhow::Result<Vec<Location>> {
        self.all("locations").await
    }

    pub async fn tariffs(&self) -> anyhow::Result<Vec<Tariff>> {
        self.all("tariffs").await
    }

    pub async fn location(&self, id: &str) -> anyhow::Result<Location> {
        let response = self
            .http
            .get(self.url(&format!("locations/{id}")))
            .header(reqwest::header::AUTHORIZATION, &self.auth)
            .send()
            .await?;
        data(response).await
    }

    /// Asks the platform to stop session `session_no`; true when it
    /// accepted (the result follows at `response_url`).
    pub async fn stop_session(&self, session_no: &str, response_url: &str) -> anyhow::Result<bool> {
        let response = self
            .http
            .post(self.url("commands/STOP_SESSION"))
            .header(reqwest::header::AUTHORIZATION, &self.auth)
            .json(&StopSession {
                response_url: response_url.to_owned(),
                session_id: session_no.to_owned(),
            })
            .send()
            .await?;
        let answer: CommandResponse = data(response).await?;
        Ok(answer.result == CommandResponseType::Accepted)
    }
}

/// The data of a successful OCPI answer.
async fn data<T: DeserializeOwned>(response: reqwest::Response) -> anyhow::Result<T> {
    let http = response.status();
    let envelope: Empty = response
        .json()
        .await
        .map_err(|e| anyhow::anyhow!("HTTP {http}, not an OCPI answer: {e}"))?;
    anyhow::ensure!(
        envelope.is_success(),
        "the platform answered {} {}",
        envelope.status_code,
        envelope.status_message.unwrap_or_default()
    );
    Ok(serde_json::from_value(
        envelope.data.unwrap_or(serde_json::Value::Null),
    )?)
}
