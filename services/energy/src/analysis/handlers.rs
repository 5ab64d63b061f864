//! Behaviour analysis RPCs: the analysis of a filter (overall, hours, SOC
//! at plug-in, organisations), its vehicles page by page and their export.
//! Sums are read in one tenant transaction; distances are asked of the
//! vehicle service after it ends.

use std::collections::HashMap;

use fleetdesk_kit::list::Paging;
use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::energy::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::domain::{self, Driven, Sums};
use super::store::{self, Slice};
use super::{PERMISSION, convert, distances, export};
use crate::context::{Actor, Context};
use crate::{accounts, exports};

pub async fn analyze(
    ctx: &Context,
    req: Request<pb::GetChargingBehaviorAnalysisRequest>,
) -> Result<pb::GetChargingBehaviorAnalysisResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let q = convert::query(&mut tx, &actor, req.get_ref().filter.as_ref()).await?;
    let groups = store::groups(&mut tx, &q).await?;
    let shares = store::shares(&mut tx, &q).await?;
    let org_ids: Vec<Uuid> = groups
        .iter()
        .filter(|g| g.dim == 1)
        .filter_map(|g| g.org_id)
        .collect();
    let org_names = accounts::store::org_names(&mut tx, &org_ids).await?;
    db::end_read(tx);

    let mut vehicles: Vec<Uuid> = shares.iter().map(|s| s.vehicle_id).collect();
    vehicles.sort_unstable();
    vehicles.dedup();
    let metres = distances::known(ctx.distances.as_ref(), &q, &vehicles).await;
    let (overall_driven, org_driven) = domain::driven(&shares, &metres);

    let mut overall = Sums::default();
    let mut hours: HashMap<i32, Sums> = HashMap::new();
    let mut buckets: HashMap<i32, Sums> = HashMap::new();
    let mut unknown_soc = 0;
    let mut orgs = Vec::new();
    for g in groups {
        match (g.dim, g.org_id, g.hour, g.bucket) {
            (0, ..) => overall = g.sums,
            (1, Some(org), ..) => orgs.push((org, g.sums)),
            (2, _, Some(hour), _) => {
                hours.insert(hour, g.sums);
            }
            (3, _, _, Some(bucket)) => {
                buckets.insert(bucket, g.sums);
            }
            (3, _, _, None) => unknown_soc = g.sums.session_count,
            (dim, ..) => tracing::error!(dim, "Unexpected analysis grouping."),
        }
    }
    orgs.sort_by(|(a_id, a), (b_id, b)| b.energy_wh.cmp(&a.energy_wh).then(a_id.cmp(b_id)));
    Ok(pb::GetChargingBehaviorAnalysisResponse {
        analysis: Some(pb::ChargingBehaviorAnalysis {
            overall: Some(domain::figures(&overall, &overall_driven)),
            by_hour: domain::hours(&hours),
            start_soc: domain::soc_buckets(&buckets),
            start_soc_unknown_count: unknown_soc,
            orgs: orgs
                .into_iter()
                .map(|(org, sums)| pb::OrgChargingBehavior {
                    org_id: org.to_string(),
                    org_name: org_names.get(&org).cloned().unwrap_or_default(),
                    figures: Some(domain::figures(
                        &sums,
                        &org_driven.get(&org).copied().unwrap_or(Driven::default()),
                    )),
                })
                .collect(),
        }),
    })
}

pub async fn vehicles(
    ctx: &Context,
    req: Request<pb::ListVehicleChargingBehaviorsRequest>,
) -> Result<pb::ListVehicleChargingBehaviorsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let r = req.get_ref();
    let paging = Paging::parse(r.page.as_ref())?;
    let q = convert::query(&mut tx, &actor, r.filter.as_ref()).await?;
    let rows = store::vehicles(&mut tx, &q, Slice::Page(paging)).await?;
    let total = store::vehicle_count(&mut tx, &q).await?;
    let org_ids: Vec<Uuid> = rows.iter().map(|v| v.org_id).collect();
    let org_names = accounts::store::org_names(&mut tx, &org_ids).await?;
    db::end_read(tx);
    let ids: Vec<Uuid> = rows.iter().map(|v| v.vehicle_id).collect();
    let metres = distances::known(ctx.distances.as_ref(), &q, &ids).await;
    Ok(pb::ListVehicleChargingBehaviorsResponse {
        vehicles: rows
            .into_iter()
            .map(|v| convert::vehicle(v, &org_names, &metres))
            .collect(),
        page: Some(paging.info(total)),
    })
}

pub async fn export(
    ctx: &Context,
    req: Request<pb::ExportVehicleChargingBehaviorsRequest>,
) -> Result<pb::ExportVehicleChargingBehaviorsResponse, ServiceError> {
    let (actor, mut tx) = Actor::begin(&ctx.pool, &req, PERMISSION).await?;
    accounts::store::require_opened(&mut tx, actor.enterprise_id).await?;
    let filter = req.into_inner().filter.unwrap_or_default();
    // Checked now, so a bad filter is refused instead of failing the job.
    convert::query(&mut tx, &actor, Some(&filter)).await?;
    let job = exports::start(&mut tx, &actor, export::job(&filter)).await?;
    tx.commit().await?;
    Ok(pb::ExportVehicleChargingBehaviorsResponse { job: Some(job) })
}
