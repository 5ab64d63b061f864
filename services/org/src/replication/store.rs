//! Queries of unit states: each unit's path from the top of its tree, the
//! announcement written to the outbox, and the snapshot's pages.

use fleetdesk_kit::{events, subjects};
use sqlx_postgres::PgConnection;
use uuid::Uuid;

use super::convert;

#[derive(Debug, sqlx::FromRow)]
pub struct UnitState {
    pub id: Uuid,
    pub enterprise_id: Uuid,
    pub parent_id: Option<Uuid>,
    pub name: String,
    pub path: String,
    pub status: i16,
    pub version: i64,
    pub org_code: String,
}

/// The current state of `ids`, each with its path from the top of its tree
/// ('/<root>/.../<id>/'), in id order.
pub async fn states(conn: &mut PgConnection, ids: &[Uuid]) -> sqlx::Result<Vec<UnitState>> {
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
        events::enqueue(conn, subjects::ORG_UNIT_CHANGED, &convert::changed(&unit)).await?;
    }
    Ok(())
}

/// Ids of one snapshot page: every enterprise's units after `after`, in id order.
pub async fn page_ids(conn: &mut PgConnection, after: Uuid, size: i64) -> sqlx::Result<Vec<Uuid>> {
    sqlx::query_scalar("select id from org_unit where id > $1 order by id limit $2")
        .bind(after)
        .bind(size)
        .fetch_all(conn)
        .await
}
