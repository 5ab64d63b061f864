//! The rules of the change-password form, in the order
//! docs/console-spec.md gives them.

use fleetdesk_kit::ServiceError;
use fleetdesk_proto::auth::v1 as pb;

use crate::accounts::domain::check_new_password;
use crate::validate::required;

/// The form's rules, in its order.
pub fn check_change_form(req: &pb::ChangePasswordRequest) -> Result<(), ServiceError> {
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
            m("newPassword", crate::accounts::domain::LENGTH)
        );
        assert_eq!(
            message(&form("x", &"a".repeat(21), &"a".repeat(21))),
            m("newPassword", crate::accounts::domain::LENGTH)
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
