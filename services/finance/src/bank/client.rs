//! The bank's merchant gateway, as its documentation describes it:
//!
//! - `POST {url}/api/v1/orders` `{merchant_order_no, amount_fen, currency
//!   "CNY", notify_url, payer_name?}` → the order (`order_id`, `status`
//!   PENDING, `pay_url`); the same number with the same amount answers the
//!   same order; `GET {url}/api/v1/orders/{order_id}`.
//! - `POST {url}/api/v1/refunds` `{merchant_refund_no, order_id,
//!   amount_fen, notify_url, reason?}` → the refund (PROCESSING);
//!   `GET {url}/api/v1/refunds/{refund_id}`.
//! - Every request signed: `X-Merchant-Id`, `X-Timestamp` (Unix seconds),
//!   `X-Nonce` (fresh each time), `X-Signature`, the hex HMAC-SHA256 under
//!   the merchant's secret of
//!   `METHOD\nPATH\nMERCHANT_ID\nTIMESTAMP\nNONCE\nhex(SHA-256(body))`.
//!   Refusals are `{"code","message"}` with the HTTP status.
//! - Callbacks to the notify URL carry the same headers over `POST`, the
//!   notify URL's path and query, and the raw body `{event_id, event_type,
//!   created_at, order | refund}`; a callback is retried until answered 2xx.
//!
//! Every call is idempotent (the merchant's numbers are the keys), so a
//! call the bank answered 5xx or 429, or that did not reach it, is sent
//! again, freshly signed, a few times before the error is returned.

use std::time::Duration;

use chrono::{DateTime, Utc};
use hmac::{Hmac, Mac};
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

const ORDERS_PATH: &str = "/api/v1/orders";
const REFUNDS_PATH: &str = "/api/v1/refunds";
const CURRENCY: &str = "CNY";
/// How far a callback's timestamp may be from now.
const MAX_SKEW_SECS: u64 = 300;
/// Waits before each retry of a call that failed for a passing reason.
const RETRY_WAITS: [Duration; 2] = [Duration::from_millis(200), Duration::from_secs(1)];

/// Where the gateway is, the merchant's credentials and the URL the bank
/// calls back (`FLEETDESK_BANK_URL`, `_MERCHANT_ID`, `_SECRET`, `_NOTIFY_URL`).
#[derive(Clone)]
pub struct BankConfig {
    pub url: String,
    pub merchant_id: String,
    pub secret: String,
    pub notify_url: String,
}

impl std::fmt::Debug for BankConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BankConfig")
            .field("url", &self.url)
            .field("merchant_id", &self.merchant_id)
            .field("notify_url", &self.notify_url)
            .finish_non_exhaustive()
    }
}

impl BankConfig {
    /// From the environment; `None` when no URL is set (no bank payments).
    pub fn from_env() -> Option<BankConfig> {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
        Some(BankConfig {
            url: var("FLEETDESK_BANK_URL")?,
            merchant_id: var("FLEETDESK_BANK_MERCHANT_ID").unwrap_or_default(),
            secret: var("FLEETDESK_BANK_SECRET").unwrap_or_default(),
            notify_url: var("FLEETDESK_BANK_NOTIFY_URL").unwrap_or_default(),
        })
    }
}

/// Why a call failed.
#[derive(Debug, thiserror::Error)]
pub enum BankError {
    #[error("bank unreachable: {0}")]
    Http(#[from] reqwest::Error),
    #[error("bank answered {status} {code}: {message}")]
    Refused {
        status: u16,
        /// The gateway's code, e.g. `ORDER_NO_CONFLICT`, `REFUND_AMOUNT_EXCEEDED`.
        code: String,
        message: String,
    },
}

impl BankError {
    /// Whether the same call may succeed later (unreachable, 5xx, 429).
    pub fn is_transient(&self) -> bool {
        match self {
            BankError::Http(_) => true,
            BankError::Refused { status, .. } => *status >= 500 || *status == 429,
        }
    }

