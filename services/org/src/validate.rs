//! Checks of request input every subject shares: text lengths and mobile
//! numbers.

use fleetdesk_kit::ServiceError;

/// Rejects text longer than `max` characters.
pub fn limit(field: &str, value: &str, max: usize) -> Result<(), ServiceError> {
    if value.chars().count() > max {
        Err(ServiceError::invalid(
            field,
            format!("长度不能超过 {max} 个字符"),
        ))
    } else {
        Ok(())
    }
}

/// Rejects text longer than `max` characters, naming the field by `label`.
pub fn at_most(field: &str, value: &str, max: usize, label: &str) -> Result<(), ServiceError> {
    if value.chars().count() > max {
        Err(ServiceError::invalid(
            field,
            format!("{label}不能超过 {max} 个字符"),
        ))
    } else {
        Ok(())
    }
}

/// A mainland mobile number: 11 digits starting with 1.
pub fn is_mobile(value: &str) -> bool {
    value.len() == 11 && value.starts_with('1') && value.bytes().all(|b| b.is_ascii_digit())
}
