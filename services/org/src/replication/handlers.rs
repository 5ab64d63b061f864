//! Replication RPCs: the paged snapshot a replica catches up from.

use fleetdesk_kit::{ServiceError, convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use sqlx_postgres::PgPool;
use tonic::Request;
use uuid::Uuid;

use super::{convert as unit_convert, store};
use crate::context::Context;

/// Largest snapshot page.
const MAX_PAGE: i32 = 5000;
/// Page size when the request names none.
const DEFAULT_PAGE: i32 = 1000;

pub async fn snapshot(
    ctx: &Context,
    request: Request<pb::ListOrgUnitSnapshotRequest>,
) -> Result<pb::ListOrgUnitSnapshotResponse, ServiceError> {
    snapshot_page(&ctx.pool, request).await
}

/// Every unit of every enterprise in id order, one page (service callers
/// only); on the pool alone, so a replica test can page through it.
pub async fn snapshot_page(
    pool: &PgPool,
    request: Request<pb::ListOrgUnitSnapshotRequest>,
) -> Result<pb::ListOrgUnitSnapshotResponse, ServiceError> {
    grpc::require_service(&request)?;
    let pb::ListOrgUnitSnapshotRequest {
        after_id,
        page_size,
    } = request.into_inner();
    let after = match after_id.trim() {
        "" => Uuid::nil(),
        id => convert::id(id)?,
    };
    let size = match page_size {
        0 => DEFAULT_PAGE,
        n => n.clamp(1, MAX_PAGE),
    };
    let mut tx = db::begin_service(pool).await?;
    let ids = store::page_ids(&mut tx, after, i64::from(size)).await?;
    let units = store::states(&mut tx, &ids).await?;
    tx.commit().await?;
    let full = ids.len() == usize::try_from(size).unwrap_or(usize::MAX);
    Ok(pb::ListOrgUnitSnapshotResponse {
        next_after_id: ids
            .last()
            .filter(|_| full)
            .map(Uuid::to_string)
            .unwrap_or_default(),
        units: units.iter().map(unit_convert::changed).collect(),
    })
}
