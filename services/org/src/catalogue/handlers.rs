//! Catalogue RPCs: the permissions a role editor offers.

use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::{convert, domain, store};
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

/// The apps of the portal the caller opens: the catalogue's top-level groups
/// (a value without a parent that others sit under, with a console path)
/// among the caller's permissions; a service sees every one.
pub async fn portal_apps(
    _ctx: &Context,
    request: Request<pb::ListPortalAppsRequest>,
) -> Result<pb::ListPortalAppsResponse, ServiceError> {
    let caller = grpc::caller(&request)?;
    let entries = domain::entries();
    let apps = domain::portal_apps(&entries)
        .filter(|e| caller.is_service() || caller.has_permission(&e.value))
        .map(convert::portal_app)
        .collect();
    Ok(pb::ListPortalAppsResponse { apps })
}
