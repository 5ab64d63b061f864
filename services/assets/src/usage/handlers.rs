//! Usage-record RPCs: validate → domain → store → response, each in one
//! tenant transaction under the caller's reach. A change locks the vehicle
//! first, so two writers for one vehicle queue instead of racing (the partial
//! unique index is the last line), writes the operation log, keeps the
//! vehicle's copy of its open record, and announces the record's new state
//! (`UsageRecordChanged`, through the outbox in the same transaction).

use chrono::Utc;
use fleetdesk_kit::convert::{datetime, id};
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db, events, subjects};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Terms, UsageDraft, state};
use super::store::VehicleFacts;
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::exports;
use crate::oplog::{self, Business, Changes};
use crate::vehicles;
use crate::vehicles::domain::UsageStatus;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListUsageRecordsRequest>,
) -> Result<pb::ListUsageRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListUsageRecordsRequest { page, filter } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut query = convert::query(filter)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListUsageRecordsResponse {
        records: rows
            .into_iter()
            .map(|r| convert::record(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetUsageRecordRequest>,
) -> Result<pb::GetUsageRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let record_id = id(&req.get_ref().usage_record_id)?;
    let row = store::get(&mut tx, &actor, record_id, false).await?;
    db::end_read(tx);
    Ok(pb::GetUsageRecordResponse {
        record: Some(convert::record(row, actor.enterprise_id)),
    })
}

/// Fills the replaced vehicle's plate (it must be one the caller sees).
async fn resolve_replacement(
    conn: &mut PgConnection,
    actor: &Actor,
    draft: &mut UsageDraft,
) -> Result<(), ServiceError> {
    if let Terms::Replacement(r) = &mut draft.terms {
        let replaced = vehicles::store::get(conn, actor, r.replaced_vehicle_id, false)
            .await
            .map_err(|_| {
                ServiceError::invalid("replacement.replacedVehicleId", "被替换车辆不存在")
            })?;
        r.replaced_plate_number = replaced.plate_number;
    }
    Ok(())
}

/// The vehicle of a record, locked: another tenant's or an unreachable
/// vehicle is a field error of the input.
async fn lock_vehicle(
    conn: &mut PgConnection,
    actor: &Actor,
    vehicle_id: Uuid,
) -> Result<vehicles::store::VehicleRow, ServiceError> {
    vehicles::store::get(conn, actor, vehicle_id, true)
        .await
        .map_err(|e| match e.code {
            fleetdesk_kit::ErrorCode::NotFound => ServiceError::invalid("vehicleId", "车辆不存在"),
            _ => e,
        })
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateUsageRecordRequest>,
) -> Result<pb::CreateUsageRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let mut draft = UsageDraft::parse(convert::fields(request.record.clone().unwrap_or_default()))?;
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreateUsageRecord",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let vehicle = lock_vehicle(&mut tx, &actor, draft.vehicle_id).await?;
    resolve_replacement(&mut tx, &actor, &mut draft).await?;
    let now = Utc::now();
    let status = state::initial(draft.start_time, now);
    let record_id = Uuid::new_v4();
    store::insert(
        &mut tx,
        &actor,
        record_id,
        &VehicleFacts {
            org_id: vehicle.org_id,
            plate_number: &vehicle.plate_number,
            vin: &vehicle.vin,
        },
        &draft,
        status,
    )
    .await?;
    let kind = draft.terms.kind();
    store::copy_to_vehicle(
        &mut tx,
        &actor,
        draft.vehicle_id,
        Some((kind, status, draft.start_time, draft.end_time)),
    )
    .await?;
    let remark = Changes::new()
        .note(format!(
            "新增{}记录：合同编号 {}，{}",
            kind.label(),
            draft.contract_no,
            status.label()
        ))
        .finish();
    oplog::record(&mut tx, &actor, Business::UsageRecord, record_id, &remark).await?;
    oplog::record(
        &mut tx,
        &actor,
        Business::Vehicle,
        draft.vehicle_id,
        &remark,
    )
    .await?;
    let row = store::get(&mut tx, &actor, record_id, false).await?;
    announce(&mut tx, &actor, row.clone()).await?;
    let answer = pb::CreateUsageRecordResponse {
        record: Some(convert::record(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    tracing::info!(%record_id, "Usage record created.");
    Ok(answer)
}

/// Announces the record's state after a change, in the change's
/// transaction (the outbox), so finance sees every committed change and
/// never a rolled-back one. Called with the record locked: its clock
/// orders the record's events.
async fn announce(
    conn: &mut PgConnection,
    actor: &Actor,
    row: store::UsageRow,
) -> Result<(), ServiceError> {
    let changed = store::clock(conn).await?;
    let event = convert::changed(row, actor.enterprise_id, changed);
    events::enqueue(conn, subjects::VEHICLE_USAGE_RECORD_CHANGED, &event).await?;
    Ok(())
}

fn stored_state(row: &store::UsageRow) -> Result<UsageStatus, ServiceError> {
    UsageStatus::try_from(row.state).map_err(|e| ServiceError::internal(&e))
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateUsageRecordRequest>,
) -> Result<pb::UpdateUsageRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateUsageRecordRequest {
        usage_record_id,
        record,
    } = req.into_inner();
    let record_id = id(&usage_record_id)?;
    let stored = store::get(&mut tx, &actor, record_id, false).await?;
    // Vehicle first, then the record: the same lock order as create and end.
    lock_vehicle(&mut tx, &actor, stored.vehicle_id).await?;
    let stored = store::get(&mut tx, &actor, record_id, true).await?;
    let mut fields = convert::fields(record.unwrap_or_default());
    // The vehicle and kind of a record never change.
    fields.vehicle_id = stored.vehicle_id.to_string();
    let mut draft = UsageDraft::parse(fields)?;
    let before = convert::draft(&stored).ok_or_else(ServiceError::not_found)?;
    if draft.terms.kind() != before.terms.kind() {
        return Err(ServiceError::invalid("kind", "使用记录的类型不能修改"));
    }
    let now = Utc::now();
    let status = state::edit(stored_state(&stored)?, draft.start_time, now)?;
    resolve_replacement(&mut tx, &actor, &mut draft).await?;
    store::update(&mut tx, &actor, record_id, &draft, status).await?;
    store::copy_to_vehicle(
        &mut tx,
        &actor,
        stored.vehicle_id,
        Some((draft.terms.kind(), status, draft.start_time, draft.end_time)),
    )
    .await?;
    let remark = domain::changes(&before, &draft);
    oplog::record(&mut tx, &actor, Business::UsageRecord, record_id, &remark).await?;
    let row = store::get(&mut tx, &actor, record_id, false).await?;
    announce(&mut tx, &actor, row.clone()).await?;
    tx.commit().await?;
    Ok(pb::UpdateUsageRecordResponse {
        record: Some(convert::record(row, actor.enterprise_id)),
    })
}

pub async fn end(
    ctx: &Context,
    req: Request<pb::EndUsageRecordRequest>,
) -> Result<pb::EndUsageRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::EndUsageRecordRequest {
        usage_record_id,
        end_time,
        remark,
    } = req.into_inner();
    let record_id = id(&usage_record_id)?;
    let remark = remark.trim().to_owned();
    if remark.chars().count() > 200 {
        return Err(ServiceError::invalid("remark", "备注不能超过 200 个字符"));
    }
    let stored = store::get(&mut tx, &actor, record_id, false).await?;
    lock_vehicle(&mut tx, &actor, stored.vehicle_id).await?;
    let stored = store::get(&mut tx, &actor, record_id, true).await?;
    let now = Utc::now();
    let at = end_time.as_ref().and_then(datetime).unwrap_or(now);
    state::end(stored_state(&stored)?, stored.start_time, at, now)?;
    store::end(&mut tx, &actor, record_id, at, &remark).await?;
    store::copy_to_vehicle(&mut tx, &actor, stored.vehicle_id, None).await?;
    let kind = convert::terms(&stored).map_or("使用", |t| t.kind().label());
    let log = Changes::new()
        .note(format!(
            "结束{kind}记录：合同编号 {}，结束日期 {}",
            stored.contract_no,
            oplog::domain::date(Some(at))
        ))
        .finish();
    oplog::record(&mut tx, &actor, Business::UsageRecord, record_id, &log).await?;
    oplog::record(&mut tx, &actor, Business::Vehicle, stored.vehicle_id, &log).await?;
    let row = store::get(&mut tx, &actor, record_id, false).await?;
    announce(&mut tx, &actor, row.clone()).await?;
    tx.commit().await?;
    Ok(pb::EndUsageRecordResponse {
        record: Some(convert::record(row, actor.enterprise_id)),
    })
}

/// `ExportUsageRecords`: queues the export of the list's filter (one kind's
/// sub-page or every kind) under the caller's reach and answers the job.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportUsageRecordsRequest>,
) -> Result<pb::ExportUsageRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportUsageRecordsRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportUsageRecordsResponse { job: Some(job) })
}
