//! The OCPI credentials handshake over real HTTP on loopback, with a
//! fresh database per test: the charging platform stand-in registers with
//! energy from nothing but energy's versions URL and token A, and energy
//! then syncs its stations and settles its sessions; token A opens only
//! versions, details and one registration; token C is rotated by PUT and
//! withdrawn by DELETE; unknown tokens get 401 with an OCPI envelope.

use crate::support;

use std::time::Duration;

use fleetdesk_charging_standin::{PARTY_ID, Settings, StandIn};
use fleetdesk_energy::ocpi::{OcpiConfig, versions_url};
use fleetdesk_ocpi::credentials::{Credentials, CredentialsRole, Role, VERSIONS_PATH};
use fleetdesk_ocpi::{BusinessDetails, EMSP_BASE, authorization};
use reqwest::{Method, StatusCode};
use serde_json::{Value, json};
use support::Stack;
use support::platform::charging;
use uuid::Uuid;

/// One OCPI call: the HTTP status and the body (an envelope).
async fn call(
    method: Method,
    url: &str,
    token: Option<&str>,
    body: Option<&Value>,
) -> (StatusCode, Value) {
    let mut request = reqwest::Client::new().request(method, url);
    if let Some(token) = token {
        request = request.header(reqwest::header::AUTHORIZATION, authorization(token));
    }
    if let Some(body) = body {
        request = request.json(body);
    }
    let response = request.send().await.unwrap();
    let status = response.status();
    let body = response.json().await.unwrap_or(Value::Null);
    (status, body)
}

/// Energy with its OCPI side on and no platform registered: the stack,
/// energy's receiver URL and its token A.
async fn energy_alone() -> (Stack, String, String) {
    let token_a = Uuid::new_v4().simple().to_string();
    let ocpi = OcpiConfig {
        ocpi_token_a: Some(token_a.clone().into()),
        ..OcpiConfig::default()
    };
    let stack = support::stack_with(true, Some(&ocpi)).await;
    let emsp = format!("http://127.0.0.1:{}", stack.ocpi_port.unwrap());
    assert_eq!(
        versions_url(&ocpi, stack.ocpi_port.unwrap()),
        format!("{emsp}{VERSIONS_PATH}")
    );
    (stack, emsp, token_a)
}

/// A platform's OCPI API (the stand-in's versions, details, locations and
/// tariffs) that does not register by itself, so a test can run the
/// handshake step by step; energy reaches it with the stand-in's token B.
async fn platform_api() -> StandIn {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let standin = StandIn::new(Settings {
        party_id: PARTY_ID.to_owned(),
        public_url: format!("http://{}", listener.local_addr().unwrap()),
        emsp_versions_url: "http://127.0.0.1:1/ocpi/versions".to_owned(),
        token_a: "unused".to_owned(),
    });
    let router = standin.router();
    tokio::spawn(async move { axum::serve(listener, router).await });
    standin
}

fn credentials(token: &str, url: &str) -> Value {
    serde_json::to_value(Credentials {
        token: token.to_owned(),
        url: url.to_owned(),
        roles: vec![CredentialsRole {
            role: Role::Cpo,
            business_details: BusinessDetails::named("充电平台"),
            party_id: PARTY_ID.to_owned(),
            country_code: "CN".to_owned(),
        }],
    })
    .unwrap()
}

fn token_c(answer: &Value) -> String {
    let ours: Credentials = serde_json::from_value(answer["data"].clone()).unwrap();
    assert!(ours.role(Role::Emsp).is_some(), "{answer}");
    ours.token
}

