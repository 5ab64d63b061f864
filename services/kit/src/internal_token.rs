//! Short-lived internal access tokens: compact JWTs signed with Ed25519 (EdDSA).
//! The gateway and services sign them for the calls they make; every service
//! verifies them locally and refuses calls without one.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use ed25519_dalek::{Signature, Signer as _, SigningKey, Verifier as _, VerifyingKey};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use crate::reach::ReachClaim;

/// How long a token is good for. Calls are short; a leaked token dies fast.
pub const TOKEN_TTL_SECS: i64 = 60;
/// Allowed clock difference between hosts.
const LEEWAY_SECS: i64 = 5;

/// Who is calling, as the signer vouches.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Claims {
    /// Issuer: the signing component, e.g. `gateway`.
    pub iss: String,
    /// Subject: `user:<id>` for a person, `svc:<name>` for a service.
    pub sub: String,
    /// The enterprise (tenant) the call acts for; absent for service-level calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ent: Option<String>,
    /// The account behind a user subject.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub acc: Option<String>,
    /// Effective permission values of the person.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub perms: Vec<String>,
    /// How far the person's data reaches (org computes it; the gateway signs
    /// it). Absent for services, and for a person it means own rows only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reach: Option<ReachClaim>,
    /// The enterprise's list markers that decide which calls it may make
    /// (console spec §6), see [`enterprise_flag`]. Empty for services.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub flags: Vec<String>,
    pub iat: i64,
    pub exp: i64,
}

impl Claims {
    /// Claims for a service acting on its own behalf.
    pub fn service(issuer: &str) -> Claims {
        Claims {
            iss: issuer.to_owned(),
            sub: format!("svc:{issuer}"),
            ent: None,
            acc: None,
            perms: Vec::new(),
            reach: None,
            flags: Vec::new(),
            iat: 0,
            exp: 0,
        }
    }

    pub fn is_service(&self) -> bool {
        self.sub.starts_with("svc:")
    }

    /// The user id of a person subject.
    pub fn user_id(&self) -> Option<&str> {
        self.sub.strip_prefix("user:")
    }

    pub fn has_permission(&self, value: &str) -> bool {
        self.perms.iter().any(|p| p == value)
    }

    /// Whether the enterprise carries the [`enterprise_flag`] marker `flag`.
    pub fn has_flag(&self, flag: &str) -> bool {
        self.flags.iter().any(|f| f == flag)
    }
}

/// The markers of [`Claims::flags`]: strings, so that a marker a newer signer
/// adds does not make older services refuse the token.
pub mod enterprise_flag {
    /// A B2B enterprise (mustB2B calls only for it, noB2B never).
    pub const B2B: &str = "b2b";
    /// On the order-centre list.
    pub const ORDER_CENTER: &str = "orderCenter";
    /// Of the SF group (sees the order centre as the list does).
    pub const SF: &str = "sf";
}

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum TokenError {
    #[error("token is malformed")]
    Malformed,
    #[error("token signature does not verify")]
    BadSignature,
    #[error("token has expired")]
    Expired,
    #[error("signing key must be 32 bytes of base64")]
    BadKey,
}

/// Signs tokens. Holds the private key; clone freely.
#[derive(Clone)]
pub struct TokenSigner {
    key: SigningKey,
}

impl std::fmt::Debug for TokenSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenSigner(..)")
    }
}

const HEADER: &str = r#"{"alg":"EdDSA","typ":"JWT"}"#;

