//! Who a session token stands for, and the brief cache of resolved tokens:
//! the values the gateway's state holds (it knows no request plumbing).

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use fleetdesk_kit::internal_token::{Claims, SignedToken, enterprise_flag};
use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_proto::org::v1::{EnterpriseFlags, Role};
use sha2::{Digest as _, Sha256};

/// A signed-in person acting in one enterprise.
#[derive(Debug, Clone)]
pub struct Principal {
    pub session_id: String,
    pub account_id: String,
    pub user_id: String,
    pub enterprise_id: String,
    pub enterprise_name: String,
    pub name: String,
    pub user_name: String,
    pub avatar_url: String,
    // Shared, not copied: a principal is cloned out of the cache on every request.
    pub roles: Arc<Vec<Role>>,
    pub permissions: Arc<HashSet<String>>,
    pub flags: EnterpriseFlags,
    /// How far the person's data reaches, as org computed it.
    pub reach: Arc<ReachClaim>,
    pub expires_at: DateTime<Utc>,
    /// The raw token, needed to end the session.
    pub token: String,
    /// The internal token of calls made for this principal, signed once and
    /// reused; a changed principal is evicted from the cache with it.
    pub internal_token: Arc<SignedToken>,
}

/// A signed-in person, with or without an enterprise chosen.
#[derive(Debug, Clone)]
pub struct Person {
    pub session_id: String,
    pub account_id: String,
    /// Set for an enterprise session.
    pub enterprise_id: Option<String>,
    pub expires_at: DateTime<Utc>,
    /// The raw token, needed to end the session or derive another.
    pub token: String,
}

impl Principal {
    /// The person behind this enterprise session.
    pub fn person(&self) -> Person {
        Person {
            session_id: self.session_id.clone(),
            account_id: self.account_id.clone(),
            enterprise_id: Some(self.enterprise_id.clone()),
            expires_at: self.expires_at,
            token: self.token.clone(),
        }
    }

    pub fn has_any(&self, values: &[String]) -> bool {
        values.iter().any(|v| self.permissions.contains(v))
    }

    /// Claims for the internal token of calls made for this person.
    pub fn claims(&self) -> Claims {
        let mut perms: Vec<String> = self.permissions.iter().cloned().collect();
        perms.sort_unstable();
        Claims {
            iss: "gateway".to_owned(),
            sub: format!("user:{}", self.user_id),
            ent: Some(self.enterprise_id.clone()),
            acc: Some(self.account_id.clone()),
            perms,
            reach: Some(ReachClaim::clone(&self.reach)),
            flags: claim_flags(&self.flags),
            iat: 0,
            exp: 0,
        }
    }
}

/// The list markers services check again on their side (console spec §6).
fn claim_flags(flags: &EnterpriseFlags) -> Vec<String> {
    [
        (flags.b2b, enterprise_flag::B2B),
        (flags.order_center, enterprise_flag::ORDER_CENTER),
        (flags.sf, enterprise_flag::SF),
    ]
    .into_iter()
    .filter(|(set, _)| *set)
    .map(|(_, flag)| flag.to_owned())
    .collect()
}

pub type TokenHash = [u8; 32];

pub fn token_hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// What a token resolves to.
#[derive(Debug, Clone)]
pub enum Resolved {
    Personal(Person),
    Enterprise(Principal),
}

impl Resolved {
    pub fn expires_at(&self) -> DateTime<Utc> {
        match self {
            Resolved::Personal(p) => p.expires_at,
            Resolved::Enterprise(p) => p.expires_at,
        }
    }
}

/// Recently resolved sessions by token hash.
#[derive(Debug)]
pub struct SessionCache {
    ttl: Duration,
    entries: Mutex<HashMap<TokenHash, (Instant, Resolved)>>,
}

impl SessionCache {
    pub fn new(ttl: Duration) -> SessionCache {
        SessionCache {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    pub fn get(&self, hash: &TokenHash) -> Option<Resolved> {
        let mut entries = self.entries.lock().expect("session cache lock");
        match entries.get(hash) {
            Some((at, r)) if at.elapsed() < self.ttl && r.expires_at() > Utc::now() => {
                Some(r.clone())
            }
            Some(_) => {
                entries.remove(hash);
                None
            }
            None => None,
        }
    }

    pub fn put(&self, hash: TokenHash, resolved: Resolved) {
        let mut entries = self.entries.lock().expect("session cache lock");
        // Keep the map bounded: drop stale entries when it grows.
        if entries.len() > 10_000 {
            let ttl = self.ttl;
            entries.retain(|_, (at, _)| at.elapsed() < ttl);
        }
        entries.insert(hash, (Instant::now(), resolved));
    }

    /// Drops cached principals of `enterprise_id` (every enterprise when
    /// `None`), only those of `user_ids` unless it is empty.
    pub fn evict_principals(&self, enterprise_id: Option<&str>, user_ids: &[String]) {
        self.entries.lock().expect("session cache lock").retain(
            |_, (_, resolved)| match resolved {
                Resolved::Personal(_) => true,
                Resolved::Enterprise(p) => {
                    let enterprise = enterprise_id.is_none_or(|e| e == p.enterprise_id);
                    let user = user_ids.is_empty() || user_ids.contains(&p.user_id);
                    !(enterprise && user)
                }
            },
        );
    }

    /// Drops every cached principal of one enterprise (after a change made here).
    pub fn evict_enterprise(&self, enterprise_id: &str) {
        self.evict_principals(Some(enterprise_id), &[]);
    }

    pub fn evict(&self, hash: &TokenHash) {
        self.entries
            .lock()
            .expect("session cache lock")
            .remove(hash);
    }
}
