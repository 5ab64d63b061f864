//! The rules of feedback: its lengths, the contact it asks for and the
//! attachment keys the upload control allows.

use fleetdesk_kit::ServiceError;

use crate::validate::is_mobile;

/// Longest feedback text.
pub const MAX_CONTENT: usize = 500;
/// Longest contact.
pub const MAX_CONTACT: usize = 50;
/// Most attachments of one feedback (the upload control's default limit).
pub const MAX_ATTACHMENTS: usize = 10;
/// The service desk works China time (no daylight saving, always UTC+8).
pub const SERVICE_TIME_ZONE: &str = "Asia/Shanghai";

/// A mainland mobile number (11 digits from 1) or an e-mail address
/// (something@domain.tld, no spaces): what the contact field asks for.
pub fn is_phone_or_email(value: &str) -> bool {
    let email = match value.split_once('@') {
        Some((local, domain)) => {
            !local.is_empty()
                && !value.contains(char::is_whitespace)
                && !domain.contains('@')
                && domain
                    .rsplit_once('.')
                    .is_some_and(|(host, tld)| !host.is_empty() && tld.len() >= 2)
        }
        None => false,
    };
    is_mobile(value) || email
}

/// Checks an attachment key: present, short, and without the characters the
/// upload control refuses in file names.
pub fn check_key(key: &str) -> Result<(), ServiceError> {
    if key.is_empty() || key.chars().count() > 200 || key.contains([',', '+']) || key.contains("..")
    {
        return Err(ServiceError::invalid(
            "attachmentKeys",
            "附件无效，文件名不能包含以下特殊符号：[,+].",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn attachment_keys_refuse_the_upload_controls_forbidden_characters() {
        assert!(check_key("feedback/2026/截图.png").is_ok());
        for bad in ["", "a,b.png", "a+b.png", "../etc/passwd"] {
            assert!(check_key(bad).is_err(), "{bad}");
        }
    }
}
