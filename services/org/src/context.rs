//! What every handler shares: the service's [`Context`] and the caller of a
//! request as kit's [`Actor`]. Org is where reach comes from, so a caller's
//! reach is resolved from org's own tables (the member's scopes over the
//! organisation tree) rather than read from the token's claim, which org
//! itself computed from the same tables.

pub use fleetdesk_kit::actor::Actor;

use fleetdesk_kit::reach::ResolvedReach;
use fleetdesk_kit::{ServiceError, grpc};
use sqlx_postgres::PgConnection;
use sqlx_postgres::PgPool;
use tonic::Request;
use uuid::Uuid;

use crate::auth_link::AuthLink;
use crate::config::CustomerServiceConfig;
use crate::scope;

/// What the handlers of every subject share.
#[derive(Clone, Debug)]
pub struct Context {
    pub pool: PgPool,
    /// For creating sign-in accounts when users are added.
    pub auth: AuthLink,
    /// The customer-service settings the help centre shows.
    pub customer_service: CustomerServiceConfig,
}

/// The caller of a tenant-owned RPC: the enterprise from the verified
/// token (never from the request body) and, for a person, their member id
/// (`user_id`). Its reach is the narrowest — the caller's own rows — until
/// [`resolve`] reads it, so a handler that never asks shows less, never
/// more. Its name is empty: org reads a member's name from its own table
/// ([`member_name`]) where it keeps one.
pub fn actor<T>(request: &Request<T>) -> Result<Actor, ServiceError> {
    let enterprise_id = grpc::tenant(request)?;
    let user_id = grpc::caller(request)?
        .user_id()
        .and_then(|id| Uuid::parse_str(id).ok());
    Ok(Actor {
        enterprise_id,
        user_id,
        name: String::new(),
        reach: ResolvedReach {
            all: false,
            org_ids: Vec::new(),
            own: user_id,
        },
        // Org's RPCs replay nothing: no key is kept.
        idempotency_key: None,
    })
}

/// Reads the actor's reach inside their tenant transaction: a person's from
/// their scopes, a service's everything.
pub async fn resolve(conn: &mut PgConnection, actor: &mut Actor) -> sqlx::Result<()> {
    actor.reach = scope::store::of_caller(conn, actor.user_id).await?.into();
    Ok(())
}

/// The member behind the call, for calls that only make sense for a person.
pub fn member(actor: &Actor) -> Result<Uuid, ServiceError> {
    actor.user_id.ok_or_else(ServiceError::forbidden)
}

/// The display name of the acting member; empty for a service.
pub async fn member_name(conn: &mut PgConnection, actor: &Actor) -> sqlx::Result<String> {
    let Some(id) = actor.user_id else {
        return Ok(String::new());
    };
    let name: Option<String> =
        sqlx::query_scalar("select name from member where id = $1 and enterprise_id = $2")
            .bind(id)
            .bind(actor.enterprise_id)
            .fetch_optional(conn)
            .await?;
    Ok(name.unwrap_or_default())
}
