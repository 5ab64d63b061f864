//! Binding log RPCs: list, bind a terminal, unbind it. Each change locks the
//! vehicle, ends its active binding of the kind, and writes the log row and
//! the vehicle's current terminal in one transaction.

use chrono::{Duration, Utc};
use fleetdesk_kit::convert::{datetime, id};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ErrorCode, ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;

use super::{convert, export, store};
use crate::context::{Actor, Context};
use crate::exports;
use crate::oplog::{self, Business};
use crate::vehicles::binding_log::{self, BindingKind};
use crate::vehicles::domain::{Problems, sim_number, terminal_serial};
use crate::vehicles::{self, PERMISSION};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListVehicleBindingsRequest>,
) -> Result<pb::ListVehicleBindingsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListVehicleBindingsRequest { page, filter } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut query = convert::query(filter)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListVehicleBindingsResponse {
        bindings: rows
            .into_iter()
            .map(|r| convert::binding(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

fn unsupported(kind: Option<BindingKind>) -> ServiceError {
    let message = match kind {
        Some(BindingKind::Driver) => "司机绑定请在司机管理中操作",
        Some(BindingKind::Organization) => "车辆所属组织请在编辑车辆时修改",
        Some(BindingKind::Terminal) | None => "请选择绑定类型",
    };
    ServiceError::invalid("kind", message)
}

pub async fn bind(
    ctx: &Context,
    req: Request<pb::BindVehicleRequest>,
) -> Result<pb::BindVehicleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::BindVehicleRequest {
        vehicle_id,
        kind,
        target_id,
        bind_time,
        remark,
        terminal_sim,
    } = req.into_inner();
    let vehicle_id = id(&vehicle_id)?;
    // Another tenant's or an unreachable vehicle is not found before any other answer.
    let vehicle = vehicles::store::get(&mut tx, &actor, vehicle_id, true).await?;
    let kind = BindingKind::from_pb(kind);
    if kind != Some(BindingKind::Terminal) {
        return Err(unsupported(kind));
    }
    let mut p = Problems::default();
    let serial = p.check("terminalId", terminal_serial(&target_id));
    let sim = p.check("terminalSim", sim_number(&terminal_sim));
    let remark = p.optional_text("remark", "备注", &remark, 200);
    let now = Utc::now();
    let bound_at = bind_time.as_ref().and_then(datetime).unwrap_or(now);
    if bound_at > now + Duration::minutes(1) {
        p.add("bindTime", "绑定时间不能晚于当前时间");
    }
    p.finish()?;
    let (serial, sim) = serial
        .zip(sim)
        .ok_or_else(|| ServiceError::of(ErrorCode::BadRequest))?;

    binding_log::close(&mut tx, &actor, vehicle_id, BindingKind::Terminal, "").await?;
    vehicles::store::set_terminal(&mut tx, &actor, vehicle_id, Some((&serial, &sim, bound_at)))
        .await?;
    let binding_id = binding_log::open(
        &mut tx,
        &actor,
        &binding_log::NewBinding {
            vehicle_id,
            org_id: vehicle.org_id,
            kind: BindingKind::Terminal,
            target_id: &serial,
            target_name: &serial,
            terminal_sim: &sim,
            bound_at,
            remark: &remark,
        },
    )
    .await?;
    let note = format!("绑定终端 {serial}（SIM {sim}）");
    oplog::record(&mut tx, &actor, Business::Vehicle, vehicle_id, &note).await?;
    let row = store::get(&mut tx, &actor, binding_id).await?;
    tx.commit().await?;
    Ok(pb::BindVehicleResponse {
        binding: Some(convert::binding(row, actor.enterprise_id)),
    })
}

pub async fn unbind(
    ctx: &Context,
    req: Request<pb::UnbindVehicleRequest>,
) -> Result<pb::UnbindVehicleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UnbindVehicleRequest {
        vehicle_id,
        kind,
        remark,
    } = req.into_inner();
    let vehicle_id = id(&vehicle_id)?;
    vehicles::store::get(&mut tx, &actor, vehicle_id, true).await?;
    let kind = BindingKind::from_pb(kind);
    if kind != Some(BindingKind::Terminal) {
        return Err(unsupported(kind));
    }
    let mut p = Problems::default();
    let remark = p.optional_text("remark", "备注", &remark, 200);
    p.finish()?;
    let ended = binding_log::close(&mut tx, &actor, vehicle_id, BindingKind::Terminal, &remark)
        .await?
        .ok_or_else(|| ServiceError::new(ErrorCode::Conflict, "该车辆未绑定终端"))?;
    vehicles::store::set_terminal(&mut tx, &actor, vehicle_id, None).await?;
    let row = store::get(&mut tx, &actor, ended).await?;
    let note = format!("解绑终端 {}", row.target_id);
    oplog::record(&mut tx, &actor, Business::Vehicle, vehicle_id, &note).await?;
    tx.commit().await?;
    Ok(pb::UnbindVehicleResponse {
        binding: Some(convert::binding(row, actor.enterprise_id)),
    })
}

/// `ExportVehicleBindings`: queues the export of the binding log's filter
/// under the caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportVehicleBindingsRequest>,
) -> Result<pb::ExportVehicleBindingsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportVehicleBindingsRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportVehicleBindingsResponse { job: Some(job) })
}
