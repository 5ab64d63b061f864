//! Session RPCs: the list with its totals row, one session, and the export.

use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;

use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::exports;
use crate::filters;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListChargingSessionsRequest>,
) -> Result<pb::ListChargingSessionsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let mut query = convert::query(&request)?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let rows = store::list(&mut tx, &actor, &query, paging).await?;
    let totals = store::totals(&mut tx, &actor, &query).await?;
    db::end_read(tx);
    Ok(pb::ListChargingSessionsResponse {
        sessions: rows
            .into_iter()
            .map(|r| convert::session(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(totals.session_count)),
        totals: Some(convert::totals(totals)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetChargingSessionRequest>,
) -> Result<pb::GetChargingSessionResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let id = fleetdesk_kit::convert::id(&req.get_ref().session_id)?;
    let row = store::get(&mut tx, &actor, id).await?;
    db::end_read(tx);
    Ok(pb::GetChargingSessionResponse {
        session: Some(convert::session(row, actor.enterprise_id)),
    })
}

/// `ExportChargingSessions`: queues the export of the list's filter under
/// the caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportChargingSessionsRequest>,
) -> Result<pb::ExportChargingSessionsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportChargingSessionsResponse { job: Some(job) })
}
