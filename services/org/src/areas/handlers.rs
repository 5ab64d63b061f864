//! Area RPCs, for any signed-in caller.

use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::domain::{OPERATING_CITY, REGIONAL_LIST, gb2260_children};
use super::{convert, store};
use crate::context::Context;

/// Areas below `parent_code` (provinces for 100000 or empty), or, with
/// `type_code` REGIONAL_LIST / OPERATING_CITY, the operator's regions and
/// the operating cities of a region.
pub async fn list(
    ctx: &Context,
    request: Request<pb::ListAreasRequest>,
) -> Result<pb::ListAreasResponse, ServiceError> {
    grpc::caller(&request)?;
    let pb::ListAreasRequest {
        parent_code,
        type_code,
    } = request.into_inner();
    let parent = parent_code.trim();
    let areas = match type_code.trim() {
        "" => gb2260_children(parent).ok_or_else(ServiceError::not_found)?,
        kind @ (REGIONAL_LIST | OPERATING_CITY) => {
            let level = if kind == REGIONAL_LIST { 1 } else { 2 };
            store::operating_areas(&ctx.pool, kind, parent)
                .await?
                .into_iter()
                .map(|r| convert::operating_area(r, level))
                .collect()
        }
        _ => return Err(ServiceError::invalid("typeCode", "区域类型无效")),
    };
    Ok(pb::ListAreasResponse { areas })
}
