//! Passwords and session tokens.
//!
//! Passwords are argon2id hashes computed on the blocking pool, one core
//! short of all of them at a time (at least one), so a login storm cannot
//! starve the async threads or the other requests' CPU. A bounded number of
//! checks may wait for a turn; beyond that a check is refused at once as
//! busy instead of piling up. Session tokens are 256 random bits; only their
//! SHA-256 is stored.

use std::sync::Arc;

use argon2::Argon2;
use argon2::password_hash::rand_core::OsRng;
use argon2::password_hash::{PasswordHash, PasswordHasher as _, PasswordVerifier as _, SaltString};
use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD as B64;
use fleetdesk_kit::{ErrorCode, ServiceError};
use rand::RngCore as _;
use sha2::{Digest as _, Sha256};
use tokio::sync::Semaphore;

/// How many password checks may wait for a hashing turn.
const MAX_WAITING: usize = 64;

/// Why a password could not be hashed or checked.
#[derive(Debug, thiserror::Error)]
pub enum HashError {
    /// Too many checks are already waiting; try again shortly.
    #[error("too many password checks waiting")]
    Busy,
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

/// A busy hasher is a retry-later; anything else is a logged internal error.
pub fn hash_error(err: HashError) -> ServiceError {
    match err {
        HashError::Busy => {
            let mut busy =
                ServiceError::new(ErrorCode::TooManyRequests, "登录人数较多，请稍后再试");
            busy.retry_after_secs = Some(5);
            busy
        }
        HashError::Failed(cause) => ServiceError::internal(cause.as_ref()),
    }
}

/// Bounded password hashing.
#[derive(Clone, Debug)]
pub struct PasswordHasher {
    permits: Arc<Semaphore>,
    /// Hashing turns plus waiting places; a check without one is refused.
    places: Arc<Semaphore>,
    /// Checked against when the account does not exist, so an unknown account
    /// costs the same time as a wrong password.
    decoy_hash: Arc<String>,
}

impl Default for PasswordHasher {
    fn default() -> PasswordHasher {
        PasswordHasher::new()
    }
}

impl PasswordHasher {
    pub fn new() -> PasswordHasher {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        PasswordHasher::with_limits(cores.saturating_sub(1).max(1), MAX_WAITING)
    }

    /// `turns` hashes at a time, `waiting` more may queue.
    fn with_limits(turns: usize, waiting: usize) -> PasswordHasher {
        let decoy = hash_now(&B64.encode(random_bytes::<16>())).expect("hash decoy");
        PasswordHasher {
            permits: Arc::new(Semaphore::new(turns)),
            places: Arc::new(Semaphore::new(turns + waiting)),
            decoy_hash: Arc::new(decoy),
        }
    }

    /// Waits for a hashing turn, or refuses when too many already wait.
    async fn turn(&self) -> Result<[tokio::sync::SemaphorePermit<'_>; 2], HashError> {
        let place = self.places.try_acquire().map_err(|_| HashError::Busy)?;
        let permit = self
            .permits
            .acquire()
            .await
            .map_err(|e| HashError::Failed(e.into()))?;
        Ok([place, permit])
    }

    pub async fn hash(&self, password: String) -> Result<String, HashError> {
        let _turn = self.turn().await?;
        let hashed = tokio::task::spawn_blocking(move || hash_now(&password))
            .await
            .map_err(|e| HashError::Failed(e.into()))??;
        Ok(hashed)
    }

    /// True when `password` matches `hash`; a missing hash checks the decoy and fails.
    pub async fn verify(&self, password: String, hash: Option<String>) -> Result<bool, HashError> {
        let _turn = self.turn().await?;
        let real = hash.is_some();
        let hash = hash.unwrap_or_else(|| self.decoy_hash.as_ref().clone());
        let ok = tokio::task::spawn_blocking(move || {
            let parsed =
                PasswordHash::new(&hash).map_err(|e| anyhow::anyhow!("stored hash: {e}"))?;
            anyhow::Ok(
                Argon2::default()
                    .verify_password(password.as_bytes(), &parsed)
                    .is_ok(),
            )
        })
        .await
        .map_err(|e| HashError::Failed(e.into()))??;
        Ok(ok && real)
    }
}

fn hash_now(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map(|h| h.to_string())
        .map_err(|e| anyhow::anyhow!("hash password: {e}"))
}

fn random_bytes<const N: usize>() -> [u8; N] {
    let mut bytes = [0u8; N];
    rand::rngs::OsRng.fill_bytes(&mut bytes);
    bytes
}

/// A new opaque session token (256 bits, base64url).
pub fn new_session_token() -> String {
    B64.encode(random_bytes::<32>())
}

/// What the database keeps of a token.
pub fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_password_verifies_against_its_own_hash_only() {
        let hasher = PasswordHasher::new();
        let hash = hasher.hash("Demo@12345".into()).await.unwrap();
        assert!(hash.starts_with("$argon2id$"));
        assert!(
            hasher
                .verify("Demo@12345".into(), Some(hash.clone()))
                .await
                .unwrap()
        );
        assert!(
            !hasher
                .verify("Demo@12346".into(), Some(hash))
                .await
                .unwrap()
        );
    }

    #[tokio::test]
    async fn a_missing_account_never_verifies_even_with_the_decoy_password() {
        let hasher = PasswordHasher::new();
        assert!(!hasher.verify(String::new(), None).await.unwrap());
    }

    #[tokio::test]
    async fn checks_beyond_the_waiting_places_are_refused_as_busy() {
        let hasher = PasswordHasher::with_limits(1, 1);
        let checks = (0..4).map(|_| hasher.verify("x".into(), None));
        // join_all polls every check once before any finishes, so each takes
        // (or fails to take) its place up front.
        let answers = futures::future::join_all(checks).await;
        let busy = answers
            .iter()
            .filter(|a| matches!(a, Err(HashError::Busy)))
            .count();
        assert_eq!(busy, 2, "one hashing, one waiting, the rest refused");
    }

    #[test]
    fn tokens_are_256_bit_and_distinct() {
        let a = new_session_token();
        assert_eq!(B64.decode(&a).unwrap().len(), 32);
        assert_ne!(a, new_session_token());
        assert_eq!(token_hash(&a).len(), 32);
        assert_ne!(token_hash(&a), a.as_bytes());
    }
}
