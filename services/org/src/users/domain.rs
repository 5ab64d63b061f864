//! The rules of a user's fields: what a name and a phone must be.

use fleetdesk_kit::ServiceError;

use crate::validate::{at_most, is_mobile};

/// A user's name: required, at most 32 characters.
pub fn check_name(name: &str) -> Result<(), ServiceError> {
    if name.is_empty() {
        return Err(ServiceError::invalid("name", "请输入姓名"));
    }
    at_most("name", name, 32, "姓名")
}

/// A user's phone: required, a mainland mobile number (like the login form).
pub fn check_phone(phone: &str) -> Result<(), ServiceError> {
    if phone.is_empty() {
        return Err(ServiceError::invalid("phone", "请输入手机号"));
    }
    if is_mobile(phone) {
        Ok(())
    } else {
        Err(ServiceError::invalid("phone", "请输入正确的手机号"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phones_are_checked_like_the_login_form() {
        assert_eq!(check_phone("").unwrap_err().message, "请输入手机号");
        assert_eq!(
            check_phone("1381234567").unwrap_err().message,
            "请输入正确的手机号"
        );
        assert_eq!(
            check_phone("23812345678").unwrap_err().fields[0].field,
            "phone"
        );
        assert!(check_phone("13812345678").is_ok());
    }
}
