//! A merchant written from the gateway's documentation (not from the
//! stand-in's code): it signs requests and checks callbacks by the
//! documented scheme, and runs a notify endpoint that records every
//! callback and refuses the first few on demand.

#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use fleetdesk_bank_standin::{Settings, StandIn};
use hmac::{Hmac, Mac};
use serde_json::Value;
use sha2::{Digest, Sha256};

pub const MERCHANT: &str = "M100200300";
pub const SECRET: &str = "bank-secret-for-tests";

/// The documented signature: hex HMAC-SHA256 of
/// `METHOD\nPATH\nMERCHANT\nTIMESTAMP\nNONCE\nhex(SHA-256(body))`.
pub fn signature(
    secret: &str,
    method: &str,
    path: &str,
    merchant: &str,
    timestamp: &str,
    nonce: &str,
    body: &[u8],
) -> String {
    let text = format!(
        "{method}\n{path}\n{merchant}\n{timestamp}\n{nonce}\n{}",
        hex::encode(Sha256::digest(body))
    );
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).unwrap();
    mac.update(text.as_bytes());
    hex::encode(mac.finalize().into_bytes())
}

pub fn nonce() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

pub fn now() -> String {
    chrono::Utc::now().timestamp().to_string()
}

/// A bank started on a free port: its base URL and the handle tests drive.
pub struct Bank {
    pub base: String,
    pub standin: StandIn,
    http: reqwest::Client,
}

/// Starts a bank knowing [`MERCHANT`], settling only when told unless
/// `auto_settle_after` is given.
pub async fn start(auto_settle_after: Option<Duration>) -> Bank {
    start_with(|s| s.auto_settle_after = auto_settle_after).await
}

pub async fn start_with(change: impl FnOnce(&mut Settings)) -> Bank {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let base = format!("http://{}", listener.local_addr().unwrap());
    let mut settings = Settings::single(MERCHANT, SECRET, &base);
    change(&mut settings);
    let standin = StandIn::new(settings);
    let serving = standin.clone();
    tokio::spawn(async move {
        fleetdesk_bank_standin::serve(listener, serving, std::future::pending())
            .await
            .unwrap();
    });
    Bank {
        base,
        standin,
        http: reqwest::Client::new(),
    }
}

/// Signing headers for a request; each part can be spoiled by a test.
pub struct Signing {
    pub merchant: String,
    pub secret: String,
    pub timestamp: String,
    pub nonce: String,
}

impl Signing {
    pub fn fresh() -> Signing {
        Signing {
            merchant: MERCHANT.to_owned(),
            secret: SECRET.to_owned(),
            timestamp: now(),
            nonce: nonce(),
        }
    }
}

