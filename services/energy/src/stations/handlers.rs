//! Station RPCs: the list (by name, per city, near a point, free DC now)
//! and one station, each with today's tariff. Stations are the operator's,
//! the same for every enterprise; the caller still needs the card permission.

use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;

use super::{PERMISSION, convert, store};
use crate::context::{Actor, Context};
use crate::tariffs;

pub async fn list(
    ctx: &Context,
    req: Request<pb::ListStationsRequest>,
) -> Result<pb::ListStationsResponse, ServiceError> {
    let (_actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let paging = Paging::parse(request.page.as_ref())?;
    let query = convert::query(&request)?;
    let (rows, total) = store::list(&mut tx, &query, paging).await?;
    let mut tariff_ids: Vec<_> = rows.iter().filter_map(|r| r.tariff_id).collect();
    tariff_ids.sort_unstable();
    tariff_ids.dedup();
    let periods = tariffs::store::periods_of(&mut tx, &tariff_ids).await?;
    db::end_read(tx);
    Ok(pb::ListStationsResponse {
        stations: rows
            .into_iter()
            .map(|r| convert::station(r, &periods))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn get(
    ctx: &Context,
    req: Request<pb::GetStationRequest>,
) -> Result<pb::GetStationResponse, ServiceError> {
    let (_actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let id = fleetdesk_kit::convert::id(&req.get_ref().station_id)?;
    let row = store::get(&mut tx, id).await?;
    let periods = tariffs::store::periods_of(&mut tx, row.tariff_id.as_slice()).await?;
    db::end_read(tx);
    Ok(pb::GetStationResponse {
        station: Some(convert::station(row, &periods)),
    })
}
