//! Vehicle RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach.

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;
use uuid::Uuid;

use super::binding_log::{self, BindingKind};
use super::domain::VehicleDraft;
use super::import::VehicleImport;
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::oplog::{self, Business, Changes};
use crate::{exports, imports};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListVehiclesRequest>,
) -> Result<pb::ListVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListVehiclesRequest { page, filter, sort } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut query = convert::query(filter)?;
    query.org_ids = store::org_subtrees(&mut tx, query.org_ids).await?;
    let order = convert::order(sort);
    let (rows, total) = store::page(&mut tx, &actor, &query, order, paging).await?;
    db::end_read(tx);
    Ok(pb::ListVehiclesResponse {
        vehicles: rows
            .into_iter()
            .map(|r| convert::vehicle(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// How many choices a picker answers.
const PICKED: i64 = 20;

/// Vehicles of the caller's reach by part of plate or VIN, newest first:
/// the forms' pickers. Any member may ask; only id, plate and VIN answer.
pub async fn pick(
    ctx: &Context,
    req: Request<pb::PickVehiclesRequest>,
) -> Result<pb::PickVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_member(&ctx.pool, &req).await?;
    let pb::PickVehiclesRequest { keyword } = req.into_inner();
    let query = convert::query(Some(pb::VehicleFilter {
        keyword,
        ..Default::default()
    }))?;
    let first = Paging {
        page: 1,
        size: PICKED,
    };
    let (rows, _) = store::page(&mut tx, &actor, &query, convert::order(0), first).await?;
    db::end_read(tx);
    Ok(pb::PickVehiclesResponse {
        vehicles: rows
            .into_iter()
            .map(|r| {
                let v = convert::vehicle(r, actor.enterprise_id);
                pb::VehicleChoice {
                    id: v.id,
                    plate_number: v.plate_number,
                    vin: v.vin,
                }
            })
            .collect(),
    })
}

/// The brands and models of the vehicles the caller reaches (the forms'
/// brand-type list). Any member may ask: it names no vehicle, and only
/// vehicles within the caller's reach count.
pub async fn brand_types(
    ctx: &Context,
    req: Request<pb::ListVehicleBrandTypesRequest>,
) -> Result<pb::ListVehicleBrandTypesResponse, ServiceError> {
    let enterprise_id = fleetdesk_kit::grpc::tenant(&req)?;
    let reach = fleetdesk_kit::reach::Reach::of(fleetdesk_kit::grpc::caller(&req)?);
    let mut tx = db::begin_tenant(&ctx.pool, enterprise_id).await?;
    let reach = reach.resolve(&mut tx).await?;
    let pairs = store::brand_types(&mut tx, enterprise_id, &reach).await?;
    db::end_read(tx);
    Ok(pb::ListVehicleBrandTypesResponse {
        brand_types: convert::brand_types(pairs),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetVehicleRequest>,
) -> Result<pb::GetVehicleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let vehicle_id = id(&req.get_ref().vehicle_id)?;
    let row = store::get(&mut tx, &actor, vehicle_id, false).await?;
    db::end_read(tx);
    Ok(pb::GetVehicleResponse {
        vehicle: Some(convert::vehicle(row, actor.enterprise_id)),
    })
}

/// Stores a checked vehicle and, when it comes with a terminal, the first
/// binding-log row. Shared with private-car approval and imports.
pub async fn insert(
    conn: &mut PgConnection,
    actor: &Actor,
    draft: &VehicleDraft,
) -> Result<Uuid, ServiceError> {
    let vehicle_id = Uuid::new_v4();
    let now = Utc::now();
    store::insert(conn, actor, vehicle_id, draft, now).await?;
    if let Some((serial, sim)) = &draft.terminal {
        binding_log::open(
            conn,
            actor,
            &binding_log::NewBinding {
                vehicle_id,
                org_id: draft.org_id,
                kind: BindingKind::Terminal,
                target_id: serial,
                target_name: serial,
                terminal_sim: sim,
                bound_at: now,
                remark: "新增车辆时绑定",
            },
        )
        .await?;
    }
    let remark = Changes::new()
        .note(format!(
            "新增车辆 {}（VIN {}）",
            draft.plate.as_str(),
            draft.vin.as_str()
        ))
        .finish();
    oplog::record(conn, actor, Business::Vehicle, vehicle_id, &remark).await?;
    Ok(vehicle_id)
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateVehicleRequest>,
) -> Result<pb::CreateVehicleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let draft = VehicleDraft::parse(convert::fields(request.vehicle.clone().unwrap_or_default()))?;
    store::check_org(&mut tx, &actor, draft.org_id).await?;
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreateVehicle",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let vehicle_id = insert(&mut tx, &actor, &draft).await?;
    let row = store::get(&mut tx, &actor, vehicle_id, false).await?;
    let answer = pb::CreateVehicleResponse {
        vehicle: Some(convert::vehicle(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateVehicleRequest>,
) -> Result<pb::UpdateVehicleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateVehicleRequest {
        vehicle_id,
        vehicle,
    } = req.into_inner();
    let vehicle_id = id(&vehicle_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    let before = store::get(&mut tx, &actor, vehicle_id, true).await?;
    let mut fields = convert::fields(vehicle.unwrap_or_default());
    // Terminals change only through BindVehicle/UnbindVehicle.
    fields.terminal_id.clear();
    fields.terminal_sim.clear();
    let draft = VehicleDraft::parse(fields)?;
    store::check_org(&mut tx, &actor, draft.org_id).await?;
    store::update(&mut tx, &actor, vehicle_id, &draft).await?;
    let row = store::get(&mut tx, &actor, vehicle_id, false).await?;
    oplog::record(
        &mut tx,
        &actor,
        Business::Vehicle,
        vehicle_id,
        &changes(&before, &row),
    )
    .await?;
    tx.commit().await?;
    Ok(pb::UpdateVehicleResponse {
        vehicle: Some(convert::vehicle(row, actor.enterprise_id)),
    })
}

/// The operation-log remark of an edit: each field an operator reads, before → after.
fn changes(before: &store::VehicleRow, after: &store::VehicleRow) -> String {
    Changes::new()
        .text("车牌号", &before.plate_number, &after.plate_number)
        .text("车架号", &before.vin, &after.vin)
        .text("所属组织", &before.org_name, &after.org_name)
        .text("品牌", &before.brand, &after.brand)
        .text("车型", &before.model, &after.model)
        .text("发动机号", &before.engine_number, &after.engine_number)
        .text("车身颜色", &before.body_color, &after.body_color)
        .number(
            "电池容量(Wh)",
            Some(before.battery_capacity_wh),
            Some(after.battery_capacity_wh),
        )
        .number(
            "续航里程(km)",
            Some(i64::from(before.rated_range_km)),
            Some(i64::from(after.rated_range_km)),
        )
        .number(
            "核定载质量(kg)",
            Some(i64::from(before.rated_load_kg)),
            Some(i64::from(after.rated_load_kg)),
        )
        .date("注册日期", before.register_time, after.register_time)
        .text("行驶证所有人", &before.licence_owner, &after.licence_owner)
        .date(
            "年检到期",
            before.inspection_expire_time,
            after.inspection_expire_time,
        )
        .date(
            "保险到期",
            before.insurance_expire_time,
            after.insurance_expire_time,
        )
        .text("备注", &before.remark, &after.remark)
        .finish()
}

/// `ExportVehicles`: queues the export of the list's filter under the
/// caller's reach and answers the job at once. Exports run newest first
/// whatever the list's order (keyset on `created_at, id`).
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportVehiclesRequest>,
) -> Result<pb::ExportVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportVehiclesRequest { filter, sort: _ } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportVehiclesResponse { job: Some(job) })
}

/// `ImportVehicles`: every row of the uploaded file or none.
pub async fn import(
    ctx: &Context,
    req: Request<pb::ImportVehiclesRequest>,
) -> Result<pb::ImportVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let orgs = imports::Orgs::load(&mut tx, actor.enterprise_id).await?;
    tx.commit().await?;
    let pb::ImportVehiclesRequest { file } = req.into_inner();
    let bytes = imports::file(&ctx.files, &actor, file).await?;
    let schema = VehicleImport {
        actor: &actor,
        orgs,
    };
    let result =
        fleetdesk_kit::import::run(&ctx.pool, actor.enterprise_id, &schema, &bytes).await?;
    tracing::info!(
        imported = result.imported,
        refused = result.error_list.len(),
        "Vehicle import done."
    );
    Ok(pb::ImportVehiclesResponse {
        result: Some(result),
    })
}
