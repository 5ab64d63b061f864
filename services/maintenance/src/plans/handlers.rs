//! Plan RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach; a save keeps the plan's open
//! reminders in the same transaction (`store::sync`).

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{Kind, PlanDraft};
use super::store::{self, PlanQuery};
use super::{PERMISSION, convert};
use crate::context::{Actor, Context};
use crate::filters::{codes, uuids};
use crate::odometer::beijing_day;
use fleetdesk_assets::vehicles;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListMaintenancePlansRequest>,
) -> Result<pb::ListMaintenancePlansResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListMaintenancePlansRequest {
        page,
        name,
        kinds,
        org_ids,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let org_ids = uuids("orgIds", &org_ids)?;
    let query = PlanQuery {
        name: name.trim().to_owned(),
        kinds: codes(&kinds, Kind::from_pb),
        org_ids: vehicles::store::org_subtrees(&mut tx, org_ids).await?,
    };
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListMaintenancePlansResponse {
        plans: rows
            .into_iter()
            .map(|r| convert::plan(r, actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}

/// The draft of a request, its organisation one the caller reaches.
async fn draft(
    tx: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    plan: Option<pb::MaintenancePlan>,
) -> Result<PlanDraft, ServiceError> {
    let draft = PlanDraft::parse(&convert::fields(plan.unwrap_or_default()))?;
    let known = fleetdesk_kit::reach::subtrees(&mut *tx, &[draft.org_id]).await?;
    if known.is_empty() || !actor.reach.sees(Some(draft.org_id), None) {
        return Err(ServiceError::invalid(
            "orgId",
            "所属组织不存在或不在数据权限内",
        ));
    }
    Ok(draft)
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateMaintenancePlanRequest>,
) -> Result<pb::CreateMaintenancePlanResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CreateMaintenancePlanRequest { plan } = req.into_inner();
    let draft = draft(&mut tx, &actor, plan).await?;
    let plan_id = Uuid::new_v4();
    store::save(&mut tx, &actor, plan_id, &draft).await?;
    let synced = store::sync(&mut tx, &actor, plan_id, &draft, beijing_day(Utc::now())).await?;
    let row = store::get(&mut tx, &actor, plan_id, false).await?;
    tx.commit().await?;
    tracing::info!(%plan_id, opened = synced.opened, "Maintenance plan created.");
    Ok(pb::CreateMaintenancePlanResponse {
        plan: Some(convert::plan(row, actor.enterprise_id)?),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateMaintenancePlanRequest>,
) -> Result<pb::UpdateMaintenancePlanResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateMaintenancePlanRequest { plan_id, plan } = req.into_inner();
    let plan_id = id(&plan_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    store::get(&mut tx, &actor, plan_id, true).await?;
    let draft = draft(&mut tx, &actor, plan).await?;
    store::save(&mut tx, &actor, plan_id, &draft).await?;
    let synced = store::sync(&mut tx, &actor, plan_id, &draft, beijing_day(Utc::now())).await?;
    let row = store::get(&mut tx, &actor, plan_id, false).await?;
    tx.commit().await?;
    tracing::info!(
        %plan_id,
        opened = synced.opened,
        moved = synced.moved,
        closed = synced.closed,
        "Maintenance plan updated."
    );
    Ok(pb::UpdateMaintenancePlanResponse {
        plan: Some(convert::plan(row, actor.enterprise_id)?),
    })
}

pub async fn delete(
    ctx: &Context,
    req: Request<pb::DeleteMaintenancePlanRequest>,
) -> Result<pb::DeleteMaintenancePlanResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::DeleteMaintenancePlanRequest { plan_id } = req.into_inner();
    let plan_id = id(&plan_id)?;
    store::get(&mut tx, &actor, plan_id, true).await?;
    store::delete(&mut tx, &actor, plan_id).await?;
    tx.commit().await?;
    tracing::info!(%plan_id, "Maintenance plan deleted.");
    Ok(pb::DeleteMaintenancePlanResponse {})
}
