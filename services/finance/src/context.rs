//! What a request runs with: who asks ([`Actor`], kit's: tenant, reach,
//! permission checked) and what every handler shares ([`Context`]). Service
//! callers (energy, vehicle) carry no tenant in their token and name the
//! enterprise in the request instead ([`for_enterprise`]). Subjects take
//! these from here, not from the gRPC layer.

pub use fleetdesk_kit::actor::Actor;

use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, db, grpc, idempotency};
use sqlx::Transaction;
use sqlx_postgres::{PgPool, Postgres};
use tonic::Request;

/// What every finance handler shares.
#[derive(Debug, Clone)]
pub struct Context {
    pub pool: PgPool,
    /// The bank's merchant gateway; None when no bank is configured (bank
    /// payments and refunds are refused).
    pub bank: Option<crate::bank::Bank>,
    /// The invoicing platform; None when none is configured (red-letter
    /// reversals are refused, applications wait in the queue).
    pub invoicing: Option<crate::invoicing::client::Invoicing>,
}

/// Begins a read for a caller holding any of `permissions` (a record the
/// console opens under several menus, e.g. a payment from billPay,
/// billSettlement or billList); services pass.
pub async fn begin_read_any<T>(
    pool: &PgPool,
    req: &Request<T>,
    permissions: &[&str],
) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
    let claims = grpc::caller(req)?;
    if !claims.is_service() && !permissions.iter().any(|p| claims.has_permission(p)) {
        return Err(ServiceError::forbidden());
    }
    Actor::begin_member(pool, req).await
}

/// The key of a money write: the `Idempotency-Key` header, else the
/// request's own `idempotency_key` field; one of them is required, since
/// every money write must be safe to retry.
pub fn money_key(actor: &Actor, body_key: &str) -> Result<String, ServiceError> {
    match (&actor.idempotency_key, body_key.trim()) {
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

/// Begins the transaction of a request a service caller makes for the
/// enterprise it names (`enterprise_id`); the caller reaches the whole
/// tenant. User callers are refused (they act through [`Actor::begin`]).
pub async fn for_enterprise<T>(
    pool: &PgPool,
    req: &Request<T>,
    enterprise_id: &str,
) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
    grpc::require_service(req)?;
    let enterprise_id = uuid::Uuid::parse_str(enterprise_id.trim())
        .map_err(|_| ServiceError::invalid("enterpriseId", "请指定企业"))?;
    let tx = db::begin_tenant(pool, enterprise_id).await?;
    Ok((
        Actor {
            enterprise_id,
            user_id: None,
            name: "系统".to_owned(),
            reach: ResolvedReach {
                all: true,
                org_ids: Vec::new(),
                own: None,
            },
            idempotency_key: idempotency::key_of(req)?,
        },
        tx,
    ))
}

/// A request either caller may make: a service names the enterprise
/// (`enterprise_id`), a user acts for their own, holding `permission`.
pub async fn begin_either<T>(
    pool: &PgPool,
    req: &Request<T>,
    enterprise_id: &str,
    permission: &str,
) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
    if grpc::caller(req)?.is_service() {
        for_enterprise(pool, req, enterprise_id).await
    } else {
        Actor::begin(pool, req, permission).await
    }
}
