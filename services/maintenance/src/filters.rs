//! Filter values every list of the crate reads the same way: id lists and
//! repeated enum filters.

use fleetdesk_kit::ServiceError;
use uuid::Uuid;

/// Ids of a repeated filter (blank values dropped); a malformed one is
/// refused naming `field`.
pub fn uuids(field: &str, values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .map(|v| Uuid::parse_str(v).map_err(|_| ServiceError::invalid(field, "编号无效")))
        .collect()
}

/// Stored codes of a repeated enum filter (unknown values dropped).
pub fn codes<T: Copy + Into<i16>>(values: &[i32], from_pb: impl Fn(i32) -> Option<T>) -> Vec<i16> {
    values
        .iter()
        .filter_map(|v| from_pb(*v))
        .map(Into::into)
        .collect()
}
