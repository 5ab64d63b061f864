//! The thin gRPC layer: AuthService, each method one line into its
//! subject's handlers (sign-in, sessions, passwords, accounts, the login
//! log); the one unbuilt RPC answers UNIMPLEMENTED naming itself.

use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::auth::v1::{self as pb, auth_service_server::AuthService};
use tonic::{Request, Response, Status};

use crate::context::Context;
use crate::{accounts, login_log, password, sessions, sign_in};

#[derive(Clone, Debug)]
pub struct AuthApi(pub Context);

type Answer<T> = Result<Response<T>, Status>;

/// A handler's answer as a gRPC response.
fn respond<T>(result: Result<T, ServiceError>) -> Answer<T> {
    result.map(Response::new).map_err(Status::from)
}

#[tonic::async_trait]
impl AuthService for AuthApi {
    #[tracing::instrument(skip_all)]
    async fn sign_in_with_password(
        &self,
        req: Request<pb::SignInWithPasswordRequest>,
    ) -> Answer<pb::SignInWithPasswordResponse> {
        respond(sign_in::handlers::with_password(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn sign_in_with_sms_code(
        &self,
        req: Request<pb::SignInWithSmsCodeRequest>,
    ) -> Answer<pb::SignInWithSmsCodeResponse> {
        respond(sign_in::handlers::with_sms_code(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn sign_in_with_we_com(
        &self,
        req: Request<pb::SignInWithWeComRequest>,
    ) -> Answer<pb::SignInWithWeComResponse> {
        respond(sign_in::handlers::with_wecom(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn send_sms_code(
        &self,
        req: Request<pb::SendSmsCodeRequest>,
    ) -> Answer<pb::SendSmsCodeResponse> {
        respond(sign_in::handlers::send_sms_code(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn get_we_com_app_info(
        &self,
        req: Request<pb::GetWeComAppInfoRequest>,
    ) -> Answer<pb::GetWeComAppInfoResponse> {
        respond(sign_in::handlers::wecom_app_info(&self.0, req).await)
    }

    async fn resolve_session(
        &self,
        req: Request<pb::ResolveSessionRequest>,
    ) -> Answer<pb::ResolveSessionResponse> {
        respond(sessions::handlers::resolve(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn select_enterprise(
        &self,
        req: Request<pb::SelectEnterpriseRequest>,
    ) -> Answer<pb::SelectEnterpriseResponse> {
        respond(sessions::handlers::select_enterprise(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn sign_out(&self, req: Request<pb::SignOutRequest>) -> Answer<pb::SignOutResponse> {
        respond(sessions::handlers::sign_out(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn change_password(
        &self,
        req: Request<pb::ChangePasswordRequest>,
    ) -> Answer<pb::ChangePasswordResponse> {
        respond(password::handlers::change(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn reset_password_by_phone(
        &self,
        req: Request<pb::ResetPasswordByPhoneRequest>,
    ) -> Answer<pb::ResetPasswordByPhoneResponse> {
        respond(password::handlers::reset_by_phone(&self.0, req).await)
    }

    async fn list_login_logs(
        &self,
        req: Request<pb::ListLoginLogsRequest>,
    ) -> Answer<pb::ListLoginLogsResponse> {
        respond(login_log::handlers::list(&self.0, req).await)
    }

    async fn get_account(
        &self,
        req: Request<pb::GetAccountRequest>,
    ) -> Answer<pb::GetAccountResponse> {
        respond(accounts::handlers::get(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn create_account(
        &self,
        req: Request<pb::CreateAccountRequest>,
    ) -> Answer<pb::CreateAccountResponse> {
        respond(accounts::handlers::create(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn delete_new_account(
        &self,
        req: Request<pb::DeleteNewAccountRequest>,
    ) -> Answer<pb::DeleteNewAccountResponse> {
        respond(accounts::handlers::delete_new(&self.0, req).await)
    }

    #[tracing::instrument(skip_all)]
    async fn set_account_phone(
        &self,
        req: Request<pb::SetAccountPhoneRequest>,
    ) -> Answer<pb::SetAccountPhoneResponse> {
        respond(accounts::handlers::set_phone(&self.0, req).await)
    }

    // Its issue is not built yet.
    async fn issue_service_token(
        &self,
        _req: Request<pb::IssueServiceTokenRequest>,
    ) -> Answer<pb::IssueServiceTokenResponse> {
        Err(grpc::not_built(
            "fleetdesk.auth.v1.AuthService/issue_service_token",
        ))
    }

    async fn list_dev_sms_messages(
        &self,
        req: Request<pb::ListDevSmsMessagesRequest>,
    ) -> Answer<pb::ListDevSmsMessagesResponse> {
        respond(sign_in::handlers::dev_sms_messages(&self.0, req).await)
    }
}
