//! The gateway's signing scheme, one for both directions: the merchant's
//! requests and the bank's callbacks carry `X-Merchant-Id`, `X-Timestamp`
//! (Unix seconds), `X-Nonce` and `X-Signature`, the lowercase hex
//! HMAC-SHA256, under the merchant's secret, of
//! `METHOD\nPATH\nMERCHANT_ID\nTIMESTAMP\nNONCE\nBODY_SHA256` (PATH with its
//! query as sent, BODY_SHA256 the lowercase hex SHA-256 of the raw body).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use axum::http::HeaderMap;
use chrono::Utc;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

pub const MERCHANT_HEADER: &str = "x-merchant-id";
pub const TIMESTAMP_HEADER: &str = "x-timestamp";
pub const NONCE_HEADER: &str = "x-nonce";
pub const SIGNATURE_HEADER: &str = "x-signature";

/// How far a timestamp may be from now, and how long a nonce is remembered.
pub const MAX_SKEW: Duration = Duration::from_secs(300);

/// The four signature headers of one request or callback.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Signed {
    pub merchant_id: String,
    pub timestamp: String,
    pub nonce: String,
    pub signature: String,
}

impl Signed {
    /// Signs `body` sent with `method` to `path` now, with a fresh nonce.
    pub fn now(merchant_id: &str, secret: &str, method: &str, path: &str, body: &[u8]) -> Signed {
        let timestamp = Utc::now().timestamp().to_string();
        let nonce = uuid::Uuid::new_v4().simple().to_string();
        let text = string_to_sign(method, path, merchant_id, &timestamp, &nonce, body);
        Signed {
            merchant_id: merchant_id.to_owned(),
            signature: sign(secret, &text),
            timestamp,
            nonce,
        }
    }

    /// The headers as received; `None` when one is missing or blank.
    pub fn from_headers(headers: &HeaderMap) -> Option<Signed> {
        let text = |name: &str| {
            headers
                .get(name)
                .and_then(|v| v.to_str().ok())
                .map(str::trim)
                .filter(|v| !v.is_empty())
                .map(str::to_owned)
        };
        Some(Signed {
            merchant_id: text(MERCHANT_HEADER)?,
            timestamp: text(TIMESTAMP_HEADER)?,
            nonce: text(NONCE_HEADER)?,
            signature: text(SIGNATURE_HEADER)?,
        })
    }

    /// The headers to send, as (name, value) pairs.
    pub fn headers(&self) -> [(&'static str, &str); 4] {
        [
            (MERCHANT_HEADER, self.merchant_id.as_str()),
            (TIMESTAMP_HEADER, self.timestamp.as_str()),
            (NONCE_HEADER, self.nonce.as_str()),
            (SIGNATURE_HEADER, self.signature.as_str()),
        ]
    }

    /// Whether the signature is `secret`'s over `method`, `path` and `body`.
    pub fn is_valid(&self, secret: &str, method: &str, path: &str, body: &[u8]) -> bool {
        let text = string_to_sign(
            method,
            path,
            &self.merchant_id,
            &self.timestamp,
            &self.nonce,
            body,
        );
        let Ok(given) = hex::decode(&self.signature) else {
            return false;
        };
        mac(secret, &text).verify_slice(&given).is_ok()
    }

    /// Whether the timestamp is within [`MAX_SKEW`] of now.
    pub fn is_fresh(&self) -> bool {
        self.timestamp
            .parse::<i64>()
            .is_ok_and(|sent| Utc::now().timestamp().abs_diff(sent) <= MAX_SKEW.as_secs())
    }
}

/// The text a signature covers.
pub fn string_to_sign(
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

/// The lowercase hex HMAC-SHA256 of `text` under `secret`.
pub fn sign(secret: &str, text: &str) -> String {
    hex::encode(mac(secret, text).finalize().into_bytes())
}

fn mac(secret: &str, text: &str) -> Hmac<Sha256> {
    let mut mac =
        Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes a key of any length");
    mac.update(text.as_bytes());
    mac
}

/// Nonces seen within [`MAX_SKEW`], per merchant: a second use is a replay.
#[derive(Debug, Default)]
pub struct Nonces {
    seen: HashMap<(String, String), Instant>,
}

impl Nonces {
    /// Remembers `nonce`; false when it was already used.
    pub fn first_use(&mut self, merchant_id: &str, nonce: &str) -> bool {
        let now = Instant::now();
        self.seen
            .retain(|_, at| now.duration_since(*at) <= MAX_SKEW);
        self.seen
            .insert((merchant_id.to_owned(), nonce.to_owned()), now)
            .is_none()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_covers_every_part() {
        let signed = Signed::now("m1", "secret", "POST", "/api/v1/orders", b"{}");
        assert!(signed.is_valid("secret", "POST", "/api/v1/orders", b"{}"));
        assert!(!signed.is_valid("other", "POST", "/api/v1/orders", b"{}"));
        assert!(!signed.is_valid("secret", "GET", "/api/v1/orders", b"{}"));
        assert!(!signed.is_valid("secret", "POST", "/api/v1/refunds", b"{}"));
        assert!(!signed.is_valid("secret", "POST", "/api/v1/orders", b"{ }"));
        let other_merchant = Signed {
            merchant_id: "m2".to_owned(),
            ..signed.clone()
        };
        assert!(!other_merchant.is_valid("secret", "POST", "/api/v1/orders", b"{}"));
        assert!(signed.is_fresh());
    }

    #[test]
    fn a_nonce_is_used_once_per_merchant() {
        let mut nonces = Nonces::default();
        assert!(nonces.first_use("m1", "n"));
        assert!(!nonces.first_use("m1", "n"));
        assert!(nonces.first_use("m2", "n"));
    }
}
