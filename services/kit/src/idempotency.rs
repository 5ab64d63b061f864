//! `Idempotency-Key` for creates (docs/ARCHITECTURE.md §3). The gateway forwards the
//! edge header as gRPC metadata [`METADATA_KEY`]; inside the create's
//! transaction [`claim`] either finds the key already used — the same request
//! answers the stored response and does nothing, another request is 4009 —
//! or reserves it, and [`Reservation::complete`] stores the response with
//! the effect. A second request racing on the same key waits on the row lock
//! and then sees the first one's answer.

use prost::Message;
use sha2::{Digest, Sha256};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use crate::error::{ErrorCode, ServiceError};

/// The gRPC metadata key the gateway puts the edge header under.
pub const METADATA_KEY: &str = "idempotency-key";
/// The edge header.
pub const HEADER: &str = "Idempotency-Key";
/// Longest key accepted (a UUID is 36).
const MAX_KEY_LEN: usize = 128;
/// The refusal of a key reused for another request.
pub const REUSED_MESSAGE: &str = "该幂等键已用于另一请求";

/// The key of a request, if it sent one. Refuses keys that are empty, too
/// long or not printable ASCII.
pub fn key_of<T>(req: &tonic::Request<T>) -> Result<Option<String>, ServiceError> {
    let Some(value) = req.metadata().get(METADATA_KEY) else {
        return Ok(None);
    };
    let key = value
        .to_str()
        .ok()
        .map(str::trim)
        .filter(|k| {
            !k.is_empty() && k.len() <= MAX_KEY_LEN && k.bytes().all(|b| b.is_ascii_graphic())
        })
        .ok_or_else(|| ServiceError::invalid(HEADER, "幂等键须为 1 到 128 个可见 ASCII 字符"))?;
    Ok(Some(key.to_owned()))
}

/// What [`claim`] found.
#[derive(Debug)]
pub enum Claim<R> {
    /// Nothing stored yet: do the work, then [`Reservation::complete`].
    Fresh(Reservation),
    /// The same request ran before: answer this and do nothing.
    Replay(R),
}

/// A reserved key (or none, when the request sent no key).
#[derive(Debug)]
pub struct Reservation {
    slot: Option<(Uuid, String, String)>,
}

fn request_hash(request: &impl Message) -> Vec<u8> {
    Sha256::digest(request.encode_to_vec()).to_vec()
}

/// Looks the key up in the create's transaction (already scoped to
/// `enterprise` by `db::begin_tenant`) and reserves it when new.
pub async fn claim<R: Message + Default>(
    tx: &mut PgConnection,
    enterprise: Uuid,
    operation: &str,
    key: Option<String>,
    request: &impl Message,
) -> Result<Claim<R>, ServiceError> {
    let Some(key) = key else {
        return Ok(Claim::Fresh(Reservation { slot: None }));
    };
    let hash = request_hash(request);
    let inserted = sqlx::query(
        "insert into idempotency_key (enterprise_id, operation, key, request_hash, response) \
         values ($1, $2, $3, $4, '') on conflict do nothing",
    )
    .bind(enterprise)
    .bind(operation)
    .bind(&key)
    .bind(&hash)
    .execute(&mut *tx)
    .await?
    .rows_affected();
    if inserted == 1 {
        return Ok(Claim::Fresh(Reservation {
            slot: Some((enterprise, operation.to_owned(), key)),
        }));
    }
    let (stored_hash, response): (Vec<u8>, Vec<u8>) = sqlx::query_as(
        "select request_hash, response from idempotency_key \
         where enterprise_id = $1 and operation = $2 and key = $3",
    )
    .bind(enterprise)
    .bind(operation)
    .bind(&key)
    .fetch_one(&mut *tx)
    .await?;
    if stored_hash != hash {
        return Err(ServiceError::new(ErrorCode::Conflict, REUSED_MESSAGE));
    }
    let answer = R::decode(response.as_slice()).map_err(|e| ServiceError::internal(&e))?;
    Ok(Claim::Replay(answer))
}

impl Reservation {
    /// Stores the answer of the reserved key in the same transaction as the effect.
    pub async fn complete(
        self,
        tx: &mut PgConnection,
        response: &impl Message,
    ) -> Result<(), ServiceError> {
        let Some((enterprise, operation, key)) = self.slot else {
            return Ok(());
        };
        sqlx::query(
            "update idempotency_key set response = $4 \
             where enterprise_id = $1 and operation = $2 and key = $3",
        )
        .bind(enterprise)
        .bind(operation)
        .bind(key)
        .bind(response.encode_to_vec())
        .execute(&mut *tx)
        .await?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request_with(key: Option<&str>) -> tonic::Request<()> {
        let mut req = tonic::Request::new(());
        if let Some(key) = key {
            req.metadata_mut()
                .insert(METADATA_KEY, key.parse().unwrap());
        }
        req
    }

    #[test]
    fn a_request_without_the_header_has_no_key() {
        assert_eq!(key_of(&request_with(None)).unwrap(), None);
    }

    #[test]
    fn a_key_is_trimmed_and_bad_keys_are_refused_naming_the_header() {
        assert_eq!(
            key_of(&request_with(Some(" abc-123 "))).unwrap().as_deref(),
            Some("abc-123")
        );
        let long = "k".repeat(129);
        for bad in [" ", long.as_str()] {
            let err = key_of(&request_with(Some(bad))).unwrap_err();
            assert_eq!(err.code, ErrorCode::BadRequest);
            assert_eq!(err.fields[0].field, HEADER);
        }
    }

    #[test]
    fn equal_requests_hash_alike_and_different_ones_do_not() {
        let a = prost_types::Timestamp {
            seconds: 1,
            nanos: 0,
        };
        let b = prost_types::Timestamp {
            seconds: 2,
            nanos: 0,
        };
        assert_eq!(request_hash(&a), request_hash(&a.clone()));
        assert_ne!(request_hash(&a), request_hash(&b));
    }
}
