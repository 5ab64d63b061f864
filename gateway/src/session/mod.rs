//! Turning a session token into who is calling: auth says whose session it
//! is; for an enterprise session org adds what that person may do there (a
//! [`Principal`]). A personal session, or any session seen by a route that
//! only needs the person, gives a [`Person`]. Results are cached briefly;
//! logout and password changes evict at once here and, through a NATS event,
//! in every other gateway.

use std::sync::Arc;

use fleetdesk_kit::reach::ReachClaim;
use fleetdesk_kit::{ErrorCode, ServiceError, subjects};
use fleetdesk_proto::auth::v1::{ResolveSessionRequest, SessionKind, SessionRevoked};
use fleetdesk_proto::org::v1::{GetPrincipalRequest, PrincipalChanged};
use futures::StreamExt as _;
use prost::Message as _;

pub mod cache;

use crate::session::cache::Resolved;
pub use crate::session::cache::{Person, Principal, SessionCache, TokenHash, token_hash};
use crate::state::AppState;

/// The principal of an enterprise session; a personal one answers 1001
/// "请先选择企业" (it may only choose an enterprise).
pub async fn resolve(state: &AppState, token: &str) -> Result<Principal, ServiceError> {
    match resolve_any(state, token).await? {
        Resolved::Enterprise(principal) => Ok(principal),
        Resolved::Personal(_) => Err(ServiceError::new(
            ErrorCode::Unauthenticated,
            "请先选择企业",
        )),
    }
}

/// The person behind any live session, personal or enterprise.
pub async fn resolve_person(state: &AppState, token: &str) -> Result<Person, ServiceError> {
    Ok(match resolve_any(state, token).await? {
        Resolved::Enterprise(principal) => principal.person(),
        Resolved::Personal(person) => person,
    })
}

