//! Changing a password (old, new, confirm) and setting one with an SMS code.
//! Both end every other session of the account at once.

use fleetdesk_kit::{ErrorCode, ServiceError, grpc};
use fleetdesk_proto::auth::v1 as pb;
use tonic::Request;

use super::domain::check_change_form;
use crate::accounts::domain::check_new_password;
use crate::accounts::store::{self, AccountRow};
use crate::context::Context;
use crate::credentials::{self, hash_error};
use crate::guard::{self, Key};
use crate::sessions::handlers::end_account_sessions;
use crate::sign_in::handlers::BAD_SMS_CODE;
use crate::sms::{Phone, Purpose};
use crate::validate::required;

impl Context {
    /// Checks the old password (guarded like a sign-in), stores the new one
    /// and ends every session of the account but the caller's.
    pub(crate) async fn change_password_for(
        &self,
        req: pb::ChangePasswordRequest,
    ) -> Result<(), ServiceError> {
        let current = self.live_session(&req.current_token).await?;
        check_change_form(&req)?;
        let account = store::by_id(&self.pool, current.account_id)
            .await?
            .filter(AccountRow::is_active)
            .ok_or_else(ServiceError::unauthenticated)?;
        let admission = guard::admit(&self.pool, &[Key::Account(account.id)]).await?;
        if let Some(until) = admission.locked_until {
            return Err(guard::locked_error(until));
        }
        let verified = match self
            .hasher
            .verify(req.old_password, account.password_hash.clone())
            .await
        {
            Ok(v) => v,
            Err(err) => {
                guard::give_back(&self.pool, &admission).await?;
                return Err(hash_error(err));
            }
        };
        if !verified {
            tracing::info!(account_id = %account.id, "Password change refused: wrong old password.");
            return Err(ServiceError::invalid("oldPassword", "旧密码错误"));
        }
        guard::succeeded(&self.pool, &admission).await?;
        let hash = self
            .hasher
            .hash(req.new_password)
            .await
            .map_err(hash_error)?;
        let keep = credentials::token_hash(&req.current_token);
        let mut tx = fleetdesk_kit::db::begin_service(&self.pool).await?;
        store::set_password(&mut tx, account.id, &hash).await?;
        let ended =
            end_account_sessions(&mut tx, account.id, Some(&keep), "password-changed").await?;
        tx.commit().await?;
        tracing::info!(account_id = %account.id, ended, "Password changed.");
        Ok(())
    }

    /// Sets a new password after an SMS code (purpose reset-password) and ends
    /// every session of the account. Clears the account's lock: whoever holds
    /// the phone may get back in.
    pub(crate) async fn reset_password(
        &self,
        req: pb::ResetPasswordByPhoneRequest,
    ) -> Result<(), ServiceError> {
        let phone = Phone::parse(&req.phone)?;
        let code = req.verify_code.trim();
        required("verifyCode", code, "请输入验证码")?;
        check_new_password("newPassword", &req.new_password, "请输入新密码")?;
        let client = req.client.unwrap_or_default();
        let account = store::by_phone(&self.pool, phone.as_str())
            .await?
            .filter(AccountRow::is_active);
        let phone_key = Key::Unknown(format!("phone:{}", phone.as_str()));
        let admission = self
            .admit(&[
                Key::from_address(&client.ip, &phone_key),
                Key::Address(client.ip.clone()),
            ])
            .await?;
        if let Some(until) = admission.locked_until {
            return Err(guard::locked_error(until));
        }
        let right = match &account {
            Some(_) => self.sms.check(&phone, Purpose::ResetPassword, code).await?,
            None => false,
        };
        let Some(account) = account.filter(|_| right) else {
            tracing::info!("Password reset refused: wrong code.");
            return Err(ServiceError::new(ErrorCode::BadRequest, BAD_SMS_CODE));
        };
        guard::succeeded(&self.pool, &admission).await?;
        let hash = self
            .hasher
            .hash(req.new_password)
            .await
            .map_err(hash_error)?;
        let mut tx = fleetdesk_kit::db::begin_service(&self.pool).await?;
        store::set_password(&mut tx, account.id, &hash).await?;
        let ended = end_account_sessions(&mut tx, account.id, None, "password-reset").await?;
        tx.commit().await?;
        guard::clear(&self.pool, &Key::Account(account.id)).await?;
        tracing::info!(account_id = %account.id, ended, "Password reset by phone.");
        Ok(())
    }
}

/// `ChangePassword`: the old password checked, the new one stored.
pub async fn change(
    ctx: &Context,
    request: Request<pb::ChangePasswordRequest>,
) -> Result<pb::ChangePasswordResponse, ServiceError> {
    grpc::require_service(&request)?;
    ctx.change_password_for(request.into_inner()).await?;
    Ok(pb::ChangePasswordResponse {})
}

/// `ResetPasswordByPhone`: a new password set with an SMS code.
pub async fn reset_by_phone(
    ctx: &Context,
    request: Request<pb::ResetPasswordByPhoneRequest>,
) -> Result<pb::ResetPasswordByPhoneResponse, ServiceError> {
    grpc::require_service(&request)?;
    ctx.reset_password(request.into_inner()).await?;
    Ok(pb::ResetPasswordByPhoneResponse {})
}
