//! Changing a password (old, new, confirm) and setting one with an SMS code.
//! Both end every other session of the account at once.

use fleetdesk_kit::{ErrorCode, ServiceError};
use fleetdesk_proto::auth::v1 as pb;

use super::sessions::end_account_sessions;
use super::sign_in::BAD_SMS_CODE;
use super::{AuthApi, hash_error, required};
use crate::credentials;
use crate::guard::{self, Key};
use crate::sms::{Phone, Purpose};
use crate::store::{self, ACCOUNT_ACTIVE};

const LENGTH: &str = "长度在 8 到 20 个字符";

/// A new password: 8 to 20 characters (spec §5).
pub(super) fn check_new_password(
    field: &str,
    value: &str,
    missing: &str,
) -> Result<(), ServiceError> {
    required(field, value, missing)?;
    let length = value.chars().count();
    if !(8..=20).contains(&length) {
        return Err(ServiceError::invalid(field, LENGTH));
    }
    Ok(())
}

/// The spec's rules for the change-password form, in its order.
pub(super) fn check_change_form(req: &pb::ChangePasswordRequest) -> Result<(), ServiceError> {
    required("oldPassword", &req.old_password, "请输入旧密码")?;
    check_new_password("newPassword", &req.new_password, "请输入新密码")?;
    check_new_password(
        "confirmNewPaw",
        &req.confirm_new_password,
        "请再次输入新密码",
    )?;
    if req.confirm_new_password != req.new_password {
        return Err(ServiceError::invalid(
            "confirmNewPaw",
            "两次输入密码不一致!",
        ));
    }
    Ok(())
}

impl AuthApi {
    /// Checks the old password (guarded like a sign-in), stores the new one
    /// and ends every session of the account but the caller's.
    pub(super) async fn change_password_for(
        &self,
        req: pb::ChangePasswordRequest,
    ) -> Result<(), ServiceError> {
        let current = self.live_session(&req.current_token).await?;
        check_change_form(&req)?;
        let account = store::account_by_id(&self.pool, current.account_id)
            .await?
            .filter(|a| a.status == ACCOUNT_ACTIVE)
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
    pub(super) async fn reset_password(
        &self,
        req: pb::ResetPasswordByPhoneRequest,
    ) -> Result<(), ServiceError> {
        let phone = Phone::parse(&req.phone)?;
        let code = req.verify_code.trim();
        required("verifyCode", code, "请输入验证码")?;
        check_new_password("newPassword", &req.new_password, "请输入新密码")?;
        let client = req.client.unwrap_or_default();
        let account = store::account_by_phone(&self.pool, phone.as_str())
            .await?
            .filter(|a| a.status == ACCOUNT_ACTIVE);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn form(old: &str, new: &str, confirm: &str) -> pb::ChangePasswordRequest {
        pb::ChangePasswordRequest {
            old_password: old.into(),
            new_password: new.into(),
            confirm_new_password: confirm.into(),
            current_token: String::new(),
        }
    }

    fn message(req: &pb::ChangePasswordRequest) -> Option<(String, String)> {
        check_change_form(req)
            .err()
            .map(|e| (e.fields[0].field.clone(), e.message))
    }

    #[test]
    fn the_change_form_speaks_the_specs_messages() {
        let m = |f: &str, t: &str| Some((f.to_owned(), t.to_owned()));
        assert_eq!(
            message(&form("", "Abcdefg1", "Abcdefg1")),
            m("oldPassword", "请输入旧密码")
        );
        assert_eq!(
            message(&form("x", "", "")),
            m("newPassword", "请输入新密码")
        );
        assert_eq!(
            message(&form("x", "short", "short")),
            m("newPassword", LENGTH)
        );
        assert_eq!(
            message(&form("x", &"a".repeat(21), &"a".repeat(21))),
            m("newPassword", LENGTH)
        );
        assert_eq!(
            message(&form("x", "Abcdefg1", "")),
            m("confirmNewPaw", "请再次输入新密码")
        );
        assert_eq!(
            message(&form("x", "Abcdefg1", "Abcdefg2")),
            m("confirmNewPaw", "两次输入密码不一致!")
        );
        assert_eq!(
            message(&form("x", "密码八个字符长度", "密码八个字符长度")),
            None
        );
        assert_eq!(message(&form("x", &"a".repeat(20), &"a".repeat(20))), None);
    }
}
