//! Catalogue RPCs: the permissions a role editor offers.

use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::{convert, store};
use crate::context::Context;

/// The catalogue, each value with the group it sits under.
pub async fn permissions(
    ctx: &Context,
    request: Request<pb::ListPermissionsRequest>,
) -> Result<pb::ListPermissionsResponse, ServiceError> {
    grpc::caller(&request)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    let rows = store::permissions(&mut tx).await?;
    Ok(pb::ListPermissionsResponse {
        permissions: rows.into_iter().map(convert::permission).collect(),
    })
}
