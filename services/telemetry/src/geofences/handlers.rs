//! Geofence RPCs: validate → domain → store → response, each in one tenant
//! transaction under the caller's reach.

use chrono::{DateTime, Duration, FixedOffset, Utc};
use fleetdesk_assets::vehicles;
use fleetdesk_kit::convert::{id, timestamp};
use fleetdesk_kit::idempotency::{self, Claim};
use fleetdesk_kit::list::{Paging, TimeRange};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::GeofenceDraft;
use super::{PERMISSION, convert, export, store};
use crate::context::{Actor, Context};
use crate::exports;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListGeofencesRequest>,
) -> Result<pb::ListGeofencesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let mut query = convert::query(&request)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let rows = store::list(&mut tx, &actor, &query, paging).await?;
    let total = store::count(&mut tx, &actor, &query).await?;
    db::end_read(tx);
    Ok(pb::ListGeofencesResponse {
        geofences: rows
            .into_iter()
            .map(|r| convert::geofence(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetGeofenceRequest>,
) -> Result<pb::GetGeofenceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let fence = id(&req.get_ref().geofence_id)?;
    let row = store::get(&mut tx, &actor, fence, false).await?;
    db::end_read(tx);
    Ok(pb::GetGeofenceResponse {
        geofence: Some(convert::geofence(row, actor.enterprise_id)),
    })
}

pub async fn create(
    ctx: &Context,
    req: Request<pb::CreateGeofenceRequest>,
) -> Result<pb::CreateGeofenceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let draft = GeofenceDraft::parse(convert::fields(
        request.geofence.clone().unwrap_or_default(),
    ))?;
    vehicles::store::check_org(&mut tx, &actor, draft.org_id).await?;
    store::check_vehicles(&mut tx, &actor, &draft.vehicle_ids).await?;
    let reservation = match idempotency::claim(
        &mut tx,
        actor.enterprise_id,
        "CreateGeofence",
        actor.idempotency_key.clone(),
        &request,
    )
    .await?
    {
        Claim::Replay(answer) => return Ok(answer),
        Claim::Fresh(reservation) => reservation,
    };
    let fence = Uuid::new_v4();
    store::insert(&mut tx, &actor, fence, &draft).await?;
    let row = store::get(&mut tx, &actor, fence, false).await?;
    let answer = pb::CreateGeofenceResponse {
        geofence: Some(convert::geofence(row, actor.enterprise_id)),
    };
    reservation.complete(&mut tx, &answer).await?;
    tx.commit().await?;
    tracing::info!(%fence, enterprise = %actor.enterprise_id, "Geofence created.");
    Ok(answer)
}

pub async fn update(
    ctx: &Context,
    req: Request<pb::UpdateGeofenceRequest>,
) -> Result<pb::UpdateGeofenceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::UpdateGeofenceRequest {
        geofence_id,
        geofence,
    } = req.into_inner();
    let fence = id(&geofence_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    store::get(&mut tx, &actor, fence, true).await?;
    let draft = GeofenceDraft::parse(convert::fields(geofence.unwrap_or_default()))?;
    vehicles::store::check_org(&mut tx, &actor, draft.org_id).await?;
    store::check_vehicles(&mut tx, &actor, &draft.vehicle_ids).await?;
    store::update(&mut tx, &actor, fence, &draft).await?;
    let row = store::get(&mut tx, &actor, fence, false).await?;
    tx.commit().await?;
    Ok(pb::UpdateGeofenceResponse {
        geofence: Some(convert::geofence(row, actor.enterprise_id)),
    })
}

pub async fn delete(
    ctx: &Context,
    req: Request<pb::DeleteGeofenceRequest>,
) -> Result<pb::DeleteGeofenceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let fence = id(&req.get_ref().geofence_id)?;
    store::get(&mut tx, &actor, fence, true).await?;
    store::delete(&mut tx, &actor, fence).await?;
    tx.commit().await?;
    tracing::info!(%fence, enterprise = %actor.enterprise_id, "Geofence deleted.");
    Ok(pb::DeleteGeofenceResponse {})
}

pub async fn inside(
    ctx: &Context,
    req: Request<pb::ListVehiclesInGeofenceRequest>,
) -> Result<pb::ListVehiclesInGeofenceResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let fence = id(&req.get_ref().geofence_id)?;
    store::get(&mut tx, &actor, fence, false).await?;
    let rows = store::inside(&mut tx, &actor, fence).await?;
    db::end_read(tx);
    Ok(pb::ListVehiclesInGeofenceResponse {
        vehicles: rows
            .into_iter()
            .map(|r| pb::GeofenceVehicleInside {
                vehicle_id: r.vehicle_id.to_string(),
                plate_number: r.plate_number,
                entered_at: r.since.map(timestamp),
            })
            .collect(),
    })
}

pub async fn crossings(
    ctx: &Context,
    req: Request<pb::ListGeofenceCrossingsRequest>,
) -> Result<pb::ListGeofenceCrossingsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let mut query = convert::crossing_query(&request)?;
    query.org_ids = vehicles::store::org_subtrees(&mut tx, query.org_ids).await?;
    let rows = store::crossings(&mut tx, &actor, &query, paging).await?;
    let total = store::count_crossings(&mut tx, &actor, &query).await?;
    db::end_read(tx);
    Ok(pb::ListGeofenceCrossingsResponse {
        crossings: rows
            .into_iter()
            .map(|r| convert::crossing(r, actor.enterprise_id))
            .collect(),
        page: Some(paging.info(total)),
    })
}

