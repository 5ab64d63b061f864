//! Creating accounts for people an enterprise administrator adds (org's
//! CreateUser). Service-level only: org calls it, never a browser.

use fleetdesk_kit::{ErrorCode, FieldError, ServiceError};
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

impl AuthApi {
    pub(super) async fn new_account(
        &self,
        req: pb::CreateAccountRequest,
    ) -> Result<AccountRow, ServiceError> {
        let (username, name, phone) = check_form(&req)?;
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
        .map_err(|err| match &err {
            sqlx::Error::Database(db) if db.constraint() == Some("account_username_key") => {
                conflict("userName", "账号已存在")
            }
            sqlx::Error::Database(db) if db.constraint() == Some("account_phone_key") => {
                conflict("phone", "手机号已被其他账号使用")
            }
            _ => ServiceError::from(err),
        })?;
        tracing::info!(account_id = %id, "Account created.");
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
        }
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
