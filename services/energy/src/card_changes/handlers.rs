//! Amount-change RPCs: the list and its export.

use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;

use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::{accounts, exports, filters};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListCardAmountChangesRequest>,
) -> Result<pb::ListCardAmountChangesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let paging = Paging::parse(req.get_ref().page.as_ref())?;
    let mut query = convert::query(req.get_ref())?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListCardAmountChangesResponse {
        changes: rows
            .into_iter()
            .map(|r| convert::change(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// `ExportCardAmountChanges`: queues the export of the list's filter under
/// the caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportCardAmountChangesRequest>,
) -> Result<pb::ExportCardAmountChangesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportCardAmountChangesResponse { job: Some(job) })
}
