//! The stand-in over HTTP, signed the way the provider's documentation
//! describes (written here from that description, not from the stand-in's
//! code): signed requests are served and paged; unsigned, badly signed,
//! stale and replayed ones are refused; past the limit it answers 429 with
//! Retry-After.

use std::time::Duration;

use fleetdesk_traffic_standin::{QUERY_PATH, RateLimit, Settings, StandIn};
use hmac::{Hmac, Mac};
use rand::Rng as _;
use sha2::Sha256;

const KEY: &str = "fleetdesk-test";
const SECRET: &str = "s3cret-for-tests";

async fn start(standin: &StandIn) -> String {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_traffic_standin::serve(listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    base
}

/// `pairs` as the query string sent, keys sorted.
fn query(pairs: &[(&str, &str)]) -> String {
    let mut encoded: Vec<String> = pairs
        .iter()
        .map(|p| serde_urlencoded::to_string([p]).unwrap())
        .collect();
    encoded.sort();
    encoded.join("&")
}

fn sign(secret: &str, query: &str, timestamp: i64, nonce: &str) -> String {
    let text = format!("GET\n{QUERY_PATH}\n{query}\n{KEY}\n{timestamp}\n{nonce}");
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

fn nonce() -> String {
    format!("{:032x}", rand::thread_rng().r#gen::<u128>())
}

async fn get(base: &str, query: &str, headers: Option<(i64, &str, String)>) -> reqwest::Response {
    let mut req = reqwest::Client::new().get(format!("{base}{QUERY_PATH}?{query}"));
    if let Some((timestamp, nonce, signature)) = headers {
        req = req
            .header("X-App-Key", KEY)
            .header("X-Timestamp", timestamp.to_string())
            .header("X-Nonce", nonce)
            .header("X-Signature", signature);
    }
    req.send().await.unwrap()
}

async fn signed(base: &str, query: &str) -> reqwest::Response {
    let now = chrono::Utc::now().timestamp();
    let n = nonce();
    get(base, query, Some((now, &n, sign(SECRET, query, now, &n)))).await
}

#[tokio::test]
async fn signed_requests_are_served_and_paged_the_same_every_time() {
    let standin = StandIn::new(Settings::single(KEY, SECRET));
    standin.set_rate_limit(RateLimit {
        requests: 1000,
        per: Duration::from_secs(1),
    });
    let base = start(&standin).await;
    // A plate with at least two pages of three (most have; the year rolls).
    let mut found = None;
    for n in 0..80 {
        let plate = format!("粤B12{n:03}");
        let all = query(&[
            ("plate", plate.as_str()),
            ("pageNo", "1"),
            ("pageSize", "50"),
        ]);
        let body: serde_json::Value = signed(&base, &all).await.json().await.unwrap();
        assert_eq!(body["code"], 0);
        if body["data"]["total"].as_u64().unwrap() >= 6 {
            found = Some((plate, all, body));
            break;
        }
    }
    let (plate, all, body) = found.expect("a plate with six records in a year");
    let total = body["data"]["total"].as_u64().unwrap();
    let records = body["data"]["records"].as_array().unwrap().clone();
    // Two pages of 3 are the first 6 of the whole list, in order.
    let mut paged = Vec::new();
    for page in ["1", "2"] {
        let q = query(&[
            ("plate", plate.as_str()),
            ("pageNo", page),
            ("pageSize", "3"),
        ]);
        let body: serde_json::Value = signed(&base, &q).await.json().await.unwrap();
        assert_eq!(body["data"]["total"].as_u64(), Some(total));
        paged.extend(body["data"]["records"].as_array().unwrap().clone());
    }
    assert_eq!(paged, records[..6]);
    let again: serde_json::Value = signed(&base, &all).await.json().await.unwrap();
    assert_eq!(again["data"]["records"].as_array().unwrap(), &records);
    assert!(records[0]["decisionNo"].as_str().unwrap().len() >= 14);
    assert!(records[0]["fineFen"].as_i64().unwrap() > 0);
}

#[tokio::test]
async fn unsigned_badly_signed_stale_and_replayed_requests_are_refused() {
    let standin = StandIn::new(Settings::single(KEY, SECRET));
    let base = start(&standin).await;
    let q = query(&[("plate", "粤B12345")]);
    assert_eq!(get(&base, &q, None).await.status(), 401);

    let now = chrono::Utc::now().timestamp();
    let n = nonce();
    let wrong = sign("another-secret", &q, now, &n);
    assert_eq!(get(&base, &q, Some((now, &n, wrong))).await.status(), 401);

    // Signed for another plate: the query is part of what is signed.
    let n = nonce();
    let other = sign(SECRET, &query(&[("plate", "粤B99999")]), now, &n);
    assert_eq!(get(&base, &q, Some((now, &n, other))).await.status(), 401);

    let old = now - 600;
    let n = nonce();
    let stale = get(&base, &q, Some((old, &n, sign(SECRET, &q, old, &n)))).await;
    assert_eq!(stale.status(), 401);
    let body: serde_json::Value = stale.json().await.unwrap();
    assert_eq!(body["message"], "stale timestamp");

    let n = nonce();
    let first = get(&base, &q, Some((now, &n, sign(SECRET, &q, now, &n)))).await;
    assert_eq!(first.status(), 200);
    let replay = get(&base, &q, Some((now, &n, sign(SECRET, &q, now, &n)))).await;
    assert_eq!(replay.status(), 401);
    let body: serde_json::Value = replay.json().await.unwrap();
    assert_eq!(body["message"], "replayed nonce");
    assert_eq!(standin.counts().served, 1);
    assert_eq!(standin.counts().refused, 5);
}

#[tokio::test]
async fn past_the_limit_it_answers_429_with_retry_after() {
    let standin = StandIn::new(Settings::single(KEY, SECRET));
    standin.set_rate_limit(RateLimit {
        requests: 2,
        per: Duration::from_secs(3),
    });
    let base = start(&standin).await;
    let q = query(&[("plate", "粤B12345")]);
    assert_eq!(signed(&base, &q).await.status(), 200);
    assert_eq!(signed(&base, &q).await.status(), 200);
    let third = signed(&base, &q).await;
    assert_eq!(third.status(), 429);
    let retry: u64 = third.headers()["retry-after"]
        .to_str()
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3).contains(&retry), "Retry-After {retry}");
    tokio::time::sleep(Duration::from_secs(retry)).await;
    assert_eq!(signed(&base, &q).await.status(), 200);
    assert_eq!(standin.counts().throttled, 1);
}
