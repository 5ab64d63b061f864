//! List RPCs (service callers only): who is on a list, and putting an
//! enterprise on one or taking it off.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, grpc};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::ListType;
use super::{convert, store};
use crate::changes;
use crate::context::Context;

/// Enterprise ids on one list.
pub async fn entries(
    ctx: &Context,
    request: Request<pb::ListEnterpriseListEntriesRequest>,
) -> Result<pb::ListEnterpriseListEntriesResponse, ServiceError> {
    grpc::require_service(&request)?;
    let list = convert::list_type(request.get_ref().list_type)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    let ids = store::entries(&mut tx, list).await?;
    Ok(pb::ListEnterpriseListEntriesResponse {
        enterprise_ids: ids.iter().map(Uuid::to_string).collect(),
    })
}

/// Puts an enterprise on a list or takes it off. The lock-car list's
/// emptiness matters to everyone, so every cached principal goes.
pub async fn set(
    ctx: &Context,
    request: Request<pb::SetEnterpriseListMembershipRequest>,
) -> Result<pb::SetEnterpriseListMembershipResponse, ServiceError> {
    grpc::require_service(&request)?;
    let pb::SetEnterpriseListMembershipRequest {
        list_type,
        enterprise_id,
        member,
    } = request.into_inner();
    let list = convert::list_type(list_type)?;
    let enterprise_id = kit_convert::id(&enterprise_id)?;
    let mut tx = db::begin_service(&ctx.pool).await?;
    if !store::enterprise_exists(&mut tx, enterprise_id).await? {
        return Err(ServiceError::not_found());
    }
    if store::set(&mut tx, list, enterprise_id, member).await? {
        let scope = match list {
            ListType::LockCar => None,
            ListType::White
            | ListType::Sf
            | ListType::Mt
            | ListType::BehaviorAnalysis
            | ListType::ChargeBlacklist
            | ListType::InsuranceBlacklist
            | ListType::OrderCenter
            | ListType::NeedOpenPage => Some(enterprise_id),
        };
        changes::principals_changed(&mut tx, scope, &[]).await?;
    }
    tx.commit().await?;
    tracing::info!(list = i16::from(list), %enterprise_id, member, "Enterprise list changed.");
    Ok(pb::SetEnterpriseListMembershipResponse {})
}
