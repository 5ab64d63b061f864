//! The safety report's RPCs: validate → store → response, each read in one
//! tenant transaction under the caller's reach.

use fleetdesk_assets::vehicles;
use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::vehicle::v1 as pb;
use sqlx_postgres::PgConnection;
use tonic::Request;

use super::store::{self, SafetyQuery};
use super::{convert, domain, export};
use crate::alarms::RULE_PERMISSION;
use crate::context::{Actor, Context};
use crate::exports;
use crate::operation::PERMISSION;

/// A request's filter as a query: its days, organisation subtrees and the
/// enterprise's weights in force.
pub async fn query(
    conn: &mut PgConnection,
    actor: &Actor,
    filter: Option<&pb::SafetyFilter>,
) -> Result<SafetyQuery, ServiceError> {
    let (range, org_ids) = match filter {
        Some(pb::SafetyFilter {
            report_date,
            org_ids,
        }) => (
            convert::day_range(report_date.as_ref())?,
            convert::org_ids(org_ids)?,
        ),
        None => (convert::day_range(None)?, Vec::new()),
    };
    Ok(SafetyQuery {
        range,
        org_ids: vehicles::store::org_subtrees(&mut *conn, org_ids).await?,
        weights: store::weights(conn, actor.enterprise_id).await?,
    })
}

pub async fn summary(
    ctx: &Context,
    req: Request<pb::GetSafetySummaryRequest>,
) -> Result<pb::GetSafetySummaryResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let q = query(&mut tx, &actor, r.filter.as_ref()).await?;
    let (mileage, kinds) = store::summary(&mut tx, &actor, &q).await?;
    db::end_read(tx);
    let alarm_count = kinds.values().sum();
    Ok(pb::GetSafetySummaryResponse {
        mileage_m: mileage.mileage_m,
        alarm_count,
        alarms_per_100km: domain::per_100km(alarm_count, mileage.mileage_m),
        by_type: convert::type_rates(&kinds, mileage.mileage_m, &q.weights, true),
        vehicle_count: i32::try_from(mileage.vehicles).unwrap_or(i32::MAX),
        min_mileage_m: domain::MIN_MILEAGE_M,
    })
}

pub async fn ranking(
    ctx: &Context,
    req: Request<pb::ListSafetyRankingRequest>,
) -> Result<pb::ListSafetyRankingResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let paging = Paging::parse(r.page.as_ref())?;
    let dimension = convert::dimension(r.dimension)?;
    let q = query(&mut tx, &actor, r.filter.as_ref()).await?;
    let mut rows = store::ranking(
        &mut tx,
        &actor,
        &q,
        dimension,
        r.best_first,
        paging.offset(),
        paging.size,
    )
    .await?;
    // A page past the end still answers the total.
    let total = match rows.first() {
        Some(row) => row.total,
        None if paging.page > 1 => {
            store::ranking(&mut tx, &actor, &q, dimension, r.best_first, 0, 1)
                .await?
                .first()
                .map_or(0, |row| row.total)
        }
        None => 0,
    };
    db::end_read(tx);
    Ok(pb::ListSafetyRankingResponse {
        rows: rows
            .drain(..)
            .map(|row| convert::rank_row(row, &q.weights))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn trend(
    ctx: &Context,
    req: Request<pb::GetSafetyTrendRequest>,
) -> Result<pb::GetSafetyTrendResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin_list(&ctx.pool, &req, PERMISSION).await?;
    let r = req.into_inner();
    let q = query(&mut tx, &actor, r.filter.as_ref()).await?;
    let rows = store::trend(&mut tx, &actor, &q).await?;
    db::end_read(tx);
    Ok(pb::GetSafetyTrendResponse {
        weeks: convert::weeks(q.range, rows),
    })
}

pub async fn weights(
    ctx: &Context,
    req: Request<pb::GetSafetyWeightsRequest>,
) -> Result<pb::GetSafetyWeightsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let weights = store::weights(&mut tx, actor.enterprise_id).await?;
    db::end_read(tx);
    Ok(pb::GetSafetyWeightsResponse {
        weights: weights.iter().map(convert::weight).collect(),
    })
}

pub async fn update_weights(
    ctx: &Context,
    req: Request<pb::UpdateSafetyWeightsRequest>,
) -> Result<pb::UpdateSafetyWeightsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, RULE_PERMISSION).await?;
    let changes = convert::weight_changes(&req.get_ref().weights)?;
    store::set_weights(&mut tx, &actor, &changes).await?;
    let weights = store::weights(&mut tx, actor.enterprise_id).await?;
    tx.commit().await?;
    Ok(pb::UpdateSafetyWeightsResponse {
        weights: weights.iter().map(convert::weight).collect(),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportSafetyRankingRequest>,
) -> Result<pb::ExportSafetyRankingResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    let request = req.into_inner();
    let job = export::job(&request)?;
    let job = exports::start(&mut tx, &actor, job).await?;
    tx.commit().await?;
    Ok(pb::ExportSafetyRankingResponse { job: Some(job) })
}
