//! Sessions: opening one after a sign-in, choosing an enterprise, ending one
//! or all of an account's. Every ended session is announced through the
//! outbox, so every gateway drops it from its cache within a second.

use chrono::{Duration, Utc};
use fleetdesk_kit::{ServiceError, convert, events, grpc, subjects};
use fleetdesk_proto::auth::v1::{self as pb, SessionRevoked};
use fleetdesk_proto::org::v1::Membership;
use tonic::Request;
use uuid::Uuid;

use super::convert::session;
use super::store::{self, NewSession, SessionRow};
use crate::context::Context;
use crate::credentials;

/// Tells the gateways, in the caller's transaction, that a session ended.
pub(crate) async fn announce_revoked(
    tx: &mut sqlx_postgres::PgConnection,
    session_id: Uuid,
    token_hash: &[u8],
) -> sqlx::Result<()> {
    events::enqueue(
        tx,
        subjects::AUTH_SESSION_REVOKED,
        &SessionRevoked {
            session_id: session_id.to_string(),
            token_hash: token_hash.to_vec(),
        },
    )
    .await?;
    Ok(())
}

/// Ends every live session of the account except `keep`, announcing each.
pub(crate) async fn end_account_sessions(
    tx: &mut sqlx_postgres::PgConnection,
    account_id: Uuid,
    keep: Option<&[u8]>,
    reason: &str,
) -> sqlx::Result<usize> {
    let ended = store::revoke_account_sessions(tx, account_id, keep, reason).await?;
    for (id, hash) in &ended {
        announce_revoked(tx, *id, hash).await?;
    }
    Ok(ended.len())
}

impl Context {
    /// A new session for the account: bound to its enterprise when it has
    /// exactly one, personal otherwise (the person chooses on /selectNet).
    pub(crate) async fn open_session(
        &self,
        account_id: Uuid,
        memberships: &[Membership],
    ) -> Result<(String, SessionRow), ServiceError> {
        let enterprise_id = match memberships {
            [only] => Uuid::parse_str(&only.enterprise_id).ok(),
            _ => None,
        };
        let token = credentials::new_session_token();
        let row = store::insert(
            &self.pool,
            NewSession {
                token_hash: &credentials::token_hash(&token),
                account_id,
                enterprise_id,
                expires_at: Utc::now() + Duration::days(self.session_days),
            },
        )
        .await?;
        Ok((token, row))
    }

    /// A live session for `token`, or 1001.
    pub(crate) async fn live_session(&self, token: &str) -> Result<SessionRow, ServiceError> {
        let row = store::by_token_hash(&self.pool, &credentials::token_hash(token))
            .await?
            .ok_or_else(ServiceError::unauthenticated)?;
        if row.revoked_at.is_some() || row.expires_at <= Utc::now() {
            return Err(ServiceError::unauthenticated());
        }
        Ok(row)
    }

    /// An enterprise session for one of the token holder's enterprises. The
    /// token's own session stays, so a personal session can choose again
    /// later; the new one never outlives it.
    pub(crate) async fn select_enterprise_for(
        &self,
        token: &str,
        enterprise_id: &str,
    ) -> Result<(String, SessionRow), ServiceError> {
        let current = self.live_session(token).await?;
        let enterprise_id = convert::id(enterprise_id)?;
        let member = self
            .memberships(current.account_id)
            .await?
            .iter()
            .any(|m| m.enterprise_id == enterprise_id.to_string());
        if !member {
            // Another tenant's id looks exactly like a missing one.
            return Err(ServiceError::not_found());
        }
        let token = credentials::new_session_token();
        let row = store::insert(
            &self.pool,
            NewSession {
                token_hash: &credentials::token_hash(&token),
                account_id: current.account_id,
                enterprise_id: Some(enterprise_id),
                expires_at: current
                    .expires_at
                    .min(Utc::now() + Duration::days(self.session_days)),
            },
        )
        .await?;
        tracing::info!(account_id = %current.account_id, %enterprise_id, "Enterprise selected.");
        Ok((token, row))
    }

    /// Ends the session of `token` (logout).
    pub(crate) async fn end_session(&self, token: &str) -> Result<(), ServiceError> {
        let token_hash = credentials::token_hash(token);
        let mut tx = fleetdesk_kit::db::begin_service(&self.pool).await?;
        let Some(session_id) = store::revoke(&mut tx, &token_hash, "logout").await? else {
            return Err(ServiceError::unauthenticated());
        };
        announce_revoked(&mut tx, session_id, &token_hash).await?;
        tx.commit().await?;
        tracing::info!(%session_id, "Session revoked.");
        Ok(())
    }
}

/// `ResolveSession`: the live session of a token.
pub async fn resolve(
    ctx: &Context,
    request: Request<pb::ResolveSessionRequest>,
) -> Result<pb::ResolveSessionResponse, ServiceError> {
    grpc::require_service(&request)?;
    let row = ctx.live_session(&request.into_inner().token).await?;
    Ok(pb::ResolveSessionResponse {
        session: Some(session(&row)),
    })
}

/// `SelectEnterprise`: a session bound to one of the account's enterprises.
pub async fn select_enterprise(
    ctx: &Context,
    request: Request<pb::SelectEnterpriseRequest>,
) -> Result<pb::SelectEnterpriseResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let (token, row) = ctx
        .select_enterprise_for(&req.token, &req.enterprise_id)
        .await?;
    Ok(pb::SelectEnterpriseResponse {
        token,
        session: Some(session(&row)),
    })
}

/// `SignOut`: ends the token's session.
pub async fn sign_out(
    ctx: &Context,
    request: Request<pb::SignOutRequest>,
) -> Result<pb::SignOutResponse, ServiceError> {
    grpc::require_service(&request)?;
    ctx.end_session(&request.into_inner().token).await?;
    Ok(pb::SignOutResponse {})
}
