//! Accounts of people an enterprise administrator adds (org's CreateUser):
//! creating one or finding the person who already has one, taking back one
//! that was just created when adding the member failed, and changing the
//! sign-in phone. Service-level only: org calls it, never a browser.

use fleetdesk_kit::{ErrorCode, FieldError, ResultExt as _, ServiceError};
use fleetdesk_proto::auth::v1 as pb;
use uuid::Uuid;

use super::{AuthApi, hash_error, password::check_new_password};
use crate::sms::Phone;
use crate::store::{self, AccountRow};

/// Checks the form; returns (username, name, phone) trimmed.
fn check_form(
    req: &pb::CreateAccountRequest,
) -> Result<(String, String, Option<String>), ServiceError> {
    let username = req.username.trim();
    if username.is_empty() {
        return Err(ServiceError::invalid("userName", "请输入账号"));
    }
    let valid = (2..=32).contains(&username.chars().count())
        && username
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '@'));
    if !valid {
        return Err(ServiceError::invalid(
            "userName",
            "账号为 2 到 32 位字母、数字或 _ - . @",
        ));
    }
    let name = req.name.trim();
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入姓名"));
    }
    if name.chars().count() > 32 {
        return Err(ServiceError::invalid("name", "姓名不能超过 32 个字符"));
    }
    let phone = match req.phone.trim() {
        "" => None,
        p => Some(Phone::parse(p)?.as_str().to_owned()),
    };
    if !req.password.is_empty() {
        check_new_password("password", &req.password, "请输入密码")?;
    }
    Ok((username.to_owned(), name.to_owned(), phone))
}

/// A duplicate: 4009 naming the field.
fn conflict(field: &str, message: &str) -> ServiceError {
    let mut err = ServiceError::new(ErrorCode::Conflict, message);
    err.fields.push(FieldError {
        field: field.to_owned(),
        message: message.to_owned(),
    });
    err
}

/// The account the user name and the phone point at, when both that exist
/// point at one account; CONFLICT when they belong to two people.
fn existing_person(
    by_name: Option<AccountRow>,
    by_phone: Option<AccountRow>,
) -> Result<Option<AccountRow>, ServiceError> {
    match (by_name, by_phone) {
        (Some(a), Some(b)) if a.id != b.id => Err(conflict(
            "phone",
            "账号和手机号分属两个不同的人，请核对后重试",
        )),
        (Some(a), _) | (None, Some(a)) => Ok(Some(a)),
        (None, None) => Ok(None),
    }
}

impl AuthApi {
    /// A new account, or with `link_existing` the person who already has the
    /// user name or phone (`true` when linked).
    pub(super) async fn new_account(
        &self,
        req: pb::CreateAccountRequest,
    ) -> Result<(AccountRow, bool), ServiceError> {
        let (username, name, phone) = check_form(&req)?;
        if req.link_existing {
            let by_name = store::account_by_username(&self.pool, &username).await?;
            let by_phone = match &phone {
                Some(p) => store::account_by_phone(&self.pool, p).await?,
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
        store::insert_account(
            &self.pool,
            id,
            &username,
            &name,
            phone.as_deref(),
            hash.as_deref(),
        )
        .await
        .on_constraint(|name| match name {
            "account_username_key" => Some(conflict("userName", "账号已存在")),
            "account_phone_key" => Some(conflict("phone", "手机号已被其他账号使用")),
            _ => None,
        })?;
        tracing::info!(account_id = %id, "Account created.");
        let row = store::account_by_id(&self.pool, id)
            .await?
            .ok_or_else(ServiceError::not_found)?;
        Ok((row, false))
    }

    /// Deletes an account that never had a session (org's compensation).
    pub(super) async fn delete_new_account(&self, id: Uuid) -> Result<(), ServiceError> {
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
    pub(super) async fn set_phone(
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
                (name == "account_phone_key").then(|| conflict("phone", "手机号已被其他账号使用"))
            })?
            .rows_affected();
        if updated == 0 {
            return Err(ServiceError::not_found());
        }
        store::account_by_id(&self.pool, id)
            .await?
            .ok_or_else(ServiceError::not_found)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn form(username: &str, name: &str, phone: &str, password: &str) -> pb::CreateAccountRequest {
        pb::CreateAccountRequest {
            username: username.into(),
            name: name.into(),
            phone: phone.into(),
            password: password.into(),
            link_existing: false,
        }
    }

    fn account(id: u128) -> AccountRow {
        AccountRow {
            id: Uuid::from_u128(id),
            username: format!("u{id}"),
            phone: None,
            name: "张三".into(),
            avatar_url: String::new(),
            password_hash: None,
            status: 1,
            created_at: chrono::Utc::now(),
        }
    }

    #[test]
    fn an_existing_person_is_found_by_name_or_phone_but_never_two_at_once() {
        assert!(existing_person(None, None).unwrap().is_none());
        assert_eq!(
            existing_person(Some(account(1)), None).unwrap().unwrap().id,
            Uuid::from_u128(1)
        );
        assert_eq!(
            existing_person(None, Some(account(2))).unwrap().unwrap().id,
            Uuid::from_u128(2)
        );
        assert_eq!(
            existing_person(Some(account(3)), Some(account(3)))
                .unwrap()
                .unwrap()
                .id,
            Uuid::from_u128(3)
        );
        let err = existing_person(Some(account(1)), Some(account(2))).unwrap_err();
        assert_eq!(err.code, ErrorCode::Conflict);
    }

    #[test]
    fn the_form_names_the_failing_field() {
        let field =
            |r: pb::CreateAccountRequest| check_form(&r).unwrap_err().fields[0].field.clone();
        assert_eq!(field(form("", "张三", "", "")), "userName");
        assert_eq!(field(form("a b", "张三", "", "")), "userName");
        assert_eq!(field(form("zhangsan", " ", "", "")), "name");
        assert_eq!(field(form("zhangsan", "张三", "123", "")), "phone");
        assert_eq!(field(form("zhangsan", "张三", "", "short")), "password");
        assert!(check_form(&form(" zhangsan ", "张三", "13812345678", "Secret@123")).is_ok());
    }
}
