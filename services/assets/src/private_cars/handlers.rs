//! Private-car RPCs: list, register (idempotent), review. Approval creates
//! the car's vehicle row in the same transaction.

use fleetdesk_kit::convert::id;
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{PrivateCarDraft, PrivateCarStatus};
use super::store::PrivateCarRow;
use super::{convert, export, store};
use crate::codes::optional;
use crate::context::{Actor, Context};
use crate::exports;
use crate::vehicles::domain::{
    EnergyType, OwnershipType, PlateColor, Problems, VehicleCategory, VehicleDraft, VehicleStatus,
};
use crate::vehicles::{self, PERMISSION};

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListPrivateCarsRequest>,
) -> Result<pb::ListPrivateCarsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListPrivateCarsRequest { page, filter } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let mut query = convert::query(filter)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListPrivateCarsResponse {
        private_cars: rows
            .into_iter()
            .map(|r| convert::private_car(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreatePrivateCarRequest>,
) -> Result<pb::CreatePrivateCarResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let draft = PrivateCarDraft::parse(convert::fields(
        request.private_car.clone().unwrap_or_default(),
    ))?;
    vehicles::store::check_org(&mut tx, &actor, draft.org_id).await?;
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreatePrivateCar",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let car_id = Uuid::new_v4();
    store::insert(&mut tx, &actor, car_id, &draft).await?;
    let row = store::get(&mut tx, &actor, car_id, false).await?;
    let answer = pb::CreatePrivateCarResponse {
        private_car: Some(convert::private_car(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    Ok(answer)
}

/// The vehicle an approved private car becomes.
fn vehicle_of(car: &PrivateCarRow) -> Result<VehicleDraft, ServiceError> {
    let invalid = || ServiceError::invalid("privateCarId", "该私车信息不完整，无法审核通过");
    Ok(VehicleDraft {
        org_id: car.org_id,
        plate: fleetdesk_kit::ids::Plate::parse(&car.plate_number).map_err(|_| invalid())?,
        plate_color: optional::<PlateColor>(Some(car.plate_color)).unwrap_or(PlateColor::Blue),
        vin: fleetdesk_kit::ids::Vin::parse(&car.vin).map_err(|_| invalid())?,
        engine_number: String::new(),
        brand: car.brand.clone(),
        model: car.model.clone(),
        category: VehicleCategory::PassengerCar,
        energy_type: optional::<EnergyType>(Some(car.energy_type)).ok_or_else(invalid)?,
        body_color: String::new(),
        seat_count: 0,
        rated_load_kg: 0,
        curb_weight_kg: 0,
        battery_capacity_wh: 0,
        rated_range_km: 0,
        ownership_type: OwnershipType::Private,
        status: VehicleStatus::InService,
        register_time: None,
        licence_owner: car.owner_name.clone(),
        licence_issue_time: None,
        inspection_expire_time: None,
        tags: vec!["私车公用".to_owned()],
        licence_images: car.licence_images.clone(),
        remark: car.remark.clone(),
        terminal: None,
    })
}

pub async fn review(
    ctx: &Context,
    req: Request<pb::ReviewPrivateCarRequest>,
) -> Result<pb::ReviewPrivateCarResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ReviewPrivateCarRequest {
        private_car_id,
        approved,
        reject_reason,
    } = req.into_inner();
    let car_id = id(&private_car_id)?;
    let car = store::get(&mut tx, &actor, car_id, true).await?;
    let mut p = Problems::default();
    let reason = if approved {
        String::new()
    } else {
        p.text("rejectReason", "驳回原因", &reject_reason, 200)
    };
    p.finish()?;
    let status = optional::<PrivateCarStatus>(Some(car.status))
        .ok_or_else(|| ServiceError::of(fleetdesk_kit::ErrorCode::Internal))?
        .review(approved)?;
    let vehicle_id = if approved {
        Some(vehicles::handlers::insert(&mut tx, &actor, &vehicle_of(&car)?).await?)
    } else {
        None
    };
    store::set_review(&mut tx, &actor, car_id, status, &reason, vehicle_id).await?;
    let row = store::get(&mut tx, &actor, car_id, false).await?;
    tx.commit().await?;
    Ok(pb::ReviewPrivateCarResponse {
        private_car: Some(convert::private_car(row, actor.enterprise_id)),
    })
}

/// `ExportPrivateCars`: queues the export of the list's filter under the
/// caller's reach and answers the job at once.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportPrivateCarsRequest>,
) -> Result<pb::ExportPrivateCarsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ExportPrivateCarsRequest { filter } = req.into_inner();
    let job = exports::start(&mut tx, &actor, export::job(&filter.unwrap_or_default())?).await?;
    tx.commit().await?;
    Ok(pb::ExportPrivateCarsResponse { job: Some(job) })
}
