//! Vehicle monitoring over the whole stack: a fix published to the
//! telemetry stream reaches the map list and the SSE stream of its tenant,
//! and nothing of it reaches another tenant (positions, track, stream).

use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use fleetdesk_proto::telematics::v1 as tpb;
use prost::Message as _;
use serde_json::{Value, json};
use uuid::Uuid;

use crate::drivers::root_org;
use crate::helpers::TestApp;
use crate::vehicles::{vehicle_form, vin};

/// A vehicle of the caller's enterprise with a terminal of a fresh SIM.
pub struct Car {
    pub enterprise: String,
    pub id: String,
    pub phone: String,
}

pub async fn car(app: &TestApp, token: &str, plate: &str) -> Car {
    let org = root_org(app, token).await;
    let n = Uuid::new_v4().as_u128() % 100_000_000;
    let vin_seed = format!("LGXCE4CB0P{:07}", n % 10_000_000);
    let (status, created) = app
        .post(
            "/api/v1/vehicles",
            Some(token),
            vehicle_form(&org, plate, &vin(&vin_seed)),
        )
        .await;
    assert_eq!(status, 200, "{created}");
    let id = created["data"]["id"].as_str().unwrap().to_owned();
    let phone = format!("147{n:08}");
    let (status, bound) = app
        .post(
            &format!("/api/v1/vehicles/{id}/terminal/bind"),
            Some(token),
            json!({ "terminalId": format!("JT{n:08}"), "terminalSim": phone }),
        )
        .await;
    assert_eq!(status, 200, "{bound}");
    let (_, me) = app.get("/api/v1/me", Some(token)).await;
    Car {
        enterprise: me["data"]["enterpriseId"].as_str().unwrap().to_owned(),
        id,
        phone,
    }
}

pub fn fix(car: &Car, at: DateTime<Utc>, speed_dkmh: i32) -> tpb::Fix {
    tpb::Fix {
        terminal: car.phone.clone(),
        enterprise_id: car.enterprise.clone(),
        vehicle_id: car.id.clone(),
        fix_time: Some(fleetdesk_kit::convert::timestamp(at)),
        receive_time: Some(fleetdesk_kit::convert::timestamp(Utc::now())),
        latitude: 22.543,
        longitude: 114.057,
        altitude_m: 10,
        speed_dkmh,
        heading: 180,
        alarm_bits: 0,
        status_bits: 1,
        mileage_m: Some(5_000),
        soc_percent: Some(66),
        temperatures: vec![],
        backfill: false,
        safety_alarms: vec![],
    }
}

/// Publishes fixes to the telemetry stream as the device edge does.
pub async fn publish(app: &TestApp, fixes: &[tpb::Fix]) {
    let nats = fleetdesk_kit::events::connect_nats(&app.common.nats_url, "monitoring-test")
        .await
        .unwrap();
    let js = fleetdesk_kit::events::jetstream(nats);
    fleetdesk_vehicle::ingest::ensure_stream(&js).await.unwrap();
    for f in fixes {
        let mut headers = async_nats::HeaderMap::new();
        let secs = f.fix_time.as_ref().map_or(0, |t| t.seconds);
        headers.insert("Nats-Msg-Id", format!("{}:{secs}", f.terminal).as_str());
        js.publish_with_headers(
            format!("telemetry.{}.{}", f.enterprise_id, f.vehicle_id),
            headers,
            f.encode_to_vec().into(),
        )
        .await
        .unwrap()
        .await
        .unwrap();
    }
}

/// The caller's map row of `vehicle`, if any.
pub async fn map_row(app: &TestApp, token: &str, vehicle: &str) -> Option<Value> {
    let (status, body) = app.get("/api/v1/monitor/positions", Some(token)).await;
    assert_eq!(status, 200, "{body}");
    body["data"]["list"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["vehicleId"] == vehicle)
        .cloned()
}

/// Polls until the caller's map shows `vehicle` with `check` holding.
pub async fn wait_for_row(
    app: &TestApp,
    token: &str,
    vehicle: &str,
    within: Duration,
    check: impl Fn(&Value) -> bool,
) -> Value {
    let deadline = Instant::now() + within;
    loop {
        if let Some(row) = map_row(app, token, vehicle).await
            && check(&row)
        {
            return row;
        }
        assert!(
            Instant::now() < deadline,
            "{vehicle} not on the map in {within:?}"
        );
        tokio::time::sleep(Duration::from_millis(25)).await;
    }
}

/// Waits until the stack's telemetry consumers (fixes, command results)
/// exist: a new consumer takes what is published after it.
pub async fn consumers_ready(app: &TestApp) {
    let nats = fleetdesk_kit::events::connect_nats(&app.common.nats_url, "monitoring-test")
        .await
        .unwrap();
    let js = fleetdesk_kit::events::jetstream(nats);
    let stream = fleetdesk_vehicle::ingest::ensure_stream(&js).await.unwrap();
    for durable in [
        fleetdesk_vehicle::ingest::consumer::durable_name(&app.db.name),
        fleetdesk_vehicle::lock::delivery::durable_name(&app.db.name),
    ] {
        let deadline = Instant::now() + Duration::from_secs(15);
        while stream.consumer_info(&durable).await.is_err() {
            assert!(Instant::now() < deadline, "no consumer {durable}");
            tokio::time::sleep(Duration::from_millis(25)).await;
        }
    }
}

