//! Camera and viewing RPCs: validate → domain → store → response, each in
//! one tenant transaction under the caller's reach.

use chrono::Utc;
use fleetdesk_assets::vehicles;
use fleetdesk_kit::convert::id;
use fleetdesk_kit::list::{Paging, TimeRange};
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, ViewKind};
use super::store::{self, CameraQuery, NewView, ViewQuery};
use super::{PERMISSION, convert};
use crate::context::{Actor, Context};

fn org_ids(values: &[String]) -> Result<Vec<Uuid>, ServiceError> {
    values
        .iter()
        .filter(|v| !v.trim().is_empty())
        .map(|v| {
            Uuid::parse_str(v.trim()).map_err(|_| ServiceError::invalid("orgIds", "组织编号无效"))
        })
        .collect()
}

/// `ListCameraVehicles`: vehicles in reach with video channels, by plate.
pub async fn list(
    ctx: &Context,
    req: Request<pb::ListCameraVehiclesRequest>,
) -> Result<pb::ListCameraVehiclesResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListCameraVehiclesRequest {
        page,
        plate_search,
        org_ids: orgs,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let query = CameraQuery {
        plate_search: plate_search.trim().to_owned(),
        org_ids: vehicles::store::org_subtrees(&mut tx, org_ids(&orgs)?).await?,
    };
    let (rows, total) = store::cameras(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    let now = Utc::now();
    Ok(pb::ListCameraVehiclesResponse {
        vehicles: rows.into_iter().map(|r| convert::camera(r, now)).collect(),
        page: Some(paging.info(total)),
    })
}

/// A vehicle the caller sees (else NOT_FOUND) with its camera (else
/// 该车辆未配置摄像头).
async fn visible_camera(
    conn: &mut sqlx_postgres::PgConnection,
    actor: &Actor,
    vehicle_id: &str,
) -> Result<store::CameraRow, ServiceError> {
    let vehicle_id = id(vehicle_id.trim())?;
    vehicles::store::get(conn, actor, vehicle_id, false).await?;
    store::camera(conn, actor, vehicle_id)
        .await?
        .ok_or_else(domain::no_camera)
}

/// `GetCameraVehicle`: what the gateway needs before it asks the edge.
pub async fn get(
    ctx: &Context,
    req: Request<pb::GetCameraVehicleRequest>,
) -> Result<pb::GetCameraVehicleResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::GetCameraVehicleRequest { vehicle_id } = req.into_inner();
    let row = visible_camera(&mut tx, &actor, &vehicle_id).await?;
    db::end_read(tx);
    let phone = row.phone.clone();
    Ok(pb::GetCameraVehicleResponse {
        vehicle: Some(convert::camera(row, Utc::now())),
        phone,
    })
}

/// `StartVideoView`: one channel the vehicle has, watched live or played back.
pub async fn start_view(
    ctx: &Context,
    req: Request<pb::StartVideoViewRequest>,
) -> Result<pb::StartVideoViewResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::StartVideoViewRequest {
        vehicle_id,
        channel,
        kind,
    } = req.into_inner();
    let camera = visible_camera(&mut tx, &actor, &vehicle_id).await?;
    let channel = domain::channel(channel, camera.video_channels)?;
    let kind =
        ViewKind::from_pb(kind).ok_or_else(|| ServiceError::invalid("kind", "观看方式无效"))?;
    let view = NewView {
        id: Uuid::new_v4(),
        org_id: camera.org_id,
        vehicle_id: camera.vehicle_id,
        channel,
        kind,
    };
    store::insert_view(&mut tx, &actor, &view).await?;
    tx.commit().await?;
    tracing::info!(view = %view.id, vehicle = %view.vehicle_id, channel, ?kind, enterprise = %actor.enterprise_id, "Video viewing started.");
    Ok(pb::StartVideoViewResponse {
        view_id: view.id.to_string(),
    })
}

/// `EndVideoView`: sets the end once; NOT_FOUND for another's viewing.
pub async fn end_view(
    ctx: &Context,
    req: Request<pb::EndVideoViewRequest>,
) -> Result<pb::EndVideoViewResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let view = id(req.get_ref().view_id.trim())?;
    if !store::end_view(&mut tx, &actor, view).await? {
        return Err(ServiceError::not_found());
    }
    tx.commit().await?;
    Ok(pb::EndVideoViewResponse {})
}

/// `ListVideoViews`: the audit, newest first.
pub async fn views(
    ctx: &Context,
    req: Request<pb::ListVideoViewsRequest>,
) -> Result<pb::ListVideoViewsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let pb::ListVideoViewsRequest {
        page,
        vehicle_id,
        plate_search,
        started,
    } = req.into_inner();
    let paging = Paging::parse(page.as_ref())?;
    let vehicle_id = match vehicle_id.trim() {
        "" => None,
        v => Some(
            Uuid::parse_str(v).map_err(|_| ServiceError::invalid("vehicleId", "车辆编号无效"))?,
        ),
    };
    let query = ViewQuery {
        vehicle_id,
        plate_search: plate_search.trim().to_owned(),
        started: TimeRange::parse("started", started.as_ref())?,
    };
    let (rows, total) = store::views(&mut tx, &actor, &query, paging).await?;
    db::end_read(tx);
    let now = Utc::now();
    Ok(pb::ListVideoViewsResponse {
        views: rows
            .into_iter()
            .map(|r| convert::view(r, now))
            .collect::<Result<_, _>>()?,
        page: Some(paging.info(total)),
    })
}
