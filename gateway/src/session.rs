//! Turning a session token into a principal: auth says whose session it is,
//! org says what that person may do in the enterprise. Results are cached
//! briefly; logout evicts at once here and, through a NATS event, in every
//! other gateway.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use chrono::{DateTime, Utc};
use fleetdesk_kit::internal_token::Claims;
use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::auth::v1::{ResolveSessionRequest, SessionKind};
use fleetdesk_proto::org::v1::{EnterpriseFlags, GetPrincipalRequest, Role};
use futures::StreamExt as _;
use sha2::{Digest as _, Sha256};

use crate::state::AppState;

/// Subject on which auth announces ended sessions.
pub const SESSION_REVOKED_SUBJECT: &str = "fleetdesk.auth.session.revoked";

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
    pub roles: Vec<Role>,
    pub permissions: HashSet<String>,
    pub flags: EnterpriseFlags,
    pub expires_at: DateTime<Utc>,
    /// The raw token, needed to end the session.
    pub token: String,
}

impl Principal {
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
            iat: 0,
            exp: 0,
        }
    }
}

type TokenHash = [u8; 32];

pub fn token_hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

/// Recently resolved sessions by token hash.
#[derive(Debug)]
pub struct SessionCache {
    ttl: Duration,
    entries: Mutex<HashMap<TokenHash, (Instant, Principal)>>,
}

impl SessionCache {
    pub fn new(ttl: Duration) -> SessionCache {
        SessionCache {
            ttl,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn get(&self, hash: &TokenHash) -> Option<Principal> {
        let mut entries = self.entries.lock().expect("session cache lock");
        match entries.get(hash) {
            Some((at, p)) if at.elapsed() < self.ttl && p.expires_at > Utc::now() => {
                Some(p.clone())
            }
            Some(_) => {
                entries.remove(hash);
                None
            }
            None => None,
        }
    }

    fn put(&self, hash: TokenHash, principal: Principal) {
        let mut entries = self.entries.lock().expect("session cache lock");
        // Keep the map bounded: drop stale entries when it grows.
        if entries.len() > 10_000 {
            let ttl = self.ttl;
            entries.retain(|_, (at, _)| at.elapsed() < ttl);
        }
        entries.insert(hash, (Instant::now(), principal));
    }

    pub fn evict(&self, hash: &TokenHash) {
        self.entries
            .lock()
            .expect("session cache lock")
            .remove(hash);
    }
}

/// The principal of `token`, from the cache or the services.
pub async fn resolve(state: &AppState, token: &str) -> Result<Principal, ServiceError> {
    let hash = token_hash(token);
    if let Some(p) = state.sessions.get(&hash) {
        return Ok(p);
    }
    let session = state
        .auth()
        .resolve_session(state.as_gateway(ResolveSessionRequest {
            token: token.to_owned(),
        }))
        .await
        .map_err(|s| ServiceError::from_status(&s))?
        .into_inner()
        .session
        .ok_or_else(ServiceError::unauthenticated)?;
    if session.kind != SessionKind::Enterprise as i32 {
        // A personal session may only choose an enterprise (/selectNet).
        return Err(ServiceError::new(
            ErrorCode::Unauthenticated,
            "请先选择企业",
        ));
    }
    let principal = state
        .org()
        .get_principal(state.as_gateway(GetPrincipalRequest {
            account_id: session.account_id.clone(),
            enterprise_id: session.enterprise_id.clone(),
        }))
        .await
        .map_err(|s| ServiceError::from_status(&s))?
        .into_inner()
        .principal
        .ok_or_else(ServiceError::unauthenticated)?;
    let expires_at = session
        .expire_time
        .as_ref()
        .and_then(fleetdesk_kit::convert::datetime)
        .ok_or_else(ServiceError::unauthenticated)?;
    let resolved = Principal {
        session_id: session.id,
        account_id: principal.account_id,
        user_id: principal.user_id,
        enterprise_id: principal.enterprise_id,
        enterprise_name: principal.enterprise_name,
        name: principal.name,
        user_name: principal.user_name,
        avatar_url: principal.avatar_url,
        roles: principal.roles,
        permissions: principal.permission_values.into_iter().collect(),
        flags: principal.flags.unwrap_or_default(),
        expires_at,
        token: token.to_owned(),
    };
    state.sessions.put(hash, resolved.clone());
    Ok(resolved)
}

/// Evicts sessions that auth announces as ended, until the connection closes.
pub async fn follow_revocations(client: async_nats::Client, cache: std::sync::Arc<SessionCache>) {
    let mut subscription = match client.subscribe(SESSION_REVOKED_SUBJECT).await {
        Ok(s) => s,
        Err(err) => {
            tracing::warn!(error = %err, "Cannot follow session revocations; relying on cache expiry.");
            return;
        }
    };
    while let Some(message) = subscription.next().await {
        let hash = serde_json::from_slice::<serde_json::Value>(&message.payload)
            .ok()
            .and_then(|v| {
                v.get("tokenHash")
                    .and_then(|h| h.as_str())
                    .and_then(|h| hex::decode(h).ok())
            })
            .and_then(|bytes| TokenHash::try_from(bytes).ok());
        if let Some(hash) = hash {
            cache.evict(&hash);
        }
    }
}