impl Bank {
    /// `method path` with `body`, signed by `signing` (`None`: unsigned).
    pub async fn send(
        &self,
        method: &str,
        path: &str,
        body: &[u8],
        signing: Option<&Signing>,
    ) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self
            .http
            .request(method.clone(), format!("{}{path}", self.base))
            .header("content-type", "application/json")
            .body(body.to_vec());
        if let Some(s) = signing {
            let sig = signature(
                &s.secret,
                method.as_str(),
                path,
                &s.merchant,
                &s.timestamp,
                &s.nonce,
                body,
            );
            req = req
                .header("X-Merchant-Id", &s.merchant)
                .header("X-Timestamp", &s.timestamp)
                .header("X-Nonce", &s.nonce)
                .header("X-Signature", sig);
        }
        let answer = req.send().await.unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }

    /// A correctly signed request.
    pub async fn signed(&self, method: &str, path: &str, body: &Value) -> (u16, Value) {
        let bytes = if method == "GET" {
            Vec::new()
        } else {
            serde_json::to_vec(body).unwrap()
        };
        self.send(method, path, &bytes, Some(&Signing::fresh()))
            .await
    }

    /// An unsigned admin call.
    pub async fn admin(&self, method: &str, path: &str, body: &Value) -> (u16, Value) {
        let method = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let answer = self
            .http
            .request(method, format!("{}{path}", self.base))
            .json(body)
            .send()
            .await
            .unwrap();
        let status = answer.status().as_u16();
        (status, answer.json().await.unwrap_or(Value::Null))
    }

    /// Creates an order of `amount_fen` notifying `notify_url`.
    pub async fn order(&self, no: &str, amount_fen: i64, notify_url: &str) -> (u16, Value) {
        let body = serde_json::json!({
            "merchant_order_no": no,
            "amount_fen": amount_fen,
            "currency": "CNY",
            "notify_url": notify_url,
            "payer_name": "深圳市示例物流有限公司",
        });
        self.signed("POST", "/api/v1/orders", &body).await
    }

    /// A paid order of `amount_fen`: created, then settled by the admin API.
    pub async fn paid_order(&self, no: &str, amount_fen: i64, notify_url: &str) -> Value {
        let (status, order) = self.order(no, amount_fen, notify_url).await;
        assert_eq!(status, 200, "{order}");
        let id = order["order_id"].as_str().unwrap();
        let (status, paid) = self
            .admin(
                "POST",
                &format!("/admin/orders/{id}/settle"),
                &serde_json::json!({"outcome": "SUCCESS"}),
            )
            .await;
        assert_eq!(status, 200, "{paid}");
        paid
    }
}

/// One callback as the merchant received it.
#[derive(Debug, Clone)]
pub struct Callback {
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub at: Instant,
}

impl Callback {
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }

    /// Whether the callback is signed by [`SECRET`] as documented.
    pub fn is_authentic(&self) -> bool {
        let header = |name: &str| {
            self.headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .unwrap_or_default()
                .to_owned()
        };
        let Ok(given) = hex::decode(header("x-signature")) else {
            return false;
        };
        let expected = signature(
            SECRET,
            "POST",
            &self.path,
            &header("x-merchant-id"),
            &header("x-timestamp"),
            &header("x-nonce"),
            &self.body,
        );
        header("x-merchant-id") == MERCHANT && hex::decode(expected).unwrap() == given
    }
}

#[derive(Default)]
struct Received {
    callbacks: Vec<Callback>,
    refuse_left: u32,
}

/// The merchant's notify endpoint.
#[derive(Clone)]
pub struct Merchant {
    pub notify_url: String,
    received: Arc<Mutex<Received>>,
}

/// Starts a notify endpoint answering 500 to the first `refuse` callbacks.
pub async fn merchant(refuse: u32) -> Merchant {
    let received = Arc::new(Mutex::new(Received {
        callbacks: Vec::new(),
        refuse_left: refuse,
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let notify_url = format!(
        "http://{}/bank/notify?tenant=demo",
        listener.local_addr().unwrap()
    );
    let app = axum::Router::new()
        .route("/bank/notify", axum::routing::post(receive))
        .with_state(received.clone());
    tokio::spawn(async move { axum::serve(listener, app).await.unwrap() });
    Merchant {
        notify_url,
        received,
    }
}

async fn receive(
    State(received): State<Arc<Mutex<Received>>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let mut r = received.lock().unwrap();
    r.callbacks.push(Callback {
        path: uri.path_and_query().unwrap().as_str().to_owned(),
        headers,
        body,
        at: Instant::now(),
    });
    if r.refuse_left > 0 {
        r.refuse_left -= 1;
        StatusCode::INTERNAL_SERVER_ERROR
    } else {
        StatusCode::OK
    }
}

impl Merchant {
    pub fn callbacks(&self) -> Vec<Callback> {
        self.received.lock().unwrap().callbacks.clone()
    }

    /// Waits until `n` callbacks arrived (at most `within`), then answers them.
    pub async fn wait_for(&self, n: usize, within: Duration) -> Vec<Callback> {
        let deadline = Instant::now() + within;
        loop {
            let got = self.callbacks();
            if got.len() >= n || Instant::now() > deadline {
                return got;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}
