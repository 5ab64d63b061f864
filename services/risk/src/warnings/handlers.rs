//! Warning RPCs: validate → store → response, each in one tenant
//! transaction under the caller's reach.

use fleetdesk_kit::list::{BATCH_LIMIT, Paging, TimeRange, batch, batch_limit_message};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{Level, WarningKind, WarningState};
use super::store::{self, WarningQuery};
use super::{PERMISSION, convert};
use crate::accidents::handlers::{codes, optional_id, uuids};
use crate::context::{Actor, Context};
use fleetdesk_assets::vehicles;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListWarningsRequest>,
) -> Result<pb::ListWarningsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListWarningsRequest {
        page,
        plate_numbers,
        org_ids,
        driver_id,
        warning_types,
        levels,
        statuses,
        warn_time,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let org_ids = uuids("orgIds", &org_ids)?;
    let query = WarningQuery {
        plates: batch("plateNumbers", &plate_numbers)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, org_ids).await?,
        driver: optional_id("driverId", &driver_id)?,
        kinds: codes(&warning_types, WarningKind::from_pb),
        levels: codes(&levels, Level::from_pb),
        statuses: codes(&statuses, WarningState::from_pb),
        warn_time: TimeRange::parse("warnTime", warn_time.as_ref())?,
    };
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListWarningsResponse {
        warnings: rows
            .into_iter()
            .map(|r| convert::warning(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// Acknowledges one warning or a batch: every id must be the caller's
/// (else NOT_FOUND and nothing changes); those already acknowledged or
/// resolved stay as they are.
pub async fn acknowledge(
    ctx: &Context,
    req: Request<pb::AcknowledgeWarningsRequest>,
) -> Result<pb::AcknowledgeWarningsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::AcknowledgeWarningsRequest { warning_ids } = req.into_inner();
    let mut ids: Vec<Uuid> = uuids("warningIds", &warning_ids)?;
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Err(ServiceError::invalid("warningIds", "请选择预警记录"));
    }
    if ids.len() > BATCH_LIMIT {
        return Err(ServiceError::invalid("warningIds", batch_limit_message()));
    }
    let found = store::get_many(&mut tx, &actor, &ids, true).await?;
    if found.len() != ids.len() {
        return Err(ServiceError::not_found());
    }
    let changed = store::acknowledge(&mut tx, &actor, &ids).await?;
    let rows = store::get_many(&mut tx, &actor, &ids, false).await?;
    tx.commit().await?;
    tracing::info!(warnings = ids.len(), changed, "Warnings acknowledged.");
    Ok(pb::AcknowledgeWarningsResponse {
        warnings: rows
            .into_iter()
            .map(|r| convert::warning(r, actor.enterprise_id))
            .collect(),
    })
}
