//! Parsing of list filters every subject shares: ids, stored codes and
//! organisation subtrees.

use fleetdesk_kit::ServiceError;
use uuid::Uuid;

/// Ids of a list filter, each a uuid (else 4000 naming `field`).
pub fn ids(field: &str, values: &[String], message: &str) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|_| ServiceError::invalid(field, message))
}

/// Stored codes of a repeated proto-enum filter.
pub fn codes<T: Copy + Into<i16>>(
    field: &str,
    values: &[i32],
    from_pb: impl Fn(i32) -> Option<T>,
) -> Result<Vec<i16>, ServiceError> {
    values
        .iter()
        .map(|v| {
            from_pb(*v)
                .map(Into::into)
                .ok_or_else(|| ServiceError::invalid(field, "筛选条件的取值无效"))
        })
        .collect()
}

/// An organisation filter as lists apply it: each chosen organisation and
/// every one below it (through the org_unit replica). Chosen units the
/// replica does not know match nothing (never "no filter").
pub async fn org_subtrees(
    conn: &mut sqlx_postgres::PgConnection,
    org_ids: Vec<Uuid>,
) -> Result<Vec<Uuid>, ServiceError> {
    if org_ids.is_empty() {
        return Ok(org_ids);
    }
    let mut expanded = fleetdesk_kit::reach::subtrees(conn, &org_ids).await?;
    if expanded.is_empty() {
        expanded.push(Uuid::nil());
    }
    Ok(expanded)
}
