//! Remote lock RPCs: validate → interlocks → store → deliver, in one tenant
//! transaction under the caller's reach. A command is committed (with its
//! operation-log row and idempotency answer) before it is delivered.

use std::collections::HashMap;

use chrono::Utc;
use fleetdesk_assets::oplog::{self, Business};
use fleetdesk_assets::vehicles;
use fleetdesk_assets::vehicles::domain::UsageKind;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::{self, Paging, TimeRange};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, CommandState, LockAction};
use super::store::{self, CommandQuery, LockVehicleQuery, NewCommand};
use super::{PERMISSION, convert, delivery};
use crate::context::{Actor, Context};
use crate::directory;

fn uuids(field: &str, values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid(field, "编号无效")))
        .collect()
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListLockCommandsRequest>,
) -> Result<pb::ListLockCommandsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListLockCommandsRequest {
        page,
        plate_numbers,
        vins,
        org_ids,
        action,
        statuses,
        request_time,
        vehicle_id,
        actions,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut action_codes: Vec<i16> = actions
        .into_iter()
        .chain(std::iter::once(action))
        .filter_map(LockAction::from_pb)
        .map(i16::from)
        .collect();
    action_codes.sort_unstable();
    action_codes.dedup();
    let query = CommandQuery {
        vehicle_id: if vehicle_id.trim().is_empty() {
            None
        } else {
            Some(id(&vehicle_id)?)
        },
        plates: list::batch("plateNumbers", &plate_numbers)?,
        vins: list::batch("vins", &vins)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, uuids("orgIds", &org_ids)?).await?,
        actions: action_codes,
        states: statuses
            .into_iter()
            .filter_map(CommandState::from_pb)
            .map(i16::from)
            .collect(),
        created: TimeRange::parse("requestTime", request_time.as_ref())?,
    };
    let rows = store::list(&mut tx, &actor, &query, paging).await?;
    let total = store::count(&mut tx, &actor, &query).await?;
    db::end_read(tx);
    Ok(pb::ListLockCommandsResponse {
        commands: rows.into_iter().map(convert::command).collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn lock(
    ctx: &Context,
    req: Request<pb::LockVehicleRequest>,
) -> Result<pb::LockVehicleResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let command = command(
        ctx,
        actor,
        tx,
        "LockVehicle",
        &request,
        &request.vehicle_id,
        &request.reason,
        LockAction::Lock,
    )
    .await?;
    Ok(pb::LockVehicleResponse {
        command: Some(command),
    })
}

pub async fn unlock(
    ctx: &Context,
    req: Request<pb::UnlockVehicleRequest>,
) -> Result<pb::UnlockVehicleResponse, ServiceError> {
    let (actor, tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let command = command(
        ctx,
        actor,
        tx,
        "UnlockVehicle",
        &request,
        &request.vehicle_id,
        &request.reason,
        LockAction::Unlock,
    )
    .await?;
    Ok(pb::UnlockVehicleResponse {
        command: Some(command),
    })
}

/// Queues one command (or answers the first one of a replayed key) and
/// tries to deliver it at once.
#[allow(clippy::too_many_arguments)]
async fn command(
    ctx: &Context,
    actor: Actor,
    mut tx: sqlx::Transaction<'static, sqlx_postgres::Postgres>,
    operation: &str,
    request: &impl prost::Message,
    vehicle_id: &str,
    reason: &str,
    action: LockAction,
) -> Result<pb::LockCommand, ServiceError> {
    let vehicle_id = id(vehicle_id)?;
    // Locked for the request: commands of one vehicle queue one after another.
    let vehicle = vehicles::store::get(&mut tx, &actor, vehicle_id, true).await?;
    let reason = domain::reason(reason)?;
    if actor.idempotency_key.is_none() {
        return Err(ServiceError::invalid(
            idempotency::HEADER,
            "远程锁车和解锁须带幂等键（Idempotency-Key）",
        ));
    }
    let reservation = match idempotency::claim::<pb::LockCommand>(
        &mut tx,
        actor.enterprise_id,
        operation,
        actor.idempotency_key.clone(),
        request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let phone = vehicle
        .terminal_sim
        .as_deref()
        .map(directory::domain::phone)
        .filter(|p| !p.is_empty())
        .ok_or_else(|| ServiceError::invalid("vehicleId", "车辆未绑定终端，不能下发指令"))?;
    let now = Utc::now();
    if action == LockAction::Lock {
        let latest = store::latest(&mut tx, actor.enterprise_id, vehicle_id).await?;
        domain::lock_interlocks(latest, now)?;
    }
    store::cancel_queued(&mut tx, &actor, vehicle_id).await?;
    let command_id = Uuid::new_v4();
    store::insert(
        &mut tx,
        &actor,
        &NewCommand {
            id: command_id,
            org_id: vehicle.org_id,
            vehicle_id,
            plate_number: &vehicle.plate_number,
            vin: &vehicle.vin,
            phone: &phone,
            action,
            reason: &reason,
            expire_at: now + domain::QUEUE_FOR,
        },
    )
    .await?;
    oplog::record(
        &mut tx,
        &actor,
        Business::Vehicle,
        vehicle_id,
        &format!("{}（原因：{reason}）", action.label()),
    )
    .await?;
    let answer = convert::command(store::get(&mut tx, actor.enterprise_id, command_id).await?);
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    tracing::info!(command = %command_id, vehicle = %vehicle_id, ?action, "Lock command queued.");
    // The first delivery attempt runs on its own: an online terminal takes
    // milliseconds, and the answer then says "sent"; a slow edge or a busy
    // pool must not hold the operator's dialog (the list polls the state).
    let (pool, nats) = (ctx.pool.clone(), ctx.nats.clone());
    let attempt =
        tokio::spawn(async move { delivery::deliver(&pool, &nats, Some(command_id)).await });
    if tokio::time::timeout(FIRST_ATTEMPT_WAIT, attempt)
        .await
        .is_err()
    {
        tracing::warn!(command = %command_id, "First delivery attempt still running; answered queued.");
        return Ok(answer);
    }
    // The command is committed: a failed read answers what was queued.
    match after_first_attempt(ctx, actor.enterprise_id, command_id).await {
        Ok(now) => Ok(convert::command(now)),
        Err(err) => {
            tracing::warn!(command = %command_id, error = %err, "Reading the command back failed; answered queued.");
            Ok(answer)
        }
    }
}

/// How long the answer waits for the first delivery attempt.
const FIRST_ATTEMPT_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

async fn after_first_attempt(
    ctx: &Context,
    enterprise_id: Uuid,
    command_id: Uuid,
) -> Result<store::CommandRow, ServiceError> {
    let mut read = db::begin_tenant(&ctx.pool, enterprise_id).await?;
    let now = store::get(&mut read, enterprise_id, command_id).await?;
    db::end_read(read);
    Ok(now)
}

pub async fn vehicles(
    ctx: &Context,
    req: Request<pb::ListLockVehiclesRequest>,
) -> Result<pb::ListLockVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListLockVehiclesRequest {
        page,
        plate_numbers,
        org_ids,
        usage_kinds,
        overdue_only,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut kinds = Vec::new();
    for kind in usage_kinds {
        match UsageKind::from_pb(kind) {
            Some(k @ (UsageKind::Rent | UsageKind::RentToOwn)) => kinds.push(i16::from(k)),
            Some(UsageKind::Purchase | UsageKind::Replacement) | None => {
                return Err(ServiceError::invalid(
                    "usageTypes",
                    "只能选择租赁或以租代售",
                ));
            }
        }
    }
    let query = LockVehicleQuery {
        plates: list::batch("plateNumbers", &plate_numbers)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, uuids("orgIds", &org_ids)?).await?,
        kinds,
        overdue_only,
    };
    let rows = store::lock_vehicles(&mut tx, &actor, &query, paging).await?;
    let total = store::count_lock_vehicles(&mut tx, &actor, &query).await?;
    let ids: Vec<Uuid> = rows.iter().map(|r| r.vehicle_id).collect();
    let mut last: HashMap<Uuid, pb::LockCommand> =
        store::newest_of(&mut tx, actor.enterprise_id, &ids)
            .await?
            .into_iter()
            .map(|c| (c.vehicle_id, convert::command(c)))
            .collect();
    db::end_read(tx);
    let now = Utc::now();
    Ok(pb::ListLockVehiclesResponse {
        vehicles: rows
            .into_iter()
            .map(|r| {
                let command = last.remove(&r.vehicle_id);
                convert::lock_vehicle(r, command, now)
            })
            .collect(),
        page: Some(paging.info(total)),
    })
}