impl TokenSigner {
    /// From a base64 (standard or url-safe) 32-byte Ed25519 seed.
    pub fn from_base64_seed(seed: &str) -> Result<TokenSigner, TokenError> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(seed.trim())
            .or_else(|_| B64.decode(seed.trim()))
            .map_err(|_| TokenError::BadKey)?;
        let seed: [u8; 32] = bytes.try_into().map_err(|_| TokenError::BadKey)?;
        Ok(TokenSigner {
            key: SigningKey::from_bytes(&seed),
        })
    }

    /// A fresh random key, for one-process development runs and tests.
    pub fn generate() -> TokenSigner {
        TokenSigner {
            key: SigningKey::generate(&mut rand::rngs::OsRng),
        }
    }

    /// The seed as standard base64, to hand to another process.
    pub fn seed_base64(&self) -> String {
        base64::engine::general_purpose::STANDARD.encode(self.key.to_bytes())
    }

    pub fn verifier(&self) -> TokenVerifier {
        TokenVerifier {
            key: self.key.verifying_key(),
            verified: Arc::default(),
        }
    }

    /// Signs `claims`, stamping issue and expiry times.
    pub fn sign(&self, claims: &Claims) -> String {
        let now = chrono::Utc::now().timestamp();
        let mut claims = claims.clone();
        claims.iat = now;
        claims.exp = now + TOKEN_TTL_SECS;
        let payload = serde_json::to_vec(&claims).expect("claims serialise");
        let signing_input = format!("{}.{}", B64.encode(HEADER), B64.encode(payload));
        let signature = self.key.sign(signing_input.as_bytes());
        format!("{signing_input}.{}", B64.encode(signature.to_bytes()))
    }
}

/// Verifies tokens with the public key.
#[derive(Clone, Debug)]
pub struct TokenVerifier {
    key: VerifyingKey,
    verified: Arc<VerifiedTokens>,
}

/// Tokens that already verified, until they expire. A caller reuses its
/// token for many calls (see [`SignedToken`]); checking the Ed25519
/// signature and parsing the claims (with every permission) once per token
/// instead of once per call is most of a cheap read's token cost.
#[derive(Debug, Default)]
struct VerifiedTokens(Mutex<HashMap<Box<str>, Arc<Claims>>>);

/// Bounds the cache; past it, it starts again empty (tokens live a minute).
const VERIFIED_CAPACITY: usize = 4096;

impl VerifiedTokens {
    fn get(&self, token: &str) -> Option<Arc<Claims>> {
        self.0.lock().expect("token cache lock").get(token).cloned()
    }

    fn put(&self, token: &str, claims: Arc<Claims>) {
        let mut tokens = self.0.lock().expect("token cache lock");
        if tokens.len() >= VERIFIED_CAPACITY {
            tokens.clear();
        }
        tokens.insert(token.into(), claims);
    }
}

impl TokenVerifier {
    /// The claims of a valid, unexpired token.
    pub fn verify(&self, token: &str) -> Result<Arc<Claims>, TokenError> {
        let claims = match self.verified.get(token) {
            Some(claims) => claims,
            None => {
                let claims = Arc::new(self.check(token)?);
                self.verified.put(token, claims.clone());
                claims
            }
        };
        if claims.exp + LEEWAY_SECS < chrono::Utc::now().timestamp() {
            return Err(TokenError::Expired);
        }
        Ok(claims)
    }

    /// Signature and shape, without the expiry.
    fn check(&self, token: &str) -> Result<Claims, TokenError> {
        let mut parts = token.split('.');
        let (Some(header), Some(payload), Some(signature), None) =
            (parts.next(), parts.next(), parts.next(), parts.next())
        else {
            return Err(TokenError::Malformed);
        };
        if B64.decode(header).map_err(|_| TokenError::Malformed)? != HEADER.as_bytes() {
            return Err(TokenError::Malformed);
        }
        let signature: [u8; 64] = B64
            .decode(signature)
            .map_err(|_| TokenError::Malformed)?
            .try_into()
            .map_err(|_| TokenError::Malformed)?;
        let signing_input = &token[..header.len() + 1 + payload.len()];
        self.key
            .verify(signing_input.as_bytes(), &Signature::from_bytes(&signature))
            .map_err(|_| TokenError::BadSignature)?;
        serde_json::from_slice(&B64.decode(payload).map_err(|_| TokenError::Malformed)?)
            .map_err(|_| TokenError::Malformed)
    }
}

/// A caller's signed token kept for reuse while it has more than half its
/// life left: signing (claims JSON, base64, Ed25519) on every call cost more
/// than the call's own work, and an unchanged token lets the callee skip
/// verifying it again. Whoever holds the cell drops it when the claims change.
#[derive(Debug, Default)]
pub struct SignedToken(Mutex<Option<(Arc<str>, i64)>>);

