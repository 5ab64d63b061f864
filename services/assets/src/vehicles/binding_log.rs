//! The binding log's rows as the vehicle writes them: what a vehicle is
//! bound to (its kinds) and opening or ending a binding. The vehicle owns
//! them because creating a vehicle with a terminal opens its first binding;
//! the binding-log page and bind/unbind (`crate::bindings`) build on this.

use chrono::{DateTime, Utc};
use fleetdesk_kit::ServiceError;
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::store::conflict;
use crate::codes::stored_code;
use crate::context::Actor;

stored_code!(
    /// What a binding ties the vehicle to.
    BindingKind => pb::BindingKind {
        Driver = 1, Organization = 2, Terminal = 3,
    }
);

impl BindingKind {
    /// As the console names it.
    pub fn label(self) -> &'static str {
        match self {
            BindingKind::Driver => "司机",
            BindingKind::Organization => "组织",
            BindingKind::Terminal => "终端",
        }
    }
}

/// A binding to open.
#[derive(Debug, Clone)]
pub struct NewBinding<'a> {
    pub vehicle_id: Uuid,
    pub org_id: Uuid,
    pub kind: BindingKind,
    pub target_id: &'a str,
    pub target_name: &'a str,
    pub terminal_sim: &'a str,
    pub bound_at: DateTime<Utc>,
    pub remark: &'a str,
}

pub async fn open(
    conn: &mut PgConnection,
    actor: &Actor,
    binding: &NewBinding<'_>,
) -> Result<Uuid, ServiceError> {
    let id = Uuid::new_v4();
    sqlx::query(
        "insert into vehicle_binding (id, enterprise_id, org_id, created_by, vehicle_id, kind, \
         target_id, target_name, terminal_sim, bound_at, bound_by_name, remark) \
         values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)",
    )
    .bind(id)
    .bind(actor.enterprise_id)
    .bind(binding.org_id)
    .bind(actor.user_id)
    .bind(binding.vehicle_id)
    .bind(i16::from(binding.kind))
    .bind(binding.target_id)
    .bind(binding.target_name)
    .bind(binding.terminal_sim)
    .bind(binding.bound_at)
    .bind(&actor.name)
    .bind(binding.remark)
    .execute(conn)
    .await
    .map_err(conflict)?;
    Ok(id)
}

/// Ends the vehicle's active binding of `kind`; its id, or `None` when there was none.
pub async fn close(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle_id: Uuid,
    kind: BindingKind,
    remark: &str,
) -> Result<Option<Uuid>, ServiceError> {
    let ended: Option<Uuid> = sqlx::query_scalar(
        "update vehicle_binding set unbound_at = now(), unbound_by = $4, unbound_by_name = $5, \
         remark = case when $6 = '' then remark else $6 end \
         where enterprise_id = $1 and vehicle_id = $2 and kind = $3 and unbound_at is null \
         returning id",
    )
    .bind(actor.enterprise_id)
    .bind(vehicle_id)
    .bind(i16::from(kind))
    .bind(actor.user_id)
    .bind(&actor.name)
    .bind(remark)
    .fetch_optional(conn)
    .await?;
    Ok(ended)
}
