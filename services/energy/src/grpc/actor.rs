//! Who is calling and what they may see: the tenant, the user, their name
//! for logs, their data reach (kit::reach, expanded through this service's
//! org_unit replica) and the request's idempotency key.

use fleetdesk_kit::reach::{Reach, ResolvedReach};
use fleetdesk_kit::{ServiceError, db, grpc, idempotency};
use sqlx::{PgPool, Postgres, Transaction};
use uuid::Uuid;

/// Metadata the gateway sets with the caller's display name (UTF-8), for
/// the binding and operation logs.
pub const OPERATOR_NAME_KEY: &str = "operator-name-bin";

/// The caller of one request.
#[derive(Debug, Clone)]
pub struct Actor {
    pub enterprise_id: Uuid,
    /// The user, for user calls; `None` for services.
    pub user_id: Option<Uuid>,
    /// Display name for logs ("系统" for services).
    pub name: String,
    /// What the caller may see; every list, detail, count and write checks it.
    pub reach: ResolvedReach,
    pub idempotency_key: Option<String>,
}

impl Actor {
    /// Checks the caller (in a tenant, holding `permission`; services pass),
    /// begins its tenant transaction and resolves its reach inside it.
    pub async fn begin<T>(
        pool: &PgPool,
        req: &tonic::Request<T>,
        permission: &str,
    ) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
        grpc::require_permission(req, permission)?;
        let enterprise_id = grpc::tenant(req)?;
        let claims = grpc::caller(req)?;
        let user_id = claims.user_id().and_then(|u| Uuid::parse_str(u).ok());
        let name = req
            .metadata()
            .get_bin(OPERATOR_NAME_KEY)
            .and_then(|v| v.to_bytes().ok())
            .and_then(|b| String::from_utf8(b.to_vec()).ok())
            .filter(|n| !n.trim().is_empty())
            .unwrap_or_else(|| {
                if claims.is_service() {
                    "系统".to_owned()
                } else {
                    String::new()
                }
            });
        let idempotency_key = idempotency::key_of(req)?;
        let reach = Reach::of(claims);
        let mut tx = db::begin_tenant(pool, enterprise_id).await?;
        let reach = reach.resolve(&mut tx).await?;
        Ok((
            Actor {
                enterprise_id,
                user_id,
                name,
                reach,
                idempotency_key,
            },
            tx,
        ))
    }
}

impl Actor {
    /// The key of a money write: the `Idempotency-Key` header, else the
    /// request's own `idempotency_key` field; one of them is required,
    /// since every money write must be safe to retry.
    pub fn money_key(&self, body_key: &str) -> Result<String, ServiceError> {
        let body_key = body_key.trim();
        match (&self.idempotency_key, body_key) {
            (Some(key), _) => Ok(key.clone()),
            (None, "") => Err(ServiceError::invalid(
                idempotency::HEADER,
                "资金操作须携带幂等键（Idempotency-Key）",
            )),
            (None, key) if key.len() <= 128 && key.bytes().all(|b| b.is_ascii_graphic()) => {
                Ok(key.to_owned())
            }
            (None, _) => Err(ServiceError::invalid(
                "idempotencyKey",
                "幂等键须为 1 到 128 个可见 ASCII 字符",
            )),
        }
    }
}
