//! Who a tenant call acts for: the enterprise from the verified internal
//! token (never from the request body) and, for a person, their member id.

use fleetdesk_kit::{ServiceError, grpc};
use sqlx::PgConnection;
use tonic::Request;
use uuid::Uuid;

/// The caller of a tenant-owned RPC.
#[derive(Debug, Clone, Copy)]
pub struct Actor {
    pub enterprise_id: Uuid,
    /// The member behind a person's call; `None` for a service acting for the tenant.
    pub member_id: Option<Uuid>,
}

impl Actor {
    /// The member, for calls that only make sense for a person.
    pub fn member(&self) -> Result<Uuid, ServiceError> {
        self.member_id.ok_or_else(ServiceError::forbidden)
    }
}

/// The actor of a request that passed the internal-token check.
pub fn of<T>(request: &Request<T>) -> Result<Actor, ServiceError> {
    let enterprise_id = grpc::tenant(request)?;
    let member_id = grpc::caller(request)?
        .user_id()
        .and_then(|id| Uuid::parse_str(id).ok());
    Ok(Actor {
        enterprise_id,
        member_id,
    })
}

/// The display name of the acting member; empty for a service.
pub async fn name(tx: &mut PgConnection, actor: &Actor) -> sqlx::Result<String> {
    let Some(id) = actor.member_id else {
        return Ok(String::new());
    };
    let name: Option<String> =
        sqlx::query_scalar("select name from member where id = $1 and enterprise_id = $2")
            .bind(id)
            .bind(actor.enterprise_id)
            .fetch_optional(tx)
            .await?;
    Ok(name.unwrap_or_default())
}

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
