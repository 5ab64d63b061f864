//! Monitoring RPCs: validate → store → response, in one tenant transaction
//! under the caller's reach.

use chrono::Utc;
use fleetdesk_assets::vehicles;
use fleetdesk_kit::convert::{datetime, id};
use fleetdesk_kit::list::{self, Paging};
use fleetdesk_kit::reach::Reach;
use fleetdesk_kit::{ServiceError, db, grpc};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, MAP_LIMIT, PositionStatus, SPEED_LIMIT_KMH, TrackRange};
use super::store::{self, LatestQuery};
use super::{PERMISSION, convert, export};
use crate::context::{Actor, Context};
use crate::exports;

fn org_ids(values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| {
            Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid("orgIds", "组织编号无效"))
        })
        .collect()
}

pub async fn list_latest(
    ctx: &Context,
    req: Request<pb::ListLatestPositionsRequest>,
) -> Result<pb::ListLatestPositionsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListLatestPositionsRequest {
        page,
        plate_numbers,
        vins,
        org_ids: orgs,
        online,
        bounds_south_west,
        bounds_north_east,
        statuses,
        plate_search,
        whole_map,
    } = req.into_inner();
    let paging = if whole_map {
        // One "page" of the whole map; one row more tells it was cut.
        Paging {
            page: 1,
            size: MAP_LIMIT + 1,
        }
    } else {
        Paging::parse(page.as_ref())?
    };
    let bounds = match (bounds_south_west, bounds_north_east) {
        (Some(sw), Some(ne)) => Some(((sw.latitude, sw.longitude), (ne.latitude, ne.longitude))),
        _ => None,
    };
    let query = LatestQuery {
        plates: list::batch("plateNumbers", &plate_numbers)?,
        vins: list::batch("vins", &vins)?,
        org_ids: vehicles::store::org_subtrees(&mut tx, org_ids(&orgs)?).await?,
        plate_search,
        online,
        bounds,
        statuses: statuses
            .into_iter()
            .filter_map(PositionStatus::from_pb)
            .map(i16::from)
            .collect(),
    };
    let mut rows = store::list_latest(&mut tx, &actor, &query, paging).await?;
    let counts = store::counts(&mut tx, &actor, &query).await?;
    let (truncated, total) = if whole_map {
        let cut = rows.len() as i64 > MAP_LIMIT;
        rows.truncate(MAP_LIMIT as usize);
        (cut, rows.len() as i64)
    } else if query.statuses.is_empty() {
        (false, counts.total)
    } else {
        (false, store::count_matching(&mut tx, &actor, &query).await?)
    };
    db::end_read(tx);
    let now = Utc::now();
    let int = |n: i64| i32::try_from(n).unwrap_or(i32::MAX);
    let online = counts.total - counts.offline;
    Ok(pb::ListLatestPositionsResponse {
        positions: rows.into_iter().map(|r| convert::latest(r, now)).collect(),
        page: Some(if whole_map {
            fleetdesk_kit::convert::page_info(1, total.max(1), total)
        } else {
            paging.info(total)
        }),
        summary: Some(pb::PositionSummary {
            total: int(counts.total),
            online_count: int(online),
            moving_count: int(counts.driving),
            stopped_count: int(online - counts.driving),
            offline_count: int(counts.offline),
            driving_count: int(counts.driving),
            parked_count: int(counts.parked),
            charging_count: int(counts.charging),
            alarm_count: int(counts.alarm),
        }),
        truncated,
    })
}

/// The range of a track request.
pub fn track_range(
    range: Option<&fleetdesk_proto::common::v1::TimeRange>,
) -> Result<TrackRange, ServiceError> {
    TrackRange::parse(
        range.and_then(|r| r.start.as_ref()).and_then(datetime),
        range.and_then(|r| r.end.as_ref()).and_then(datetime),
    )
}