    /// The gateway's code of a refusal.
    pub fn code(&self) -> Option<&str> {
        match self {
            BankError::Refused { code, .. } => Some(code),
            BankError::Http(_) => None,
        }
    }
}

/// Why a callback is not believed.
#[derive(Debug, thiserror::Error)]
pub enum NotifyError {
    #[error("callback without its signature headers")]
    Unsigned,
    #[error("callback for another merchant")]
    OtherMerchant,
    #[error("callback signature does not verify")]
    BadSignature,
    #[error("callback timestamp too far from now")]
    Stale,
    #[error("callback body unreadable: {0}")]
    Malformed(#[from] serde_json::Error),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum PaymentStatus {
    Pending,
    Success,
    Failed,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum RefundStatus {
    Processing,
    Success,
    Failed,
}

/// A payment order as the bank answers it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct PaymentOrder {
    pub order_id: String,
    pub merchant_order_no: String,
    pub amount_fen: i64,
    pub currency: String,
    pub status: PaymentStatus,
    pub refunded_fen: i64,
    /// The bank's page where the payer pays.
    pub pay_url: String,
    #[serde(default)]
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub paid_at: Option<DateTime<Utc>>,
}

/// A refund as the bank answers it.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct BankRefund {
    pub refund_id: String,
    pub merchant_refund_no: String,
    pub order_id: String,
    pub amount_fen: i64,
    pub status: RefundStatus,
    #[serde(default)]
    pub failure_reason: Option<String>,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub settled_at: Option<DateTime<Utc>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
pub enum EventType {
    #[serde(rename = "PAYMENT.SUCCESS")]
    PaymentSuccess,
    #[serde(rename = "PAYMENT.FAILED")]
    PaymentFailed,
    #[serde(rename = "REFUND.SUCCESS")]
    RefundSuccess,
    #[serde(rename = "REFUND.FAILED")]
    RefundFailed,
}

/// A verified callback. `event_id` is the same on every repeat.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Notification {
    pub event_id: String,
    pub event_type: EventType,
    pub created_at: DateTime<Utc>,
    #[serde(default)]
    pub order: Option<PaymentOrder>,
    #[serde(default)]
    pub refund: Option<BankRefund>,
}

#[derive(Debug, Serialize)]
struct NewOrder<'a> {
    merchant_order_no: &'a str,
    amount_fen: i64,
    currency: &'static str,
    notify_url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    payer_name: Option<&'a str>,
}

#[derive(Debug, Serialize)]
struct NewRefund<'a> {
    merchant_refund_no: &'a str,
    order_id: &'a str,
    amount_fen: i64,
    notify_url: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<&'a str>,
}

#[derive(Debug, Default, Deserialize)]
struct Refusal {
    #[serde(default)]
    code: String,
    #[serde(default)]
    message: String,
}

/// The text a signature covers.
fn string_to_sign(
    method: &str,
    path: &str,
    merchant_id: &str,
    timestamp: &str,
    nonce: &str,
    body: &[u8],
) -> String {
    let body_hash = hex::encode(Sha256::digest(body));
    format!("{method}\n{path}\n{merchant_id}\n{timestamp}\n{nonce}\n{body_hash}")
}

fn mac(secret: &str, text: &str) -> Hmac<Sha256> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    mac
}

/// A URL's path and query, as signed.
fn path_of(url: &str) -> String {
    match reqwest::Url::parse(url) {
        Ok(u) => match u.query() {
            Some(q) => format!("{}?{q}", u.path()),
            None => u.path().to_owned(),
        },
        Err(_) => String::new(),
    }
}

/// The gateway's client.
#[derive(Debug, Clone)]
pub struct Bank {
    config: BankConfig,
    http: reqwest::Client,
}

impl Bank {
    pub fn new(config: BankConfig) -> Result<Bank, BankError> {
        let http = reqwest::Client::builder()
            .timeout(Duration::from_secs(15))
            .build()?;
        Ok(Bank { config, http })
    }

    /// Asks the bank for a payment of `amount_fen` under finance's
    /// `merchant_order_no`; asking again answers the same order.
    pub async fn create_order(
        &self,
        merchant_order_no: &str,
        amount_fen: i64,
        payer_name: Option<&str>,
    ) -> Result<PaymentOrder, BankError> {
        let body = NewOrder {
            merchant_order_no,
            amount_fen,
            currency: CURRENCY,
            notify_url: &self.config.notify_url,
            payer_name,
        };
        self.call(reqwest::Method::POST, ORDERS_PATH.to_owned(), Some(&body))
            .await
    }

    pub async fn order(&self, order_id: &str) -> Result<PaymentOrder, BankError> {
        self.call::<(), _>(
            reqwest::Method::GET,
            format!("{ORDERS_PATH}/{order_id}"),
            None,
        )
        .await
    }

