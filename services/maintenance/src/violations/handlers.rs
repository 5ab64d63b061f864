//! Violation RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach. A state move or an assignment
//! locks the row, checks the move (`domain`), writes it with its
//! operation-log row and answers the row as stored.

use chrono::Utc;
use fleetdesk_kit::convert::{id, timestamp};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::common::v1 as common;
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, State};
use super::import::ViolationImport;
use super::store::{self, ViolationRow};
use super::{PERMISSION, convert, export};
use crate::context::{Actor, Context};
use crate::exports;
use fleetdesk_assets::vehicles;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListViolationsRequest>,
) -> Result<pb::ListViolationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let message = req.into_inner();
    let paging = fleetdesk_kit::list::Paging::parse(message.page.as_ref())?;
    let mut query = convert::filter(&message)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, totals) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListViolationsResponse {
        violations: rows
            .into_iter()
            .map(|row| convert::violation(row, actor.enterprise_id))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(totals.count)),
        total_fine_fen: totals.fine_fen,
        total_penalty_points: totals.points,
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetViolationRequest>,
) -> Result<pb::GetViolationResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetViolationRequest { violation_id } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&violation_id)?, false).await?;
    let logs = store::logs(&mut tx, &actor, row.id).await?;
    db::end_read(tx);
    Ok(pb::GetViolationResponse {
        violation: Some(convert::violation(row, actor.enterprise_id)?),
        logs: logs
            .into_iter()
            .map(|(remark, operator_name, at)| common::OperationLogEntry {
                remark,
                operator_name,
                operate_time: Some(timestamp(at)),
            })
            .collect(),
    })
}

/// A driver of the caller's enterprise, named by `field` (a blank id is `None`).
async fn driver_of(
    tx: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    driver_id: &str,
) -> Result<Option<(Uuid, String)>, ServiceError> {
    let driver_id = driver_id.trim();
    if driver_id.is_empty() {
        return Ok(None);
    }
    let parsed = Uuid::parse_str(driver_id)
        .map_err(|_| ServiceError::invalid("driverId", "司机编号无效"))?;
    store::driver(tx, actor.enterprise_id, parsed)
        .await?
        .map(Some)
        .ok_or_else(|| ServiceError::invalid("driverId", "司机不存在或不属于本企业"))
}

/// The row as stored after a change, answered.
async fn answer(
    mut tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    actor: &Actor,
    id: Uuid,
) -> Result<pb::Violation, ServiceError> {
    let row: ViolationRow = store::get(&mut tx, actor, id, false).await?;
    tx.commit().await?;
    convert::violation(row, actor.enterprise_id)
}

/// HandleViolation: UNHANDLED → HANDLED, optionally holding a driver
/// responsible at the same time. HANDLING is not a state of ours.
pub async fn handle(
    ctx: &Context,
    req: Request<pb::HandleViolationRequest>,
) -> Result<pb::HandleViolationResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::HandleViolationRequest {
        violation_id,
        status,
        driver_id,
        receipts,
        remark,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&violation_id)?, true).await?;
    if State::from_pb(status) != Some(State::Handled) {
        return Err(ServiceError::invalid("status", "处理状态只能为已处理"));
    }
    let remark = remark.trim();
    domain::handle(row.state()?)?;
    if let Some((driver, name)) = driver_of(&mut tx, &actor, &driver_id).await?
        && Some(driver) != row.driver_id
    {
        store::assign(&mut tx, &actor, &row, (driver, &name), "").await?;
    }
    store::handled(
        &mut tx,
        &actor,
        &row,
        &convert::files_json(&receipts),
        remark,
    )
    .await?;
    let violation = answer(tx, &actor, row.id).await?;
    Ok(pb::HandleViolationResponse {
        violation: Some(violation),
    })
}

/// PayViolation: HANDLED → PAID.
pub async fn pay(
    ctx: &Context,
    req: Request<pb::PayViolationRequest>,
) -> Result<pb::PayViolationResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::PayViolationRequest {
        violation_id,
        receipts,
        remark,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&violation_id)?, true).await?;
    domain::pay(row.state()?)?;
    let receipts = if receipts.is_empty() {
        row.receipts.clone()
    } else {
        convert::files_json(&receipts)
    };
    store::paid(&mut tx, &actor, &row, &receipts, remark.trim()).await?;
    let violation = answer(tx, &actor, row.id).await?;
    Ok(pb::PayViolationResponse {
        violation: Some(violation),
    })
}

/// AssignViolation: another driver of the enterprise held responsible.
pub async fn assign(
    ctx: &Context,
    req: Request<pb::AssignViolationRequest>,
) -> Result<pb::AssignViolationResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::AssignViolationRequest {
        violation_id,
        driver_id,
        remark,
    } = req.into_inner();
    let row = store::get(&mut tx, &actor, id(&violation_id)?, true).await?;
    let Some((driver, name)) = driver_of(&mut tx, &actor, &driver_id).await? else {
        return Err(ServiceError::invalid("driverId", "请选择责任司机"));
    };
    store::assign(&mut tx, &actor, &row, (driver, &name), remark.trim()).await?;
    let violation = answer(tx, &actor, row.id).await?;
    Ok(pb::AssignViolationResponse {
        violation: Some(violation),
    })
}

/// ImportViolations: an xlsx of violations, all rows or none (`super::import`).
pub async fn import(
    ctx: &Context,
    req: Request<pb::ImportViolationsRequest>,
) -> Result<pb::ImportViolationsResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    db::end_read(tx);
    let pb::ImportViolationsRequest { file } = req.into_inner();
    let bytes = fleetdesk_assets::imports::file(&ctx.files, &actor, file).await?;
    let schema = ViolationImport {
        actor: &actor,
        now: Utc::now(),
    };
    let result =
        fleetdesk_kit::import::run(&ctx.pool, actor.enterprise_id, &schema, &bytes).await?;
    tracing::info!(
        imported = result.imported,
        refused = result.error_list.len(),
        "Violation import done."
    );
    Ok(pb::ImportViolationsResponse {
        result: Some(result),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportViolationsRequest>,
) -> Result<pb::ExportViolationsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportViolationsRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportViolationsResponse { job: Some(job) })
}
