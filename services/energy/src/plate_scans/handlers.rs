//! Plate-scan RPCs: the list and its export.

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
    req: Request<pb::ListPlateScanRecordsRequest>,
) -> Result<pb::ListPlateScanRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let mut query = convert::query(&request)?;
    query.org_ids = filters::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListPlateScanRecordsResponse {
        records: rows
            .into_iter()
            .map(|r| convert::record(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// `ExportPlateScanRecords`: queues the export of the list's filter under
/// the caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportPlateScanRecordsRequest>,
) -> Result<pb::ExportPlateScanRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportPlateScanRecordsResponse { job: Some(job) })
}
