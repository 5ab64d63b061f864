//! The AuthService gRPC handlers: validate, act, answer.

use chrono::{Duration, Utc};
use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{ErrorCode, ServiceError, events, grpc, mask};
use fleetdesk_proto::auth::v1::{self as pb, auth_service_server::AuthService};
use fleetdesk_proto::org::v1::{ListMembershipsRequest, org_service_client::OrgServiceClient};
use sqlx::PgPool;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};
use uuid::Uuid;

use crate::credentials::{self, PasswordHasher};
use crate::store::{
    self, ACCOUNT_ACTIVE, AccountRow, LoginAttempt, NewSession, SESSION_ENTERPRISE, SessionRow,
};

/// Subject of the event that tells gateways to drop a cached session.
pub const SESSION_REVOKED_SUBJECT: &str = "fleetdesk.auth.session.revoked";

/// The same answer for an unknown account and a wrong password.
const BAD_CREDENTIALS: &str = "账号或密码错误";

#[derive(Clone, Debug)]
pub struct AuthApi {
    pub pool: PgPool,
    pub hasher: PasswordHasher,
    pub org: OrgServiceClient<Channel>,
    pub signer: TokenSigner,
    pub session_days: i64,
}

fn session_pb(row: &SessionRow) -> pb::Session {
    pb::Session {
        id: row.id.to_string(),
        account_id: row.account_id.to_string(),
        kind: if row.kind == SESSION_ENTERPRISE {
            pb::SessionKind::Enterprise as i32
        } else {
            pb::SessionKind::Personal as i32
        },
        enterprise_id: row.enterprise_id.map(|e| e.to_string()).unwrap_or_default(),
        create_time: Some(timestamp(row.created_at)),
        expire_time: Some(timestamp(row.expires_at)),
    }
}

fn account_pb(row: &AccountRow) -> pb::Account {
    pb::Account {
        id: row.id.to_string(),
        username: row.username.clone(),
        name: row.name.clone(),
        masked_phone: row.phone.as_deref().map(mask::centre).unwrap_or_default(),
        avatar_url: row.avatar_url.clone(),
        status: if row.status == ACCOUNT_ACTIVE {
            pb::AccountStatus::Active as i32
        } else {
            pb::AccountStatus::Disabled as i32
        },
        create_time: Some(timestamp(row.created_at)),
    }
}

impl AuthApi {
    /// The enterprise a new session binds: the only one the account belongs to.
    /// With several (or none) the session stays personal until one is chosen.
    async fn sole_enterprise(&self, account_id: Uuid) -> Result<Option<Uuid>, ServiceError> {
        let req = grpc::outgoing(
            ListMembershipsRequest {
                account_id: account_id.to_string(),
            },
            &self.signer,
            &Claims::service("auth"),
        );
        let memberships = self
            .org
            .clone()
            .list_memberships(req)
            .await
            .map_err(|s| ServiceError::from_status(&s))?
            .into_inner()
            .memberships;
        Ok(match memberships.as_slice() {
            [only] => Uuid::parse_str(&only.enterprise_id).ok(),
            _ => None,
        })
    }