pub async fn history(
    ctx: &Context,
    req: Request<pb::ListPositionHistoryRequest>,
) -> Result<pb::ListPositionHistoryResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListPositionHistoryRequest {
        vehicle_id,
        time_range,
        max_points,
    } = req.into_inner();
    let vehicle_id = id(&vehicle_id)?;
    // Not found (another tenant's, out of reach) comes before any other answer.
    let vehicle = vehicles::store::get(&mut tx, &actor, vehicle_id, false).await?;
    let range = track_range(time_range.as_ref())?;
    if max_points < 0 {
        return Err(ServiceError::invalid("maxPoints", "点数不能为负"));
    }
    let rows = store::history(&mut tx, actor.enterprise_id, vehicle_id, range).await?;
    db::end_read(tx);
    let points: Vec<domain::TrackPoint> = rows.iter().map(convert::track_point).collect();
    let stops = domain::stops(&points);
    let speeding = domain::speeding(&points, SPEED_LIMIT_KMH);
    let mileage_m = domain::distance_m(&points);
    let (vid, eid) = (vehicle_id.to_string(), actor.enterprise_id.to_string());
    let keep = domain::thin(rows.len(), usize::try_from(max_points).unwrap_or(0));
    let positions = match &keep {
        None => rows
            .iter()
            .map(|r| convert::fix(r, &vid, &eid, &vehicle.plate_number))
            .collect(),
        Some(indexes) => indexes
            .iter()
            .map(|i| convert::fix(&rows[*i], &vid, &eid, &vehicle.plate_number))
            .collect(),
    };
    Ok(pb::ListPositionHistoryResponse {
        positions,
        mileage_m,
        thinned: keep.is_some(),
        stops: stops.iter().map(convert::stop).collect(),
        speeding: speeding.iter().map(convert::speeding).collect(),
        plate_number: vehicle.plate_number,
    })
}

/// `ListVehicleDistances`: what each visible vehicle drove over a range by
/// its odometer (energy's cost per 100 km). Vehicles without a reading at
/// either end, or whose odometer went back, are left out.
pub async fn distances(
    ctx: &Context,
    req: Request<pb::ListVehicleDistancesRequest>,
) -> Result<pb::ListVehicleDistancesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListVehicleDistancesRequest {
        vehicle_ids,
        time_range,
    } = req.into_inner();
    let ids = list::batch("vehicleIds", &vehicle_ids)?
        .iter()
        .map(|v| id(v))
        .collect::<Result<Vec<Uuid>, _>>()?;
    if ids.is_empty() {
        return Err(ServiceError::invalid("vehicleIds", "请选择车辆"));
    }
    let range = TrackRange::parse_within(
        time_range
            .as_ref()
            .and_then(|r| r.start.as_ref())
            .and_then(datetime),
        time_range
            .as_ref()
            .and_then(|r| r.end.as_ref())
            .and_then(datetime),
        domain::MAX_DISTANCE_RANGE,
        "查询时间范围不能超过92天",
    )?;
    let rows = store::odometers(&mut tx, &actor, ids, range).await?;
    db::end_read(tx);
    let distances = rows
        .into_iter()
        .filter_map(|row| {
            let (start, end) = (row.start_m?, row.end_m?);
            Some(pb::VehicleDistance {
                vehicle_id: row.vehicle_id.to_string(),
                distance_m: domain::odometer_distance_m(start, end)?,
                start_odometer_m: start,
                end_odometer_m: end,
            })
        })
        .collect();
    Ok(pb::ListVehicleDistancesResponse { distances })
}

/// `ExportPositionHistory`: queues the export of one visible vehicle's track.
pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportPositionHistoryRequest>,
) -> Result<pb::ExportPositionHistoryResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let vehicle_id = id(&request.vehicle_id)?;
    let vehicle = vehicles::store::get(&mut tx, &actor, vehicle_id, false).await?;
    let range = track_range(request.time_range.as_ref())?;
    let job = exports::start(
        &mut tx,
        &actor,
        export::job(&request, &vehicle.plate_number, range),
    )
    .await?;
    tx.commit().await?;
    Ok(pb::ExportPositionHistoryResponse { job: Some(job) })
}

/// `WatchPositions`: the caller's live positions until they go away.
pub async fn watch(
    ctx: &Context,
    req: Request<pb::WatchPositionsRequest>,
) -> Result<
    tokio_stream::wrappers::ReceiverStream<Result<pb::WatchPositionsResponse, tonic::Status>>,
    ServiceError,
> {
    let requested = org_ids(&req.get_ref().org_ids)?;
    grpc::require_permission(&req, PERMISSION)?;
    let enterprise = grpc::tenant(&req)?;
    // The watcher resolves the claim itself, now and as the map stays open.
    let reach = Reach::of(grpc::caller(&req)?);
    let positions = ctx.live.watch(enterprise, reach, requested).await?;
    Ok(tokio_stream::wrappers::ReceiverStream::new(positions))
}
