//! Accident RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach; every write logs its change in
//! the same transaction.

use chrono::Utc;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::{Paging, TimeRange, batch};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, AccidentDraft, Severity, Shown, Status};
use super::store::{self, AccidentQuery, Key, Placement};
use super::{PERMISSION, convert};
use crate::context::{Actor, Context};
use crate::lookup::{self, DriverRef};
use fleetdesk_assets::vehicles;

/// The case number's prefix (事故, SG + yyyymmdd + sequence).
const CASE_PREFIX: &str = "SG";

/// Ids of a repeated filter (blank values dropped); a malformed one is
/// refused naming `field`.
pub(crate) fn uuids(field: &str, values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .map(|v| v.trim())
        .filter(|v| !v.is_empty())
        .map(|v| Uuid::parse_str(v).map_err(|_| ServiceError::invalid(field, "编号无效")))
        .collect()
}

/// An optional id filter.
pub(crate) fn optional_id(field: &str, value: &str) -> Result<Option<Uuid>, ServiceError> {
    match value.trim() {
        "" => Ok(None),
        v => Uuid::parse_str(v)
            .map(Some)
            .map_err(|_| ServiceError::invalid(field, "编号无效")),
    }
}

/// Stored codes of a repeated enum filter (unknown values dropped).
pub(crate) fn codes<T: Copy + Into<i16>>(
    values: &[i32],
    from_pb: impl Fn(i32) -> Option<T>,
) -> Vec<i16> {
    values
        .iter()
        .filter_map(|v| from_pb(*v))
        .map(Into::into)
        .collect()
}

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListAccidentsRequest>,
) -> Result<pb::ListAccidentsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListAccidentsRequest {
        page,
        plate_numbers,
        vins,
        org_ids,
        driver_id,
        case_no,
        statuses,
        severities,
        accident_time,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let org_ids = uuids("orgIds", &org_ids)?;
    let query = AccidentQuery {
        plates: batch("plateNumbers", &plate_numbers)?,
        vins: batch("vins", &vins)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, org_ids).await?,
        driver: optional_id("driverId", &driver_id)?,
        case_no: Some(case_no.trim().to_owned()).filter(|c| !c.is_empty()),
        statuses: codes(&statuses, Status::from_pb),
        severities: codes(&severities, Severity::from_pb),
        accident_time: TimeRange::parse("accidentTime", accident_time.as_ref())?,
    };
    let (rows, total) = store::list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListAccidentsResponse {
        accidents: rows
            .into_iter()
            .map(|r| convert::accident(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetAccidentRequest>,
) -> Result<pb::GetAccidentResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetAccidentRequest {
        accident_id,
        fixed_loss_code,
    } = req.into_inner();
    let key = match (accident_id.trim(), fixed_loss_code.trim()) {
        (a, "") if !a.is_empty() => Key::Id(id(a)?),
        ("", c) if !c.is_empty() => Key::FixedLossCode(c.to_owned()),
        _ => {
            return Err(ServiceError::invalid(
                "accidentId",
                "请提供事故编号或定损编号其中之一",
            ));
        }
    };
    let row = store::get(&mut tx, &actor, &key, false).await?;
    let logs = store::logs(&mut tx, &actor, row.id).await?;
    db::end_read(tx);
    Ok(pb::GetAccidentResponse {
        accident: Some(convert::accident(row, actor.enterprise_id)),
        logs: logs.into_iter().map(convert::log_entry).collect(),
    })
}

/// The driver of a draft: the one it names, else the one bound to the
/// vehicle at the accident time.
async fn driver_of(
    tx: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    draft: &AccidentDraft,
) -> Result<Option<DriverRef>, ServiceError> {
    match draft.driver_id {
        Some(d) => Ok(Some(lookup::driver(tx, actor, "driverId", d).await?)),
        None => {
            lookup::driver_at(
                tx,
                actor.enterprise_id,
                draft.vehicle_id,
                draft.accident_time,
            )
            .await
        }
    }
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateAccidentRequest>,
) -> Result<pb::CreateAccidentResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::CreateAccidentRequest { accident } = req.into_inner();
    let now = Utc::now();
    let draft = AccidentDraft::parse(convert::fields(accident.unwrap_or_default()), now)?;
    let vehicle = lookup::vehicle(&mut tx, &actor, "vehicleId", draft.vehicle_id).await?;
    let driver = driver_of(&mut tx, &actor, &draft).await?;
    let accident_id = Uuid::new_v4();
    let case_no = lookup::next_number(&mut tx, actor.enterprise_id, CASE_PREFIX, now).await?;
    let placement = Placement {
        org_id: vehicle.org_id,
        driver: driver.as_ref(),
        status: Status::Reported,
    };
    store::save(&mut tx, &actor, accident_id, &case_no, &placement, &draft).await?;
    store::log(
        &mut tx,
        &actor,
        accident_id,
        &domain::created(&case_no, &vehicle.plate_number),
    )
    .await?;
    let row = store::get(&mut tx, &actor, &Key::Id(accident_id), false).await?;
    tx.commit().await?;
    tracing::info!(%accident_id, %case_no, "Accident recorded.");
    Ok(pb::CreateAccidentResponse {
        accident: Some(convert::accident(row, actor.enterprise_id)),
    })
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateAccidentRequest>,
) -> Result<pb::UpdateAccidentResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateAccidentRequest {
        accident_id,
        accident,
        status,
    } = req.into_inner();
    let accident_id = id(&accident_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    let stored = store::get(&mut tx, &actor, &Key::Id(accident_id), true).await?;
    let current: Status = fleetdesk_kit::codes::known(stored.status)?;
    let requested = match status {
        0 => None,
        s => Some(
            Status::from_pb(s).ok_or_else(|| ServiceError::invalid("status", "事故状态无效"))?,
        ),
    };
    let to = domain::next_status(current, requested)?;
    let draft = AccidentDraft::parse(convert::fields(accident.unwrap_or_default()), Utc::now())?;
    let vehicle = lookup::vehicle(&mut tx, &actor, "vehicleId", draft.vehicle_id).await?;
    let driver = driver_of(&mut tx, &actor, &draft).await?;
    let placement = Placement {
        org_id: vehicle.org_id,
        driver: driver.as_ref(),
        status: to,
    };
    store::save(
        &mut tx,
        &actor,
        accident_id,
        &stored.case_no,
        &placement,
        &draft,
    )
    .await?;
    let before = convert::draft(&stored)?;
    let remark = domain::changes(
        &Shown {
            draft: &before,
            plate_number: &stored.plate_number,
            driver_name: &stored.driver_name,
            status: current,
        },
        &Shown {
            draft: &draft,
            plate_number: &vehicle.plate_number,
            driver_name: driver.as_ref().map_or("", |d| d.name.as_str()),
            status: to,
        },
    );
    store::log(&mut tx, &actor, accident_id, &remark).await?;
    let row = store::get(&mut tx, &actor, &Key::Id(accident_id), false).await?;
    tx.commit().await?;
    Ok(pb::UpdateAccidentResponse {
        accident: Some(convert::accident(row, actor.enterprise_id)),
    })
}
