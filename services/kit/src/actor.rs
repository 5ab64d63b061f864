//! The caller of a domain service's request: the tenant, the user, their name
//! for logs, their data reach (kit::reach, expanded through this service's
//! org_unit replica) and the request's idempotency key.

use crate::reach::{Reach, ResolvedReach};
use crate::{ServiceError, db, grpc, idempotency};
use sqlx::Transaction;
use sqlx_postgres::{PgPool, Postgres};
use uuid::Uuid;

/// Metadata the gateway sets with the caller's display name (UTF-8), for
/// the binding and operation logs.
pub const OPERATOR_NAME_KEY: &str = "operator-name-bin";

/// What a request's transaction will run.
#[derive(Debug, Clone, Copy)]
enum Read {
    Any,
    ListPage,
}

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
        Actor::begin_as(pool, req, Some(permission), Read::Any).await
    }

    /// [`Actor::begin`] for what any member of the tenant may ask (the
    /// forms' pickers): the caller's reach still limits what it reads.
    pub async fn begin_member<T>(
        pool: &PgPool,
        req: &tonic::Request<T>,
    ) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
        Actor::begin_as(pool, req, None, Read::ListPage).await
    }

    /// [`Actor::begin`] for reading one page of a list built by
    /// [`crate::list`] (see [`db::begin_tenant_list`]).
    pub async fn begin_list<T>(
        pool: &PgPool,
        req: &tonic::Request<T>,
        permission: &str,
    ) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
        Actor::begin_as(pool, req, Some(permission), Read::ListPage).await
    }

    async fn begin_as<T>(
        pool: &PgPool,
        req: &tonic::Request<T>,
        permission: Option<&str>,
        read: Read,
    ) -> Result<(Actor, Transaction<'static, Postgres>), ServiceError> {
        if let Some(permission) = permission {
            grpc::require_permission(req, permission)?;
        }
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
        let mut tx = match read {
            Read::Any => db::begin_tenant(pool, enterprise_id).await?,
            Read::ListPage => db::begin_tenant_list(pool, enterprise_id).await?,
        };
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