impl SignedToken {
    /// The kept token, or a fresh one for `claims` signed by `signer`.
    pub fn get_or_sign(&self, signer: &TokenSigner, claims: impl FnOnce() -> Claims) -> Arc<str> {
        let now = chrono::Utc::now().timestamp();
        let mut kept = self.0.lock().expect("signed token lock");
        match &*kept {
            Some((token, exp)) if now < exp - TOKEN_TTL_SECS / 2 => token.clone(),
            _ => {
                let token: Arc<str> = signer.sign(&claims()).into();
                *kept = Some((token.clone(), now + TOKEN_TTL_SECS));
                token
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn user_claims() -> Claims {
        Claims {
            iss: "gateway".into(),
            sub: "user:42".into(),
            ent: Some("ent-a".into()),
            acc: Some("acc-1".into()),
            perms: vec!["as:sys:role:getList".into()],
            reach: Some(ReachClaim {
                all: false,
                subtrees: vec![uuid::Uuid::from_u128(3)],
                orgs: Vec::new(),
            }),
            flags: vec![enterprise_flag::B2B.into()],
            iat: 0,
            exp: 0,
        }
    }

    #[test]
    fn a_signed_token_verifies_and_keeps_its_claims() {
        let signer = TokenSigner::generate();
        let claims = signer
            .verifier()
            .verify(&signer.sign(&user_claims()))
            .unwrap();
        assert_eq!(claims.sub, "user:42");
        assert_eq!(claims.ent.as_deref(), Some("ent-a"));
        assert!(claims.has_permission("as:sys:role:getList"));
        assert_eq!(claims.reach, user_claims().reach);
        assert!(claims.has_flag(enterprise_flag::B2B) && !claims.has_flag(enterprise_flag::SF));
        assert_eq!(claims.exp - claims.iat, TOKEN_TTL_SECS);
    }

    #[test]
    fn claims_without_flags_still_parse_and_carry_none() {
        let claims: Claims =
            serde_json::from_str(r#"{"iss":"gateway","sub":"user:1","iat":0,"exp":0}"#).unwrap();
        assert!(claims.flags.is_empty());
        let json = serde_json::to_string(&Claims::service("seed")).unwrap();
        assert!(!json.contains("flags"), "{json}");
    }

    #[test]
    fn a_token_from_another_key_is_refused() {
        let token = TokenSigner::generate().sign(&user_claims());
        assert_eq!(
            TokenSigner::generate().verifier().verify(&token),
            Err(TokenError::BadSignature)
        );
    }

    #[test]
    fn a_tampered_payload_is_refused() {
        let signer = TokenSigner::generate();
        let token = signer.sign(&user_claims());
        let parts: Vec<&str> = token.split('.').collect();
        let mut forged = user_claims();
        forged.ent = Some("ent-b".into());
        forged.exp = i64::MAX / 2;
        let forged = format!(
            "{}.{}.{}",
            parts[0],
            B64.encode(serde_json::to_vec(&forged).unwrap()),
            parts[2]
        );
        assert_eq!(
            signer.verifier().verify(&forged),
            Err(TokenError::BadSignature)
        );
    }

    #[test]
    fn garbage_is_malformed() {
        let verifier = TokenSigner::generate().verifier();
        for token in ["", "a.b", "a.b.c.d", "x.y.z"] {
            assert_eq!(
                verifier.verify(token),
                Err(TokenError::Malformed),
                "{token}"
            );
        }
    }

    #[test]
    fn a_seed_round_trips_through_base64() {
        let signer = TokenSigner::generate();
        let again = TokenSigner::from_base64_seed(&signer.seed_base64()).unwrap();
        assert!(
            again
                .verifier()
                .verify(&signer.sign(&user_claims()))
                .is_ok()
        );
        assert_eq!(
            TokenSigner::from_base64_seed("c2hvcnQ=").unwrap_err(),
            TokenError::BadKey
        );
    }
}
