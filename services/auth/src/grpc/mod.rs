//! The AuthService gRPC handlers: validate, act, answer. Each RPC is a thin
//! method here; the work lives in the submodules by subject.

mod accounts;
mod login_log;
mod password;
mod sessions;
mod sign_in;

use std::sync::Arc;

use fleetdesk_kit::convert::{self, timestamp};
use fleetdesk_kit::internal_token::{Claims, TokenSigner};
use fleetdesk_kit::{ErrorCode, ServiceError, grpc, mask};
use fleetdesk_proto::auth::v1::{self as pb, auth_service_server::AuthService};
use fleetdesk_proto::org::v1::{
    ListMembershipsRequest, Membership, org_service_client::OrgServiceClient,
};
use sqlx::PgPool;
use tonic::transport::Channel;
use tonic::{Request, Response, Status};
use uuid::Uuid;

use crate::credentials::{HashError, PasswordHasher};
use crate::sms::{self, SmsCodes};
use crate::store::{self, ACCOUNT_ACTIVE, AccountRow, SESSION_ENTERPRISE, SessionRow};
use crate::wecom::WeComClient;

#[derive(Clone, Debug)]
pub struct AuthApi {
    pub pool: PgPool,
    pub hasher: PasswordHasher,
    pub org: OrgServiceClient<Channel>,
    pub signer: TokenSigner,
    pub session_days: i64,
    pub sms: SmsCodes,
    /// `None` when WeCom sign-in is not configured.
    pub wecom: Option<Arc<WeComClient>>,
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

fn required(field: &str, value: &str, message: &str) -> Result<(), ServiceError> {
    if value.trim().is_empty() {
        Err(ServiceError::invalid(field, message))
    } else {
        Ok(())
    }
}

/// A busy hasher is a retry-later; anything else is a logged internal error.
fn hash_error(err: HashError) -> ServiceError {
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

impl AuthApi {
    /// The account's enabled memberships in enabled enterprises.
    async fn memberships(&self, account_id: Uuid) -> Result<Vec<Membership>, ServiceError> {
        let req = grpc::outgoing(
            ListMembershipsRequest {
                account_id: account_id.to_string(),
            },
            &self.signer,
            &Claims::service("auth"),
        );
        Ok(self
            .org
            .clone()
            .list_memberships(req)
            .await
            .map_err(|s| ServiceError::from_status(&s))?
            .into_inner()
            .memberships)
    }
}

fn enterprise_ids(memberships: &[Membership]) -> Vec<Uuid> {
    memberships
        .iter()
        .filter_map(|m| Uuid::parse_str(&m.enterprise_id).ok())
        .collect()
}

#[tonic::async_trait]
impl AuthService for AuthApi {
    #[tracing::instrument(skip_all)]
    async fn sign_in_with_password(
        &self,
        request: Request<pb::SignInWithPasswordRequest>,
    ) -> Result<Response<pb::SignInWithPasswordResponse>, Status> {
        grpc::require_service(&request)?;
        let (token, session) = self.password_sign_in(request.into_inner()).await?;
        Ok(Response::new(pb::SignInWithPasswordResponse {
            token,
            session: Some(session_pb(&session)),
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn sign_in_with_sms_code(
        &self,
        request: Request<pb::SignInWithSmsCodeRequest>,
    ) -> Result<Response<pb::SignInWithSmsCodeResponse>, Status> {
        grpc::require_service(&request)?;
        let (token, session) = self.sms_sign_in(request.into_inner()).await?;
        Ok(Response::new(pb::SignInWithSmsCodeResponse {
            token,
            session: Some(session_pb(&session)),
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn sign_in_with_we_com(
        &self,
        request: Request<pb::SignInWithWeComRequest>,
    ) -> Result<Response<pb::SignInWithWeComResponse>, Status> {
        grpc::require_service(&request)?;
        let (token, session) = self.wecom_sign_in(request.into_inner()).await?;
        Ok(Response::new(pb::SignInWithWeComResponse {
            token,
            session: Some(session_pb(&session)),
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn send_sms_code(
        &self,
        request: Request<pb::SendSmsCodeRequest>,
    ) -> Result<Response<pb::SendSmsCodeResponse>, Status> {
        grpc::require_service(&request)?;
        let req = request.into_inner();
        let phone = sms::Phone::parse(&req.phone)?;
        let purpose = sms::Purpose::from_pb(req.purpose)?;
        let client = req.client.unwrap_or_default();
        let account = store::account_by_phone(&self.pool, phone.as_str())
            .await
            .map_err(ServiceError::from)?
            .filter(|a| a.status == ACCOUNT_ACTIVE);
        self.sms
            .send(&phone, purpose, &client.ip, account.is_some())
            .await?;
        Ok(Response::new(pb::SendSmsCodeResponse {
            resend_after_seconds: sms::RESEND_SECS as i32,
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn get_we_com_app_info(
        &self,
        request: Request<pb::GetWeComAppInfoRequest>,
    ) -> Result<Response<pb::GetWeComAppInfoResponse>, Status> {
        grpc::require_service(&request)?;
        Ok(Response::new(
            self.wecom_app_info(&request.into_inner().browser_binding)
                .await?,
        ))
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

    #[tracing::instrument(skip_all)]
    async fn select_enterprise(
        &self,
        request: Request<pb::SelectEnterpriseRequest>,
    ) -> Result<Response<pb::SelectEnterpriseResponse>, Status> {
        grpc::require_service(&request)?;
        let req = request.into_inner();
        let (token, session) = self
            .select_enterprise_for(&req.token, &req.enterprise_id)
            .await?;
        Ok(Response::new(pb::SelectEnterpriseResponse {
            token,
            session: Some(session_pb(&session)),
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn sign_out(
        &self,
        request: Request<pb::SignOutRequest>,
    ) -> Result<Response<pb::SignOutResponse>, Status> {
        grpc::require_service(&request)?;
        self.end_session(&request.into_inner().token).await?;
        Ok(Response::new(pb::SignOutResponse {}))
    }

    #[tracing::instrument(skip_all)]
    async fn change_password(
        &self,
        request: Request<pb::ChangePasswordRequest>,
    ) -> Result<Response<pb::ChangePasswordResponse>, Status> {
        grpc::require_service(&request)?;
        self.change_password_for(request.into_inner()).await?;
        Ok(Response::new(pb::ChangePasswordResponse {}))
    }

    #[tracing::instrument(skip_all)]
    async fn reset_password_by_phone(
        &self,
        request: Request<pb::ResetPasswordByPhoneRequest>,
    ) -> Result<Response<pb::ResetPasswordByPhoneResponse>, Status> {
        grpc::require_service(&request)?;
        self.reset_password(request.into_inner()).await?;
        Ok(Response::new(pb::ResetPasswordByPhoneResponse {}))
    }

    async fn list_login_logs(
        &self,
        request: Request<pb::ListLoginLogsRequest>,
    ) -> Result<Response<pb::ListLoginLogsResponse>, Status> {
        grpc::require_permission(&request, login_log::PERM_LOGIN_LOG)?;
        let tenant = grpc::tenant(&request)?;
        Ok(Response::new(
            self.login_logs(tenant, request.into_inner()).await?,
        ))
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

    #[tracing::instrument(skip_all)]
    async fn create_account(
        &self,
        request: Request<pb::CreateAccountRequest>,
    ) -> Result<Response<pb::CreateAccountResponse>, Status> {
        grpc::require_service(&request)?;
        let (row, linked) = self.new_account(request.into_inner()).await?;
        Ok(Response::new(pb::CreateAccountResponse {
            account: Some(account_pb(&row)),
            linked,
        }))
    }

    #[tracing::instrument(skip_all)]
    async fn delete_new_account(
        &self,
        request: Request<pb::DeleteNewAccountRequest>,
    ) -> Result<Response<pb::DeleteNewAccountResponse>, Status> {
        grpc::require_service(&request)?;
        let id = convert::id(&request.get_ref().account_id)?;
        AuthApi::delete_new_account(self, id).await?;
        Ok(Response::new(pb::DeleteNewAccountResponse {}))
    }

    #[tracing::instrument(skip_all)]
    async fn set_account_phone(
        &self,
        request: Request<pb::SetAccountPhoneRequest>,
    ) -> Result<Response<pb::SetAccountPhoneResponse>, Status> {
        grpc::require_service(&request)?;
        let req = request.into_inner();
        let id = convert::id(&req.account_id)?;
        let row = self.set_phone(id, &req.phone).await?;
        Ok(Response::new(pb::SetAccountPhoneResponse {
            account: Some(account_pb(&row)),
        }))
    }

    async fn list_dev_sms_messages(
        &self,
        request: Request<pb::ListDevSmsMessagesRequest>,
    ) -> Result<Response<pb::ListDevSmsMessagesResponse>, Status> {
        grpc::require_service(&request)?;
        // Only the development sender keeps messages; never answer otherwise.
        if !self.sms.sender.records_messages() {
            return Err(ServiceError::not_found().into());
        }
        let rows = sms::dev_messages(&self.pool, request.get_ref().phone.trim())
            .await
            .map_err(ServiceError::from)?;
        Ok(Response::new(pb::ListDevSmsMessagesResponse {
            messages: rows
                .into_iter()
                .map(|(phone, text, at)| pb::DevSmsMessage {
                    phone,
                    text,
                    send_time: Some(timestamp(at)),
                })
                .collect(),
        }))
    }
}
