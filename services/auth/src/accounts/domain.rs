//! The rules of an account: its stored status, the form org sends for a
//! new one, whom an existing account belongs to, and a new password.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::auth::v1 as pb;

use super::store::AccountRow;
use crate::codes::stored_code;
use crate::sms::Phone;
use crate::validate::required;

/// Why a new password is refused for its length.
pub const LENGTH: &str = "长度在 8 到 20 个字符";

stored_code!(
    /// Whether an account may sign in (`account.status`).
    AccountStatus => pb::AccountStatus {
        Active = 1,
        Disabled = 2,
    }
);

impl AccountStatus {
    /// A stored status; anything but active reads as disabled, so a code
    /// this service does not know never lets anyone in.
    pub fn of_column(code: i16) -> AccountStatus {
        AccountStatus::try_from(code).unwrap_or(AccountStatus::Disabled)
    }
}

/// A new password: 8 to 20 characters (docs/console-spec.md §5).
pub fn check_new_password(field: &str, value: &str, missing: &str) -> Result<(), ServiceError> {
    required(field, value, missing)?;
    let length = value.chars().count();
    if !(8..=20).contains(&length) {
        return Err(ServiceError::invalid(field, LENGTH));
    }
    Ok(())
}

/// Checks the form; returns (username, name, phone) trimmed.
pub fn check_form(
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

/// The account the user name and the phone point at, when both that exist
/// point at one account; CONFLICT when they belong to two people.
pub fn existing_person(
    by_name: Option<AccountRow>,
    by_phone: Option<AccountRow>,
) -> Result<Option<AccountRow>, ServiceError> {
    match (by_name, by_phone) {
        (Some(a), Some(b)) if a.id != b.id => Err(ServiceError::taken(
            "phone",
            "账号和手机号分属两个不同的人，请核对后重试",
        )),
        (Some(a), _) | (None, Some(a)) => Ok(Some(a)),
        (None, None) => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use fleetdesk_kit::ErrorCode;
    use uuid::Uuid;

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
