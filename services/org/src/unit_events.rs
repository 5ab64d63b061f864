//! Organisation changes for other services: every unit whose state changed
//! (created, renamed, moved — with everything below it, whose paths changed —
//! disabled or enabled) is announced with its full state and version
//! (`OrgUnitChanged`), in the transaction of the change; and the paged
//! snapshot of all units a replica catches up from.

use fleetdesk_kit::{ServiceError, db, events, grpc, subjects};
use fleetdesk_proto::org::v1 as pb;
use sqlx::{PgConnection, PgPool};
use tonic::Request;
use uuid::Uuid;

use crate::store::ENABLED;

/// Largest snapshot page.
const MAX_PAGE: i32 = 5000;
/// Page size when the request names none.
const DEFAULT_PAGE: i32 = 1000;

#[derive(Debug, sqlx::FromRow)]
struct UnitState {
    id: Uuid,
    enterprise_id: Uuid,
    parent_id: Option<Uuid>,
    name: String,
    path: String,
    status: i16,
    version: i64,
    org_code: String,
}

impl UnitState {
    fn to_pb(&self) -> pb::OrgUnitChanged {
        pb::OrgUnitChanged {
            id: self.id.to_string(),
            enterprise_id: self.enterprise_id.to_string(),
            parent_id: self.parent_id.map(|p| p.to_string()).unwrap_or_default(),
            name: self.name.clone(),
            path: self.path.clone(),
            disabled: self.status != ENABLED,
            version: self.version,
            code: self.org_code.clone(),
        }
    }
}

/// The current state of `ids`, each with its path from the top of its tree
/// ('/<root>/.../<id>/'), in id order.
async fn states(conn: &mut PgConnection, ids: &[Uuid]) -> sqlx::Result<Vec<UnitState>> {
    sqlx::query_as(
        "with recursive up as ( \
           select u.id as unit, u.parent_id as next, '/' || u.id::text || '/' as path \
           from org_unit u where u.id = any($1) \
           union all \
           select up.unit, p.parent_id, '/' || p.id::text || up.path \
           from up join org_unit p on p.id = up.next) \
         select u.id, u.enterprise_id, u.parent_id, u.name, up.path, u.status, u.version, \
                u.org_code \
         from up join org_unit u on u.id = up.unit where up.next is null order by u.id",
    )
    .bind(ids)
    .fetch_all(conn)
    .await
}

/// Announces the current state of `ids` in the caller's transaction, each
/// under a fresh version (so a replica takes it whatever it saw before, even
/// for a unit whose own row did not change, e.g. below a moved one).
pub async fn announce(conn: &mut PgConnection, ids: &[Uuid]) -> sqlx::Result<()> {
    // The version trigger takes the next value on any update.
    sqlx::query("update org_unit set version = version where id = any($1)")
        .bind(ids)
        .execute(&mut *conn)
        .await?;
    for unit in states(conn, ids).await? {
        events::enqueue(conn, subjects::ORG_UNIT_CHANGED, &unit.to_pb()).await?;
    }
    Ok(())
}

/// Every unit of every enterprise in id order, one page (service callers only).
pub async fn snapshot(
    pool: &PgPool,
    request: Request<pb::ListOrgUnitSnapshotRequest>,
) -> Result<pb::ListOrgUnitSnapshotResponse, ServiceError> {
    grpc::require_service(&request)?;
    let req = request.into_inner();
    let after = match req.after_id.trim() {
        "" => Uuid::nil(),
        id => fleetdesk_kit::convert::id(id)?,
    };
    let size = match req.page_size {
        0 => DEFAULT_PAGE,
        n => n.clamp(1, MAX_PAGE),
    };
    let mut tx = db::begin_service(pool).await?;
    let ids: Vec<Uuid> =
        sqlx::query_scalar("select id from org_unit where id > $1 order by id limit $2")
            .bind(after)
            .bind(i64::from(size))
            .fetch_all(&mut *tx)
            .await?;
    let units = states(&mut tx, &ids).await?;
    tx.commit().await?;
    let full = ids.len() == usize::try_from(size).unwrap_or(usize::MAX);
    Ok(pb::ListOrgUnitSnapshotResponse {
        next_after_id: match ids.last() {
            Some(last) if full => last.to_string(),
            _ => String::new(),
        },
        units: units.iter().map(UnitState::to_pb).collect(),
    })
}
