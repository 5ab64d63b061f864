//! Accounts of people an enterprise administrator adds (org's CreateUser):
//! creating one or finding the person who already has one, taking back one
//! that was just created when adding the member failed, and changing the
//! sign-in phone. Service-level only: org calls it, never a browser.

use fleetdesk_kit::{ErrorCode, ResultExt as _, ServiceError, convert, grpc};
use fleetdesk_proto::auth::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::convert::account;
use super::domain::{check_form, existing_person};
use super::store::{self, AccountRow};
use crate::context::Context;
use crate::credentials::hash_error;
use crate::sms::Phone;

impl Context {
    /// A new account, or with `link_existing` the person who already has the
    /// user name or phone (`true` when linked).
    pub(crate) async fn new_account(
        &self,
        req: pb::CreateAccountRequest,
    ) -> Result<(AccountRow, bool), ServiceError> {
        let (username, name, phone) = check_form(&req)?;
        if req.link_existing {
            let by_name = store::by_username(&self.pool, &username).await?;
            let by_phone = match &phone {
                Some(p) => store::by_phone(&self.pool, p).await?,
                None => None,
            };
            if let Some(found) = existing_person(by_name, by_phone)? {
                tracing::info!(account_id = %found.id, "Existing account linked.");
                return Ok((found, true));
            }
        }
        let hash = if req.password.is_empty() {
            None
        } else {
            Some(self.hasher.hash(req.password).await.map_err(hash_error)?)
        };
        let id = Uuid::new_v4();
        store::insert(
            &self.pool,
            id,
            &username,
            &name,
            phone.as_deref(),
            hash.as_deref(),
        )
        .await
        .on_constraint(|name| match name {
            "account_username_key" => Some(ServiceError::taken("userName", "账号已存在")),
            "account_phone_key" => Some(ServiceError::taken("phone", "手机号已被其他账号使用")),
            _ => None,
        })?;
        tracing::info!(account_id = %id, "Account created.");
        let row = store::by_id(&self.pool, id)
            .await?
            .ok_or_else(ServiceError::not_found)?;
        Ok((row, false))
    }

    /// Deletes an account that never had a session (org's compensation).
    pub(crate) async fn delete_new_account(&self, id: Uuid) -> Result<(), ServiceError> {
        let deleted = sqlx::query(
            "delete from account a where a.id = $1 \
             and not exists (select 1 from session s where s.account_id = a.id)",
        )
        .bind(id)
        .execute(&self.pool)
        .await?
        .rows_affected();
        if deleted == 0 {
            return Err(ServiceError::new(
                ErrorCode::Conflict,
                "账号已在使用，不能删除",
            ));
        }
        tracing::info!(account_id = %id, "New account taken back.");
        Ok(())
    }

    /// Changes the sign-in phone; 4009 when another account holds it.
    pub(crate) async fn set_phone(
        &self,
        id: Uuid,
        phone: &str,
    ) -> Result<AccountRow, ServiceError> {
        let phone = Phone::parse(phone.trim())?;
        let updated = sqlx::query("update account set phone = $2 where id = $1")
            .bind(id)
            .bind(phone.as_str())
            .execute(&self.pool)
            .await
            .on_constraint(|name| {
                (name == "account_phone_key")
                    .then(|| ServiceError::taken("phone", "手机号已被其他账号使用"))
            })?
            .rows_affected();
        if updated == 0 {
            return Err(ServiceError::not_found());
        }
        store::by_id(&self.pool, id)
            .await?
            .ok_or_else(ServiceError::not_found)
    }
}

/// `GetAccount`: a service may read any account, a person only their own.
pub async fn get(
    ctx: &Context,
    request: Request<pb::GetAccountRequest>,
) -> Result<pb::GetAccountResponse, ServiceError> {
    let caller = grpc::caller(&request)?.clone();
    let id = convert::id(&request.get_ref().account_id)?;
    if !caller.is_service() && caller.acc.as_deref() != Some(id.to_string().as_str()) {
        return Err(ServiceError::not_found());
    }
    let row = store::by_id(&ctx.pool, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    Ok(pb::GetAccountResponse {
        account: Some(account(&row)),
    })
}

/// `CreateAccount`: a new account, or the person's existing one linked.
pub async fn create(
    ctx: &Context,
    request: Request<pb::CreateAccountRequest>,
) -> Result<pb::CreateAccountResponse, ServiceError> {
    grpc::require_service(&request)?;
    let (row, linked) = ctx.new_account(request.into_inner()).await?;
    Ok(pb::CreateAccountResponse {
        account: Some(account(&row)),
        linked,
    })
}

/// `DeleteNewAccount`: org takes back an account it just created.
pub async fn delete_new(
    ctx: &Context,
    request: Request<pb::DeleteNewAccountRequest>,
) -> Result<pb::DeleteNewAccountResponse, ServiceError> {
    grpc::require_service(&request)?;
    let id = convert::id(&request.get_ref().account_id)?;
    ctx.delete_new_account(id).await?;
    Ok(pb::DeleteNewAccountResponse {})
}

/// `SetAccountPhone`: the sign-in phone follows the member's.
pub async fn set_phone(
    ctx: &Context,
    request: Request<pb::SetAccountPhoneRequest>,
) -> Result<pb::SetAccountPhoneResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let id = convert::id(&req.account_id)?;
    let row = ctx.set_phone(id, &req.phone).await?;
    Ok(pb::SetAccountPhoneResponse {
        account: Some(account(&row)),
    })
}
