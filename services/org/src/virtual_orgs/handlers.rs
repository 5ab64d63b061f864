//! The virtual-organisation lookup: validate → store → the reach's view.

use std::collections::HashMap;

use fleetdesk_kit::{ServiceError, db};
use fleetdesk_proto::org::v1 as pb;
use tonic::Request;
use uuid::Uuid;

use super::store::{self, VirtualOrgRow};
use crate::context::{self, Context};
use crate::orgs::store::{self as orgs_store, OrgUnitRow};
use crate::scope::domain::{sees_org, subtree};

/// Each virtual organisation with the grouped units the caller reaches and
/// every enabled unit below them that the caller reaches.
pub async fn list(
    ctx: &Context,
    request: Request<pb::ListVirtualOrgsRequest>,
) -> Result<pb::ListVirtualOrgsResponse, ServiceError> {
    let mut actor = context::actor(&request)?;
    let mut tx = db::begin_tenant(&ctx.pool, actor.enterprise_id).await?;
    context::resolve(&mut tx, &mut actor).await?;
    let units = orgs_store::org_units(&mut tx, actor.enterprise_id, false).await?;
    let groups = store::virtual_orgs(&mut tx, actor.enterprise_id).await?;
    let members = store::members(&mut tx, actor.enterprise_id).await?;
    tx.commit().await?;

    // Enabled units only: a disabled unit's subtree is disabled with it.
    let tree: Vec<(Uuid, Option<Uuid>)> = units.iter().map(|r| (r.id, r.parent_id)).collect();
    let by_id: HashMap<Uuid, &OrgUnitRow> = units.iter().map(|r| (r.id, r)).collect();
    let mut grouped: HashMap<Uuid, Vec<&OrgUnitRow>> = HashMap::new();
    for (group, org) in members {
        if let Some(row) = by_id
            .get(&org)
            .copied()
            .filter(|r| sees_org(&actor.reach, Some(r.id)))
        {
            grouped.entry(group).or_default().push(row);
        }
    }
    let virtual_orgs = groups
        .into_iter()
        .filter_map(|VirtualOrgRow { id, code, name }| {
            let rows = grouped.remove(&id)?;
            let roots: Vec<Uuid> = rows.iter().map(|r| r.id).collect();
            let below = subtree(&tree, &roots);
            Some(pb::VirtualOrg {
                id: id.to_string(),
                code,
                name,
                orgs: rows
                    .iter()
                    .map(|r| pb::OrgRef {
                        id: r.id.to_string(),
                        org_code: r.org_code.clone(),
                        name: r.name.clone(),
                    })
                    .collect(),
                // In the tree's order (level, sort, code).
                down_org_ids: units
                    .iter()
                    .filter(|r| below.contains(&r.id) && sees_org(&actor.reach, Some(r.id)))
                    .map(|r| r.id.to_string())
                    .collect(),
            })
        })
        .collect();
    Ok(pb::ListVirtualOrgsResponse { virtual_orgs })
}