#[tokio::test]
async fn the_stand_in_registers_from_empty_configuration_and_a_session_settles() {
    // Arrange: energy given only token A, the stand-in only energy's
    // versions URL and token A (charging() waits for the registration).
    let c = charging().await;
    assert!(c.platform.is_registered());
    let (party, active): (String, bool) =
        sqlx::query_as("select party_id, token_c_hash is not null from ocpi_registration")
            .fetch_one(&c.stack.owner)
            .await
            .unwrap();
    assert_eq!((party.as_str(), active), (PARTY_ID, true));

    // Act: energy follows the registration (its station sync pulls the
    // platform's stations with token B) and a session runs end to end.
    let mut stations = 0i64;
    for _ in 0..100 {
        stations = sqlx::query_scalar("select count(*) from station")
            .fetch_one(&c.stack.owner)
            .await
            .unwrap();
        if stations > 0 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let t = &c.stack.a;
    let card = c.card(t, &[t.east, t.shanghai], None, 20_000).await;
    let session = c.session(&card.card_no, 30, 60, 20).await;

    // Assert
    assert!(stations > 0, "the station sync ran after the registration");
    assert!(session.cdr_delivered);
    assert!(session.total_fen > 0, "{session:?}");
}

#[tokio::test]
async fn token_a_opens_versions_and_details_but_no_module() {
    // Arrange
    let (_stack, emsp, token_a) = energy_alone().await;

    // Act
    let (versions_status, versions) = call(
        Method::GET,
        &format!("{emsp}/ocpi/versions"),
        Some(&token_a),
        None,
    )
    .await;
    let details_url = versions["data"][0]["url"].as_str().unwrap().to_owned();
    let (details_status, details) = call(Method::GET, &details_url, Some(&token_a), None).await;
    let (tokens_status, tokens) = call(
        Method::GET,
        &format!("{emsp}{EMSP_BASE}/tokens"),
        Some(&token_a),
        None,
    )
    .await;

    // Assert
    assert_eq!(versions_status, StatusCode::OK);
    assert_eq!(versions["status_code"], 1000);
    assert_eq!(versions["data"][0]["version"], "2.2.1");
    assert_eq!(details_url, format!("{emsp}/ocpi/2.2.1"));
    assert_eq!(details_status, StatusCode::OK);
    assert_eq!(details["data"]["version"], "2.2.1");
    let endpoints = details["data"]["endpoints"].as_array().unwrap();
    let role_of = |id: &str| {
        endpoints
            .iter()
            .find(|e| e["identifier"] == id)
            .map(|e| e["role"].as_str().unwrap().to_owned())
    };
    assert_eq!(role_of("credentials").as_deref(), Some("SENDER"));
    assert_eq!(role_of("tokens").as_deref(), Some("SENDER"));
    for receiver in ["sessions", "cdrs", "locations", "commands", "x-plate-scans"] {
        assert_eq!(role_of(receiver).as_deref(), Some("RECEIVER"), "{receiver}");
    }
    assert_eq!(tokens_status, StatusCode::UNAUTHORIZED);
    assert_eq!(tokens["status_code"], 2000);
}

#[tokio::test]
async fn after_the_registration_token_a_is_refused_for_a_second_post_and_on_modules() {
    // Arrange
    let c = charging().await;
    let again = credentials("another-token-b", &format!("{}/ocpi/versions", c.emsp_url));

    // Act
    let (post_status, post) = call(
        Method::POST,
        &format!("{}{EMSP_BASE}/credentials", c.emsp_url),
        Some(&c.token_a),
        Some(&again),
    )
    .await;
    let (tokens_status, _) = call(
        Method::GET,
        &format!("{}{EMSP_BASE}/tokens", c.emsp_url),
        Some(&c.token_a),
        None,
    )
    .await;
    let (versions_status, _) = call(
        Method::GET,
        &format!("{}/ocpi/versions", c.emsp_url),
        Some(&c.token_a),
        None,
    )
    .await;

    // Assert
    assert_eq!(post_status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post["status_code"], 2000);
    assert_eq!(tokens_status, StatusCode::UNAUTHORIZED);
    assert_eq!(versions_status, StatusCode::UNAUTHORIZED);
    assert!(c.platform.is_registered());
}

#[tokio::test]
async fn an_unknown_token_gets_401_with_an_ocpi_envelope() {
    // Arrange
    let c = charging().await;
    let tokens = format!("{}{EMSP_BASE}/tokens", c.emsp_url);

    // Act
    let (unknown_status, unknown) = call(Method::GET, &tokens, Some("not-a-token"), None).await;
    let (missing_status, missing) = call(Method::GET, &tokens, None, None).await;
    let (credentials_status, _) = call(
        Method::GET,
        &format!("{}{EMSP_BASE}/credentials", c.emsp_url),
        Some("not-a-token"),
        None,
    )
    .await;

    // Assert
    for (status, body) in [(unknown_status, &unknown), (missing_status, &missing)] {
        assert_eq!(status, StatusCode::UNAUTHORIZED);
        assert_eq!(body["status_code"], 2000, "{body}");
        assert!(body["timestamp"].is_string(), "{body}");
    }
    assert_eq!(credentials_status, StatusCode::UNAUTHORIZED);
}

#[tokio::test]
async fn put_rotates_token_c_and_delete_unregisters() {
    // Arrange: a platform registering step by step.
    let (_stack, emsp, token_a) = energy_alone().await;
    let platform = platform_api().await;
    let theirs = credentials(
        platform.token_b(),
        &format!("{}{VERSIONS_PATH}", platform.settings().public_url),
    );
    let credentials_url = format!("{emsp}{EMSP_BASE}/credentials");
    let tokens = format!("{emsp}{EMSP_BASE}/tokens");
    let (status, registered) = call(
        Method::POST,
        &credentials_url,
        Some(&token_a),
        Some(&theirs),
    )
    .await;
    assert_eq!(status, StatusCode::OK, "{registered}");
    let first_c = token_c(&registered);
    assert_eq!(
        call(Method::GET, &tokens, Some(&first_c), None).await.0,
        StatusCode::OK
    );
    let (status, shown) = call(Method::GET, &credentials_url, Some(&first_c), None).await;
    assert_eq!((status, token_c(&shown)), (StatusCode::OK, first_c.clone()));

    // Act: PUT, then DELETE with the new token C.
    let (put_status, updated) =
        call(Method::PUT, &credentials_url, Some(&first_c), Some(&theirs)).await;
    let second_c = token_c(&updated);
    let old_refused = call(Method::GET, &tokens, Some(&first_c), None).await.0;
    let new_accepted = call(Method::GET, &tokens, Some(&second_c), None).await.0;
    let (delete_status, deleted) =
        call(Method::DELETE, &credentials_url, Some(&second_c), None).await;
    let after_delete = call(Method::GET, &tokens, Some(&second_c), None).await.0;
    let put_unregistered = call(Method::PUT, &credentials_url, Some(&token_a), Some(&theirs))
        .await
        .0;
    let post_again = call(
        Method::POST,
        &credentials_url,
        Some(&token_a),
        Some(&theirs),
    )
    .await
    .0;

    // Assert
    assert_eq!(put_status, StatusCode::OK, "{updated}");
    assert_ne!(first_c, second_c);
    assert_eq!(old_refused, StatusCode::UNAUTHORIZED);
    assert_eq!(new_accepted, StatusCode::OK);
    assert_eq!(delete_status, StatusCode::OK);
    assert_eq!(deleted["status_code"], 1000);
    assert_eq!(after_delete, StatusCode::UNAUTHORIZED);
    // Token A is spent: it neither updates nor registers again.
    assert_eq!(put_unregistered, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(post_again, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn a_platform_energy_cannot_reach_gets_3001_and_token_a_stays_usable() {
    // Arrange
    let (stack, emsp, token_a) = energy_alone().await;
    let credentials_url = format!("{emsp}{EMSP_BASE}/credentials");
    let nowhere = credentials("token-b", "http://127.0.0.1:1/ocpi/versions");

    // Act
    let (status, refused) = call(
        Method::POST,
        &credentials_url,
        Some(&token_a),
        Some(&nowhere),
    )
    .await;
    let platform = platform_api().await;
    let reachable = credentials(
        platform.token_b(),
        &format!("{}{VERSIONS_PATH}", platform.settings().public_url),
    );
    let (second_status, second) = call(
        Method::POST,
        &credentials_url,
        Some(&token_a),
        Some(&reachable),
    )
    .await;

    // Assert
    assert_eq!(status, StatusCode::OK);
    assert_eq!(refused["status_code"], 3001, "{refused}");
    assert_eq!(second_status, StatusCode::OK, "{second}");
    assert_eq!(second["status_code"], 1000);
    let rows: i64 = sqlx::query_scalar("select count(*) from ocpi_registration")
        .fetch_one(&stack.owner)
        .await
        .unwrap();
    assert_eq!(rows, 1);
}

#[tokio::test]
async fn credentials_without_a_cpo_role_are_refused_with_2001() {
    // Arrange
    let (_stack, emsp, token_a) = energy_alone().await;
    let mut body = credentials("token-b", "http://127.0.0.1:1/ocpi/versions");
    body["roles"][0]["role"] = json!("EMSP");

    // Act
    let (status, refused) = call(
        Method::POST,
        &format!("{emsp}{EMSP_BASE}/credentials"),
        Some(&token_a),
        Some(&body),
    )
    .await;

    // Assert
    assert_eq!(status, StatusCode::BAD_REQUEST);
    assert_eq!(refused["status_code"], 2001, "{refused}");
}
