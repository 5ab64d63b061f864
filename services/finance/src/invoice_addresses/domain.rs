//! An address's rules.

use fleetdesk_kit::{ServiceError, mask};

/// An address's fields, checked; `recipient_phone` empty on an update
/// that keeps the stored phone.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AddressSpec {
    pub recipient_name: String,
    pub recipient_phone: String,
    pub province_code: String,
    pub province_name: String,
    pub city_code: String,
    pub city_name: String,
    pub district_code: String,
    pub district_name: String,
    pub detail_address: String,
    pub postal_code: String,
    pub email: String,
    pub is_default: bool,
}

fn phone_ok(phone: &str) -> bool {
    (7..=20).contains(&phone.len())
        && phone
            .bytes()
            .all(|b| b.is_ascii_digit() || b == b'-' || b == b'+')
}

fn email_ok(email: &str) -> bool {
    email.len() <= 254
        && email.split_once('@').is_some_and(|(user, host)| {
            !user.is_empty() && host.contains('.') && !host.ends_with('.')
        })
}

impl AddressSpec {
    /// Trims and checks; `creating` requires the phone.
    pub fn check(mut self, creating: bool) -> Result<AddressSpec, ServiceError> {
        for field in [
            &mut self.recipient_name,
            &mut self.recipient_phone,
            &mut self.detail_address,
            &mut self.postal_code,
            &mut self.email,
        ] {
            *field = field.trim().to_owned();
        }
        if self.recipient_name.is_empty() || self.recipient_name.chars().count() > 50 {
            return Err(ServiceError::invalid(
                "recipientName",
                "收件人必填，不超过 50 字",
            ));
        }
        if (creating || !self.recipient_phone.is_empty()) && !phone_ok(&self.recipient_phone) {
            return Err(ServiceError::invalid(
                "recipientPhone",
                "请填写正确的联系电话",
            ));
        }
        if !self.email.is_empty() && !email_ok(&self.email) {
            return Err(ServiceError::invalid("email", "电子邮箱格式不正确"));
        }
        if !self.postal_code.is_empty()
            && (self.postal_code.len() != 6
                || !self.postal_code.bytes().all(|b| b.is_ascii_digit()))
        {
            return Err(ServiceError::invalid("postalCode", "邮政编码应为 6 位数字"));
        }
        if self.email.is_empty() && self.detail_address.is_empty() {
            return Err(ServiceError::invalid(
                "detailAddress",
                "请填写邮寄地址或接收电子发票的邮箱",
            ));
        }
        Ok(self)
    }
}

/// The phone as answers show it.
pub fn masked_phone(phone: &str) -> String {
    mask::centre(phone)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn address() -> AddressSpec {
        AddressSpec {
            recipient_name: " 王敏 ".to_owned(),
            recipient_phone: "13800138000".to_owned(),
            email: "finance@example.com".to_owned(),
            ..AddressSpec::default()
        }
    }

    #[test]
    fn an_address_needs_a_recipient_a_phone_and_somewhere_to_send() {
        assert_eq!(address().check(true).unwrap().recipient_name, "王敏");
        let no_phone = AddressSpec {
            recipient_phone: String::new(),
            ..address()
        };
        assert!(no_phone.clone().check(true).is_err());
        assert!(no_phone.check(false).is_ok());
        let nowhere = AddressSpec {
            email: String::new(),
            ..address()
        };
        assert!(nowhere.check(true).is_err());
        let bad_mail = AddressSpec {
            email: "finance@".to_owned(),
            ..address()
        };
        assert!(bad_mail.check(true).is_err());
    }
}
