//! Energy's calls to the charging platform (the CPO): its versions and
//! version details (the registration handshake), its locations and
//! tariffs (paged lists and one location), and the STOP_SESSION command.
//! Every URL is one the platform listed in its version details.

use std::sync::Arc;

use fleetdesk_ocpi::credentials::{InterfaceRole, ModuleId, Version, VersionDetails};
use fleetdesk_ocpi::{
    CORRELATION_ID_HEADER, CommandResponse, CommandResponseType, Empty, Location, PageQuery,
    REQUEST_ID_HEADER, StopSession, TOTAL_COUNT_HEADER, Tariff, authorization, next_page,
};
use serde::de::DeserializeOwned;

/// The platform's modules energy uses, as its version details list them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CpoEndpoints {
    pub locations: String,
    pub tariffs: String,
    pub commands: String,
}

impl CpoEndpoints {
    /// The modules energy needs (locations and tariffs to pull, commands
    /// to push to), or the identifiers of those the platform lacks.
    pub fn of(details: &VersionDetails) -> Result<CpoEndpoints, Vec<ModuleId>> {
        let mut missing = Vec::new();
        let mut url = |id: ModuleId, role| match details.url(&id, role) {
            Some(u) => u.trim_end_matches('/').to_owned(),
            None => {
                missing.push(id);
                String::new()
            }
        };
        let endpoints = CpoEndpoints {
            locations: url(ModuleId::Locations, InterfaceRole::Sender),
            tariffs: url(ModuleId::Tariffs, InterfaceRole::Sender),
            commands: url(ModuleId::Commands, InterfaceRole::Receiver),
        };
        if missing.is_empty() {
            Ok(endpoints)
        } else {
            Err(missing)
        }
    }
}

/// A client of one charging platform, as registered.
#[derive(Debug, Clone)]
pub struct Cpo {
    http: reqwest::Client,
    endpoints: Arc<CpoEndpoints>,
    /// The `Authorization` header value (token B).
    auth: String,
    /// The platform's OCPI party id (its sessions and locations carry it).
    pub party_id: String,
}

impl Cpo {
    pub fn new(http: reqwest::Client, endpoints: CpoEndpoints, token: &str, party_id: &str) -> Cpo {
        Cpo {
            http,
            endpoints: Arc::new(endpoints),
            auth: authorization(token),
            party_id: party_id.to_owned(),
        }
    }

    /// Fetches the platform's versions at `url`, presenting `token`.
    pub async fn versions(
        http: &reqwest::Client,
        url: &str,
        token: &str,
    ) -> anyhow::Result<Vec<Version>> {
        get(http, url, &authorization(token)).await
    }

    /// Fetches the details of one version at `url`, presenting `token`.
    pub async fn version_details(
        http: &reqwest::Client,
        url: &str,
        token: &str,
    ) -> anyhow::Result<VersionDetails> {
        get(http, url, &authorization(token)).await
    }

    /// Every object of a paged list: the pages its `Link` headers name
    /// (by offset when the platform sends none).
    async fn all<T: DeserializeOwned>(&self, url: &str) -> anyhow::Result<Vec<T>> {
        let mut items = Vec::new();
        let mut next = Some(url.to_owned());
        while let Some(page_url) = next.take() {
            let mut request = identified(self.http.get(&page_url))
                .header(reqwest::header::AUTHORIZATION, &self.auth);
            if page_url == url && !items.is_empty() {
                request = request.query(&PageQuery {
                    offset: items.len(),
                    ..PageQuery::default()
                });
            }
            let response = request.send().await?;
            let header = |name: &str| {
                response
                    .headers()
                    .get(name)
                    .and_then(|v| v.to_str().ok())
                    .map(str::to_owned)
            };
            let total = header(TOTAL_COUNT_HEADER).and_then(|v| v.parse::<usize>().ok());
            let link = header(reqwest::header::LINK.as_str()).and_then(|l| next_page(&l));
            let page: Vec<T> = data(response).await?;
            let empty = page.is_empty();
            items.extend(page);
            next = match link {
                Some(link) if !empty => Some(link),
                // No Link: the next offset while the total says there is more.
                _ if !empty && total.is_some_and(|t| items.len() < t) => Some(url.to_owned()),
                _ => None,
            };
        }
        Ok(items)
    }

