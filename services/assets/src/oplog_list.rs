//! ListOperationLogs: the log of one vehicle, driver or usage record, for the
//! caller allowed to open that object's detail page. It checks the object
//! through its subject, so it sits above them; `oplog`, which their changes
//! write, depends on no subject.

use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;

use crate::context::{Actor, Context};
use crate::oplog::{Business, convert, store};
use crate::{drivers, usage, vehicles};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListOperationLogsRequest>,
) -> Result<pb::ListOperationLogsResponse, ServiceError> {
    let business = Business::from_pb(req.get_ref().business_type)
        .ok_or_else(|| ServiceError::invalid("businessType", "请选择业务类型"))?;
    // The log is part of the object's detail page: the same permission.
    let permission = match business {
        Business::Vehicle => vehicles::PERMISSION,
        Business::Driver => drivers::PERMISSION,
        Business::UsageRecord => usage::PERMISSION,
    };
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, permission).await?;
    let pb::ListOperationLogsRequest {
        business_type: _,
        business_id,
        page,
    } = req.into_inner();
    let business_id = id(&business_id)?;
    let paging = Paging::parse(page.as_ref())?;
    // Another tenant's or an unreachable object is not found, log and all.
    match business {
        Business::Vehicle => {
            vehicles::store::get(&mut tx, &actor, business_id, false).await?;
        }
        Business::Driver => {
            drivers::store::get(&mut tx, &actor, business_id).await?;
        }
        Business::UsageRecord => {
            usage::store::get(&mut tx, &actor, business_id, false).await?;
        }
    }
    let (rows, total) = store::list(&mut tx, &actor, business, business_id, paging).await?;
    db::end_read(tx);
    Ok(pb::ListOperationLogsResponse {
        entries: rows.into_iter().map(convert::entry).collect(),
        page: Some(paging.info(total)),
    })
}