/// The first fix of `car`, once the consumers exist.
pub async fn first_fix(app: &TestApp, token: &str, car: &Car, speed_dkmh: i32) -> Value {
    consumers_ready(app).await;
    publish(
        app,
        &[fix(
            car,
            Utc::now() - chrono::Duration::seconds(1),
            speed_dkmh,
        )],
    )
    .await;
    wait_for_row(app, token, &car.id, Duration::from_secs(5), |_| true).await
}

#[tokio::test]
async fn a_fix_reaches_its_tenants_map_within_a_second_and_no_other_tenant() {
    let app = crate::helpers::spawn_app().await;
    let a_token = app.token("demo").await;
    let b_token = app.token("demo2").await;
    let a = car(&app, &a_token, "粤BM0001").await;
    first_fix(&app, &a_token, &a, 0).await;

    let started = Instant::now();
    publish(&app, &[fix(&a, Utc::now(), 423)]).await;
    let row = wait_for_row(&app, &a_token, &a.id, Duration::from_secs(1), |r| {
        r["speedKmh"] == 42.3
    })
    .await;
    assert!(started.elapsed() < Duration::from_secs(1));
    assert_eq!(row["status"], "driving");
    assert_eq!(row["plateNumber"], "粤BM0001");
    assert_eq!(row["soc"], 66);
    assert_eq!(row["mileageKm"], 5.0);
    let (_, map) = app.get("/api/v1/monitor/positions", Some(&a_token)).await;
    assert!(map["data"]["counts"]["driving"].as_i64().unwrap() >= 1);
    let (_, parked) = app
        .get("/api/v1/monitor/positions?statuses=parked", Some(&a_token))
        .await;
    assert!(
        !parked["data"]["list"]
            .as_array()
            .unwrap()
            .iter()
            .any(|p| p["vehicleId"] == a.id.as_str())
    );
    let (_, search) = app
        .get(
            "/api/v1/monitor/positions?plateNumber=BM0001",
            Some(&a_token),
        )
        .await;
    assert_eq!(
        search["data"]["list"].as_array().unwrap().len(),
        1,
        "{search}"
    );

    // The track of the last hour: both fixes, oldest first.
    let from = (Utc::now() - chrono::Duration::hours(1)).to_rfc3339();
    let to = (Utc::now() + chrono::Duration::minutes(1)).to_rfc3339();
    let query = format!("from={}&to={}", urlencode(&from), urlencode(&to));
    let (status, track) = app
        .get(
            &format!("/api/v1/monitor/vehicles/{}/track?{query}", a.id),
            Some(&a_token),
        )
        .await;
    assert_eq!(status, 200, "{track}");
    let points = track["data"]["points"].as_array().unwrap();
    assert!(points.len() >= 2, "{track}");
    assert_eq!(points.last().unwrap()["speedKmh"], 42.3);

    // Tenant B: not on its map, no track, no export.
    assert!(map_row(&app, &b_token, &a.id).await.is_none());
    let (status, hidden) = app
        .get(
            &format!("/api/v1/monitor/vehicles/{}/track?{query}", a.id),
            Some(&b_token),
        )
        .await;
    assert_eq!(status, 404, "{hidden}");
    let (status, hidden) = app
        .post(
            &format!("/api/v1/monitor/vehicles/{}/track/export?{query}", a.id),
            Some(&b_token),
            json!({}),
        )
        .await;
    assert_eq!(status, 404, "{hidden}");
    let (status, export) = app
        .post(
            &format!("/api/v1/monitor/vehicles/{}/track/export?{query}", a.id),
            Some(&a_token),
            json!({}),
        )
        .await;
    assert_eq!(status, 200, "{export}");
}

fn urlencode(value: &str) -> String {
    value.replace(':', "%3A").replace('+', "%2B")
}

/// Reads SSE `event: position` payloads until `until` holds for one (or the
/// deadline passes); returns every payload read.
async fn read_positions(
    response: reqwest::Response,
    within: Duration,
    until: impl Fn(&Value) -> bool,
) -> Vec<Value> {
    let mut response = response;
    let mut buffer = String::new();
    let mut seen = Vec::new();
    let deadline = tokio::time::Instant::now() + within;
    while let Ok(Ok(Some(chunk))) = tokio::time::timeout_at(deadline, response.chunk()).await {
        buffer.push_str(&String::from_utf8_lossy(&chunk));
        while let Some(end) = buffer.find("\n\n") {
            let event: String = buffer.drain(..end + 2).collect();
            if !event.lines().any(|l| l == "event: position") {
                continue;
            }
            let data: String = event
                .lines()
                .filter_map(|l| l.strip_prefix("data: "))
                .collect();
            let value: Value = serde_json::from_str(&data).unwrap();
            let done = until(&value);
            seen.push(value);
            if done {
                return seen;
            }
        }
    }
    seen
}