    /// Asks the bank to refund `amount_fen` of the paid order `order_id`
    /// under finance's `merchant_refund_no`; asking again answers the same refund.
    pub async fn create_refund(
        &self,
        merchant_refund_no: &str,
        order_id: &str,
        amount_fen: i64,
        reason: Option<&str>,
    ) -> Result<BankRefund, BankError> {
        let body = NewRefund {
            merchant_refund_no,
            order_id,
            amount_fen,
            notify_url: &self.config.notify_url,
            reason,
        };
        self.call(reqwest::Method::POST, REFUNDS_PATH.to_owned(), Some(&body))
            .await
    }

    pub async fn refund(&self, refund_id: &str) -> Result<BankRefund, BankError> {
        self.call::<(), _>(
            reqwest::Method::GET,
            format!("{REFUNDS_PATH}/{refund_id}"),
            None,
        )
        .await
    }

    /// One call, signed afresh on each try; passing failures retried.
    async fn call<B: Serialize, T: DeserializeOwned>(
        &self,
        method: reqwest::Method,
        path: String,
        body: Option<&B>,
    ) -> Result<T, BankError> {
        let bytes = match body {
            Some(b) => serde_json::to_vec(b).map_err(|e| BankError::Refused {
                status: 0,
                code: "ENCODE".to_owned(),
                message: e.to_string(),
            })?,
            None => Vec::new(),
        };
        let mut waits = RETRY_WAITS.iter();
        loop {
            let result = self.send(&method, &path, &bytes).await;
            match (result, waits.next()) {
                (Err(e), Some(wait)) if e.is_transient() => {
                    tracing::debug!(error = %e, "Bank call failed; retrying.");
                    tokio::time::sleep(*wait).await;
                }
                (result, _) => return result,
            }
        }
    }

    async fn send<T: DeserializeOwned>(
        &self,
        method: &reqwest::Method,
        path: &str,
        body: &[u8],
    ) -> Result<T, BankError> {
        let timestamp = Utc::now().timestamp().to_string();
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let text = string_to_sign(
            method.as_str(),
            path,
            &self.config.merchant_id,
            &timestamp,
            &nonce,
            body,
        );
        let signature = hex::encode(mac(&self.config.secret, &text).finalize().into_bytes());
        let mut request = self
            .http
            .request(
                method.clone(),
                format!("{}{path}", self.config.url.trim_end_matches('/')),
            )
            .header("X-Merchant-Id", &self.config.merchant_id)
            .header("X-Timestamp", &timestamp)
            .header("X-Nonce", &nonce)
            .header("X-Signature", signature);
        if !body.is_empty() {
            request = request
                .header(reqwest::header::CONTENT_TYPE, "application/json")
                .body(body.to_vec());
        }
        let answer = request.send().await?;
        let status = answer.status();
        let bytes = answer.bytes().await?;
        if status.is_success() {
            return serde_json::from_slice(&bytes).map_err(|e| BankError::Refused {
                status: status.as_u16(),
                code: "UNREADABLE".to_owned(),
                message: e.to_string(),
            });
        }
        let refusal: Refusal = serde_json::from_slice(&bytes).unwrap_or_default();
        Err(BankError::Refused {
            status: status.as_u16(),
            code: refusal.code,
            message: refusal.message,
        })
    }

    /// The callback `body` received with `headers` at the configured notify
    /// URL, if the bank signed it for this merchant within five minutes.
    /// Repeats verify too: apply each `event_id` once.
    pub fn verify_notification(
        &self,
        headers: &HeaderMap,
        body: &[u8],
    ) -> Result<Notification, NotifyError> {
        let header = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                .filter(|v| !v.is_empty())
        };
        let (Some(merchant_id), Some(timestamp), Some(nonce), Some(signature)) = (
            header("x-merchant-id"),
            header("x-timestamp"),
            header("x-nonce"),
            header("x-signature"),
        ) else {
            return Err(NotifyError::Unsigned);
        };
        if merchant_id != self.config.merchant_id {
            return Err(NotifyError::OtherMerchant);
        }
        let text = string_to_sign(
            "POST",
            &path_of(&self.config.notify_url),
            merchant_id,
            timestamp,
            nonce,
            body,
        );
        let given = hex::decode(signature).map_err(|_| NotifyError::BadSignature)?;
        mac(&self.config.secret, &text)
            .verify_slice(&given)
            .map_err(|_| NotifyError::BadSignature)?;
        let fresh = timestamp
            .parse::<i64>()
            .is_ok_and(|sent| Utc::now().timestamp().abs_diff(sent) <= MAX_SKEW_SECS);
        if !fresh {
            return Err(NotifyError::Stale);
        }
        Ok(serde_json::from_slice(body)?)
    }
}
