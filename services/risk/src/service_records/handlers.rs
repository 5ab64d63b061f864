//! Customer-service record RPCs: validate → domain → store → response, each
//! in one tenant transaction under the caller's reach.

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::{Paging, TimeRange, batch};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Category, Channel, RecordDraft, RecordStatus};
use super::store::{self, Placement, RecordQuery};
use super::{PERMISSION, convert};
use crate::accidents::handlers::{codes, uuids};
use crate::context::{Actor, Context};
use crate::lookup::{self, DriverRef, VehicleRef};
use fleetdesk_assets::vehicles;

/// The ticket number's prefix (客服, KF + yyyymmdd + sequence).
const TICKET_PREFIX: &str = "KF";

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListCustomerServiceRecordsRequest>,
) -> Result<pb::ListCustomerServiceRecordsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListCustomerServiceRecordsRequest {
        page,
        plate_numbers,
        org_ids,
        ticket_no,
        channels,
        categories,
        statuses,
        start_time,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let org_ids = uuids("orgIds", &org_ids)?;
    let query = RecordQuery {
        plates: batch("plateNumbers", &plate_numbers)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, org_ids).await?,
        ticket_no: Some(ticket_no.trim().to_owned()).filter(|t| !t.is_empty()),
        channels: codes(&channels, Channel::from_pb),
        categories: codes(&categories, Category::from_pb),
        statuses: codes(&statuses, RecordStatus::from_pb),
        start_time: TimeRange::parse("startTime", start_time.as_ref())?,
    };
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListCustomerServiceRecordsResponse {
        records: rows
            .into_iter()
            .map(|r| convert::record(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// The vehicle and driver of a draft: the vehicle it names or its alarm's
/// (both must agree), the driver it names or the one bound at its start.
async fn resolve(
    tx: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    draft: &RecordDraft,
) -> Result<(VehicleRef, Option<DriverRef>), ServiceError> {
    let alarm_vehicle = match draft.alarm_id {
        None => None,
        Some(alarm) => Some(
            store::alarm_vehicle(tx, actor, alarm)
                .await?
                .ok_or_else(|| ServiceError::invalid("alarmId", "报警记录不存在"))?,
        ),
    };
    let vehicle_id = match (draft.vehicle_id, alarm_vehicle) {
        (Some(v), Some(a)) if v != a => {
            return Err(ServiceError::invalid(
                "vehicleId",
                "所选车辆与报警记录的车辆不一致",
            ));
        }
        (Some(v), _) | (None, Some(v)) => v,
        (None, None) => return Err(ServiceError::invalid("vehicleId", "请选择车辆")),
    };
    let vehicle = lookup::vehicle(tx, actor, "vehicleId", vehicle_id).await?;
    let driver = match draft.driver_id {
        Some(d) => Some(lookup::driver(tx, actor, "driverId", d).await?),
        None => lookup::driver_at(tx, actor.enterprise_id, vehicle.id, draft.start_time).await?,
    };
    Ok((vehicle, driver))
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateCustomerServiceRecordRequest>,
) -> Result<pb::CreateCustomerServiceRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CreateCustomerServiceRecordRequest { record } = req.into_inner();
    let now = Utc::now();
    let draft = RecordDraft::parse(&convert::fields(record.unwrap_or_default()), now)?;
    let (vehicle, driver) = resolve(&mut tx, &actor, &draft).await?;
    let record_id = Uuid::new_v4();
    let ticket_no = lookup::next_number(&mut tx, actor.enterprise_id, TICKET_PREFIX, now).await?;
    let placement = Placement {
        vehicle_id: vehicle.id,
        org_id: vehicle.org_id,
        driver: driver.as_ref(),
        status: draft.status.unwrap_or(RecordStatus::Open),
    };
    store::insert(&mut tx, &actor, record_id, &ticket_no, &placement, &draft).await?;
    let row = store::get(&mut tx, &actor, record_id, false).await?;
    tx.commit().await?;
    tracing::info!(%record_id, %ticket_no, "Customer-service record created.");
    Ok(pb::CreateCustomerServiceRecordResponse {
        record: Some(convert::record(row, actor.enterprise_id)),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateCustomerServiceRecordRequest>,
) -> Result<pb::UpdateCustomerServiceRecordResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateCustomerServiceRecordRequest { record_id, record } = req.into_inner();
    let record_id = id(&record_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    let stored = store::get(&mut tx, &actor, record_id, true).await?;
    let current: RecordStatus = fleetdesk_kit::codes::known(stored.status)?;
    let draft = RecordDraft::parse(&convert::fields(record.unwrap_or_default()), Utc::now())?;
    let to = domain::next_status(current, draft.status)?;
    let (vehicle, driver) = resolve(&mut tx, &actor, &draft).await?;
    let placement = Placement {
        vehicle_id: vehicle.id,
        org_id: vehicle.org_id,
        driver: driver.as_ref(),
        status: to,
    };
    store::update(&mut tx, &actor, record_id, &placement, &draft).await?;
    let row = store::get(&mut tx, &actor, record_id, false).await?;
    tx.commit().await?;
    Ok(pb::UpdateCustomerServiceRecordResponse {
        record: Some(convert::record(row, actor.enterprise_id)),
    })
}
