//! Approval RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach.

use fleetdesk_kit::{ServiceError, convert as kit_convert, db, events, grpc, subjects};
use fleetdesk_proto::common::v1::PageRequest;
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;

use super::domain::{self, Kind, MAX_COMMENT, MAX_PLATES, State};
use super::store::{self, ApprovalFilter, Step};
use super::{PERM_APPROVALS, PERM_DECIDE, convert, export};
use crate::context::{self, Actor, Context};
use crate::validate::limit;

pub async fn count_pending(
    ctx: &Context,
    request: Request<pb::CountPendingApprovalsRequest>,
) -> Result<pb::CountPendingApprovalsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let mut actor = context::actor(&request)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let count = store::count_pending(&mut tx, actor.enterprise_id, &actor.reach).await?;
    tx.commit().await?;
    Ok(pb::CountPendingApprovalsResponse { count })
}

/// One page of approvals matching the filter, newest first.
async fn page_of(
    ctx: &Context,
    mut actor: Actor,
    page: Option<&PageRequest>,
    filter: ApprovalFilter<'_>,
) -> Result<(Vec<pb::Approval>, fleetdesk_proto::common::v1::PageInfo), ServiceError> {
    let (page, size) = kit_convert::page(page);
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let (rows, total) = store::page(
        &mut tx,
        actor.enterprise_id,
        &actor.reach,
        &filter,
        (page, size),
    )
    .await?;
    tx.commit().await?;
    Ok((
        rows.into_iter()
            .map(|r| convert::approval(r, Vec::new()))
            .collect(),
        kit_convert::page_info(page, size, total),
    ))
}

pub async fn list(
    ctx: &Context,
    request: Request<pb::ListApprovalsRequest>,
) -> Result<pb::ListApprovalsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let actor = context::actor(&request)?;
    let pb::ListApprovalsRequest { page, status, kind } = request.into_inner();
    let filter = ApprovalFilter {
        status: convert::filter("status", status, State::from_pb)?,
        kind: convert::filter("kind", kind, Kind::from_pb)?,
        plates: &[],
    };
    let (approvals, page) = page_of(ctx, actor, page.as_ref(), filter).await?;
    Ok(pb::ListApprovalsResponse {
        approvals,
        page: Some(page),
    })
}

pub async fn list_vehicle_allotments(
    ctx: &Context,
    request: Request<pb::ListVehicleAllotmentApprovalsRequest>,
) -> Result<pb::ListVehicleAllotmentApprovalsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let actor = context::actor(&request)?;
    let pb::ListVehicleAllotmentApprovalsRequest {
        page,
        status,
        plate_numbers,
    } = request.into_inner();
    let status = convert::filter("status", status, State::from_pb)?;
    let plates: Vec<String> = plate_numbers
        .iter()
        .map(|p| p.trim().to_uppercase())
        .filter(|p| !p.is_empty())
        .collect();
    if plates.len() > MAX_PLATES {
        return Err(ServiceError::invalid(
            "plateNumbers",
            format!("每次批量查询，最大不超过{MAX_PLATES}台"),
        ));
    }
    let filter = ApprovalFilter {
        status,
        kind: Some(Kind::VehicleAllotment),
        plates: &plates,
    };
    let (approvals, page) = page_of(ctx, actor, page.as_ref(), filter).await?;
    Ok(pb::ListVehicleAllotmentApprovalsResponse {
        approvals,
        page: Some(page),
    })
}

pub async fn get(
    ctx: &Context,
    request: Request<pb::GetApprovalRequest>,
) -> Result<pb::GetApprovalResponse, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let mut actor = context::actor(&request)?;
    let id = kit_convert::id(&request.get_ref().id)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let (row, steps) = store::load(&mut tx, actor.enterprise_id, &actor.reach, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    Ok(pb::GetApprovalResponse {
        approval: Some(convert::approval(row, steps)),
    })
}

/// Approves or rejects a pending approval. The row is locked while the state
/// machine decides, so of two racing decisions one wins and the other gets
/// CONFLICT; the history step and the event commit with the change.
pub async fn decide(
    ctx: &Context,
    request: Request<pb::DecideApprovalRequest>,
) -> Result<pb::DecideApprovalResponse, ServiceError> {
    grpc::require_permission(&request, PERM_DECIDE)?;
    let mut actor = context::actor(&request)?;
    let pb::DecideApprovalRequest {
        id,
        approve,
        comment,
    } = request.into_inner();
    let id = kit_convert::id(&id)?;
    let comment = comment.trim();
    limit("comment", comment, MAX_COMMENT)?;
    let action = domain::decision(approve, comment)?;
    let tenant = actor.enterprise_id;
    let mut tx = db::begin_tenant(&ctx.pool, tenant).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let current = store::lock(&mut tx, tenant, &actor.reach, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    let state: State = fleetdesk_kit::codes::known(current.status)?;
    let next = state.apply(action)?;
    let operator_name = context::member_name(&mut tx, &actor).await?;
    store::decide(
        &mut tx,
        tenant,
        id,
        Step {
            status: next,
            operator_id: actor.user_id,
            operator_name: &operator_name,
            comment,
        },
    )
    .await?;
    events::enqueue(
        &mut tx,
        subjects::ORG_APPROVAL_DECIDED,
        &pb::ApprovalDecided {
            approval_id: id.to_string(),
            enterprise_id: tenant.to_string(),
            kind: convert::event_kind(current.kind),
            business_id: current.business_id.clone(),
            status: next.pb(),
            operator_id: actor.user_id.map(|m| m.to_string()).unwrap_or_default(),
        },
    )
    .await?;
    let (row, steps) = store::load(&mut tx, tenant, &actor.reach, id)
        .await?
        .ok_or_else(ServiceError::not_found)?;
    tx.commit().await?;
    tracing::info!(approval_id = %id, status = i16::from(next), "Approval decided.");
    Ok(pb::DecideApprovalResponse {
        approval: Some(convert::approval(row, steps)),
    })
}

/// `ExportApprovals`: queues the export of the list's filter and answers the
/// job at once.
pub async fn export(
    ctx: &Context,
    request: Request<pb::ExportApprovalsRequest>,
) -> Result<pb::ExportApprovalsResponse, ServiceError> {
    grpc::require_permission(&request, PERM_APPROVALS)?;
    let mut actor = context::actor(&request)?;
    let pb::ExportApprovalsRequest { status, kind } = request.into_inner();
    let filter = export::ApprovalsFilter {
        status: convert::filter("status", status, State::from_pb)?.map(i16::from),
        kind: convert::filter("kind", kind, Kind::from_pb)?.map(i16::from),
    };
    let filters_json = serde_json::json!({ "status": status, "kind": kind });
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let job = export::start(&mut tx, &actor, filter, filters_json).await?;
    tx.commit().await?;
    Ok(pb::ExportApprovalsResponse { job: Some(job) })
}
