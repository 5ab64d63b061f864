//! Share-link tokens: 32 random bytes as hex. Only the SHA-256 of a token
//! is stored, so a database leak gives no working link; revocation and
//! expiry are checked against that row on every view.

use rand::RngCore as _;
use sha2::{Digest as _, Sha256};

/// A fresh token and the hash to store.
pub fn new_token() -> (String, Vec<u8>) {
    let mut bytes = [0u8; 32];
    rand::thread_rng().fill_bytes(&mut bytes);
    let token = hex::encode(bytes);
    let hash = hash(&token);
    (token, hash)
}

/// The stored form of a token; `None` for text that is not one of ours.
pub fn parse(token: &str) -> Option<Vec<u8>> {
    let token = token.trim();
    (token.len() == 64 && token.bytes().all(|b| b.is_ascii_hexdigit()))
        .then(|| hash(&token.to_ascii_lowercase()))
}

fn hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn token_round_trip() {
        let (token, stored) = new_token();
        assert_eq!(parse(&token), Some(stored));
        assert_eq!(parse("nope"), None);
        assert_ne!(new_token().0, token);
    }
}