async fn open_stream(app: &TestApp, token: &str) -> reqwest::Response {
    let response = app
        .http
        .get(format!("{}/api/v1/monitor/stream", app.base))
        .header("token", token)
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert!(
        response.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("text/event-stream")
    );
    response
}

#[tokio::test]
async fn the_stream_delivers_a_published_fix_to_its_tenant_only() {
    let app = crate::helpers::spawn_app().await;
    let a_token = app.token("demo").await;
    let b_token = app.token("demo2").await;
    let a = car(&app, &a_token, "粤BM0002").await;
    let b = car(&app, &b_token, "粤BM0003").await;

    let a_stream = open_stream(&app, &a_token).await;
    let b_stream = open_stream(&app, &b_token).await;
    // A's fix first, then B's: B's stream must reach its own fix without
    // ever carrying A's.
    let now = Utc::now();
    publish(&app, &[fix(&a, now, 0), fix(&b, now, 120)]).await;
    let a_seen = read_positions(a_stream, Duration::from_secs(5), |p| {
        p["vehicleId"] == a.id.as_str()
    })
    .await;
    let b_seen = read_positions(b_stream, Duration::from_secs(5), |p| {
        p["vehicleId"] == b.id.as_str()
    })
    .await;
    assert_eq!(
        a_seen.last().unwrap()["vehicleId"],
        a.id.as_str(),
        "{a_seen:?}"
    );
    assert_eq!(a_seen.last().unwrap()["status"], "parked");
    assert!(a_seen.iter().all(|p| p["vehicleId"] != b.id.as_str()));
    assert_eq!(
        b_seen.last().unwrap()["vehicleId"],
        b.id.as_str(),
        "{b_seen:?}"
    );
    assert_eq!(b_seen.last().unwrap()["speedKmh"], 12.0);
    assert!(b_seen.iter().all(|p| p["vehicleId"] != a.id.as_str()));
}

/// Maps open in several tabs share one feed at the edge: each gets every
/// fix. Signing out ends the session's stream at its next keep-alive.
#[tokio::test]
async fn every_open_map_of_a_session_gets_the_fix_and_signing_out_ends_its_stream() {
    let app = crate::helpers::spawn_app().await;
    let token = app.token("demo").await;
    let other_token = app.token("demo").await;
    let a = car(&app, &token, "粤BM0004").await;
    let first = open_stream(&app, &token).await;
    let second = open_stream(&app, &token).await;
    let third = open_stream(&app, &other_token).await;
    publish(&app, &[fix(&a, Utc::now(), 30)]).await;
    for stream in [first, second] {
        let seen = read_positions(stream, Duration::from_secs(5), |p| {
            p["vehicleId"] == a.id.as_str()
        })
        .await;
        assert_eq!(seen.last().unwrap()["vehicleId"], a.id.as_str(), "{seen:?}");
    }

    let (status, _) = app
        .post("/api/v1/auth/logout", Some(&other_token), json!({}))
        .await;
    assert_eq!(status, 200);
    let mut third = third;
    let deadline = tokio::time::Instant::now() + Duration::from_secs(20);
    loop {
        match tokio::time::timeout_at(deadline, third.chunk()).await {
            Ok(Ok(Some(_))) => continue,
            Ok(Ok(None) | Err(_)) => break,
            Err(_) => panic!("the signed-out session's stream still runs after 20 s"),
        }
    }
}

/// The public share link answers without a session, so each client address
/// gets 60 calls a minute: the 61st is 4029 with the seconds to wait, whatever
/// the token (a walk through tokens is refused as soon as a real reader).
#[tokio::test]
async fn the_public_share_link_refuses_an_address_past_its_minute() {
    let app = crate::helpers::spawn_app().await;
    let url = format!("{}/api/v1/public/temperature/not-a-real-token", app.base);
    for call in 1..=60 {
        let (status, body) =
            crate::helpers::envelope(app.http.get(&url).send().await.unwrap()).await;
        assert_eq!(
            (status, body["code"].as_i64()),
            (404, Some(4004)),
            "call {call}: {body}"
        );
    }
    let refused = app.http.get(&url).send().await.unwrap();
    let wait: u64 = refused
        .headers()
        .get(reqwest::header::RETRY_AFTER)
        .and_then(|v| v.to_str().ok()?.parse().ok())
        .unwrap_or_else(|| panic!("no Retry-After on {refused:?}"));
    assert!((1..=60).contains(&wait), "Retry-After {wait}");
    let (status, body) = crate::helpers::envelope(refused).await;
    assert_eq!((status, body["code"].as_i64()), (429, Some(4029)), "{body}");
    assert_eq!(body["msg"], "操作过于频繁，请稍后再试");
}