    pub async fn locations(&self) -> anyhow::Result<Vec<Location>> {
        self.all(&self.endpoints.locations).await
    }

    pub async fn tariffs(&self) -> anyhow::Result<Vec<Tariff>> {
        self.all(&self.endpoints.tariffs).await
    }

    pub async fn location(&self, id: &str) -> anyhow::Result<Location> {
        let url = format!("{}/{id}", self.endpoints.locations);
        get(&self.http, &url, &self.auth).await
    }

    /// Asks the platform to stop session `session_no`; true when it
    /// accepted (the result follows at `response_url`).
    pub async fn stop_session(&self, session_no: &str, response_url: &str) -> anyhow::Result<bool> {
        let response = identified(
            self.http
                .post(format!("{}/STOP_SESSION", self.endpoints.commands)),
        )
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

/// The data of a GET's successful OCPI answer.
async fn get<T: DeserializeOwned>(
    http: &reqwest::Client,
    url: &str,
    auth: &str,
) -> anyhow::Result<T> {
    let response = identified(http.get(url))
        .header(reqwest::header::AUTHORIZATION, auth)
        .send()
        .await?;
    data(response).await
}

/// A request as OCPI sends each: its own `X-Request-ID`, and the
/// `X-Correlation-ID` of the exchange it starts.
fn identified(request: reqwest::RequestBuilder) -> reqwest::RequestBuilder {
    request
        .header(REQUEST_ID_HEADER, uuid::Uuid::new_v4().to_string())
        .header(CORRELATION_ID_HEADER, uuid::Uuid::new_v4().to_string())
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

#[cfg(test)]
mod tests {
    use fleetdesk_ocpi::credentials::{InterfaceRole, ModuleId, VersionDetails};

    use super::CpoEndpoints;

    fn details(json: &str) -> VersionDetails {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn a_platforms_endpoints_are_taken_by_identifier_and_role() {
        let d = details(
            r#"{ "version": "2.2.1", "endpoints": [
                { "identifier": "credentials", "role": "SENDER", "url": "https://cpo/ocpi/2.2.1/credentials" },
                { "identifier": "locations", "role": "SENDER", "url": "https://cpo/ocpi/cpo/2.2.1/locations/" },
                { "identifier": "tariffs", "role": "SENDER", "url": "https://cpo/ocpi/cpo/2.2.1/tariffs" },
                { "identifier": "commands", "role": "RECEIVER", "url": "https://cpo/ocpi/cpo/2.2.1/commands" }
            ] }"#,
        );
        assert_eq!(
            CpoEndpoints::of(&d),
            Ok(CpoEndpoints {
                locations: "https://cpo/ocpi/cpo/2.2.1/locations".to_owned(),
                tariffs: "https://cpo/ocpi/cpo/2.2.1/tariffs".to_owned(),
                commands: "https://cpo/ocpi/cpo/2.2.1/commands".to_owned(),
            })
        );
    }

    #[test]
    fn a_platform_without_the_modules_energy_needs_is_told_which() {
        // The standard's example: a CPO with locations only.
        let d = details(
            r#"{ "version": "2.2", "endpoints": [
                { "identifier": "credentials", "role": "SENDER", "url": "https://example.com/ocpi/2.2/credentials" },
                { "identifier": "locations", "role": "SENDER", "url": "https://example.com/ocpi/cpo/2.2/locations" },
                { "identifier": "commands", "role": "SENDER", "url": "https://example.com/ocpi/cpo/2.2/commands" }
            ] }"#,
        );
        assert_eq!(
            CpoEndpoints::of(&d),
            Err(vec![ModuleId::Tariffs, ModuleId::Commands])
        );
        assert!(d.url(&ModuleId::Commands, InterfaceRole::Sender).is_some());
    }
}