/// What `token` stands for, from the cache or the services.
async fn resolve_any(state: &AppState, token: &str) -> Result<Resolved, ServiceError> {
    let hash = token_hash(token);
    if let Some(resolved) = state.sessions.get(&hash) {
        return Ok(resolved);
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
    let expires_at = session
        .expire_time
        .as_ref()
        .and_then(fleetdesk_kit::convert::datetime)
        .ok_or_else(ServiceError::unauthenticated)?;
    let resolved = if session.kind == SessionKind::Enterprise as i32 {
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
        Resolved::Enterprise(Principal {
            session_id: session.id,
            account_id: principal.account_id,
            user_id: principal.user_id,
            enterprise_id: principal.enterprise_id,
            enterprise_name: principal.enterprise_name,
            name: principal.name,
            user_name: principal.user_name,
            avatar_url: principal.avatar_url,
            roles: Arc::new(principal.roles),
            permissions: Arc::new(principal.permission_values.into_iter().collect()),
            flags: principal.flags.unwrap_or_default(),
            reach: Arc::new(reach_claim(principal.reach.as_ref())),
            expires_at,
            token: token.to_owned(),
            internal_token: Arc::default(),
        })
    } else {
        Resolved::Personal(Person {
            session_id: session.id,
            account_id: session.account_id,
            enterprise_id: None,
            expires_at,
            token: token.to_owned(),
        })
    };
    state.sessions.put(hash, resolved.clone());
    Ok(resolved)
}

/// The reach org computed, as the internal token carries it. Ids that are
/// not uuids are dropped (they could match nothing anyway); no reach at all
/// leaves only the person's own rows.
fn reach_claim(reach: Option<&fleetdesk_proto::org::v1::Reach>) -> ReachClaim {
    let ids = |ids: &[String]| -> Vec<uuid::Uuid> {
        ids.iter()
            .filter_map(|id| uuid::Uuid::parse_str(id).ok())
            .collect()
    };
    reach.map_or_else(ReachClaim::default, |r| ReachClaim {
        all: r.all,
        subtrees: ids(&r.subtree_org_ids),
        orgs: ids(&r.org_ids),
    })
}

/// Evicts sessions that auth announces as ended, until the connection closes.
pub async fn follow_revocations(client: async_nats::Client, cache: std::sync::Arc<SessionCache>) {
    let mut subscription = match client.subscribe(subjects::AUTH_SESSION_REVOKED).await {
        Ok(s) => s,
        Err(err) => {
            tracing::warn!(error = %err, "Cannot follow session revocations; relying on cache expiry.");
            return;
        }
    };
    while let Some(message) = subscription.next().await {
        let hash = SessionRevoked::decode(message.payload.as_ref())
            .ok()
            .and_then(|event| TokenHash::try_from(event.token_hash).ok());
        if let Some(hash) = hash {
            cache.evict(&hash);
        }
    }
}

/// Evicts principals that org announces as changed, until the connection closes.
pub async fn follow_principal_changes(
    client: async_nats::Client,
    cache: std::sync::Arc<SessionCache>,
) {
    let mut subscription = match client.subscribe(subjects::ORG_PRINCIPAL_CHANGED).await {
        Ok(s) => s,
        Err(err) => {
            tracing::warn!(error = %err, "Cannot follow principal changes; relying on cache expiry.");
            return;
        }
    };
    while let Some(message) = subscription.next().await {
        match PrincipalChanged::decode(message.payload.as_ref()) {
            Ok(change) => {
                let enterprise = Some(change.enterprise_id.as_str()).filter(|e| !e.is_empty());
                cache.evict_principals(enterprise, &change.user_ids);
            }
            Err(err) => tracing::warn!(error = %err, "Unreadable principal change ignored."),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use chrono::Utc;
    use fleetdesk_proto::org::v1::EnterpriseFlags;

    use super::*;

    fn principal(enterprise: &str, user: &str) -> Resolved {
        Resolved::Enterprise(Principal {
            session_id: String::new(),
            account_id: String::new(),
            user_id: user.into(),
            enterprise_id: enterprise.into(),
            enterprise_name: String::new(),
            name: String::new(),
            user_name: String::new(),
            avatar_url: String::new(),
            roles: Arc::default(),
            permissions: Arc::default(),
            flags: EnterpriseFlags::default(),
            reach: Arc::default(),
            expires_at: Utc::now() + chrono::Duration::days(1),
            token: String::new(),
            internal_token: Arc::default(),
        })
    }

    #[test]
    fn the_enterprise_list_markers_are_signed_into_the_internal_token() {
        use fleetdesk_kit::internal_token::enterprise_flag::{B2B, ORDER_CENTER, SF};
        let Resolved::Enterprise(mut principal) = principal("a", "u1") else {
            unreachable!()
        };
        assert!(principal.claims().flags.is_empty());
        principal.flags = EnterpriseFlags {
            b2b: true,
            sf: true,
            order_center: true,
            white_list: true,
            ..Default::default()
        };
        assert_eq!(principal.claims().flags, vec![B2B, ORDER_CENTER, SF]);
        principal.flags = EnterpriseFlags {
            order_center: true,
            ..Default::default()
        };
        assert_eq!(principal.claims().flags, vec![ORDER_CENTER]);
    }

    #[test]
    fn orgs_reach_is_signed_into_the_internal_token() {
        let (root, single) = (uuid::Uuid::from_u128(3), uuid::Uuid::from_u128(4));
        let reach = fleetdesk_proto::org::v1::Reach {
            all: false,
            subtree_org_ids: vec![root.to_string(), "not-a-uuid".into()],
            org_ids: vec![single.to_string()],
        };
        let Resolved::Enterprise(mut principal) = principal("a", "u1") else {
            unreachable!()
        };
        principal.reach = Arc::new(reach_claim(Some(&reach)));
        let claims = principal.claims();
        assert_eq!(
            claims.reach,
            Some(ReachClaim {
                all: false,
                subtrees: vec![root],
                orgs: vec![single],
            })
        );
        // No reach from org leaves only the person's own rows.
        assert_eq!(reach_claim(None), ReachClaim::default());
    }

    #[test]
    fn principal_changes_evict_only_what_they_name() {
        let cache = SessionCache::new(Duration::from_secs(60));
        cache.put([1; 32], principal("a", "u1"));
        cache.put([2; 32], principal("a", "u2"));
        cache.put([3; 32], principal("b", "u1"));
        cache.evict_principals(Some("a"), &["u1".to_owned()]);
        assert!(cache.get(&[1; 32]).is_none());
        assert!(cache.get(&[2; 32]).is_some() && cache.get(&[3; 32]).is_some());
        cache.evict_enterprise("a");
        assert!(cache.get(&[2; 32]).is_none() && cache.get(&[3; 32]).is_some());
        cache.evict_principals(None, &[]);
        assert!(cache.get(&[3; 32]).is_none());
    }
}
