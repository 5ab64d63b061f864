//! Dictionary RPCs, for any signed-in caller.

use fleetdesk_kit::{ServiceError, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::{convert, store};
use crate::context::Context;

/// Enabled entries of one dictionary type, in their order; every enabled
/// entry when no type is named. An unknown type is empty.
pub async fn by_type(
    ctx: &Context,
    request: Request<pb::GetSimpleDictByTypeRequest>,
) -> Result<pb::GetSimpleDictByTypeResponse, ServiceError> {
    grpc::caller(&request)?;
    let rows = store::entries(&ctx.pool, request.get_ref().r#type.trim()).await?;
    Ok(pb::GetSimpleDictByTypeResponse {
        entries: rows.into_iter().map(convert::entry).collect(),
    })
}