/// `ExportGeofenceCrossings`: queues the crossings list's filter under the
/// caller's reach and answers the job at once.
pub async fn export_crossings(
    ctx: &Context,
    req: Request<pb::ExportGeofenceCrossingsRequest>,
) -> Result<pb::ExportGeofenceCrossingsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    let job = exports::start(&mut tx, &actor, export::job(&filter)?).await?;
    tx.commit().await?;
    Ok(pb::ExportGeofenceCrossingsResponse { job: Some(job) })
}

pub async fn sign_ins(
    ctx: &Context,
    req: Request<pb::ListGeofenceSignInsRequest>,
) -> Result<pb::ListGeofenceSignInsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let query = convert::sign_in_query(&request)?;
    let (rows, total) = store::SIGN_INS
        .list(&mut tx, &actor, &query, paging)
        .await?;
    db::end_read(tx);
    Ok(pb::ListGeofenceSignInsResponse {
        sign_ins: rows.into_iter().map(convert::sign_in).collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn alarms(
    ctx: &Context,
    req: Request<pb::ListGeofenceAlarmsRequest>,
) -> Result<pb::ListGeofenceAlarmsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let query = convert::alarm_query(&request)?;
    let (rows, total) = store::ALARMS.list(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    Ok(pb::ListGeofenceAlarmsResponse {
        alarms: rows.into_iter().map(convert::alarm).collect(),
        page: Some(paging.info(total)),
    })
}

/// Today in Asia/Shanghai, `[00:00, next 00:00)`.
fn today(now: DateTime<Utc>) -> TimeRange {
    let shanghai = FixedOffset::east_opt(8 * 3600).expect("UTC+8 is a valid offset");
    let start = now
        .with_timezone(&shanghai)
        .date_naive()
        .and_hms_opt(0, 0, 0)
        .and_then(|t| t.and_local_timezone(shanghai).single())
        .map(|t| t.with_timezone(&Utc));
    TimeRange {
        start,
        end: start.map(|s| s + Duration::days(1)),
    }
}

pub async fn dashboard(
    ctx: &Context,
    req: Request<pb::GetGeofenceDashboardRequest>,
) -> Result<pb::GetGeofenceDashboardResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetGeofenceDashboardRequest {
        org_ids,
        time_range,
    } = req.into_inner();
    // The organisations' fences (with their sub-organisations'): their
    // counts, crossings, dwell, alarms and the vehicles inside them.
    let orgs = convert::org_ids(&org_ids)?;
    let orgs = vehicles::store::org_subtrees(&mut tx, orgs).await?;
    let mut range = TimeRange::parse("timeRange", time_range.as_ref())?;
    if range.is_empty() {
        range = today(Utc::now());
    }
    if let (Some(s), Some(e)) = (range.start, range.end)
        && e - s > Duration::days(92)
    {
        return Err(ServiceError::invalid("timeRange", "统计时间范围最多 92 天"));
    }
    let totals = store::totals(&mut tx, &actor, &orgs).await?;
    let days = store::days(&mut tx, &actor, range, &orgs).await?;
    let dwell = store::dwell(&mut tx, &actor, range, &orgs).await?;
    let alarm_count = store::count_alarms(&mut tx, &actor, range, &orgs).await?;
    db::end_read(tx);
    let int = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
    let dashboard = pb::GeofenceDashboard {
        geofence_count: int(totals.fence_count),
        enabled_count: int(totals.enabled_count),
        vehicles_inside: int(totals.vehicles_inside),
        enter_count: int(days.iter().map(|d| d.entries).sum()),
        exit_count: int(days.iter().map(|d| d.exits).sum()),
        alarm_count: int(alarm_count),
        top_geofences: dwell
            .iter()
            .take(10)
            .map(|d| pb::GeofenceOccupancy {
                geofence_id: d.geofence_id.to_string(),
                geofence_name: d.name.clone(),
                vehicles_inside: 0,
                enter_count: int(d.entries),
                exit_count: int(d.exits),
            })
            .collect(),
        days: days
            .into_iter()
            .map(|d| pb::GeofenceDayCount {
                day: d.day,
                entries: int(d.entries),
                exits: int(d.exits),
            })
            .collect(),
        dwell: dwell
            .into_iter()
            .map(|d| pb::GeofenceDwell {
                geofence_id: d.geofence_id.to_string(),
                name: d.name,
                entries: int(d.entries),
                avg_dwell_seconds: whole_seconds(d.avg_dwell),
                max_dwell_seconds: d.max_dwell.unwrap_or(0),
            })
            .collect(),
    };
    Ok(pb::GetGeofenceDashboardResponse {
        dashboard: Some(dashboard),
    })
}

/// Whole seconds are what the dashboard shows.
#[allow(clippy::cast_possible_truncation)]
fn whole_seconds(seconds: Option<f64>) -> i64 {
    seconds.map_or(0, |s| s.round() as i64)
}