    async fn open_session(&self, account_id: Uuid) -> Result<(String, SessionRow), ServiceError> {
        let enterprise_id = self.sole_enterprise(account_id).await?;
        let token = credentials::new_session_token();
        let row = store::insert_session(
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
    async fn live_session(&self, token: &str) -> Result<SessionRow, ServiceError> {
        let row = store::session_by_token_hash(&self.pool, &credentials::token_hash(token))
            .await?
            .ok_or_else(ServiceError::unauthenticated)?;
        if row.revoked_at.is_some() || row.expires_at <= Utc::now() {
            return Err(ServiceError::unauthenticated());
        }
        Ok(row)
    }
}

fn required(field: &str, value: &str, message: &str) -> Result<(), ServiceError> {
    if value.trim().is_empty() {
        Err(ServiceError::invalid(field, message))
    } else {
        Ok(())
    }
}

#[tonic::async_trait]
impl AuthService for AuthApi {
    #[tracing::instrument(skip_all)]
    async fn sign_in_with_password(
        &self,
        request: Request<pb::SignInWithPasswordRequest>,
    ) -> Result<Response<pb::SignInWithPasswordResponse>, Status> {
        grpc::require_service(&request)?;
        let req = request.into_inner();
        let username = req.username.trim();
        required("username", username, "请输入账号")?;
        required("password", &req.password, "请输入密码")?;
        let client = req.client.unwrap_or_default();

        let account = store::account_by_username(&self.pool, username)
            .await
            .map_err(ServiceError::from)?;
        let usable = account.as_ref().filter(|a| a.status == ACCOUNT_ACTIVE);
        let verified = self
            .hasher
            .verify(req.password, usable.and_then(|a| a.password_hash.clone()))
            .await
            .map_err(|e| ServiceError::internal(e.as_ref()))?;
        let attempt = |succeeded, enterprise_id, failure_reason| LoginAttempt {
            login_type: pb::LoginType::Password as i16,
            principal: username,
            account_id: account.as_ref().map(|a| a.id),
            enterprise_id,
            succeeded,
            failure_reason,
            ip: &client.ip,
            user_agent: &client.user_agent,
        };
        let Some(account) = usable.filter(|_| verified) else {
            store::record_login(&self.pool, attempt(false, None, BAD_CREDENTIALS))
                .await
                .map_err(ServiceError::from)?;
            tracing::info!("Password sign-in refused.");
            return Err(ServiceError::new(ErrorCode::BadRequest, BAD_CREDENTIALS).into());
        };
        let (token, session) = self.open_session(account.id).await?;
        store::record_login(&self.pool, attempt(true, session.enterprise_id, ""))
            .await
            .map_err(ServiceError::from)?;
        tracing::info!(account_id = %account.id, "Password sign-in accepted.");
        Ok(Response::new(pb::SignInWithPasswordResponse {
            token,
            session: Some(session_pb(&session)),
        }))
    }

    async fn resolve_session(
        &self,
        request: Request<pb::ResolveSessionRequest>,
    ) -> Result<Response<pb::ResolveSessionResponse>, Status> {
        grpc::require_service(&request)?;
        let row = self.live_session(&request.into_inner().token).await?;
        Ok(Response::new(pb::ResolveSessionResponse {
            session: Some(session_pb(&row)),
        }))
    }

    async fn sign_out(
        &self,
        request: Request<pb::SignOutRequest>,
    ) -> Result<Response<pb::SignOutResponse>, Status> {
        grpc::require_service(&request)?;
        let token_hash = credentials::token_hash(&request.into_inner().token);
        let mut tx = self.pool.begin().await.map_err(ServiceError::from)?;
        let revoked = store::revoke_session(&mut tx, &token_hash, "logout")
            .await
            .map_err(ServiceError::from)?;
        let Some(session_id) = revoked else {
            return Err(ServiceError::unauthenticated().into());
        };
        events::enqueue(
            &mut tx,
            SESSION_REVOKED_SUBJECT,
            &serde_json::json!({ "sessionId": session_id, "tokenHash": hex::encode(&token_hash) }),
        )
        .await
        .map_err(ServiceError::from)?;
        tx.commit().await.map_err(ServiceError::from)?;
        tracing::info!(%session_id, "Session revoked.");
        Ok(Response::new(pb::SignOutResponse {}))
    }

    async fn get_account(
        &self,
        request: Request<pb::GetAccountRequest>,
    ) -> Result<Response<pb::GetAccountResponse>, Status> {
        let caller = grpc::caller(&request)?.clone();
        let id = convert::id(&request.get_ref().account_id)?;
        if !caller.is_service() && caller.acc.as_deref() != Some(id.to_string().as_str()) {
            return Err(ServiceError::not_found().into());
        }
        let row = store::account_by_id(&self.pool, id)
            .await
            .map_err(ServiceError::from)?
            .ok_or_else(ServiceError::not_found)?;
        Ok(Response::new(pb::GetAccountResponse {
            account: Some(account_pb(&row)),
        }))
    }
}
