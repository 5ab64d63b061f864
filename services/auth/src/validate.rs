//! Checks of request input every subject shares.

use fleetdesk_kit::ServiceError;

/// Rejects an empty (or blank) field with its message.
pub fn required(field: &str, value: &str, message: &str) -> Result<(), ServiceError> {
    if value.trim().is_empty() {
        Err(ServiceError::invalid(field, message))
    } else {
        Ok(())
    }
}
